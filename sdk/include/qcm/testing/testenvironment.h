// SPDX-License-Identifier: Apache-2.0
// TestEnvironment: a real kube-apiserver and etcd on loopback for a plugin's tests
// (controller-runtime's envtest). Nothing else runs: no controllers, no scheduler, no nodes,
// so a test sees exactly what its own code and the API server do.
//
//     qcm::testing::TestEnvironment env({QStringLiteral("config/foo-crd.yaml")});
//     if (auto error = env.start()) QFAIL(qPrintable(error->toString()));
//     client::RestClient rest(env.restConfig());
//
// The binaries (etcd, kube-apiserver; kubectl when a test wants it) are found in
// $QCM_TESTENV_ASSETS, or the directory given (envtest's KUBEBUILDER_ASSETS). The SDK installs
// qcm-testenv-setup, which builds them from their Go modules into ~/.cache/qcm/bin (the
// directory it prints). start() also needs the openssl command (keys and certificates).
//
// start() picks free ports, makes a certificate authority (ca.crt, ca.key) that signs the
// apiserver's serving certificate (for 127.0.0.1, localhost and kubernetes.default.svc) and
// is its --client-ca-file, and an admin user "admin" in system:masters with a client
// certificate of that CA (admin.kubeconfig). It starts etcd and the apiserver, waits until
// /readyz answers 200, then installs the given CRDs and waits until they are established.
// Every failure is an Error naming the step and what the process logged. stop() (and the
// destructor) stops both and removes a temporary directory.
//
// The project's own e2e cluster (tests/e2e/cluster) is a TestEnvironment too: it runs in a
// directory of its own (Options::directory), with static token users and extra apiserver
// flags, and its processes are detached (Options::detached) so that they outlive the tool
// that started them.
//
// Thread safety: use one TestEnvironment from one thread.
#pragma once

#include <qcm/client/restconfig.h>
#include <qcm/error.h>
#include <qcm/result.h>

#include <QtCore/QStringList>

#include <memory>
#include <optional>

namespace qcm::testing {

class QCM_SDK_EXPORT TestEnvironment
{
public:
    // A user the apiserver knows by a static bearer token (its --token-auth-file).
    struct TokenUser
    {
        QString token;
        QString name;
        QString uid;
        QStringList groups;
    };

    struct Options
    {
        QStringList crdFiles; // YAML files of CustomResourceDefinitions to install
        QString assetsDirectory; // empty: $QCM_TESTENV_ASSETS
        Duration startTimeout = std::chrono::seconds(60);
        // Empty: a temporary directory, removed by stop(). Otherwise this directory (created if
        // missing, made 0700), kept after stop(); start() replaces the CA, the keys, the
        // serving and admin certificates, the kubeconfigs of the token users and the logs in it
        // and empties its etcd-data, so every start begins with an empty store. (An earlier
        // addUser()'s files stay, signed by the earlier CA.)
        QString directory;
        // Token users beside the admin; each gets <name>.kubeconfig in the directory.
        QList<TokenUser> tokenUsers;
        // Appended after the apiserver's flags that start() sets. (For a list flag such as
        // --disable-admission-plugins, kube-apiserver adds a repeated flag's values to the
        // first's.)
        QStringList extraApiserverArgs;
        // The processes run in sessions of their own and outlive this object: the destructor
        // leaves them running (stop() still stops them). For a cluster that several test
        // processes share. Needs `directory`.
        bool detached = false;
    };

    // A certificate and its private key, PEM files.
    struct Certificate
    {
        QString certificateFile;
        QString keyFile;
    };

    // A user authenticated by a client certificate of the environment's CA (envtest's
    // AuthenticatedUser).
    struct AuthenticatedUser
    {
        client::RestConfig config;
        Certificate certificate;
        QString kubeconfigPath;
    };

    // A running process: its pid, its command line (the program first) and its log file.
    struct Process
    {
        QString name; // "etcd" or "kube-apiserver"
        qint64 pid = 0;
        QStringList command;
        QString logFile;
    };

    TestEnvironment();
    explicit TestEnvironment(Options options);
    explicit TestEnvironment(const QStringList &crdFiles);
    ~TestEnvironment();
    TestEnvironment(const TestEnvironment &) = delete;
    TestEnvironment &operator=(const TestEnvironment &) = delete;

    std::optional<Error> start();
    void stop();
    bool isRunning() const;

    // The admin's configuration (a client certificate in system:masters, the environment's CA).
    client::RestConfig restConfig() const;
    QString kubeconfigPath() const; // the admin's, <directory>/admin.kubeconfig
    // Installs CRDs (YAML files, one or more documents each) and waits until each is
    // established.
    std::optional<Error> installCrds(const QStringList &files);
    // envtest's AddUser: a client certificate for `name` in `groups`, signed by the
    // environment's CA, written as <name>.crt, <name>.key and <name>.kubeconfig in the
    // directory. RBAC decides what the user may do. Needs a started environment. Names and
    // groups hold only letters, digits and ":._@-"; admin, ca, serving, sa and tokens are the
    // environment's own names. Token users' names follow the same rules.
    Result<AuthenticatedUser> addUser(const QString &name, const QStringList &groups);

    // While running: the directory, the CA, etcd's client URL and the two processes.
    QString directory() const;
    Certificate certificateAuthority() const;
    QUrl etcdUrl() const;
    QList<Process> processes() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::testing
