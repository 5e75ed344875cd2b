// SPDX-License-Identifier: Apache-2.0
// e2e: the sample-controller plugin in the real qcm against the real apiserver. The Foo CRD is
// applied from plugins/sample-controller/artifacts with kubectl; a Foo gets its Deployment,
// owned by it, with its replicas; the Deployment's status (written through the status
// subresource: no Deployment controller runs in the test cluster) reaches the Foo's status; a
// deleted Deployment comes back; a Deployment the Foo does not control is left alone, with a
// Warning Event and retries.
#include "sampleplugine2e.h"

using namespace qcm::client;
using namespace qcm::e2e;

class tst_SampleControllerE2e : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void fooOwnsItsDeployment();
    void deploymentNotControlledByTheFoo();
    void leaderElectionEventOnTheLease();
    void cleanupTestCase();

private:
    Object foo(const QString &name, const QString &deploymentName, int replicas) const;
    ObjectResult getFoo(const QString &name) { return m_client->get(m_foos, m_ns, name); }
    ObjectResult getDeployment(const QString &name)
    {
        return m_client->get(m_deployments, m_ns, name);
    }

    std::unique_ptr<RestClient> m_client;
    std::unique_ptr<QcmRun> m_qcm;
    QString m_ns;
    const GroupVersionResource m_foos {QStringLiteral("samplecontroller.k8s.io"),
        QStringLiteral("v1alpha1"), QStringLiteral("foos")};
    const GroupVersionResource m_deployments {
        QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")};
};

Object tst_SampleControllerE2e::foo(
    const QString &name, const QString &deploymentName, int replicas) const
{
    Object o;
    o.setApiVersion(QStringLiteral("samplecontroller.k8s.io/v1alpha1"));
    o.setKind(QStringLiteral("Foo"));
    o.setNamespaceName(m_ns);
    o.setName(name);
    o.json().insert(QStringLiteral("spec"),
        QJsonObject {{QStringLiteral("deploymentName"), deploymentName},
            {QStringLiteral("replicas"), replicas}});
    return o;
}

void tst_SampleControllerE2e::initTestCase()
{
    m_client = std::make_unique<RestClient>(clusterConfig(QStringLiteral("admin")));
    // The CRD the plugin ships, as its README says to install it.
    QVERIFY(kubectl({QStringLiteral("apply"), QStringLiteral("-f"),
        QStringLiteral(
            QCM_SOURCE_DIR "/plugins/sample-controller/artifacts/crd-status-subresource.yaml")}));
    QVERIFY(kubectl({QStringLiteral("wait"), QStringLiteral("--for=condition=Established"),
        QStringLiteral("--timeout=60s"), QStringLiteral("crd/foos.samplecontroller.k8s.io")}));
    m_ns = createNamespace(*m_client, QStringLiteral("samplecontroller"));
    m_qcm = std::make_unique<QcmRun>(QStringLiteral("sample-controller"));
    QVERIFY(m_qcm->start());
}

void tst_SampleControllerE2e::fooOwnsItsDeployment()
{
    const ObjectResult created = m_client->create(
        m_foos, m_ns, foo(QStringLiteral("example"), QStringLiteral("example-deploy"), 1));
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));

    // The Deployment, owned by the Foo, with its replicas.
    QTRY_VERIFY_WITH_TIMEOUT(getDeployment(QStringLiteral("example-deploy")).ok(), 30000);
    ObjectResult deployment = getDeployment(QStringLiteral("example-deploy"));
    const std::optional<OwnerReference> owner = deployment->controllerRef();
    QVERIFY(owner);
    QCOMPARE(owner->apiVersion, QStringLiteral("samplecontroller.k8s.io/v1alpha1"));
    QCOMPARE(owner->kind, QStringLiteral("Foo"));
    QCOMPARE(owner->name, QStringLiteral("example"));
    QCOMPARE(owner->uid, created->uid());
    QVERIFY(owner->blockOwnerDeletion);
    QCOMPARE(valueAt(deployment, QStringLiteral("spec.replicas")).toInt(), 1);
    QCOMPARE(valueAt(deployment, QStringLiteral("spec.template.metadata.labels")).toObject(),
        QJsonObject({{QStringLiteral("app"), QStringLiteral("nginx")},
            {QStringLiteral("controller"), QStringLiteral("example")}}));

    // The status subresource: nothing is available yet, and the Foo says so.
    QTRY_COMPARE_WITH_TIMEOUT(
        valueAt(getFoo(QStringLiteral("example")), QStringLiteral("status.availableReplicas")),
        QJsonValue(0), 30000);
    // The Event, on the API server (however the host records it).
    QTRY_VERIFY_WITH_TIMEOUT(
        !eventsAbout(*m_client, m_ns, QStringLiteral("example"), QStringLiteral("Synced"))
             .isEmpty(),
        30000);
    const Object synced
        = eventsAbout(*m_client, m_ns, QStringLiteral("example"), QStringLiteral("Synced")).first();
    QCOMPARE(valueAt(synced, QStringLiteral("type")).toString(), QStringLiteral("Normal"));
    QCOMPARE(valueAt(synced, QStringLiteral("message")).toString(),
        QStringLiteral("Foo synced successfully"));
    QCOMPARE(valueAt(synced, QStringLiteral("source.component")).toString(),
        QStringLiteral("sample-controller"));
    QCOMPARE(
        valueAt(synced, QStringLiteral("involvedObject.kind")).toString(), QStringLiteral("Foo"));
    QCOMPARE(valueAt(synced, QStringLiteral("involvedObject.uid")).toString(), created->uid());
    // As a user sees it, with kubectl: the host's source component for the controller.
    QString events;
    QVERIFY(kubectl(
        {QStringLiteral("get"), QStringLiteral("events"), QStringLiteral("-n"), m_ns,
            QStringLiteral("--field-selector"),
            QStringLiteral("involvedObject.name=example,reason=Synced"), QStringLiteral("-o"),
            QStringLiteral("custom-columns=SOURCE:.source.component,TYPE:.type,"
                           "REASON:.reason,OBJECT:.involvedObject.kind,"
                           "REPORTER:.reportingComponent"),
            QStringLiteral("--no-headers")},
        &events));
    QCOMPARE(events.simplified(),
        QStringLiteral("sample-controller Normal Synced Foo sample-controller"));
    // The host's broadcaster logged it (StartStructuredLogging), on the host's category.
    QVERIFY(m_qcm->waitForLog(QStringLiteral("qcm.events: Event occurred object=\"%1/example\" "
                                             "fieldPath=\"\" kind=\"Foo\" ")
                                  .arg(m_ns)));

    // More replicas on the Foo: the Deployment follows.
    QVERIFY(m_client->patch(
        m_foos, m_ns, QStringLiteral("example"), PatchType::Merge, R"({"spec":{"replicas":3}})"));
    QTRY_COMPARE_WITH_TIMEOUT(
        valueAt(getDeployment(QStringLiteral("example-deploy")), QStringLiteral("spec.replicas")),
        QJsonValue(3), 30000);

    // The Deployment's status, as a Deployment controller would write it, reaches the Foo.
    const ObjectResult status = m_client->patch(m_deployments, m_ns,
        QStringLiteral("example-deploy"), PatchType::Merge,
        R"({"status":{"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":2}})",
        {}, QStringLiteral("status"));
    QVERIFY2(status, qPrintable(status ? QString() : status.error().toString()));
    QTRY_COMPARE_WITH_TIMEOUT(
        valueAt(getFoo(QStringLiteral("example")), QStringLiteral("status.availableReplicas")),
        QJsonValue(2), 30000);

    // Deleted, the Deployment comes back (its deletion queues its owner).
    const QString firstUid = getDeployment(QStringLiteral("example-deploy"))->uid();
    QVERIFY(m_client->remove(m_deployments, m_ns, QStringLiteral("example-deploy")));
    QTRY_VERIFY_WITH_TIMEOUT(getDeployment(QStringLiteral("example-deploy")).ok()
            && getDeployment(QStringLiteral("example-deploy"))->uid() != firstUid,
        30000);
    deployment = getDeployment(QStringLiteral("example-deploy"));
    QCOMPARE(deployment->controllerRef()->uid, created->uid());
    QCOMPARE(valueAt(deployment, QStringLiteral("spec.replicas")).toInt(), 3);
    QVERIFY(m_qcm->isRunning());
}

void tst_SampleControllerE2e::deploymentNotControlledByTheFoo()
{
    // Someone else's Deployment.
    Object taken;
    taken.setApiVersion(QStringLiteral("apps/v1"));
    taken.setKind(QStringLiteral("Deployment"));
    taken.setNamespaceName(m_ns);
    taken.setName(QStringLiteral("taken"));
    const QJsonObject labels {{QStringLiteral("app"), QStringLiteral("taken")}};
    taken.json().insert(QStringLiteral("spec"),
        QJsonObject {{QStringLiteral("replicas"), 5},
            {QStringLiteral("selector"), QJsonObject {{QStringLiteral("matchLabels"), labels}}},
            {QStringLiteral("template"),
                QJsonObject {
                    {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("labels"), labels}}},
                    {QStringLiteral("spec"),
                        QJsonObject {{QStringLiteral("containers"),
                            QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("c")},
                                {QStringLiteral("image"), QStringLiteral("busybox")}}}}}}}}});
    const ObjectResult before = m_client->create(m_deployments, m_ns, taken);
    QVERIFY2(before, qPrintable(before ? QString() : before.error().toString()));

    QVERIFY(m_client->create(
        m_foos, m_ns, foo(QStringLiteral("intruder"), QStringLiteral("taken"), 1)));
    // The error; then retries after the backoff, with the same.
    const QString message
        = QStringLiteral("Resource \"taken\" already exists and is not managed by Foo");
    const QString error = QStringLiteral("error syncing \"%1/intruder\": Resource \"taken\" "
                                         "already exists and is not managed by Foo, requeuing")
                              .arg(m_ns);
    QVERIFY(m_qcm->waitForLog(error));
    QTRY_VERIFY_WITH_TIMEOUT(m_qcm->count(error) >= 3, 30000);
    // The Warning Event on the API server: one, counted up as it repeats (client-go's
    // correlator).
    QTRY_VERIFY_WITH_TIMEOUT(valueAt(eventsAbout(*m_client, m_ns, QStringLiteral("intruder"),
                                         QStringLiteral("ErrResourceExists"))
                                         .value(0),
                                 QStringLiteral("count"))
                                 .toInt()
            >= 2,
        30000);
    const Object event = eventsAbout(
        *m_client, m_ns, QStringLiteral("intruder"), QStringLiteral("ErrResourceExists"))
                             .first();
    QCOMPARE(valueAt(event, QStringLiteral("type")).toString(), QStringLiteral("Warning"));
    QCOMPARE(valueAt(event, QStringLiteral("message")).toString(), message);

    // Left as it was: not adopted, not scaled, not written at all.
    const ObjectResult after = getDeployment(QStringLiteral("taken"));
    QVERIFY(after);
    QCOMPARE(after->resourceVersion(), before->resourceVersion());
    QVERIFY(after->ownerReferences().isEmpty());
    QVERIFY(valueAt(getFoo(QStringLiteral("intruder")), QStringLiteral("status")).isUndefined());
}

// kube-controller-manager's lock writes "<identity> became leader" on its Lease; so does qcm's,
// through the host's broadcaster, as component qcm.
void tst_SampleControllerE2e::leaderElectionEventOnTheLease()
{
    const GroupVersionResource leases {
        QStringLiteral("coordination.k8s.io"), QStringLiteral("v1"), QStringLiteral("leases")};
    const ObjectResult lease = m_client->get(leases, QStringLiteral("kube-system"), m_qcm->lease());
    QVERIFY2(lease, qPrintable(lease ? QString() : lease.error().toString()));
    const QString identity = valueAt(lease, QStringLiteral("spec.holderIdentity")).toString();
    QVERIFY(!identity.isEmpty());
    const QStringList args {QStringLiteral("get"), QStringLiteral("events"), QStringLiteral("-n"),
        QStringLiteral("kube-system"), QStringLiteral("--field-selector"),
        QStringLiteral("involvedObject.kind=Lease,involvedObject.name=%1,reason=LeaderElection")
            .arg(m_qcm->lease()),
        QStringLiteral("-o"),
        QStringLiteral("custom-columns=TYPE:.type,SOURCE:.source.component,"
                       "UID:.involvedObject.uid,MESSAGE:.message"),
        QStringLiteral("--no-headers")};
    QString events;
    const QString expected
        = QStringLiteral("Normal qcm %1 %2 became leader").arg(lease->uid(), identity);
    auto listed = [&] { return kubectl(args, &events) && events.simplified().contains(expected); };
    QTRY_VERIFY_WITH_TIMEOUT(listed(), 30000);
}

void tst_SampleControllerE2e::cleanupTestCase()
{
    if (m_qcm)
        m_qcm->stop();
    if (m_client && !m_ns.isEmpty())
        m_client->remove(Namespaces, {}, m_ns);
}

QTEST_GUILESS_MAIN(tst_SampleControllerE2e)
#include "tst_samplecontroller.moc"
