// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/kubeconfig.h>
#include <qcm/detail/readatmost.h>
#include <qcm/detail/yaml.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QSet>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslKey>

#include <optional>

namespace qcm::client {

namespace {

QString at(const YAML::Node &node)
{
    return detail::yamlPosition(node);
}

// Reads the fields of one kubeconfig document, remembering the first error.
class Reader
{
public:
    explicit Reader(QString file) : m_file(std::move(file)) { }

    std::optional<Error> error;

    void fail(const QString &field, const QString &reason)
    {
        if (!error)
            error = Error {m_file, field, reason};
    }

    QString string(const YAML::Node &map, const char *key, const QString &path)
    {
        const YAML::Node node = map[key];
        if (!node || node.IsNull())
            return {};
        if (!node.IsScalar()) {
            fail(path + QLatin1Char('.') + QLatin1String(key),
                QStringLiteral("must be a string") + at(node));
            return {};
        }
        return QString::fromStdString(node.Scalar());
    }

    bool boolean(const YAML::Node &map, const char *key, const QString &path)
    {
        const QString text = string(map, key, path);
        if (text.isEmpty() || text == QLatin1String("false"))
            return false;
        if (text == QLatin1String("true"))
            return true;
        fail(path + QLatin1Char('.') + QLatin1String(key),
            QStringLiteral("must be true or false, not \"%1\"").arg(text) + at(map[key]));
        return false;
    }

    QByteArray base64(const YAML::Node &map, const char *key, const QString &path)
    {
        const QString text = string(map, key, path);
        if (text.isEmpty())
            return {};
        auto decoded = QByteArray::fromBase64Encoding(
            text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded) {
            fail(path + QLatin1Char('.') + QLatin1String(key),
                QStringLiteral("is not valid base64") + at(map[key]));
            return {};
        }
        return *decoded;
    }

    // A path relative to the kubeconfig's directory, as clientcmd resolves them.
    QString localPath(const YAML::Node &map, const char *key, const QString &path)
    {
        const QString value = string(map, key, path);
        if (value.isEmpty() || QDir::isAbsolutePath(value))
            return value;
        return QDir::cleanPath(QFileInfo(m_file).absoluteDir().filePath(value));
    }

    // The entries of a named list: clusters, users, contexts. A name defined twice keeps its
    // first definition, as in clientcmd.
    template<typename F>
    void namedList(const YAML::Node &root, const char *list, const char *inner, F &&each)
    {
        const YAML::Node node = root[list];
        if (!node || node.IsNull())
            return;
        if (!node.IsSequence()) {
            fail(QLatin1String(list), QStringLiteral("must be a list") + at(node));
            return;
        }
        QSet<QString> seen;
        for (std::size_t i = 0; i < node.size(); ++i) {
            const YAML::Node entry = node[i];
            const QString index = QStringLiteral("%1[%2]").arg(QLatin1String(list)).arg(i);
            if (!entry.IsMap()) {
                fail(index, QStringLiteral("must be a map") + at(entry));
                continue;
            }
            const QString name = string(entry, "name", index);
            if (name.isEmpty()) {
                fail(index + QStringLiteral(".name"), QStringLiteral("is missing") + at(entry));
                continue;
            }
            const QString path = QStringLiteral("%1[name=%2].%3")
                                     .arg(QLatin1String(list), name, QLatin1String(inner));
            const YAML::Node body = entry[inner];
            if (body && !body.IsNull() && !body.IsMap()) {
                fail(path, QStringLiteral("must be a map") + at(body));
                continue;
            }
            if (seen.contains(name))
                continue;
            seen.insert(name);
            each(name, body ? body : YAML::Node(YAML::NodeType::Map), path);
        }
    }

    const QString &file() const { return m_file; }

private:
    QString m_file;
};

// The inline -data field if set, else the contents of the file field, else nothing.
Result<QByteArray> dataOrFile(
    const QByteArray &data, const QString &file, const QString &configFile, const QString &field)
{
    if (!data.isEmpty() || file.isEmpty())
        return data;
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return Error {
            configFile, field, QStringLiteral("cannot read %1: %2").arg(file, f.errorString())};
    Result<QByteArray> contents = detail::readAtMost(
        f, detail::inputLimits().kubeconfigBytes, file, QStringLiteral("limits.kubeconfigBytes"));
    if (!contents)
        return Error {configFile, field, contents.error().reason};
    return contents;
}

} // namespace

Result<KubeConfig> KubeConfig::parse(const QByteArray &yaml, const QString &file)
{
    const Result<YAML::Node> document = detail::loadYamlDocument(yaml, file);
    if (!document)
        return document.error();
    const YAML::Node &root = *document;
    KubeConfig config;
    config.files << file;
    if (!root || root.IsNull())
        return config; // an empty file is an empty config, as in kubectl
    if (!root.IsMap())
        return Error {file, {}, QStringLiteral("a kubeconfig must be a map") + at(root)};
    Reader r(file);
    config.currentContext = r.string(root, "current-context", QStringLiteral("root"));
    if (!config.currentContext.isEmpty())
        config.currentContextFile = file;

    r.namedList(root, "clusters", "cluster",
        [&](const QString &name, const YAML::Node &c, const QString &path) {
            Cluster cluster;
            cluster.server = r.string(c, "server", path);
            cluster.certificateAuthority = r.localPath(c, "certificate-authority", path);
            cluster.certificateAuthorityData = r.base64(c, "certificate-authority-data", path);
            cluster.insecureSkipTlsVerify = r.boolean(c, "insecure-skip-tls-verify", path);
            cluster.tlsServerName = r.string(c, "tls-server-name", path);
            cluster.file = file;
            config.clusters.insert(name, cluster);
        });
    r.namedList(
        root, "users", "user", [&](const QString &name, const YAML::Node &u, const QString &path) {
            User user;
            user.clientCertificate = r.localPath(u, "client-certificate", path);
            user.clientCertificateData = r.base64(u, "client-certificate-data", path);
            user.clientKey = r.localPath(u, "client-key", path);
            user.clientKeyData = r.base64(u, "client-key-data", path);
            user.token = r.string(u, "token", path);
            user.tokenFile = r.localPath(u, "tokenFile", path);
            user.username = r.string(u, "username", path);
            user.password = r.string(u, "password", path);
            if (const YAML::Node provider = u["auth-provider"]; provider && provider.IsMap())
                user.authProvider
                    = r.string(provider, "name", path + QStringLiteral(".auth-provider"));
            if (const YAML::Node e = u["exec"]; e && !e.IsNull()) {
                const QString execPath = path + QStringLiteral(".exec");
                if (!e.IsMap()) {
                    r.fail(execPath, QStringLiteral("must be a map") + at(e));
                    return;
                }
                ExecConfig exec;
                exec.command = r.string(e, "command", execPath);
                if (exec.command.contains(QLatin1Char('/')))
                    exec.command = r.localPath(e, "command", execPath);
                if (exec.command.isEmpty())
                    r.fail(execPath + QStringLiteral(".command"), QStringLiteral("is missing"));
                if (const YAML::Node args = e["args"]; args && !args.IsNull()) {
                    for (std::size_t i = 0; args.IsSequence() && i < args.size(); ++i) {
                        if (!args[i].IsScalar())
                            r.fail(execPath + QStringLiteral(".args[%1]").arg(i),
                                QStringLiteral("must be a string") + at(args[i]));
                        else
                            exec.args << QString::fromStdString(args[i].Scalar());
                    }
                    if (!args.IsSequence())
                        r.fail(execPath + QStringLiteral(".args"),
                            QStringLiteral("must be a list") + at(args));
                }
                if (const YAML::Node env = e["env"]; env && !env.IsNull()) {
                    for (std::size_t i = 0; env.IsSequence() && i < env.size(); ++i) {
                        const QString envPath = execPath + QStringLiteral(".env[%1]").arg(i);
                        if (!env[i].IsMap()) {
                            r.fail(envPath,
                                QStringLiteral("must be a map with name and value") + at(env[i]));
                            continue;
                        }
                        exec.env.append({r.string(env[i], "name", envPath),
                            r.string(env[i], "value", envPath)});
                    }
                    if (!env.IsSequence())
                        r.fail(execPath + QStringLiteral(".env"),
                            QStringLiteral("must be a list") + at(env));
                }
                exec.apiVersion = r.string(e, "apiVersion", execPath);
                exec.installHint = r.string(e, "installHint", execPath);
                exec.provideClusterInfo = r.boolean(e, "provideClusterInfo", execPath);
                exec.interactiveMode = r.string(e, "interactiveMode", execPath);
                user.exec = exec;
            }
            user.file = file;
            config.users.insert(name, user);
        });
    r.namedList(root, "contexts", "context",
        [&](const QString &name, const YAML::Node &c, const QString &path) {
            Context context;
            context.cluster = r.string(c, "cluster", path);
            context.user = r.string(c, "user", path);
            context.namespace_ = r.string(c, "namespace", path);
            context.file = file;
            config.contexts.insert(name, context);
        });
    if (r.error)
        return *r.error;
    return config;
}

Result<KubeConfig> KubeConfig::loadFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Error {
            path, {}, QStringLiteral("cannot read the kubeconfig: %1").arg(f.errorString())};
    const Result<QByteArray> contents = detail::readAtMost(f, detail::inputLimits().kubeconfigBytes,
        QStringLiteral("the kubeconfig"), QStringLiteral("limits.kubeconfigBytes"));
    if (!contents)
        return contents.error();
    return parse(*contents, QFileInfo(path).absoluteFilePath());
}

Result<KubeConfig> KubeConfig::load(const QStringList &paths)
{
    KubeConfig merged;
    for (const QString &path : paths) {
        if (path.isEmpty() || !QFileInfo::exists(path))
            continue;
        auto one = loadFile(path);
        if (!one)
            return one.error();
        merged.mergeFrom(*one);
    }
    return merged;
}

Result<KubeConfig> KubeConfig::loadFromEnvironment()
{
    const QString env = qEnvironmentVariable("KUBECONFIG");
    if (!env.isEmpty())
        return load(env.split(QLatin1Char(':'), Qt::SkipEmptyParts));
    return load({QDir::homePath() + QStringLiteral("/.kube/config")});
}

void KubeConfig::mergeFrom(const KubeConfig &other)
{
    if (currentContext.isEmpty()) {
        currentContext = other.currentContext;
        currentContextFile = other.currentContextFile;
    }
    for (auto it = other.clusters.begin(); it != other.clusters.end(); ++it)
        if (!clusters.contains(it.key()))
            clusters.insert(it.key(), it.value());
    for (auto it = other.users.begin(); it != other.users.end(); ++it)
        if (!users.contains(it.key()))
            users.insert(it.key(), it.value());
    for (auto it = other.contexts.begin(); it != other.contexts.end(); ++it)
        if (!contexts.contains(it.key()))
            contexts.insert(it.key(), it.value());
    files << other.files;
}

Result<RestConfig> KubeConfig::restConfig(const QString &contextOverride) const
{
    const QString where
        = files.isEmpty() ? QStringLiteral("kubeconfig") : files.join(QLatin1Char(':'));
    const QString contextName = contextOverride.isEmpty() ? currentContext : contextOverride;
    if (contextName.isEmpty())
        return Error {where, QStringLiteral("current-context"),
            QStringLiteral("no context is selected (set current-context or pass a context)")};
    const auto context = contexts.constFind(contextName);
    if (context == contexts.constEnd())
        return Error {contextOverride.isEmpty() ? currentContextFile : where,
            QStringLiteral("contexts"),
            QStringLiteral("context \"%1\" does not exist (known: %2)")
                .arg(contextName, QStringList(contexts.keys()).join(QStringLiteral(", ")))};
    const QString contextPath = QStringLiteral("contexts[name=%1].context").arg(contextName);
    const auto cluster = clusters.constFind(context->cluster);
    if (cluster == clusters.constEnd())
        return Error {context->file, contextPath + QStringLiteral(".cluster"),
            QStringLiteral("cluster \"%1\" does not exist").arg(context->cluster)};
    const QString clusterPath = QStringLiteral("clusters[name=%1].cluster").arg(context->cluster);

    RestConfig config;
    config.source = QStringLiteral("kubeconfig %1 (context %2)").arg(where, contextName);
    if (cluster->server.isEmpty())
        return Error {
            cluster->file, clusterPath + QStringLiteral(".server"), QStringLiteral("is missing")};
    config.server = QUrl(cluster->server, QUrl::StrictMode);
    if (!config.server.isValid() || config.server.host().isEmpty()
        || (config.server.scheme() != QLatin1String("https")
            && config.server.scheme() != QLatin1String("http")))
        return Error {cluster->file, clusterPath + QStringLiteral(".server"),
            QStringLiteral("\"%1\" is not an http(s) URL").arg(cluster->server)};
    config.tlsServerName = cluster->tlsServerName;
    config.insecureSkipTlsVerify = cluster->insecureSkipTlsVerify;
    auto ca = dataOrFile(cluster->certificateAuthorityData, cluster->certificateAuthority,
        cluster->file, clusterPath + QStringLiteral(".certificate-authority"));
    if (!ca)
        return ca.error();
    config.caData = *ca;
    if (!config.caData.isEmpty() && QSslCertificate::fromData(config.caData, QSsl::Pem).isEmpty())
        return Error {cluster->file, clusterPath + QStringLiteral(".certificate-authority"),
            QStringLiteral("holds no PEM certificate")};
    if (config.insecureSkipTlsVerify && !config.caData.isEmpty())
        return Error {cluster->file, clusterPath,
            QStringLiteral(
                "certificate-authority and insecure-skip-tls-verify cannot both be set")};

    if (!context->user.isEmpty()) {
        const auto user = users.constFind(context->user);
        if (user == users.constEnd())
            return Error {context->file, contextPath + QStringLiteral(".user"),
                QStringLiteral("user \"%1\" does not exist").arg(context->user)};
        const QString userPath = QStringLiteral("users[name=%1].user").arg(context->user);
        if (!user->authProvider.isEmpty())
            return Error {user->file, userPath + QStringLiteral(".auth-provider"),
                QStringLiteral("auth-provider \"%1\" is not supported; use an exec plugin")
                    .arg(user->authProvider)};
        auto cert = dataOrFile(user->clientCertificateData, user->clientCertificate, user->file,
            userPath + QStringLiteral(".client-certificate"));
        if (!cert)
            return cert.error();
        config.clientCertData = *cert;
        auto key = dataOrFile(user->clientKeyData, user->clientKey, user->file,
            userPath + QStringLiteral(".client-key"));
        if (!key)
            return key.error();
        config.clientKeyData = *key;
        if (config.clientCertData.isEmpty() != config.clientKeyData.isEmpty())
            return Error {user->file, userPath,
                QStringLiteral("a client certificate needs its key, and a key its certificate")};
        if (!config.clientCertData.isEmpty()) {
            if (QSslCertificate::fromData(config.clientCertData, QSsl::Pem).isEmpty())
                return Error {user->file, userPath + QStringLiteral(".client-certificate"),
                    QStringLiteral("holds no PEM certificate")};
            const bool keyOk = !QSslKey(config.clientKeyData, QSsl::Rsa).isNull()
                || !QSslKey(config.clientKeyData, QSsl::Ec).isNull();
            if (!keyOk)
                return Error {user->file, userPath + QStringLiteral(".client-key"),
                    QStringLiteral("holds no PEM RSA or EC private key")};
        }
        config.bearerToken = user->token;
        config.bearerTokenFile = user->tokenFile;
        config.username = user->username;
        config.password = user->password;
        config.exec = user->exec;
        if (config.exec
            && config.exec->apiVersion != QLatin1String("client.authentication.k8s.io/v1")
            && config.exec->apiVersion != QLatin1String("client.authentication.k8s.io/v1beta1"))
            return Error {user->file, userPath + QStringLiteral(".exec.apiVersion"),
                QStringLiteral("\"%1\" is not supported; use client.authentication.k8s.io/v1")
                    .arg(config.exec->apiVersion)};
        if (!config.bearerToken.isEmpty() && !config.username.isEmpty())
            return Error {user->file, userPath,
                QStringLiteral("token and username/password cannot both be set")};
    }
    if (!context->namespace_.isEmpty())
        config.defaultNamespace = context->namespace_;
    return config;
}

} // namespace qcm::client
