// SPDX-License-Identifier: Apache-2.0
// qcm-gen's reader and writer: every bad input is an error naming the file, the place and
// the reason; names become identifiers; and the SDK's checked-in core, apps, batch and meta
// types are what qcm-gen makes of the Kubernetes spec today (as hack/verify-codegen.sh checks
// client-go's).
#include "emitter.h"
#include "schemareader.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtTest/QtTest>

using namespace qcm::gen;

class tst_QcmGen : public QObject
{
    Q_OBJECT

private slots:
    void crdErrors_data();
    void crdErrors();
    void openApiErrors_data();
    void openApiErrors();
    void limits();
    void identifiers_data();
    void identifiers();
    void generatedApiIsCurrent();
};

namespace {

QByteArray crd(const QByteArray &spec)
{
    return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: "
           "x}\nspec:\n"
        + spec;
}

const QByteArray GoodSpec
    = "  group: example.com\n  scope: Namespaced\n  names: {kind: Foo, plural: foos}\n"
      "  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object\n"
      "        properties:\n          spec: {type: object, properties: {a: {type: string}}}\n";

} // namespace

void tst_QcmGen::crdErrors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("error");
    QTest::newRow("malformed")
        << QByteArray("a: [b\n")
        << QStringLiteral(
               "crd.yaml: malformed YAML at line 2, column 1: end of sequence flow not found");
    // yaml-cpp's LoadAll yields documents without end on this (found by fuzz_crds).
    QTest::newRow("a stream without progress")
        << QByteArray("a: 1\n---\n,")
        << QStringLiteral(
               "crd.yaml: malformed YAML at line 3, column 1: no document can start here");
    QTest::newRow("not a crd")
        << QByteArray("apiVersion: v1\nkind: ConfigMap\n")
        << QStringLiteral(
               "crd.yaml: document 1: not an apiextensions.k8s.io/v1 CustomResourceDefinition");
    QTest::newRow("v1beta1")
        << QByteArray("apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n")
        << QStringLiteral(
               "crd.yaml: document 1: not an apiextensions.k8s.io/v1 CustomResourceDefinition");
    QTest::newRow("bad group")
        << crd(QByteArray(GoodSpec).replace("example.com", "Example_com"))
        << QStringLiteral(
               "crd.yaml: document 1.spec.group: \"Example_com\" is not a DNS subdomain");
    QTest::newRow("bad kind") << crd(QByteArray(GoodSpec).replace("kind: Foo", "kind: foo-bar"))
                              << QStringLiteral(
                                     "crd.yaml: document 1.spec.names.kind: \"foo-bar\" is not a "
                                     "kind (an upper-case letter, then letters and digits)");
    QTest::newRow("no versions") << crd(
        "  group: example.com\n  names: {kind: Foo, plural: foos}\n")
                                 << QStringLiteral(
                                        "crd.yaml: document 1.spec.versions: no versions");
    QTest::newRow("no schema") << crd(
        "  group: example.com\n  names: {kind: Foo, plural: foos}\n  versions:\n  - name: v1\n")
                               << QStringLiteral("crd.yaml: document 1.spec.versions: version v1 "
                                                 "has no schema.openAPIV3Schema with properties");
    QTest::newRow("bad version")
        << crd(QByteArray(GoodSpec).replace("name: v1", "name: V_1"))
        << QStringLiteral("crd.yaml: document 1.spec.versions: version \"V_1\" is not a DNS label");
    QTest::newRow("bad properties")
        << crd(QByteArray(GoodSpec).replace("properties: {a: {type: string}}", "properties: [a]"))
        << QStringLiteral("crd.yaml: example.com/v1.Foo.spec.properties: must be an object");
    QTest::newRow("empty file") << QByteArray(
        "# nothing\n") << QStringLiteral("crd.yaml: no CustomResourceDefinition in the file");
    QTest::newRow("second document")
        << (crd(GoodSpec) + "---\napiVersion: v1\nkind: Secret\n")
        << QStringLiteral(
               "crd.yaml: document 2: not an apiextensions.k8s.io/v1 CustomResourceDefinition");
    QTest::newRow("kind collides")
        << (crd(GoodSpec) + "---\n"
               + crd(QByteArray(GoodSpec).replace(
                   "kind: Foo, plural: foos", "kind: FooSpec, plural: foospecs")))
        << QStringLiteral("crd.yaml: document 2.spec.names.kind: kind FooSpec has the name of a "
                          "type generated for another kind of example/v1; put that CRD in a file "
                          "of its own with another namespace");
}

void tst_QcmGen::crdErrors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, error);
    const auto model = readCrds({QStringLiteral("crd.yaml"), yaml});
    QVERIFY(!model);
    QCOMPARE(model.error().toString(), error);
}

void tst_QcmGen::openApiErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("package");
    QTest::addColumn<QString>("error");
    QTest::newRow("not json") << QByteArray("{") << QStringLiteral("core/v1")
                              << QStringLiteral(
                                     "spec.json: invalid JSON at offset 1: unterminated object");
    QTest::newRow("no schemas")
        << QByteArray(R"({"paths":{}})") << QStringLiteral("core/v1")
        << QStringLiteral(
               "spec.json: components.schemas: missing or empty: not an OpenAPI v3 document");
    const QByteArray refs
        = R"({"components":{"schemas":{"io.k8s.api.core.v1.A":{"properties":{"b":{"$ref":"#/components/schemas/io.k8s.api.core.v1.Missing"}}},
        "io.k8s.api.policy.v1.P":{"properties":{"x":{"allOf":[{"$ref":"#/components/schemas/io.k8s.api.storage.v1.S"}]}}},
        "io.k8s.api.storage.v1.S":{"properties":{"y":{"type":"string"}}},
        "io.k8s.api.node.v1.N":{"properties":{"z":{"$ref":"http://elsewhere"}}}}}})";
    QTest::newRow("dangling ref")
        << refs << QStringLiteral("core/v1")
        << QStringLiteral("spec.json: io.k8s.api.core.v1.A.b: $ref "
                          "\"#/components/schemas/io.k8s.api.core.v1.Missing\" names no schema");
    QTest::newRow("package neither generated nor prebuilt")
        << refs << QStringLiteral("policy/v1")
        << QStringLiteral(
               "spec.json: io.k8s.api.policy.v1.P.x: refers to io.k8s.api.storage.v1.S, whose "
               "package storage/v1 is neither generated (--package) nor prebuilt in the SDK");
    QTest::newRow("foreign ref")
        << refs << QStringLiteral("node/v1")
        << QStringLiteral(
               "spec.json: io.k8s.api.node.v1.N.z: unsupported $ref \"http://elsewhere\"");
    QTest::newRow("no such package")
        << refs << QStringLiteral("apps/v1")
        << QStringLiteral("spec.json: apps/v1: no schema of this package in the documents given");
}

void tst_QcmGen::openApiErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, package);
    QFETCH(QString, error);
    const auto model = readOpenApi({{QStringLiteral("spec.json"), json}}, {package});
    QVERIFY(!model);
    QCOMPARE(model.error().toString(), error);
}

void tst_QcmGen::limits()
{
    GeneratorLimits small;
    small.inputBytes = 10;
    auto model = readCrds({QStringLiteral("crd.yaml"), crd(GoodSpec)}, {}, small);
    QVERIFY(!model);
    QCOMPARE(
        model.error().toString(), QStringLiteral("crd.yaml: larger than the limit of 10 bytes"));

    // Objects nested past the depth limit: an error, not a stack overflow.
    QByteArray deep
        = "        properties:\n          spec: {type: object, properties: {a: {type: string}}}\n";
    QByteArray nested = "{type: string}";
    for (int i = 0; i < 100; ++i)
        nested = "{type: object, properties: {n: " + nested + "}}";
    model = readCrds({QStringLiteral("crd.yaml"),
        crd(QByteArray(GoodSpec).replace("{a: {type: string}}", "{a: " + nested + "}"))});
    QVERIFY(!model);
    QVERIFY2(model.error().reason.contains(QStringLiteral("nest deeper than")),
        qPrintable(model.error().toString()));

    GeneratorLimits fewTypes;
    fewTypes.types = 1;
    model = readCrds({QStringLiteral("crd.yaml"), crd(GoodSpec)}, {}, fewTypes);
    QVERIFY(!model);
    QCOMPARE(model.error().reason, QStringLiteral("more than 1 struct types"));
}

void tst_QcmGen::identifiers_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("cpp");
    QTest::newRow("camel") << QStringLiteral("containerPort") << QStringLiteral("containerPort");
    QTest::newRow("keyword") << QStringLiteral("template") << QStringLiteral("template_");
    QTest::newRow("gnu macro") << QStringLiteral("linux") << QStringLiteral("linux_");
    QTest::newRow("dash") << QStringLiteral("max-size") << QStringLiteral("maxSize");
    QTest::newRow("dots") << QStringLiteral("a.b.c") << QStringLiteral("aBC");
    QTest::newRow("digit") << QStringLiteral("2fa") << QStringLiteral("f2fa");
    QTest::newRow("dollar") << QStringLiteral("$ref") << QStringLiteral("ref");
    QTest::newRow("nothing left") << QStringLiteral("--") << QStringLiteral("f");
    QTest::newRow("reserved") << QStringLiteral("build") << QStringLiteral("build_");
    QTest::newRow("underscore") << QStringLiteral("m_node") << QStringLiteral("mNode");
}

void tst_QcmGen::identifiers()
{
    QFETCH(QString, json);
    QFETCH(QString, cpp);
    QCOMPARE(cppIdentifier(json, reservedViewMembers()), cpp);
}

void tst_QcmGen::generatedApiIsCurrent()
{
    const QDir spec(QStringLiteral(QCM_OPENAPI_SPEC_DIR));
    QVERIFY2(spec.exists(QStringLiteral("api__v1_openapi.json")),
        "the Kubernetes OpenAPI spec is missing: scripts/setup.sh fetches the k8s.io/kubernetes "
        "module");
    QList<Input> documents;
    for (const char *name :
        {"api__v1_openapi.json", "apis__apps__v1_openapi.json", "apis__batch__v1_openapi.json"}) {
        QFile f(spec.filePath(QLatin1String(name)));
        QVERIFY(f.open(QIODevice::ReadOnly));
        documents.append({f.fileName(), f.readAll()});
    }
    const auto model = readOpenApi(documents,
        {QStringLiteral("meta/v1"), QStringLiteral("core/v1"), QStringLiteral("apps/v1"),
            QStringLiteral("batch/v1")});
    QVERIFY2(model, qPrintable(model.ok() ? QString() : model.error().toString()));
    const auto files = emitCpp(*model,
        {QStringLiteral("qcm/api"), QStringLiteral("QCM_SDK_EXPORT"),
            QStringLiteral("qcm/global.h")});
    QCOMPARE(files.size(), 8);
    const QDir sdk(QStringLiteral(QCM_SOURCE_DIR "/sdk"));
    for (const GeneratedFile &file : files) {
        QFile checkedIn(sdk.filePath(file.isHeader ? QStringLiteral("include/") + file.path
                                                   : QStringLiteral("src/api/") + file.path));
        QVERIFY2(checkedIn.open(QIODevice::ReadOnly), qPrintable(checkedIn.fileName()));
        QVERIFY2(checkedIn.readAll() == file.content,
            qPrintable(checkedIn.fileName()
                + QStringLiteral(" is not what qcm-gen makes: cmake --build build --target "
                                 "qcm_regenerate_api")));
    }
}

QTEST_APPLESS_MAIN(tst_QcmGen)
#include "tst_qcmgen.moc"
