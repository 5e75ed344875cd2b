// SPDX-License-Identifier: Apache-2.0
// e2e: testing::TestEnvironment starts a real etcd and kube-apiserver of its own, installs a
// CRD, hands out a working RestConfig and a kubeconfig kubectl accepts, and stops cleanly; and
// it says what is wrong when it cannot start. Binaries: $QCM_TESTENV_ASSETS, set by CMake to
// the directory build-binaries.sh --assets (scripts/setup.sh) fills.
#include <qcm/client/client.h>
#include <qcm/testing/testenvironment.h>

#include <QtCore/QProcess>
#include <QtCore/QScopeGuard>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

#include <csignal>
#include <unistd.h>

using namespace qcm;
using namespace qcm::client;

class tst_TestEnvironment : public QObject
{
    Q_OBJECT

private slots:
    void startsInstallsAndStops();
    void missingAssetsSayWhatIsMissing();
    void aBadCrdFileIsAnError();
    void usersAreWhoTheirCredentialsSay();
    void aDirectoryIsKeptAndEachStartIsEmpty();
    void detachedProcessesOutliveTheObject();
};

namespace {

// kubectl from the assets, with a kubeconfig; its output (stdout and stderr) and exit code.
QPair<int, QString> kubectl(const QString &kubeconfig, const QStringList &args)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(qEnvironmentVariable("QCM_TESTENV_ASSETS") + QStringLiteral("/kubectl"),
        QStringList {QStringLiteral("--kubeconfig"), kubeconfig} + args);
    if (!p.waitForFinished(60000))
        return {-1, QStringLiteral("kubectl did not finish")};
    return {p.exitCode(), QString::fromUtf8(p.readAll()).trimmed()};
}

// The session a process runs in (field 6 of /proc/<pid>/stat).
qint64 sessionOf(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray line = stat.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    return fields.value(3).toLongLong(); // state ppid pgrp session
}

bool running(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    return line.mid(line.lastIndexOf(')') + 2, 1) != "Z";
}

} // namespace

void tst_TestEnvironment::startsInstallsAndStops()
{
    testing::TestEnvironment env({QStringLiteral(
        QCM_SOURCE_DIR "/plugins/sample-controller/artifacts/crd-status-subresource.yaml")});
    const std::optional<Error> error = env.start();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    QVERIFY(env.isRunning());
    const RestConfig config = env.restConfig();
    QCOMPARE(config.server.host(), QStringLiteral("127.0.0.1"));
    QVERIFY(!config.caData.isEmpty()); // verified TLS, not insecure
    QVERIFY(!config.insecureSkipTlsVerify);

    // The CRD is served: a Foo goes in and comes back.
    RestClient rest(config);
    DirectClient client(&rest);
    const GroupVersionResource foos {QStringLiteral("samplecontroller.k8s.io"),
        QStringLiteral("v1alpha1"), QStringLiteral("foos")};
    Object foo(QJsonObject {
        {QStringLiteral("apiVersion"), QStringLiteral("samplecontroller.k8s.io/v1alpha1")},
        {QStringLiteral("kind"), QStringLiteral("Foo")},
        {QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("deploymentName"), QStringLiteral("d")},
                {QStringLiteral("replicas"), 1}}}});
    foo.setNamespaceName(QStringLiteral("default"));
    foo.setName(QStringLiteral("example"));
    const auto created = client.create(foos, foo);
    QVERIFY2(created, qPrintable(created.ok() ? QString() : created.error().toString()));

    // kubectl, with the environment's kubeconfig, sees it.
    QProcess kubectl;
    kubectl.setProcessChannelMode(QProcess::MergedChannels);
    kubectl.start(qEnvironmentVariable("QCM_TESTENV_ASSETS") + QStringLiteral("/kubectl"),
        {QStringLiteral("--kubeconfig"), env.kubeconfigPath(), QStringLiteral("get"),
            QStringLiteral("foos"), QStringLiteral("-n"), QStringLiteral("default"),
            QStringLiteral("-o"), QStringLiteral("name")});
    QVERIFY(kubectl.waitForFinished(60000));
    const QString out = QString::fromUtf8(kubectl.readAll());
    QVERIFY2(kubectl.exitCode() == 0
            && out.trimmed() == QStringLiteral("foo.samplecontroller.k8s.io/example"),
        qPrintable(out));

    // Installing more later works too, and is idempotent.
    QVERIFY(!env.installCrds({QStringLiteral(
        QCM_SOURCE_DIR "/plugins/sample-controller/artifacts/crd-status-subresource.yaml")}));

    // stop(): the processes are gone and the port is closed.
    const QString kubeconfig = env.kubeconfigPath();
    env.stop();
    QVERIFY(!env.isRunning());
    QVERIFY(!QFile::exists(kubeconfig)); // the temporary directory is gone
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), quint16(config.server.port()));
    QVERIFY(!socket.waitForConnected(2000));
}

void tst_TestEnvironment::missingAssetsSayWhatIsMissing()
{
    QTemporaryDir empty;
    testing::TestEnvironment::Options options;
    options.assetsDirectory = empty.path();
    testing::TestEnvironment env(options);
    const auto error = env.start();
    QVERIFY(error);
    QCOMPARE(error->toString(),
        QStringLiteral("TestEnvironment: assets: %1 has no executable etcd").arg(empty.path()));
    QVERIFY(!env.isRunning());
}

void tst_TestEnvironment::aBadCrdFileIsAnError()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.yaml"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    f.close();
    testing::TestEnvironment env({bad});
    const auto error = env.start();
    QVERIFY(error);
    QCOMPARE(error->toString(),
        bad + QStringLiteral(": x: not a CustomResourceDefinition but a ConfigMap"));
}

void tst_TestEnvironment::usersAreWhoTheirCredentialsSay()
{
    testing::TestEnvironment::Options options;
    options.tokenUsers = {{QStringLiteral("reader-token"), QStringLiteral("reader"),
        QStringLiteral("1002"), {QStringLiteral("readers"), QStringLiteral("team-a")}}};
    testing::TestEnvironment env(options);
    const auto error = env.start();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    const auto viewer = env.addUser(QStringLiteral("viewer"), {QStringLiteral("viewers")});
    QVERIFY2(viewer, viewer ? "" : qPrintable(viewer.error().toString()));
    QCOMPARE(viewer->kubeconfigPath, env.directory() + QStringLiteral("/viewer.kubeconfig"));

    // kubectl with each kubeconfig: the API server knows who is asking.
    const QString whoami
        = QStringLiteral("-o=jsonpath={.status.userInfo.username} {.status.userInfo.groups}");
    auto admin
        = kubectl(env.kubeconfigPath(), {QStringLiteral("auth"), QStringLiteral("whoami"), whoami});
    QCOMPARE(admin.first, 0);
    QVERIFY2(admin.second.startsWith(QStringLiteral("admin [\"system:masters\"")),
        qPrintable(admin.second));
    auto cert = kubectl(
        viewer->kubeconfigPath, {QStringLiteral("auth"), QStringLiteral("whoami"), whoami});
    QCOMPARE(cert.first, 0);
    QVERIFY2(
        cert.second.startsWith(QStringLiteral("viewer [\"viewers\"")), qPrintable(cert.second));
    auto token = kubectl(env.directory() + QStringLiteral("/reader.kubeconfig"),
        {QStringLiteral("auth"), QStringLiteral("whoami"), whoami});
    QCOMPARE(token.first, 0);
    QVERIFY2(token.second.startsWith(QStringLiteral("reader [\"readers\",\"team-a\"")),
        qPrintable(token.second));

    // RBAC decides: the admin may list ConfigMaps, the new user may not.
    const GroupVersionResource configMaps {
        QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
    RestClient asAdmin(env.restConfig());
    QVERIFY(asAdmin.list(configMaps, QStringLiteral("default")).ok());
    RestClient asViewer(viewer->config);
    const auto denied = asViewer.list(configMaps, QStringLiteral("default"));
    QVERIFY(!denied.ok());
    QVERIFY2(denied.error().isForbidden(), qPrintable(denied.error().toString()));

    // A name openssl would read as more than a name is an error, not a certificate for someone
    // else ('+' starts another attribute of the subject: here, a group system:masters); the
    // environment's own names are refused too.
    for (const QString &name : {QStringLiteral("a/b"), QStringLiteral("eve+O=system:masters")}) {
        const auto bad = env.addUser(name, {});
        QVERIFY(!bad);
        QCOMPARE(bad.error().toString(),
            QStringLiteral("TestEnvironment: addUser: user name '%1' is empty or holds a "
                           "character other than letters, digits and \":._@-\"")
                .arg(name));
    }
    const auto group = env.addUser(QStringLiteral("eve"), {QStringLiteral("a+O=system:masters")});
    QVERIFY(!group);
    const auto reserved = env.addUser(QStringLiteral("ca"), {});
    QVERIFY(!reserved);
    QCOMPARE(reserved.error().toString(),
        QStringLiteral("TestEnvironment: user: 'ca' is the environment's own (admin, ca, "
                       "serving, sa and tokens are)"));
    QVERIFY(QFileInfo(env.certificateAuthority().keyFile).size() > 0); // untouched
}

void tst_TestEnvironment::aDirectoryIsKeptAndEachStartIsEmpty()
{
    QTemporaryDir dir;
    testing::TestEnvironment::Options options;
    options.directory = dir.filePath(QStringLiteral("cluster"));
    testing::TestEnvironment env(options);
    auto error = env.start();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    QCOMPARE(env.directory(), options.directory);
    auto created = kubectl(env.kubeconfigPath(),
        {QStringLiteral("create"), QStringLiteral("configmap"), QStringLiteral("left-behind")});
    QVERIFY2(created.first == 0, qPrintable(created.second));
    env.stop();
    // Kept: its logs and certificates.
    QVERIFY(QFileInfo(options.directory + QStringLiteral("/kube-apiserver.log")).size() > 0);
    QVERIFY(QFile::exists(options.directory + QStringLiteral("/ca.crt")));
    // The directory and the files with credentials are the owner's alone.
    const auto ownerOnly = QFile::ReadOwner | QFile::WriteOwner;
    QCOMPARE(QFileInfo(options.directory).permissions()
            & ~QFile::Permissions(QFile::ReadUser | QFile::WriteUser | QFile::ExeUser),
        ownerOnly | QFile::ExeOwner);
    for (const char *file : {"admin.kubeconfig", "admin.key", "ca.key", "sa.key", "tokens.csv"})
        QCOMPARE(QFileInfo(options.directory + QLatin1Char('/') + QLatin1String(file)).permissions()
                & ~QFile::Permissions(QFile::ReadUser | QFile::WriteUser),
            ownerOnly);

    // A second start in the same directory begins with an empty store.
    error = env.start();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    auto got = kubectl(env.kubeconfigPath(),
        {QStringLiteral("get"), QStringLiteral("configmap"), QStringLiteral("left-behind")});
    QVERIFY2(
        got.first != 0 && got.second.contains(QStringLiteral("NotFound")), qPrintable(got.second));
}

void tst_TestEnvironment::detachedProcessesOutliveTheObject()
{
    {
        testing::TestEnvironment::Options temporary; // detached needs a directory of the caller's
        temporary.detached = true;
        const auto error = testing::TestEnvironment(temporary).start();
        QVERIFY(error);
        QCOMPARE(error->toString(),
            QStringLiteral("TestEnvironment: detached: needs Options::directory: the processes "
                           "outlive the object, and so must the directory they use"));
    }
    QTemporaryDir dir;
    testing::TestEnvironment::Options options;
    options.directory = dir.path();
    options.detached = true;
    options.extraApiserverArgs = {QStringLiteral("--v=1")};
    QList<testing::TestEnvironment::Process> processes;
    RestConfig config;
    const auto killLeftovers = qScopeGuard([&] { // also when a check below fails
        for (const auto &p : std::as_const(processes))
            if (running(p.pid))
                ::kill(pid_t(p.pid), SIGKILL);
    });
    {
        testing::TestEnvironment env(options);
        const auto error = env.start();
        QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
        processes = env.processes();
        config = env.restConfig();
        QCOMPARE(processes.size(), 2);
        QCOMPARE(processes[0].name, QStringLiteral("etcd"));
        QCOMPARE(processes[1].name, QStringLiteral("kube-apiserver"));
        QCOMPARE(processes[1].command.last(), QStringLiteral("--v=1"));
        QCOMPARE(processes[1].logFile, dir.filePath(QStringLiteral("kube-apiserver.log")));
        QVERIFY(processes[0].command.contains(
            QStringLiteral("--listen-client-urls=") + env.etcdUrl().toString()));
        for (const auto &p : std::as_const(processes)) // a session of its own
            QVERIFY(sessionOf(p.pid) > 0 && sessionOf(p.pid) != qint64(::getsid(0)));
    }
    // The object is gone; the cluster still serves.
    for (const auto &p : std::as_const(processes))
        QVERIFY2(running(p.pid), qPrintable(p.name));
    RestClient rest(config);
    QCOMPARE(rest.request("GET", QStringLiteral("/readyz")).code, 200);
    for (auto it = processes.crbegin(); it != processes.crend(); ++it) {
        ::kill(pid_t(it->pid), SIGTERM);
        QTRY_VERIFY_WITH_TIMEOUT(!running(it->pid), 15000);
    }
}

QTEST_MAIN(tst_TestEnvironment)
#include "tst_testenvironment.moc"
