// SPDX-License-Identifier: Apache-2.0
#include <qcm/testing/testenvironment.h>

#include "certificateauthority.h"

#include <qcm/client/restclient.h>
#include <qcm/detail/yaml.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtNetwork/QTcpServer>

#include <csignal>

namespace qcm::testing {

using namespace qcm::client;

namespace {

const GroupVersionResource Crds {QStringLiteral("apiextensions.k8s.io"), QStringLiteral("v1"),
    QStringLiteral("customresourcedefinitions")};

int freePort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}

// The last `bytes` of a log file, for an Error.
QString tail(const QString &path, qsizetype bytes = 2000)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("(no log at %1)").arg(path);
    const QByteArray all = f.readAll();
    return QString::fromUtf8(all.right(bytes));
}

Error failure(const QString &step, const QString &reason)
{
    return Error {QStringLiteral("TestEnvironment"), step, reason};
}

// Polls `ready` every 100 ms until it holds or `timeout` passes.
template<typename F>
bool waitFor(Duration timeout, F ready)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!ready()) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        QThread::msleep(100);
    }
    return true;
}

// Whether a process of ours (perhaps detached, so not our child) runs; a zombie does not.
bool pidAlive(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype end = line.lastIndexOf(')');
    return end >= 0 && line.size() > end + 2 && line.at(end + 2) != 'Z';
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::optional<Error> writeFile(const QString &path, const QByteArray &content)
{
    // Kubeconfigs and tokens.csv hold credentials: the owner's alone.
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || !f.setPermissions(QFile::ReadOwner | QFile::WriteOwner)
        || f.write(content) != content.size())
        return Error {path, {}, f.errorString()};
    return std::nullopt;
}

// A kubeconfig (JSON, which is YAML) for one user of the environment's cluster.
QByteArray kubeconfigFile(const QString &server, const QString &caFile, const QString &user,
    const QJsonObject &credentials)
{
    const QJsonObject cluster {
        {QStringLiteral("server"), server}, {QStringLiteral("certificate-authority"), caFile}};
    const QJsonObject context {
        {QStringLiteral("cluster"), QStringLiteral("testenv")}, {QStringLiteral("user"), user}};
    return QJsonDocument(
        QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("kind"), QStringLiteral("Config")},
            {QStringLiteral("current-context"), user},
            {QStringLiteral("clusters"),
                QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("testenv")},
                    {QStringLiteral("cluster"), cluster}}}},
            {QStringLiteral("users"),
                QJsonArray {QJsonObject {
                    {QStringLiteral("name"), user}, {QStringLiteral("user"), credentials}}}},
            {QStringLiteral("contexts"),
                QJsonArray {QJsonObject {
                    {QStringLiteral("name"), user}, {QStringLiteral("context"), context}}}}})
        .toJson();
}

} // namespace

struct TestEnvironment::Private
{
    struct Running
    {
        Process info;
        std::unique_ptr<QProcess> child; // null when detached
    };

    Options options;
    std::unique_ptr<QTemporaryDir> temporary;
    QString directory;
    std::vector<Running> processes;
    QUrl etcd;
    RestConfig config;
    QString kubeconfig;

    QString path(const QString &name) const { return QDir(directory).filePath(name); }

    // Starts `name` with its output (stdout and stderr) in <name>.log, replacing an old log.
    std::optional<Error> launch(const QString &name, const QString &binary, const QStringList &args)
    {
        Running r;
        r.info.name = name;
        // The file itself, not a link that may be pointed elsewhere later (a restart by the
        // command line must run what was started).
        const QString program = QFileInfo(binary).canonicalFilePath();
        r.info.command = QStringList {program} + args;
        r.info.logFile = path(name + QStringLiteral(".log"));
        QFile::remove(r.info.logFile);
        auto p = std::make_unique<QProcess>();
        p->setProgram(program);
        p->setArguments(args);
        p->setStandardInputFile(QProcess::nullDevice());
        p->setStandardOutputFile(r.info.logFile, QIODevice::Append);
        p->setStandardErrorFile(r.info.logFile, QIODevice::Append);
        if (options.detached) {
            // Qt starts a detached process in a session of its own (setsid, then a second
            // fork), so a terminal's or test runner's signals to their group do not reach it.
            if (!p->startDetached(&r.info.pid))
                return failure(
                    name, QStringLiteral("cannot start %1: %2").arg(binary, p->errorString()));
        } else {
            p->start();
            if (!p->waitForStarted(10000))
                return failure(
                    name, QStringLiteral("cannot start %1: %2").arg(binary, p->errorString()));
            r.info.pid = p->processId();
            r.child = std::move(p);
        }
        processes.push_back(std::move(r));
        return std::nullopt;
    }

    bool alive(const Running &r) const
    {
        return r.child ? r.child->state() == QProcess::Running : pidAlive(r.info.pid);
    }

    // A process that has exited: an Error with the end of its log.
    std::optional<Error> exited() const
    {
        for (const Running &r : processes)
            if (!alive(r))
                return failure(r.info.name,
                    QStringLiteral("exited during start-up; its log ends: %1")
                        .arg(tail(r.info.logFile)));
        return std::nullopt;
    }

    // SIGTERM, then SIGKILL after 10 s.
    static void terminate(Running &r)
    {
        if (r.child) {
            if (r.child->state() != QProcess::NotRunning) {
                r.child->terminate();
                if (!r.child->waitForFinished(10000)) {
                    r.child->kill();
                    r.child->waitForFinished(5000);
                }
            }
            return;
        }
        if (!pidAlive(r.info.pid))
            return;
        ::kill(pid_t(r.info.pid), SIGTERM);
        if (!waitFor(std::chrono::seconds(10), [&] { return !pidAlive(r.info.pid); })) {
            ::kill(pid_t(r.info.pid), SIGKILL);
            waitFor(std::chrono::seconds(5), [&] { return !pidAlive(r.info.pid); });
        }
    }

    Result<AuthenticatedUser> issueUser(const QString &name, const QStringList &groups) const
    {
        auto subject = detail::userSubject(name, groups);
        if (!subject)
            return subject.error();
        if (auto e = detail::issueCertificate(
                directory, name, *subject, QStringLiteral("extendedKeyUsage=clientAuth")))
            return *e;
        AuthenticatedUser user;
        user.certificate
            = {path(name + QStringLiteral(".crt")), path(name + QStringLiteral(".key"))};
        user.config = config;
        user.config.bearerToken.clear();
        user.config.clientCertData = readFile(user.certificate.certificateFile);
        user.config.clientKeyData = readFile(user.certificate.keyFile);
        user.kubeconfigPath = path(name + QStringLiteral(".kubeconfig"));
        if (auto e = writeFile(user.kubeconfigPath,
                kubeconfigFile(config.server.toString(), path(QStringLiteral("ca.crt")), name,
                    {{QStringLiteral("client-certificate"), user.certificate.certificateFile},
                        {QStringLiteral("client-key"), user.certificate.keyFile}})))
            return *e;
        return user;
    }
};

TestEnvironment::TestEnvironment(Options options) : d(std::make_unique<Private>())
{
    d->options = std::move(options);
}

TestEnvironment::TestEnvironment() : TestEnvironment(QStringList()) { }

TestEnvironment::TestEnvironment(const QStringList &crdFiles) : d(std::make_unique<Private>())
{
    d->options.crdFiles = crdFiles;
}

TestEnvironment::~TestEnvironment()
{
    if (!d->options.detached)
        stop();
    else if (d->temporary && !d->processes.empty())
        d->temporary->setAutoRemove(false); // the processes still use it
}

bool TestEnvironment::isRunning() const
{
    for (const Private::Running &r : d->processes)
        if (r.info.name == QLatin1String("kube-apiserver"))
            return d->alive(r);
    return false;
}

RestConfig TestEnvironment::restConfig() const
{
    return d->config;
}

QString TestEnvironment::kubeconfigPath() const
{
    return d->kubeconfig;
}

QString TestEnvironment::directory() const
{
    return d->directory;
}

TestEnvironment::Certificate TestEnvironment::certificateAuthority() const
{
    if (d->directory.isEmpty())
        return {};
    return {d->path(QStringLiteral("ca.crt")), d->path(QStringLiteral("ca.key"))};
}

QUrl TestEnvironment::etcdUrl() const
{
    return d->etcd;
}

QList<TestEnvironment::Process> TestEnvironment::processes() const
{
    QList<Process> result;
    for (const Private::Running &r : d->processes)
        result.append(r.info);
    return result;
}

std::optional<Error> TestEnvironment::start()
{
    if (!d->processes.empty())
        return failure(QStringLiteral("start"), QStringLiteral("already started"));
    const QString assets = d->options.assetsDirectory.isEmpty()
        ? qEnvironmentVariable("QCM_TESTENV_ASSETS")
        : d->options.assetsDirectory;
    if (assets.isEmpty())
        return failure(QStringLiteral("assets"),
            QStringLiteral("no binaries: set QCM_TESTENV_ASSETS to a directory with etcd and "
                           "kube-apiserver (qcm-testenv-setup builds them)"));
    const QDir bin(assets);
    for (const char *name : {"etcd", "kube-apiserver"})
        if (!QFileInfo(bin.filePath(QLatin1String(name))).isExecutable())
            return failure(QStringLiteral("assets"),
                QStringLiteral("%1 has no executable %2").arg(assets, QLatin1String(name)));
    if (d->options.detached && d->options.directory.isEmpty())
        return failure(QStringLiteral("detached"),
            QStringLiteral("needs Options::directory: the processes outlive the object, and so "
                           "must the directory they use"));
    for (const TokenUser &user : std::as_const(d->options.tokenUsers))
        if (auto e = detail::checkUserName(user.name))
            return *e;
    for (const TokenUser &user : std::as_const(d->options.tokenUsers))
        for (const QString &field : QStringList {user.token, user.name, user.uid} + user.groups)
            if (field.isEmpty() || field.contains(QLatin1Char(','))
                || field.contains(QLatin1Char('"')) || field.contains(QLatin1Char('\n')))
                return failure(QStringLiteral("tokenUsers"),
                    QStringLiteral("user '%1': a token, name, uid or group is empty or holds ',', "
                                   "'\"' or a line break")
                        .arg(user.name));

    if (d->options.directory.isEmpty()) {
        d->temporary = std::make_unique<QTemporaryDir>(
            QDir::tempPath() + QStringLiteral("/qcm-testenv-XXXXXX"));
        if (!d->temporary->isValid())
            return failure(QStringLiteral("directory"), d->temporary->errorString());
        d->directory = d->temporary->path();
    } else {
        if (!QDir().mkpath(d->options.directory))
            return failure(QStringLiteral("directory"),
                QStringLiteral("cannot create %1").arg(d->options.directory));
        d->directory = QDir(d->options.directory).absolutePath();
        // It holds the CA's key and credentials (QTemporaryDir is 0700 too).
        if (!QFile::setPermissions(
                d->directory, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner))
            return failure(QStringLiteral("directory"),
                QStringLiteral("cannot make %1 the owner's alone").arg(d->directory));
        QDir(d->path(QStringLiteral("etcd-data"))).removeRecursively();
    }
    // From here on, a failure stops what started (and removes a temporary directory).
    const auto fail = [this](Error e) {
        stop();
        return e;
    };
    if (auto e = detail::makeCertificateAuthority(d->directory, QStringLiteral("qcm-testenv-ca")))
        return fail(*e);
    if (auto e = detail::issueCertificate(d->directory, QStringLiteral("serving"),
            QStringLiteral("/CN=kube-apiserver"),
            QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:kubernetes,"
                           "DNS:kubernetes.default,DNS:kubernetes.default.svc\n"
                           "extendedKeyUsage=serverAuth")))
        return fail(*e);
    if (auto e = detail::makePrivateKey(d->path(QStringLiteral("sa.key"))))
        return fail(*e);
    QByteArray tokens;
    for (const TokenUser &user : std::as_const(d->options.tokenUsers)) {
        // token,user,uid[,"group1,group2"]: no fourth column without groups (an empty one
        // would be a group named "").
        QString line = QStringLiteral("%1,%2,%3").arg(user.token, user.name, user.uid);
        if (!user.groups.isEmpty())
            line += QStringLiteral(",\"%1\"").arg(user.groups.join(QLatin1Char(',')));
        tokens += line.toUtf8() + '\n';
    }
    if (auto e = writeFile(d->path(QStringLiteral("tokens.csv")), tokens))
        return fail(*e);

    const int etcdPort = freePort();
    const int peerPort = freePort();
    const int port = freePort();
    d->config.server = QUrl(QStringLiteral("https://127.0.0.1:%1").arg(port));
    d->config.caData = readFile(d->path(QStringLiteral("ca.crt")));
    d->config.qps = 100;
    d->config.burst = 200;
    auto admin = d->issueUser(QStringLiteral("admin"), {QStringLiteral("system:masters")});
    if (!admin)
        return fail(admin.error());
    d->config = admin->config;
    d->kubeconfig = admin->kubeconfigPath;

    d->etcd = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(etcdPort));
    const QString etcdUrl = d->etcd.toString();
    const QString peerUrl = QStringLiteral("http://127.0.0.1:%1").arg(peerPort);
    if (auto e = d->launch(QStringLiteral("etcd"), bin.filePath(QStringLiteral("etcd")),
            {QStringLiteral("--name=default"),
                QStringLiteral("--data-dir=") + d->path(QStringLiteral("etcd-data")),
                QStringLiteral("--listen-client-urls=") + etcdUrl,
                QStringLiteral("--advertise-client-urls=") + etcdUrl,
                QStringLiteral("--listen-peer-urls=") + peerUrl,
                QStringLiteral("--initial-advertise-peer-urls=") + peerUrl,
                QStringLiteral("--initial-cluster=default=") + peerUrl,
                QStringLiteral("--unsafe-no-fsync"), QStringLiteral("--log-level=warn")}))
        return fail(*e);
    QStringList apiserverArgs {QStringLiteral("--etcd-servers=") + etcdUrl,
        QStringLiteral("--bind-address=127.0.0.1"), QStringLiteral("--advertise-address=127.0.0.1"),
        QStringLiteral("--secure-port=%1").arg(port), QStringLiteral("--cert-dir=") + d->directory,
        QStringLiteral("--tls-cert-file=") + d->path(QStringLiteral("serving.crt")),
        QStringLiteral("--tls-private-key-file=") + d->path(QStringLiteral("serving.key")),
        QStringLiteral("--client-ca-file=") + d->path(QStringLiteral("ca.crt")),
        QStringLiteral("--service-account-key-file=") + d->path(QStringLiteral("sa.key")),
        QStringLiteral("--service-account-signing-key-file=") + d->path(QStringLiteral("sa.key")),
        QStringLiteral("--service-account-issuer=https://kubernetes.default.svc"),
        QStringLiteral("--service-cluster-ip-range=10.0.0.0/24"),
        QStringLiteral("--authorization-mode=RBAC"),
        QStringLiteral("--endpoint-reconciler-type=none"),
        QStringLiteral("--allow-privileged=true"),
        // No controller-manager creates the "default" ServiceAccount this plugin wants.
        QStringLiteral("--disable-admission-plugins=ServiceAccount"),
        QStringLiteral("--profiling=false")};
    if (!d->options.tokenUsers.isEmpty())
        apiserverArgs.append(
            QStringLiteral("--token-auth-file=") + d->path(QStringLiteral("tokens.csv")));
    apiserverArgs += d->options.extraApiserverArgs;
    if (auto e = d->launch(QStringLiteral("kube-apiserver"),
            bin.filePath(QStringLiteral("kube-apiserver")), apiserverArgs))
        return fail(*e);

    {
        RestClient probe(d->config);
        std::optional<Error> exited;
        const bool ready = waitFor(d->options.startTimeout, [&] {
            exited = d->exited();
            return exited || probe.request("GET", QStringLiteral("/readyz")).code == 200;
        });
        if (exited)
            return fail(*exited);
        if (!ready)
            return fail(failure(QStringLiteral("kube-apiserver"),
                QStringLiteral("/readyz not 200 within the start timeout; its log ends: %1")
                    .arg(tail(d->path(QStringLiteral("kube-apiserver.log"))))));
    }
    for (const TokenUser &user : std::as_const(d->options.tokenUsers))
        if (auto e = writeFile(d->path(user.name + QStringLiteral(".kubeconfig")),
                kubeconfigFile(d->config.server.toString(), d->path(QStringLiteral("ca.crt")),
                    user.name, {{QStringLiteral("token"), user.token}})))
            return fail(*e);
    if (!d->options.crdFiles.isEmpty())
        if (auto e = installCrds(d->options.crdFiles))
            return fail(*e);
    return std::nullopt;
}

Result<TestEnvironment::AuthenticatedUser> TestEnvironment::addUser(
    const QString &name, const QStringList &groups)
{
    if (!isRunning())
        return failure(QStringLiteral("addUser"), QStringLiteral("the environment is not running"));
    if (auto e = detail::checkUserName(name))
        return *e;
    return d->issueUser(name, groups);
}

std::optional<Error> TestEnvironment::installCrds(const QStringList &files)
{
    if (!isRunning())
        return failure(
            QStringLiteral("installCrds"), QStringLiteral("the environment is not running"));
    RestClient rest(d->config);
    QStringList names;
    for (const QString &file : files) {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            return Error {file, {}, f.errorString()};
        auto docs = qcm::detail::loadYamlDocuments(f.read(16 * 1024 * 1024), file);
        if (!docs)
            return docs.error();
        for (const YAML::Node &node : *docs) {
            if (node.IsNull())
                continue;
            auto json = qcm::detail::yamlToJson(node, file, 256);
            if (!json)
                return json.error();
            Object crd(json->toObject());
            if (crd.kind() != QLatin1String("CustomResourceDefinition"))
                return Error {file, crd.name(),
                    QStringLiteral("not a CustomResourceDefinition but a %1").arg(crd.kind())};
            auto created = rest.create(Crds, {}, crd);
            if (!created && created.error().isAlreadyExists()) {
                auto current = rest.get(Crds, {}, crd.name());
                if (current) {
                    crd.setResourceVersion(current->resourceVersion());
                    created = rest.update(Crds, crd);
                }
            }
            if (!created)
                return Error {file, crd.name(), created.error().toString()};
            names.append(crd.name());
        }
    }
    for (const QString &name : std::as_const(names)) {
        const bool established = waitFor(d->options.startTimeout, [&] {
            const auto crd = rest.get(Crds, {}, name);
            if (!crd)
                return false;
            for (const QJsonValue &c : crd->json()
                                           .value(QLatin1String("status"))
                                           .toObject()
                                           .value(QLatin1String("conditions"))
                                           .toArray())
                if (c.toObject().value(QLatin1String("type")).toString()
                        == QLatin1String("Established")
                    && c.toObject().value(QLatin1String("status")).toString()
                        == QLatin1String("True"))
                    return true;
            return false;
        });
        if (!established)
            return failure(QStringLiteral("installCrds"),
                QStringLiteral("%1 was not established within the start timeout").arg(name));
    }
    return std::nullopt;
}

void TestEnvironment::stop()
{
    // The apiserver first, then etcd.
    for (auto it = d->processes.rbegin(); it != d->processes.rend(); ++it)
        Private::terminate(*it);
    d->processes.clear();
    d->temporary.reset();
    d->directory.clear();
    d->kubeconfig.clear();
    d->etcd.clear();
}

} // namespace qcm::testing
