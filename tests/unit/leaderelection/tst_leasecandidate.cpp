// SPDX-License-Identifier: Apache-2.0
// LeaseCandidate without a server: the configuration it refuses, each with the field and the
// rule, when a spec read from the server asks for a renewal (pingTime later than renewTime, to
// the microsecond), and which candidate the election controller cannot order against another
// (sameSecondTwin). Registration and pings on the real apiserver are in
// tests/e2e/leaderelection/tst_coordinated.cpp.
#include <qcm/leaderelection/leasecandidate.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::leaderelection;

class tst_LeaseCandidate : public QObject
{
    Q_OBJECT

private slots:
    void refusedConfigurations_data();
    void refusedConfigurations();
    void pingPending_data();
    void pingPending();
    void compareVersions_data();
    void compareVersions();
    void sameSecondTwin_data();
    void sameSecondTwin();
};

void tst_LeaseCandidate::refusedConfigurations_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("error");
    QTest::newRow("name with a slash")
        << "name"
        << "host/1"
        << "leasecandidate: name: \"host/1\" is not 1 to 253 letters, digits, '-', '_' or '.' "
           "(the API server's rule for LeaseCandidate names)";
    QTest::newRow("empty name") << "name"
                                << ""
                                << "leasecandidate: name: \"\" is not 1 to 253 letters, digits, "
                                   "'-', '_' or '.' (the API server's rule for LeaseCandidate "
                                   "names)";
    QTest::newRow("leading v") << "binaryVersion"
                               << "v1.36.0"
                               << "leasecandidate: binaryVersion: binaryVersion: \"v1.36.0\" is "
                                  "not a semantic version without a leading v (\"1.36.0\")";
    QTest::newRow("two parts") << "emulationVersion"
                               << "1.35"
                               << "leasecandidate: emulationVersion: emulationVersion: \"1.35\" "
                                  "is not a semantic version without a leading v (\"1.36.0\")";
    QTest::newRow("newer than the binary")
        << "emulationVersion"
        << "1.37.0"
        << "leasecandidate: emulationVersion: 1.37.0 is newer than the binary version 1.36.0 "
           "(the API server refuses it)";
    QTest::newRow("no lease") << "leaseName"
                              << ""
                              << "leasecandidate: namespaceName, leaseName: both are needed";
}

void tst_LeaseCandidate::refusedConfigurations()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, error);
    RestClient client(RestConfig {});
    LeaseCandidate::Config config {&client, QStringLiteral("kube-system"),
        QStringLiteral("host_0a1b"), QStringLiteral("qcm"), QStringLiteral("1.36.0"),
        QStringLiteral("1.35.0")};
    QVERIFY(LeaseCandidate::create(config)); // the base is good: underscores are allowed
    if (field == QLatin1String("name"))
        config.name = value;
    else if (field == QLatin1String("binaryVersion"))
        config.binaryVersion = value;
    else if (field == QLatin1String("emulationVersion"))
        config.emulationVersion = value;
    else
        config.leaseName = value;
    const auto created = LeaseCandidate::create(config);
    QVERIFY(!created);
    QCOMPARE(created.error().toString(), error);
}

void tst_LeaseCandidate::pingPending_data()
{
    QTest::addColumn<QByteArray>("spec");
    QTest::addColumn<bool>("pending");
    QTest::newRow("a microsecond later")
        << QByteArray(R"({"renewTime":"2026-11-27T11:40:00.123456Z",)"
                      R"("pingTime":"2026-11-27T11:40:00.123457Z"})")
        << true;
    QTest::newRow("answered: equal") << QByteArray(R"({"renewTime":"2026-11-27T11:40:00.123456Z",)"
                                                   R"("pingTime":"2026-11-27T11:40:00.123456Z"})")
                                     << false;
    QTest::newRow("answered: renewed after") << QByteArray(
        R"({"renewTime":"2026-11-27T11:40:01.000000Z","pingTime":"2026-11-27T11:40:00.999999Z"})")
                                             << false;
    QTest::newRow("seconds only") << QByteArray(
        R"({"renewTime":"2026-11-27T11:40:00Z","pingTime":"2026-11-27T11:40:00.5Z"})")
                                  << true;
    QTest::newRow("no ping") << QByteArray(R"({"renewTime":"2026-11-27T11:40:00.000000Z"})")
                             << false;
    QTest::newRow("never renewed")
        << QByteArray(R"({"pingTime":"2026-11-27T11:40:00.000000Z"})") << true;
    QTest::newRow("unreadable ping")
        << QByteArray(R"({"pingTime":"yesterday","renewTime":"2026-11-27T11:40:00Z"})") << false;
    QTest::newRow("not UTC") << QByteArray(
        R"({"pingTime":"2026-11-27T11:40:00+01:00","renewTime":"2026-11-27T09:40:00Z"})")
                             << false;
}

void tst_LeaseCandidate::pingPending()
{
    QFETCH(QByteArray, spec);
    QFETCH(bool, pending);
    QCOMPARE(LeaseCandidate::pingPending(QJsonDocument::fromJson(spec).object()), pending);
}

void tst_LeaseCandidate::compareVersions_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("order"); // -2: not comparable
    QTest::newRow("equal") << "1.36.0"
                           << "1.36.0" << 0;
    QTest::newRow("patch") << "0.0.8"
                           << "0.0.9" << -1;
    QTest::newRow("numeric, not textual") << "0.10.0"
                                          << "0.9.0" << 1;
    QTest::newRow("pre-release before release") << "1.0.0-alpha"
                                                << "1.0.0" << -1;
    QTest::newRow("numeric identifiers") << "1.0.0-alpha.2"
                                         << "1.0.0-alpha.10" << -1;
    QTest::newRow("numeric before alphanumeric") << "1.0.0-1"
                                                 << "1.0.0-alpha" << -1;
    QTest::newRow("longer pre-release") << "1.0.0-alpha.1"
                                        << "1.0.0-alpha" << 1;
    QTest::newRow("build metadata ignored") << "1.0.0+a"
                                            << "1.0.0+b" << 0;
    QTest::newRow("leading v") << "v1.0.0"
                               << "1.0.0" << -2;
    QTest::newRow("empty") << ""
                           << "1.0.0" << -2;
    QTest::newRow("ten digits") << "1234567890.0.0"
                                << "1.0.0" << -2;
}

void tst_LeaseCandidate::compareVersions()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, order);
    const std::optional<int> ab = LeaseCandidate::compareVersions(a, b);
    const std::optional<int> ba = LeaseCandidate::compareVersions(b, a);
    if (order == -2) {
        QVERIFY(!ab && !ba);
        return;
    }
    QVERIFY(ab && ba);
    QCOMPARE(*ab, order);
    QCOMPARE(*ba, -order);
}

namespace {

Object candidate(const QString &name, const QString &created, const QString &lease = "qcm",
    const QString &emulation = "0.1.0", const QString &binary = "0.1.0")
{
    return Object(QJsonObject {
        {"metadata", QJsonObject {{"name", name}, {"creationTimestamp", created}}},
        {"spec",
            QJsonObject {
                {"leaseName", lease}, {"emulationVersion", emulation}, {"binaryVersion", binary}}},
    });
}

} // namespace

void tst_LeaseCandidate::sameSecondTwin_data()
{
    QTest::addColumn<Object>("other");
    QTest::addColumn<bool>("twin");
    const QString second = QStringLiteral("2026-12-07T19:29:44Z");
    QTest::newRow("same second, same versions") << candidate("b", second) << true;
    QTest::newRow("versions equal by precedence")
        << candidate("b", second, "qcm", "0.1.0+build.7", "0.1.0+x") << true;
    QTest::newRow("one second later") << candidate("b", "2026-12-07T19:29:45Z") << false;
    QTest::newRow("another Lease") << candidate("b", second, "other") << false;
    QTest::newRow("an older emulation version") << candidate("b", second, "qcm", "0.0.9") << false;
    QTest::newRow("a newer binary version")
        << candidate("b", second, "qcm", "0.1.0", "0.2.0") << false;
    QTest::newRow("itself") << candidate("a", second) << false;
    QTest::newRow("no creationTimestamp") << candidate("b", QString()) << false;
    QTest::newRow("an unreadable version")
        << candidate("b", second, "qcm", "v0.1.0", "0.1.0") << false;
}

// The election controller (Kubernetes, read at v1.36.3) orders candidates of equal versions by
// their creationTimestamp, in whole seconds; a tie goes to whichever its cache lists first.
void tst_LeaseCandidate::sameSecondTwin()
{
    QFETCH(Object, other);
    QFETCH(bool, twin);
    const Object mine = candidate("a", "2026-12-07T19:29:44Z");
    const Object unrelated = candidate("c", "2026-12-07T19:29:40Z");
    QCOMPARE(
        LeaseCandidate::sameSecondTwin(mine, {unrelated, other}), twin ? other.name() : QString());
    if (twin) // either side sees the other
        QCOMPARE(LeaseCandidate::sameSecondTwin(other, {mine}), mine.name());
    QCOMPARE(LeaseCandidate::sameSecondTwin(candidate("a", QString()), {other}), QString());
}

QTEST_MAIN(tst_LeaseCandidate)
#include "tst_leasecandidate.moc"
