// SPDX-License-Identifier: Apache-2.0
// e2e: the configmap-restarter plugin in the real qcm against the real apiserver. Deployments
// reference ConfigMaps in each of the ways a pod template can; on start every one is adopted
// without a restart; a ConfigMap change that leaves its data alone restarts nothing; a data
// change restarts exactly the Deployments that reference that ConfigMap (their pod template
// gets the new hash), with an Event.
#include "sampleplugine2e.h"

using namespace qcm::client;
using namespace qcm::e2e;

class tst_ConfigMapRestarterE2e : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void restartsExactlyTheReferencingDeployments();
    void cleanupTestCase();

private:
    void createDeployment(const QString &name, const QJsonObject &podSpec);
    void setData(const QString &configMap, const QString &value);
    // spec.template of the Deployment: its pods' template, which only a restart changes.
    QJsonObject podTemplate(const QString &name)
    {
        return valueAt(m_client->get(m_deployments, m_ns, name), QStringLiteral("spec.template"))
            .toObject();
    }
    QString restartHash(const QString &name)
    {
        return podTemplate(name)
            .value(QLatin1String("metadata"))
            .toObject()
            .value(QLatin1String("annotations"))
            .toObject()
            .value(QLatin1String("qcm.io/configmap-hash"))
            .toString();
    }
    QString recordedHash(const QString &name)
    {
        return annotation(
            m_client->get(m_deployments, m_ns, name), QStringLiteral("qcm.io/configmap-hash"));
    }

    std::unique_ptr<RestClient> m_client;
    std::unique_ptr<QcmRun> m_qcm;
    QString m_ns;
    const GroupVersionResource m_deployments {
        QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")};
};

namespace {

QJsonObject container(const QString &name, const QJsonObject &extra = {})
{
    QJsonObject c = extra;
    c.insert(QStringLiteral("name"), name);
    c.insert(QStringLiteral("image"), QStringLiteral("busybox"));
    return c;
}

QJsonObject named(const QString &name)
{
    return QJsonObject {{QStringLiteral("name"), name}};
}

} // namespace

void tst_ConfigMapRestarterE2e::createDeployment(const QString &name, const QJsonObject &podSpec)
{
    Object d;
    d.setApiVersion(QStringLiteral("apps/v1"));
    d.setKind(QStringLiteral("Deployment"));
    d.setNamespaceName(m_ns);
    d.setName(name);
    const QJsonObject labels {{QStringLiteral("app"), name}};
    d.json().insert(QStringLiteral("spec"),
        QJsonObject {
            {QStringLiteral("selector"), QJsonObject {{QStringLiteral("matchLabels"), labels}}},
            {QStringLiteral("template"),
                QJsonObject {
                    {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("labels"), labels}}},
                    {QStringLiteral("spec"), podSpec}}}});
    const ObjectResult created = m_client->create(m_deployments, m_ns, d);
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
}

void tst_ConfigMapRestarterE2e::setData(const QString &configMap, const QString &value)
{
    const ObjectResult patched = m_client->patch(ConfigMaps, m_ns, configMap, PatchType::Merge,
        QJsonDocument(
            QJsonObject {{QStringLiteral("data"), QJsonObject {{QStringLiteral("k"), value}}}})
            .toJson(QJsonDocument::Compact));
    QVERIFY2(patched, qPrintable(patched ? QString() : patched.error().toString()));
}

void tst_ConfigMapRestarterE2e::initTestCase()
{
    m_client = std::make_unique<RestClient>(clusterConfig(QStringLiteral("admin")));
    m_ns = createNamespace(*m_client, QStringLiteral("cmrestart"));
    for (const char *name : {"a", "b", "c"})
        QVERIFY(m_client->create(ConfigMaps, m_ns,
            configMap(m_ns, QLatin1String(name), {{QStringLiteral("k"), QStringLiteral("1")}})));
    // Each way a pod template references a ConfigMap.
    createDeployment(QStringLiteral("env-a"),
        {{QStringLiteral("containers"),
            QJsonArray {container(QStringLiteral("c"),
                {{QStringLiteral("env"),
                    QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("K")},
                        {QStringLiteral("valueFrom"),
                            QJsonObject {{QStringLiteral("configMapKeyRef"),
                                QJsonObject {{QStringLiteral("name"), QStringLiteral("a")},
                                    {QStringLiteral("key"), QStringLiteral("k")}}}}}}}}})}}});
    createDeployment(QStringLiteral("volume-a"),
        {{QStringLiteral("containers"), QJsonArray {container(QStringLiteral("c"))}},
            {QStringLiteral("volumes"),
                QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("config")},
                    {QStringLiteral("configMap"), named(QStringLiteral("a"))}}}}});
    createDeployment(QStringLiteral("init-b"),
        {{QStringLiteral("initContainers"),
             QJsonArray {container(QStringLiteral("init"),
                 {{QStringLiteral("envFrom"),
                     QJsonArray {QJsonObject {
                         {QStringLiteral("configMapRef"), named(QStringLiteral("b"))}}}}})}},
            {QStringLiteral("containers"), QJsonArray {container(QStringLiteral("c"))}}});
    createDeployment(QStringLiteral("projected-c"),
        {{QStringLiteral("containers"), QJsonArray {container(QStringLiteral("c"))}},
            {QStringLiteral("volumes"),
                QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("all")},
                    {QStringLiteral("projected"),
                        QJsonObject {{QStringLiteral("sources"),
                            QJsonArray {QJsonObject {
                                {QStringLiteral("configMap"), named(QStringLiteral("c"))}}}}}}}}}});
    createDeployment(QStringLiteral("plain"),
        {{QStringLiteral("containers"), QJsonArray {container(QStringLiteral("c"))}}});

    m_qcm = std::make_unique<QcmRun>(QStringLiteral("configmap-restarter"));
    QVERIFY(m_qcm->start());
}

void tst_ConfigMapRestarterE2e::restartsExactlyTheReferencingDeployments()
{
    const QStringList referencing {QStringLiteral("env-a"), QStringLiteral("volume-a"),
        QStringLiteral("init-b"), QStringLiteral("projected-c")};
    // Adopted on start: the hashes recorded on the Deployments, the pods left alone.
    for (const QString &name : referencing)
        QTRY_VERIFY_WITH_TIMEOUT(!recordedHash(name).isEmpty(), 30000);
    QMap<QString, QJsonObject> templates;
    for (const QString &name : referencing + QStringList {QStringLiteral("plain")}) {
        templates.insert(name, podTemplate(name));
        QCOMPARE(restartHash(name), QString());
    }
    QCOMPARE(recordedHash(QStringLiteral("plain")), QString());
    QCOMPARE(recordedHash(QStringLiteral("env-a")), recordedHash(QStringLiteral("volume-a")));

    // a's labels change, its data does not. Then c's data changes: once projected-c has
    // restarted, the change of a has been handled too (one informer delivers both in order),
    // and nothing referencing a restarted.
    QVERIFY(m_client->patch(ConfigMaps, m_ns, QStringLiteral("a"), PatchType::Merge,
        R"({"metadata":{"labels":{"touched":"yes"}}})"));
    setData(QStringLiteral("c"), QStringLiteral("2"));
    QTRY_VERIFY_WITH_TIMEOUT(!restartHash(QStringLiteral("projected-c")).isEmpty(), 30000);
    QCOMPARE(
        restartHash(QStringLiteral("projected-c")), recordedHash(QStringLiteral("projected-c")));
    for (const char *name : {"env-a", "volume-a", "init-b", "plain"})
        QCOMPARE(podTemplate(QLatin1String(name)), templates.value(QLatin1String(name)));

    // a's data changes: env-a and volume-a restart, with one hash; init-b and plain do not.
    const QString before = recordedHash(QStringLiteral("env-a"));
    setData(QStringLiteral("a"), QStringLiteral("2"));
    QTRY_VERIFY_WITH_TIMEOUT(!restartHash(QStringLiteral("env-a")).isEmpty(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!restartHash(QStringLiteral("volume-a")).isEmpty(), 30000);
    const QString after = restartHash(QStringLiteral("env-a"));
    QVERIFY(after != before);
    QCOMPARE(restartHash(QStringLiteral("volume-a")), after);
    QCOMPARE(recordedHash(QStringLiteral("env-a")), after);
    // Only the annotation changed in the pod template.
    QJsonObject expected = templates.value(QStringLiteral("env-a"));
    QJsonObject metadata = expected.value(QLatin1String("metadata")).toObject();
    metadata.insert(QStringLiteral("annotations"),
        QJsonObject {{QStringLiteral("qcm.io/configmap-hash"), after}});
    expected.insert(QStringLiteral("metadata"), metadata);
    QCOMPARE(podTemplate(QStringLiteral("env-a")), expected);
    // The Event on the Deployment.
    QTRY_COMPARE_WITH_TIMEOUT(
        eventsAbout(*m_client, m_ns, QStringLiteral("env-a"), QStringLiteral("ConfigMapChanged"))
            .size(),
        1, 30000);
    QVERIFY(valueAt(
        eventsAbout(*m_client, m_ns, QStringLiteral("env-a"), QStringLiteral("ConfigMapChanged"))
            .first(),
        QStringLiteral("message"))
                .toString()
                .startsWith(QLatin1String("Restarting: the data of ConfigMap(s) a changed")));

    // b's data changes: init-b (an init container's envFrom) restarts.
    setData(QStringLiteral("b"), QStringLiteral("2"));
    QTRY_VERIFY_WITH_TIMEOUT(!restartHash(QStringLiteral("init-b")).isEmpty(), 30000);
    QCOMPARE(podTemplate(QStringLiteral("plain")), templates.value(QStringLiteral("plain")));
    // Four restarts in this namespace, each once (the log may arrive after the API's answer).
    QTRY_COMPARE(
        m_qcm->count(QRegularExpression(
            QStringLiteral("%1/[a-z-]+ Restarting: ").arg(QRegularExpression::escape(m_ns)))),
        4);
    QCOMPARE(restartHash(QStringLiteral("env-a")), after);
}

void tst_ConfigMapRestarterE2e::cleanupTestCase()
{
    if (m_qcm)
        m_qcm->stop();
    if (m_client && !m_ns.isEmpty())
        m_client->remove(Namespaces, {}, m_ns);
}

QTEST_GUILESS_MAIN(tst_ConfigMapRestarterE2e)
#include "tst_configmaprestarter.moc"
