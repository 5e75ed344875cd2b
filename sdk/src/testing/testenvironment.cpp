// SPDX-License-Identifier: Apache-2.0
#include <qcm/testing/testenvironment.h>

#include <qcm/client/restclient.h>
#include <qcm/detail/yaml.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtNetwork/QTcpServer>

namespace qcm::testing {

using namespace qcm::client;

namespace {

const GroupVersionResource Crds {QStringLiteral("apiextensions.k8s.io"), QStringLiteral("v1"),
    QStringLiteral("customresourcedefinitions")};
const GroupVersionResource Namespaces {
    QString(), QStringLiteral("v1"), QStringLiteral("namespaces")};

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

} // namespace

struct TestEnvironment::Private
{
    Options options;
    std::unique_ptr<QTemporaryDir> dir;
    std::unique_ptr<QProcess> etcd;
    std::unique_ptr<QProcess> apiserver;
    RestConfig config;
    QString kubeconfig;

    QString path(const QString &name) const { return dir->filePath(name); }

    std::unique_ptr<QProcess> launch(
        const QString &binary, const QStringList &args, const QString &log)
    {
        auto p = std::make_unique<QProcess>();
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->setStandardOutputFile(path(log));
        p->start(binary, args);
        return p;
    }

    static void terminate(std::unique_ptr<QProcess> &p)
    {
        if (!p)
            return;
        if (p->state() != QProcess::NotRunning) {
            p->terminate();
            if (!p->waitForFinished(10000)) {
                p->kill();
                p->waitForFinished(5000);
            }
        }
        p.reset();
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
    stop();
}

bool TestEnvironment::isRunning() const
{
    return d->apiserver && d->apiserver->state() == QProcess::Running;
}

RestConfig TestEnvironment::restConfig() const
{
    return d->config;
}

QString TestEnvironment::kubeconfigPath() const
{
    return d->kubeconfig;
}

std::optional<Error> TestEnvironment::start()
{
    if (d->apiserver)
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

    d->dir
        = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/qcm-testenv-XXXXXX"));
    if (!d->dir->isValid())
        return failure(QStringLiteral("directory"), d->dir->errorString());
    // The service-account signing key the apiserver insists on.
    QProcess openssl;
    openssl.setProcessChannelMode(QProcess::MergedChannels);
    openssl.start(QStringLiteral("openssl"),
        {QStringLiteral("genrsa"), QStringLiteral("-out"), d->path(QStringLiteral("sa.key")),
            QStringLiteral("2048")});
    if (!openssl.waitForFinished(30000) || openssl.exitCode() != 0)
        return failure(QStringLiteral("openssl"),
            QStringLiteral("cannot make the service-account key (is openssl installed?): %1")
                .arg(QString::fromUtf8(openssl.readAll())));
    // The admin: a static token in group system:masters.
    QByteArray token(32, Qt::Uninitialized);
    for (char &c : token)
        c = "abcdefghijklmnopqrstuvwxyz0123456789"[QRandomGenerator::global()->bounded(36)];
    QFile tokens(d->path(QStringLiteral("tokens.csv")));
    if (!tokens.open(QIODevice::WriteOnly)
        || tokens.write(token + ",admin,admin-uid,system:masters\n") < 0)
        return failure(QStringLiteral("tokens"), tokens.errorString());
    tokens.close();

    const int etcdPort = freePort();
    const int peerPort = freePort();
    const int port = freePort();
    const QString etcdUrl = QStringLiteral("http://127.0.0.1:%1").arg(etcdPort);
    const QString peerUrl = QStringLiteral("http://127.0.0.1:%1").arg(peerPort);
    d->etcd = d->launch(bin.filePath(QStringLiteral("etcd")),
        {QStringLiteral("--name=default"),
            QStringLiteral("--data-dir=") + d->path(QStringLiteral("etcd-data")),
            QStringLiteral("--listen-client-urls=") + etcdUrl,
            QStringLiteral("--advertise-client-urls=") + etcdUrl,
            QStringLiteral("--listen-peer-urls=") + peerUrl,
            QStringLiteral("--initial-advertise-peer-urls=") + peerUrl,
            QStringLiteral("--initial-cluster=default=") + peerUrl,
            QStringLiteral("--unsafe-no-fsync"), QStringLiteral("--log-level=warn")},
        QStringLiteral("etcd.log"));
    if (!d->etcd->waitForStarted(10000))
        return failure(QStringLiteral("etcd"), d->etcd->errorString());
    d->apiserver = d->launch(bin.filePath(QStringLiteral("kube-apiserver")),
        {QStringLiteral("--etcd-servers=") + etcdUrl, QStringLiteral("--bind-address=127.0.0.1"),
            QStringLiteral("--advertise-address=127.0.0.1"),
            QStringLiteral("--secure-port=%1").arg(port),
            QStringLiteral("--cert-dir=") + d->path(QStringLiteral("serving")),
            QStringLiteral("--token-auth-file=") + tokens.fileName(),
            QStringLiteral("--service-account-key-file=") + d->path(QStringLiteral("sa.key")),
            QStringLiteral("--service-account-signing-key-file=")
                + d->path(QStringLiteral("sa.key")),
            QStringLiteral("--service-account-issuer=https://kubernetes.default.svc"),
            QStringLiteral("--service-cluster-ip-range=10.0.0.0/24"),
            QStringLiteral("--authorization-mode=RBAC"),
            QStringLiteral("--endpoint-reconciler-type=none"),
            QStringLiteral("--allow-privileged=true"),
            // No controller-manager creates the "default" ServiceAccount this plugin wants.
            QStringLiteral("--disable-admission-plugins=ServiceAccount"),
            QStringLiteral("--profiling=false")},
        QStringLiteral("kube-apiserver.log"));
    if (!d->apiserver->waitForStarted(10000))
        return failure(QStringLiteral("kube-apiserver"), d->apiserver->errorString());

    // The apiserver writes its self-signed serving certificate (and its CA) at start.
    const QString cert = d->path(QStringLiteral("serving/apiserver.crt"));
    if (!waitFor(d->options.startTimeout,
            [&] {
                return QFileInfo(cert).size() > 0 || d->apiserver->state() != QProcess::Running;
            })
        || d->apiserver->state() != QProcess::Running) {
        const Error e = failure(QStringLiteral("kube-apiserver"),
            QStringLiteral("no serving certificate; its log ends: %1")
                .arg(tail(d->path(QStringLiteral("kube-apiserver.log")))));
        stop();
        return e;
    }
    QThread::msleep(100); // the file is written whole; give the write a moment to finish
    QFile certFile(cert);
    certFile.open(QIODevice::ReadOnly);
    d->config.server = QUrl(QStringLiteral("https://127.0.0.1:%1").arg(port));
    d->config.caData = certFile.readAll();
    d->config.bearerToken = QString::fromLatin1(token);
    d->config.qps = 100;
    d->config.burst = 200;
    {
        RestClient probe(d->config);
        const bool ready = waitFor(d->options.startTimeout, [&] {
            return d->apiserver->state() == QProcess::Running
                && probe.get(Namespaces, {}, QStringLiteral("default")).ok()
                && probe.list(Crds, {}).ok();
        });
        if (!ready) {
            const Error e = failure(QStringLiteral("kube-apiserver"),
                QStringLiteral("not ready within the start timeout; its log ends: %1")
                    .arg(tail(d->path(QStringLiteral("kube-apiserver.log")))));
            stop();
            return e;
        }
    }
    d->kubeconfig = d->path(QStringLiteral("kubeconfig"));
    QFile kubeconfig(d->kubeconfig);
    if (!kubeconfig.open(QIODevice::WriteOnly))
        return failure(QStringLiteral("kubeconfig"), kubeconfig.errorString());
    kubeconfig.write(
        QStringLiteral(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: testenv\n  cluster:\n    server: %1\n"
            "    certificate-authority-data: %2\nusers:\n- name: admin\n  user:\n    token: %3\n"
            "contexts:\n- name: testenv\n  context: {cluster: testenv, user: "
            "admin}\ncurrent-context: testenv\n")
            .arg(d->config.server.toString(), QString::fromLatin1(d->config.caData.toBase64()),
                d->config.bearerToken)
            .toUtf8());
    kubeconfig.close();
    if (!d->options.crdFiles.isEmpty())
        return installCrds(d->options.crdFiles);
    return std::nullopt;
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
        auto docs = detail::loadYamlDocuments(f.read(16 * 1024 * 1024), file);
        if (!docs)
            return docs.error();
        for (const YAML::Node &node : *docs) {
            if (node.IsNull())
                continue;
            auto json = detail::yamlToJson(node, file, 256);
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
    Private::terminate(d->apiserver);
    Private::terminate(d->etcd);
    d->dir.reset();
    d->kubeconfig.clear();
}

} // namespace qcm::testing
