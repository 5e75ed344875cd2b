// SPDX-License-Identifier: Apache-2.0
// KubeConfig: kubeconfig files, loaded and merged as kubectl does (client-go's clientcmd).
//
//   * $KUBECONFIG may list several files (':'-separated). Files that do not exist are skipped.
//     For every named cluster, user and context, the first file that defines the name wins;
//     the first non-empty current-context wins. Entries are never merged field by field.
//   * Relative paths in a file (certificate-authority, client-certificate, client-key,
//     tokenFile, an exec command containing '/') are relative to that file's directory.
//   * restConfig() picks the current context, or an override, and reads the files it names.
//     The namespace defaults to "default".
//   * Every problem is an Error naming the file, the field and the reason; nothing throws.
//
// Thread safety: a KubeConfig is a value; concurrent const use is safe.
#pragma once

#include <qcm/client/restconfig.h>
#include <qcm/result.h>

#include <QtCore/QMap>
#include <QtCore/QStringList>

namespace qcm::client {

class QCM_SDK_EXPORT KubeConfig
{
public:
    struct Cluster
    {
        QString server;
        QString certificateAuthority; // a file
        QByteArray certificateAuthorityData; // decoded PEM
        bool insecureSkipTlsVerify = false;
        QString tlsServerName;
        QString file; // where it was defined
    };
    struct User
    {
        QString clientCertificate; // a file
        QByteArray clientCertificateData;
        QString clientKey; // a file
        QByteArray clientKeyData;
        QString token;
        QString tokenFile;
        QString username;
        QString password;
        std::optional<ExecConfig> exec;
        QString authProvider; // named but not supported: restConfig() says so
        QString file;
    };
    struct Context
    {
        QString cluster;
        QString user;
        QString namespace_;
        QString file;
    };

    QString currentContext;
    QString currentContextFile;
    QMap<QString, Cluster> clusters;
    QMap<QString, User> users;
    QMap<QString, Context> contexts;
    QStringList files; // the files that were read, in order

    // Parses one kubeconfig document; `file` names it in errors and anchors relative paths.
    static Result<KubeConfig> parse(const QByteArray &yaml, const QString &file);
    // Reads one file; a missing file is an error.
    static Result<KubeConfig> loadFile(const QString &path);
    // Reads and merges several files; missing ones are skipped, as kubectl skips them.
    static Result<KubeConfig> load(const QStringList &paths);
    // $KUBECONFIG, or else ~/.kube/config.
    static Result<KubeConfig> loadFromEnvironment();

    // The RestConfig of `context` (empty: the current context).
    Result<RestConfig> restConfig(const QString &context = {}) const;

    // Merges `other` under this one: names and the current context already set here win.
    void mergeFrom(const KubeConfig &other);
};

} // namespace qcm::client
