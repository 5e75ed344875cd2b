// SPDX-License-Identifier: Apache-2.0
// The generated typed views and builders: the SDK's prebuilt core/v1, apps/v1 and batch/v1,
// and a CRD's, generated at build time by qcm_generate_types() (data/widget-crd.yaml). Reads
// give the same from a decoded Object's bytes as from a tree; optional fields are
// std::optional, defaults come from the schema; builders write exactly the fields set.
#include <example/v1.h>
#include <example/v2.h>
#include <qcm/api/apps/v1.h>
#include <qcm/api/batch/v1.h>
#include <qcm/api/core/v1.h>
#include <qcm/client/codec.h>

#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::api;
using client::Object;

namespace {

const QByteArray PodJson = R"({"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web-0","namespace":"default","labels":{"app":"web"}},
 "spec":{"nodeSelector":{"disktype":"ssd"},"restartPolicy":"Always",
  "containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80},{"containerPort":443,"protocol":"UDP","name":"q"}],
   "resources":{"limits":{"cpu":"500m","memory":128}}},{"name":"sidecar"}]}})";

// The same object, decoded (bytes) and made from a tree.
QList<Object> bothForms(const QByteArray &json)
{
    const auto decoded = client::LazyJsonCodec().decodeObject(json);
    return {*decoded, Object(QJsonDocument::fromJson(json).object())};
}

} // namespace

class tst_Views : public QObject
{
    Q_OBJECT

private slots:
    void podReads_data();
    void podReads();
    void kindsKnowTheirResource();
    void buildersWriteTheFieldsSet();
    void builtObjectsReadBack();
    void crdTypes_data();
    void crdTypes();
    void crdDefaultsAndRequired();
    void crdBuilders();
    void typedListItems();
};

void tst_Views::podReads_data()
{
    QTest::addColumn<Object>("object");
    const QList<Object> forms = bothForms(PodJson);
    QTest::newRow("bytes") << forms.at(0);
    QTest::newRow("tree") << forms.at(1);
}

void tst_Views::podReads()
{
    QFETCH(Object, object);
    const core::v1::Pod pod(object);
    QCOMPARE(pod.name(), QStringLiteral("web-0"));
    QCOMPARE(pod.metadata().name(), QStringLiteral("web-0"));
    QCOMPARE(pod.metadata().labels().value(QStringLiteral("app")), QStringLiteral("web"));
    const core::v1::PodSpec spec = pod.spec();
    QVERIFY(spec.isPresent());
    QVERIFY(!pod.status().isPresent());
    QVERIFY(!pod.status().phase()); // optional, absent
    QCOMPARE(spec.restartPolicy(), QStringLiteral("Always"));
    QCOMPARE(spec.nodeSelector().value(QStringLiteral("disktype")), QStringLiteral("ssd"));
    QVERIFY(!spec.nodeSelector().value(QStringLiteral("zone")));
    QCOMPARE(spec.containers().size(), 2);
    QStringList names;
    for (const core::v1::Container &c : spec.containers())
        names << c.name();
    QCOMPARE(names, (QStringList {QStringLiteral("nginx"), QStringLiteral("sidecar")}));
    const core::v1::Container nginx = spec.containers().at(0);
    QCOMPARE(nginx.image(), QStringLiteral("nginx:1.27"));
    QCOMPARE(nginx.ports().at(0).containerPort(), 80); // required: a plain qint32
    QCOMPARE(nginx.ports().at(0).protocol(), QStringLiteral("TCP")); // the schema's default
    QCOMPARE(nginx.ports().at(1).protocol(), QStringLiteral("UDP"));
    QVERIFY(!nginx.ports().at(0).name());
    QCOMPARE(nginx.ports().at(1).name(), QStringLiteral("q"));
    QVERIFY(!nginx.ports().at(0).hostPort()); // optional int
    QCOMPARE(nginx.resources().limits().value(QStringLiteral("cpu")), QStringLiteral("500m"));
    QCOMPARE(nginx.resources().limits().value(QStringLiteral("memory")), QStringLiteral("128"));
    QCOMPARE(nginx.resources().limits().keys(),
        (QStringList {QStringLiteral("cpu"), QStringLiteral("memory")}));
    // Past the end, or absent: an absent view that reads as absent all the way down.
    QVERIFY(!spec.containers().at(5).isPresent());
    QVERIFY(!spec.containers().at(5).image());
    QCOMPARE(spec.containers().at(1).ports().size(), 0);
    QCOMPARE(pod.object().key(), QStringLiteral("default/web-0"));
}

void tst_Views::kindsKnowTheirResource()
{
    QCOMPARE(core::v1::Pod::groupVersionResource(),
        (client::GroupVersionResource {QString(), QStringLiteral("v1"), QStringLiteral("pods")}));
    QVERIFY(core::v1::Pod::Namespaced);
    QVERIFY(!core::v1::Namespace::Namespaced);
    QVERIFY(!core::v1::Node::Namespaced);
    QCOMPARE(apps::v1::Deployment::groupVersionResource(),
        (client::GroupVersionResource {
            QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")}));
    QCOMPARE(batch::v1::Job::groupVersionKind(),
        (client::GroupVersionKind {
            QStringLiteral("batch"), QStringLiteral("v1"), QStringLiteral("Job")}));
    QCOMPARE(batch::v1::CronJob::groupVersionResource().resource, QStringLiteral("cronjobs"));
    QCOMPARE(core::v1::ConfigMap::groupVersionResource().resource, QStringLiteral("configmaps"));
}

void tst_Views::buildersWriteTheFieldsSet()
{
    using namespace apps::v1;
    const Object d
        = Deployment::build()
              .name(QStringLiteral("web"))
              .namespaceName(QStringLiteral("prod"))
              .labels({{QStringLiteral("app"), QStringLiteral("web")}})
              .spec(DeploymentSpec::build().replicas(3).template_(
                  core::v1::PodTemplateSpec::build().spec(core::v1::PodSpec::build().containers(
                      {core::v1::Container::build()
                              .name(QStringLiteral("c"))
                              .image(QStringLiteral("nginx"))}))))
              .object();
    const QJsonObject expected
        = QJsonDocument::fromJson(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "metadata":{"name":"web","namespace":"prod","labels":{"app":"web"}},
        "spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})")
              .object();
    QCOMPARE(d.json(), expected);
    QCOMPARE(d.key(), QStringLiteral("prod/web"));
    // Unset fields are not written (an apply configuration owns only what it sets).
    QCOMPARE(core::v1::ContainerPort::build().containerPort(80).toJson(),
        (QJsonObject {{QStringLiteral("containerPort"), 80}}));
    QCOMPARE(core::v1::ConfigMap::build()
                 .data({{QStringLiteral("k"), QStringLiteral("v")}})
                 .toJson()
                 .value(QStringLiteral("data")),
        QJsonValue(QJsonObject {{QStringLiteral("k"), QStringLiteral("v")}}));
}

void tst_Views::builtObjectsReadBack()
{
    const QDateTime when(QDate(2026, 11, 26), QTime(10, 0, 5), Qt::UTC);
    const Object job
        = batch::v1::Job::build()
              .name(QStringLiteral("j"))
              .spec(batch::v1::JobSpec::build().backoffLimit(2).ttlSecondsAfterFinished(60))
              .status(batch::v1::JobStatus::build().completionTime(when).succeeded(1))
              .object();
    const batch::v1::Job view(job);
    QCOMPARE(view.spec().backoffLimit(), 2);
    QCOMPARE(view.spec().ttlSecondsAfterFinished(), 60);
    QCOMPARE(view.status().completionTime(), when);
    QCOMPARE(job.json()
                 .value(QStringLiteral("status"))
                 .toObject()
                 .value(QStringLiteral("completionTime"))
                 .toString(),
        QStringLiteral("2026-11-26T10:00:05Z"));
    QCOMPARE(view.status().succeeded(), 1);
    QVERIFY(!view.status().failed());
}

void tst_Views::crdTypes_data()
{
    QTest::addColumn<Object>("object");
    const QByteArray json
        = R"({"apiVersion":"example.qcm.dev/v1","kind":"Widget","metadata":{"name":"w"},
      "spec":{"size":4,"color":"red","enabled":false,"retries":9,"ratio":0.25,"port":"http","expires":"2027-01-02T03:04:05Z",
       "template":{"default":"d","max-size":7},"parts":[{"name":"a","count":2},{"name":"b"}],"tags":["x","y"],
       "limits":{"l":"1"},"extra":{"any":[1,{"thing":true}]}},
      "status":{"ready":true,"conditions":[{"type":"Ready","status":"True"}]}})";
    const QList<Object> forms = bothForms(json);
    QTest::newRow("bytes") << forms.at(0);
    QTest::newRow("tree") << forms.at(1);
}

void tst_Views::crdTypes()
{
    QFETCH(Object, object);
    using namespace example::v1;
    const Widget w(object);
    const WidgetSpec spec = w.spec();
    QCOMPARE(spec.size(), 4);
    QCOMPARE(spec.color(), QStringLiteral("red"));
    QCOMPARE(spec.enabled(), false);
    QCOMPARE(spec.retries(), 9);
    QCOMPARE(spec.ratio(), 0.25);
    QVERIFY(spec.port() && !spec.port()->isInt());
    QCOMPARE(spec.port()->stringValue, QStringLiteral("http"));
    QCOMPARE(spec.expires(), QDateTime(QDate(2027, 1, 2), QTime(3, 4, 5), Qt::UTC));
    QCOMPARE(spec.template_().default_(), QStringLiteral("d")); // keywords get a '_'
    QCOMPARE(spec.template_().maxSize(), 7); // "max-size"
    QCOMPARE(spec.parts().size(), 2);
    QCOMPARE(spec.parts().at(0).count(), 2);
    QCOMPARE(spec.parts().at(1).count(), 1); // default
    QCOMPARE(spec.tags().toList(), (QList<QString> {QStringLiteral("x"), QStringLiteral("y")}));
    QCOMPARE(spec.limits().toMap().value(QStringLiteral("l")), QStringLiteral("1"));
    QCOMPARE(spec.extra().member("any").at(1).member("thing").toBool(), true);
    QCOMPARE(w.status().ready(), true);
    QCOMPARE(w.status().conditions().at(0).type(), QStringLiteral("Ready"));
    QCOMPARE(w.metadata().name(), QStringLiteral("w"));
}

void tst_Views::crdDefaultsAndRequired()
{
    using namespace example::v1;
    const Widget w(Object(
        QJsonObject {{QStringLiteral("spec"), QJsonObject {{QStringLiteral("port"), 8080}}}}));
    QCOMPARE(w.spec().size(), 0); // required, absent: the type's zero value
    QCOMPARE(w.spec().color(), QStringLiteral("blue"));
    QCOMPARE(w.spec().enabled(), true);
    QCOMPARE(w.spec().retries(), 3);
    QVERIFY(!w.spec().ratio());
    QVERIFY(!w.spec().expires());
    QVERIFY(w.spec().port()->isInt());
    QCOMPARE(*w.spec().port()->intValue, 8080);
    QVERIFY(!w.spec().extra().isPresent());
    // A field of another JSON type reads as absent, never as a wrong value.
    const Widget wrong(Object(QJsonObject {{QStringLiteral("spec"),
        QJsonObject {
            {QStringLiteral("ratio"), QStringLiteral("x")}, {QStringLiteral("size"), 1e12}}}}));
    QVERIFY(!wrong.spec().ratio());
    QCOMPARE(wrong.spec().size(), 0); // outside int32
    // The kinds' statics, from the CRD.
    QCOMPARE(Widget::groupVersionResource(),
        (client::GroupVersionResource {
            QStringLiteral("example.qcm.dev"), QStringLiteral("v1"), QStringLiteral("widgets")}));
    QVERIFY(Widget::Namespaced);
    QVERIFY(!Gadget::Namespaced);
    QCOMPARE(example::v2::Widget::groupVersionKind().version, QStringLiteral("v2"));
}

void tst_Views::crdBuilders()
{
    using namespace example::v1;
    const Object w = Widget::build()
                         .name(QStringLiteral("w"))
                         .spec(WidgetSpec::build()
                                   .size(2)
                                   .port(typed::IntOrString {8080, {}})
                                   .parts({WidgetSpecPart::build().name(QStringLiteral("p"))})
                                   .tags({QStringLiteral("t")})
                                   .limits({{QStringLiteral("a"), QStringLiteral("b")}})
                                   .extra(QJsonObject {{QStringLiteral("free"), 1}}))
                         .object();
    QCOMPARE(w.apiVersion(), QStringLiteral("example.qcm.dev/v1"));
    QCOMPARE(w.kind(), QStringLiteral("Widget"));
    const QJsonObject expected = QJsonDocument::fromJson(
        R"({"apiVersion":"example.qcm.dev/v1","kind":"Widget","metadata":{"name":"w"},
        "spec":{"size":2,"port":8080,"parts":[{"name":"p"}],"tags":["t"],"limits":{"a":"b"},"extra":{"free":1}}})")
                                     .object();
    QCOMPARE(w.json(), expected);
    QCOMPARE(example::v2::Widget::build()
                 .spec(example::v2::WidgetSpec::build().sizes({1, 2}))
                 .toJson()
                 .value(QStringLiteral("spec")),
        QJsonValue(QJsonObject {{QStringLiteral("sizes"), QJsonArray {1, 2}}}));
}

void tst_Views::typedListItems()
{
    const auto list
        = client::LazyJsonCodec().decodeObject(R"({"apiVersion":"v1","kind":"PodList","items":[
        {"metadata":{"name":"a","namespace":"n"},"spec":{"nodeName":"x"}},{"metadata":{"name":"b"}}]})");
    QVERIFY(list);
    const core::v1::PodList pods(*list);
    QCOMPARE(pods.items().size(), 2);
    QCOMPARE(pods.items().at(0).spec().nodeName(), QStringLiteral("x"));
    QCOMPARE(pods.items().at(0).name(), QStringLiteral("a"));
    QCOMPARE(pods.items().at(0).object().key(), QStringLiteral("n/a"));
    QCOMPARE(pods.items().at(1).name(), QStringLiteral("b"));
}

QTEST_APPLESS_MAIN(tst_Views)
#include "tst_views.moc"
