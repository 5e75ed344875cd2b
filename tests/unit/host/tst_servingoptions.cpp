// SPDX-License-Identifier: Apache-2.0
// The serving and leader-election settings this part of the host adds: the flags
// (--leader-elect-release-on-cancel, --leader-elect-mode, --tls-cert-file,
// --tls-private-key-file) and their controller-manager.yaml fields, their defaults, bad values
// with precise messages, and the leader-election configuration the elector refuses, reported
// by configuration field and flag.
#include "config/config.h"
#include "config/options.h"
#include "leadership/leadership.h"

#include <qcm/leaderelection/leaderelector.h>

#include <qcm/version.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

class tst_ServingOptions : public QObject
{
    Q_OBJECT

private slots:
    void defaults();
    void flags();
    void boolFlagStandsAlone();
    void fileFields();
    void flagsOverrideTheFile();
    void badValues_data();
    void badValues();
    void helpDocumentsTheFlags();
    void authOptions();
    void authBadValues_data();
    void authBadValues();
    void leadershipFromTheConfiguration();
    void leadershipErrorsNameTheField_data();
    void leadershipErrorsNameTheField();
    void coordinatedLeadership_data();
    void coordinatedLeadership();
};

namespace {

Result<Options> parse(QStringList args)
{
    args.prepend(QStringLiteral("qcm"));
    return parseOptions(args);
}

ControllerManagerConfig applied(const QStringList &args)
{
    const auto o = parse(args);
    if (!o)
        qFatal("%s", qPrintable(o.error().toString()));
    ControllerManagerConfig config;
    o->applyTo(config);
    return config;
}

} // namespace

void tst_ServingOptions::defaults()
{
    const ControllerManagerConfig d;
    QCOMPARE(d.leaderElection.leaderElect, true); // kube-controller-manager's
    QCOMPARE(d.leaderElection.releaseOnCancel, true); // qcm's choice (docs/host.md)
    QCOMPARE(d.leaderElection.mode, LeaderElectionMode::RunOrDie); // kube-controller-manager's
    QCOMPARE(d.securePort, 10257);
    QCOMPARE(d.bindAddress, QStringLiteral("0.0.0.0"));
    QVERIFY(d.tlsCertFile.isEmpty() && d.tlsPrivateKeyFile.isEmpty()); // plain HTTP
    const ControllerManagerConfig none = applied({});
    QCOMPARE(none.leaderElection.releaseOnCancel, true);
    QCOMPARE(none.leaderElection.mode, LeaderElectionMode::RunOrDie);
}

void tst_ServingOptions::flags()
{
    const ControllerManagerConfig c = applied({QStringLiteral(
                                                   "--leader-elect-release-on-cancel=false"),
        QStringLiteral("--leader-elect-mode=rejoin"), QStringLiteral("--tls-cert-file=/tls/crt"),
        QStringLiteral("--tls-private-key-file"), QStringLiteral("/tls/key")});
    QCOMPARE(c.leaderElection.releaseOnCancel, false);
    QCOMPARE(c.leaderElection.mode, LeaderElectionMode::Rejoin);
    QCOMPARE(c.tlsCertFile, QStringLiteral("/tls/crt"));
    QCOMPARE(c.tlsPrivateKeyFile, QStringLiteral("/tls/key"));
    QCOMPARE(applied({QStringLiteral("--leader-elect-mode=run-or-die")}).leaderElection.mode,
        LeaderElectionMode::RunOrDie);
}

void tst_ServingOptions::boolFlagStandsAlone()
{
    // As pflag: a bool flag alone is true and does not take the next argument as its value.
    const auto o = parse({QStringLiteral("--leader-elect-release-on-cancel"),
        QStringLiteral("--leader-elect-mode"), QStringLiteral("rejoin")});
    QVERIFY(o.ok());
    QCOMPARE(o->releaseOnCancel, std::optional<bool>(true));
    QCOMPARE(o->leaderElectionMode, std::optional<LeaderElectionMode>(LeaderElectionMode::Rejoin));
}

void tst_ServingOptions::fileFields()
{
    const auto config = parseConfig(QByteArrayLiteral("leaderElection:\n"
                                                      "  releaseOnCancel: false\n"
                                                      "  mode: rejoin\n"
                                                      "serving:\n"
                                                      "  securePort: 10999\n"
                                                      "  tlsCertFile: tls/serving.crt\n"
                                                      "  tlsPrivateKeyFile: /abs/serving.key\n"),
        QStringLiteral("/etc/qcm/cm.yaml"));
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().toString()));
    QCOMPARE(config->leaderElection.releaseOnCancel, false);
    QCOMPARE(config->leaderElection.mode, LeaderElectionMode::Rejoin);
    QCOMPARE(config->securePort, 10999);
    // Relative to the file's directory, like the other paths.
    QCOMPARE(config->tlsCertFile, QStringLiteral("/etc/qcm/tls/serving.crt"));
    QCOMPARE(config->tlsPrivateKeyFile, QStringLiteral("/abs/serving.key"));
}

void tst_ServingOptions::flagsOverrideTheFile()
{
    auto config
        = parseConfig(QByteArrayLiteral("leaderElection: {releaseOnCancel: false, mode: rejoin}\n"),
            QStringLiteral("cm.yaml"));
    QVERIFY(config.ok());
    const auto o = parse({QStringLiteral("--leader-elect-release-on-cancel=true"),
        QStringLiteral("--leader-elect-mode=run-or-die")});
    QVERIFY(o.ok());
    o->applyTo(*config);
    QCOMPARE(config->leaderElection.releaseOnCancel, true);
    QCOMPARE(config->leaderElection.mode, LeaderElectionMode::RunOrDie);
}

void tst_ServingOptions::badValues_data()
{
    QTest::addColumn<QString>("yaml"); // empty: use `flag`
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("message");
    QTest::newRow("mode flag") << QString() << "--leader-elect-mode=restart"
                               << "--leader-elect-mode: must be run-or-die or rejoin, not "
                                  "\"restart\"";
    QTest::newRow("release flag")
        << QString() << "--leader-elect-release-on-cancel=maybe"
        << "--leader-elect-release-on-cancel: must be true or false, not \"maybe\"";
    QTest::newRow("mode field") << "leaderElection:\n  mode: RunOrDie\n"
                                << QString()
                                << "cm.yaml: leaderElection.mode: must be run-or-die or rejoin, "
                                   "not \"RunOrDie\" (line 2, column 9)";
    QTest::newRow("release field") << "leaderElection:\n  releaseOnCancel: sometimes\n"
                                   << QString()
                                   << "cm.yaml: leaderElection.releaseOnCancel: must be true or "
                                      "false, not \"sometimes\" (line 2, column 20)";
    QTest::newRow("unknown serving field")
        << "serving:\n  tlsKeyFile: x\n"
        << QString()
        << "cm.yaml: serving.tlsKeyFile: unknown field; the fields here are bindAddress, "
           "securePort, tlsCertFile, tlsPrivateKeyFile, tlsMinVersion, tlsCipherSuites, certDir, "
           "insecurePlainHttp, authentication, authorization (line 2, column 3)";
    QTest::newRow("TLS version flag")
        << QString() << "--tls-min-version=VersionTLS10"
        << "--tls-min-version: VersionTLS10 is not offered: TLS 1.0 and 1.1 are deprecated (RFC "
           "8996); use VersionTLS12 or VersionTLS13";
    QTest::newRow("TLS version field")
        << "serving:\n  tlsMinVersion: TLS1.3\n"
        << QString()
        << "cm.yaml: serving.tlsMinVersion: must be VersionTLS12 or VersionTLS13, not \"TLS1.3\" "
           "(line 2, column 18)";
    QTest::newRow("cipher suite field")
        << "serving:\n  tlsCipherSuites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, RC4]\n"
        << QString()
        << "cm.yaml: serving.tlsCipherSuites: unknown cipher suite \"RC4\"; the suites are "
           "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, "
           "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305, "
           "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, "
           "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305, "
           "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, "
           "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA, "
           "TLS_RSA_WITH_AES_128_GCM_SHA256, TLS_RSA_WITH_AES_256_GCM_SHA384, "
           "TLS_RSA_WITH_AES_128_CBC_SHA, TLS_RSA_WITH_AES_256_CBC_SHA (line 2, column 20)";
    QTest::newRow("cert file not a string")
        << "serving:\n  tlsCertFile: [a, b]\n"
        << QString() << "cm.yaml: serving.tlsCertFile: must be a path (line 2, column 16)";
}

void tst_ServingOptions::badValues()
{
    QFETCH(QString, yaml);
    QFETCH(QString, flag);
    QFETCH(QString, message);
    if (!yaml.isEmpty()) {
        const auto config = parseConfig(yaml.toUtf8(), QStringLiteral("cm.yaml"));
        QVERIFY(!config.ok());
        QCOMPARE(config.error().toString(), message);
    } else {
        const auto o = parse({flag});
        QVERIFY(!o.ok());
        QCOMPARE(o.error().toString(), message);
    }
}

void tst_ServingOptions::helpDocumentsTheFlags()
{
    const QString help = helpText().simplified();
    for (const char *text :
        {"--leader-elect-release-on-cancel <bool>", "--leader-elect-mode <mode>",
            "--tls-cert-file <file>", "--tls-private-key-file <file>", "(default run-or-die)"})
        QVERIFY2(help.contains(QLatin1String(text)), text);
    QVERIFY(help.contains(QLatin1String("kube-controller-manager never releases. (default true)")));
}

// The delegated-auth settings: kube-controller-manager's defaults, the file's fields (paths
// relative to the file), and the flags over them.
void tst_ServingOptions::authOptions()
{
    const ServingAuthConfig d;
    QCOMPARE(d.alwaysAllowPaths,
        QStringList(
            {QStringLiteral("/healthz"), QStringLiteral("/readyz"), QStringLiteral("/livez")}));
    QCOMPARE(d.tokenCacheTtl, Duration(std::chrono::seconds(10)));
    QCOMPARE(d.allowCacheTtl, Duration(std::chrono::seconds(10)));
    QCOMPARE(d.denyCacheTtl, Duration(std::chrono::seconds(10)));
    QVERIFY(d.clientCAFile.isEmpty());
    QVERIFY(!d.skipLookup);

    auto config = parseConfig(QByteArrayLiteral("serving:\n"
                                                "  authentication:\n"
                                                "    clientCAFile: pki/client-ca.crt\n"
                                                "    skipLookup: true\n"
                                                "    tokenCacheTTL: 1m\n"
                                                "  authorization:\n"
                                                "    alwaysAllowPaths: [/healthz, /metrics]\n"
                                                "    allowCacheTTL: 30s\n"
                                                "    denyCacheTTL: 2s\n"),
        QStringLiteral("/etc/qcm/cm.yaml"));
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().toString()));
    const ServingAuthConfig &a = config->servingAuth;
    QCOMPARE(a.clientCAFile, QStringLiteral("/etc/qcm/pki/client-ca.crt"));
    QVERIFY(a.skipLookup);
    QCOMPARE(a.tokenCacheTtl, Duration(std::chrono::minutes(1)));
    QCOMPARE(
        a.alwaysAllowPaths, QStringList({QStringLiteral("/healthz"), QStringLiteral("/metrics")}));
    QCOMPARE(a.allowCacheTtl, Duration(std::chrono::seconds(30)));
    QCOMPARE(a.denyCacheTtl, Duration(std::chrono::seconds(2)));

    const auto o = parse({QStringLiteral("--client-ca-file=/pki/ca.crt"),
        QStringLiteral("--authentication-skip-lookup=false"),
        QStringLiteral("--authentication-token-webhook-cache-ttl=5s"),
        QStringLiteral("--authorization-always-allow-paths=/healthz,/livez,/debug/*"),
        QStringLiteral("--authorization-webhook-cache-authorized-ttl=0s"),
        QStringLiteral("--authorization-webhook-cache-unauthorized-ttl=1s")});
    QVERIFY2(o.ok(), o.ok() ? "" : qPrintable(o.error().toString()));
    o->applyTo(*config);
    QCOMPARE(a.clientCAFile, QStringLiteral("/pki/ca.crt"));
    QVERIFY(!a.skipLookup);
    QCOMPARE(a.tokenCacheTtl, Duration(std::chrono::seconds(5)));
    QCOMPARE(a.alwaysAllowPaths,
        QStringList(
            {QStringLiteral("/healthz"), QStringLiteral("/livez"), QStringLiteral("/debug/*")}));
    QCOMPARE(a.allowCacheTtl, Duration::zero());
    QCOMPARE(a.denyCacheTtl, Duration(std::chrono::seconds(1)));
    // The bool flag stands alone, as pflag's.
    const auto alone = parse({QStringLiteral("--authentication-skip-lookup")});
    QVERIFY(alone.ok());
    QCOMPARE(alone->authenticationSkipLookup, std::optional<bool>(true));
}

void tst_ServingOptions::authBadValues_data()
{
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("message");
    QTest::newRow("path flag") << QString() << "--authorization-always-allow-paths=/healthz,metrics"
                               << "--authorization-always-allow-paths: \"metrics\" is not a path: "
                                  "it must start with /";
    QTest::newRow("path field") << "serving:\n  authorization:\n    alwaysAllowPaths: [/a*b]\n"
                                << QString()
                                << "cm.yaml: serving.authorization.alwaysAllowPaths: \"/a*b\": * "
                                   "may only end a path (a prefix) (line 3, column 23)";
    QTest::newRow("ttl flag") << QString() << "--authentication-token-webhook-cache-ttl=10"
                              << "--authentication-token-webhook-cache-ttl: missing unit in "
                                 "duration \"10\" (durations look like 300ms, 10s, 1m30s or 2h)";
    QTest::newRow("unknown field")
        << "serving:\n  authentication:\n    cacheTTL: 1s\n"
        << QString()
        << "cm.yaml: serving.authentication.cacheTTL: unknown field; the "
           "fields here are clientCAFile, skipLookup, tokenCacheTTL "
           "(line 3, column 5)";
}

void tst_ServingOptions::authBadValues()
{
    badValues();
}

void tst_ServingOptions::leadershipFromTheConfiguration()
{
    ControllerManagerConfig config;
    config.leaderElection.leaseDuration = 7s;
    config.leaderElection.renewDeadline = 5s;
    config.leaderElection.retryPeriod = 1s;
    config.leaderElection.resourceName = QStringLiteral("my-qcm");
    config.leaderElection.mode = LeaderElectionMode::Rejoin;
    config.leaderElection.releaseOnCancel = false;
    client::RestConfig rest;
    rest.server = QUrl(QStringLiteral("http://127.0.0.1:1"));
    const auto leadership = Leadership::create(config, rest, nullptr);
    QVERIFY2(leadership.ok(), leadership.ok() ? "" : qPrintable(leadership.error().toString()));
    const leaderelection::LeaderElectionConfig &le = (*leadership)->elector()->config();
    QCOMPARE(le.leaseDuration, Duration(7s));
    QCOMPARE(le.renewDeadline, Duration(5s));
    QCOMPARE(le.retryPeriod, Duration(1s));
    QCOMPARE(le.releaseOnCancel, false);
    QCOMPARE(le.mode, leaderelection::LeaderElectionConfig::Mode::Rejoin);
    QCOMPARE(le.name, QStringLiteral("my-qcm"));
    QVERIFY(le.watchLock);
    // kube-controller-manager's identity: <hostname>_<uuid>.
    QVERIFY2((*leadership)->identity().contains(QLatin1Char('_')),
        qPrintable((*leadership)->identity()));
    QVERIFY(!(*leadership)->elector()->isRunning());
    QCOMPARE((*leadership)->check(), std::nullopt); // a candidate is healthy
}

void tst_ServingOptions::leadershipErrorsNameTheField_data()
{
    QTest::addColumn<QString>("lock");
    QTest::addColumn<int>("lease");
    QTest::addColumn<int>("renew");
    QTest::addColumn<QString>("message");
    QTest::newRow("lock type")
        << "lease" << 15 << 10
        << "leaderElection.resourceLock (--leader-elect-resource-lock): invalid lock type "
           "\"lease\"; valid types are leases, configmaps, endpoints, endpointsleases, "
           "configmapsleases";
    QTest::newRow("renew >= lease")
        << "leases" << 10 << 10
        << "leaderElection.leaseDuration (--leader-elect-lease-duration): leaseDuration must be "
           "greater than renewDeadline";
}

void tst_ServingOptions::leadershipErrorsNameTheField()
{
    QFETCH(QString, lock);
    QFETCH(int, lease);
    QFETCH(int, renew);
    QFETCH(QString, message);
    ControllerManagerConfig config;
    config.leaderElection.resourceLock = lock;
    config.leaderElection.leaseDuration = seconds(lease);
    config.leaderElection.renewDeadline = seconds(renew);
    const auto leadership = Leadership::create(config, client::RestConfig(), nullptr);
    QVERIFY(!leadership.ok());
    QCOMPARE(leadership.error().toString(), message);
}

// leaderElection.coordinated: a coordinated elector (and a LeaseCandidate); what it refuses,
// each naming the field.
void tst_ServingOptions::coordinatedLeadership_data()
{
    QTest::addColumn<QString>("lock");
    QTest::addColumn<QString>("emulation");
    QTest::addColumn<QString>("message");
    QTest::newRow("qcm's own version") << "leases"
                                       << ""
                                       << "";
    QTest::newRow("older") << "leases"
                           << "0.0.9"
                           << "";
    QTest::newRow("not a Lease")
        << "configmaps"
        << ""
        << "leaderElection.coordinated: needs leaderElection.resourceLock leases, not configmaps";
    QTest::newRow("not semver") << "leases"
                                << "0.1"
                                << "leaderElection.emulationVersion: emulationVersion: \"0.1\" "
                                   "is not a semantic version without a leading v (\"1.36.0\")";
    QTest::newRow("newer than qcm")
        << "leases"
        << "9.0.0"
        << "leaderElection.emulationVersion: 9.0.0 is newer than the binary "
           "version " QCM_VERSION_STRING " (the API server refuses it)";
}

void tst_ServingOptions::coordinatedLeadership()
{
    QFETCH(QString, lock);
    QFETCH(QString, emulation);
    QFETCH(QString, message);
    ControllerManagerConfig config;
    config.leaderElection.resourceLock = lock;
    config.leaderElection.coordinated = true;
    config.leaderElection.emulationVersion = emulation;
    client::RestConfig rest;
    rest.server = QUrl(QStringLiteral("http://127.0.0.1:1"));
    const auto leadership = Leadership::create(config, rest, nullptr);
    if (!message.isEmpty()) {
        QVERIFY(!leadership.ok());
        QCOMPARE(leadership.error().toString(), message);
        return;
    }
    QVERIFY2(leadership.ok(), leadership.ok() ? "" : qPrintable(leadership.error().toString()));
    QVERIFY((*leadership)->elector()->config().coordinated);
}

QTEST_GUILESS_MAIN(tst_ServingOptions)
#include "tst_servingoptions.moc"
