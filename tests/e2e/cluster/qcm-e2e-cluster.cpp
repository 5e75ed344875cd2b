// SPDX-License-Identifier: Apache-2.0
// qcm-e2e-cluster: starts the project's e2e cluster, a testing::TestEnvironment that outlives
// this program (cluster.py up runs it; cluster.py restart, compact and down work on what it
// writes).
//
//     qcm-e2e-cluster --dir DIR --assets ASSETS
//
// ASSETS holds etcd, kube-apiserver and kubectl (build-binaries.sh --assets). In DIR, besides
// what TestEnvironment writes (ca.crt and ca.key, admin.kubeconfig with a client certificate
// in system:masters, the logs, etcd-data), it writes:
//     token-admin.kubeconfig  bearer token qcm-admin-token of user "token-admin" (system:masters)
//     restricted.kubeconfig   bearer token qcm-restricted-token of user "restricted", whom RBAC
//                             allows only get/list/watch of ConfigMaps in namespace "restricted"
//     cluster.json            server, port, etcd, etcdPort, kubectl, ca, adminCert, adminKey,
//                             and pids and cmds of etcd and kube-apiserver
// Exit code 0 once the cluster serves; otherwise 1, the cluster stopped, and the reason on
// stderr.
#include <qcm/client/restclient.h>
#include <qcm/testing/testenvironment.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

#include <cstdio>

using namespace qcm;
using namespace qcm::client;

namespace {

// Creates `object`; one that already exists is fine.
std::optional<Error> ensure(
    RestClient &rest, const GroupVersionResource &gvr, const QString &ns, const QJsonObject &object)
{
    const auto created = rest.create(gvr, ns, Object(object));
    if (created || created.error().isAlreadyExists())
        return std::nullopt;
    return Error {QStringLiteral("qcm-e2e-cluster"), gvr.resource, created.error().toString()};
}

// The namespace "restricted", where user "restricted" may only read ConfigMaps.
std::optional<Error> restrictedNamespace(RestClient &rest)
{
    const QString ns = QStringLiteral("restricted");
    const QString rbac = QStringLiteral("rbac.authorization.k8s.io");
    if (auto e = ensure(rest, {QString(), QStringLiteral("v1"), QStringLiteral("namespaces")}, {},
            {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                {QStringLiteral("kind"), QStringLiteral("Namespace")},
                {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("name"), ns}}}}))
        return e;
    if (auto e = ensure(rest, {rbac, QStringLiteral("v1"), QStringLiteral("roles")}, ns,
            {{QStringLiteral("apiVersion"), rbac + QStringLiteral("/v1")},
                {QStringLiteral("kind"), QStringLiteral("Role")},
                {QStringLiteral("metadata"),
                    QJsonObject {{QStringLiteral("name"), QStringLiteral("configmap-reader")}}},
                {QStringLiteral("rules"),
                    QJsonArray {QJsonObject {{QStringLiteral("apiGroups"), QJsonArray {QString()}},
                        {QStringLiteral("resources"), QJsonArray {QStringLiteral("configmaps")}},
                        {QStringLiteral("verbs"),
                            QJsonArray {QStringLiteral("get"), QStringLiteral("list"),
                                QStringLiteral("watch")}}}}}}))
        return e;
    return ensure(rest, {rbac, QStringLiteral("v1"), QStringLiteral("rolebindings")}, ns,
        {{QStringLiteral("apiVersion"), rbac + QStringLiteral("/v1")},
            {QStringLiteral("kind"), QStringLiteral("RoleBinding")},
            {QStringLiteral("metadata"),
                QJsonObject {
                    {QStringLiteral("name"), QStringLiteral("restricted-reads-configmaps")}}},
            {QStringLiteral("roleRef"),
                QJsonObject {{QStringLiteral("apiGroup"), rbac},
                    {QStringLiteral("kind"), QStringLiteral("Role")},
                    {QStringLiteral("name"), QStringLiteral("configmap-reader")}}},
            {QStringLiteral("subjects"),
                QJsonArray {QJsonObject {{QStringLiteral("kind"), QStringLiteral("User")},
                    {QStringLiteral("name"), ns}, {QStringLiteral("apiGroup"), rbac}}}}});
}

// cluster.json: what cluster.py and the e2e tests read.
std::optional<Error> writeState(const testing::TestEnvironment &env, const QString &assets)
{
    const QDir dir(env.directory());
    QJsonObject pids;
    QJsonObject cmds;
    for (const auto &p : env.processes()) {
        pids.insert(p.name, p.pid);
        cmds.insert(p.name, QJsonArray::fromStringList(p.command));
    }
    const QUrl server = env.restConfig().server;
    const QJsonObject state {{QStringLiteral("server"), server.toString()},
        {QStringLiteral("port"), server.port()}, {QStringLiteral("etcd"), env.etcdUrl().toString()},
        {QStringLiteral("etcdPort"), env.etcdUrl().port()},
        // The file itself (build-binaries.sh names it by version), not the assets link.
        {QStringLiteral("kubectl"),
            QFileInfo(QDir(assets).filePath(QStringLiteral("kubectl"))).canonicalFilePath()},
        {QStringLiteral("ca"), env.certificateAuthority().certificateFile},
        {QStringLiteral("adminCert"), dir.filePath(QStringLiteral("admin.crt"))},
        {QStringLiteral("adminKey"), dir.filePath(QStringLiteral("admin.key"))},
        {QStringLiteral("pids"), pids}, {QStringLiteral("cmds"), cmds}};
    QFile f(dir.filePath(QStringLiteral("cluster.json")));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || f.write(QJsonDocument(state).toJson()) < 0)
        return Error {f.fileName(), {}, f.errorString()};
    return std::nullopt;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Starts the e2e cluster (etcd + kube-apiserver) detached in a directory."));
    parser.addHelpOption();
    parser.addOption(
        {QStringLiteral("dir"), QStringLiteral("The cluster's directory."), QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("assets"),
        QStringLiteral("The directory with etcd, kube-apiserver and kubectl."),
        QStringLiteral("ASSETS")});
    parser.process(app);
    if (!parser.isSet(QStringLiteral("dir")) || !parser.isSet(QStringLiteral("assets"))) {
        std::fputs("qcm-e2e-cluster: --dir and --assets are required\n", stderr);
        return 2;
    }
    const QString assets = parser.value(QStringLiteral("assets"));

    testing::TestEnvironment::Options options;
    options.directory = parser.value(QStringLiteral("dir"));
    options.assetsDirectory = assets;
    options.detached = true;
    options.startTimeout = std::chrono::seconds(120);
    options.tokenUsers = {{QStringLiteral("qcm-admin-token"), QStringLiteral("token-admin"),
                              QStringLiteral("1001"), {QStringLiteral("system:masters")}},
        {QStringLiteral("qcm-restricted-token"), QStringLiteral("restricted"),
            QStringLiteral("1002"), {}}};
    options.extraApiserverArgs
        = {// PodTemplates bypass the watch cache, so that a watch from a compacted
           // resourceVersion reaches etcd and gets 410 Gone at once; with the cache, the apiserver
           // keeps serving young history from memory for a while.
            QStringLiteral("--watch-cache-sizes=podtemplates#0"), QStringLiteral("--v=1"),
            // Coordinated leader election (KEP-4355) for the host's e2e of it; the election
            // controller touches only Leases that have LeaseCandidates.
            QStringLiteral("--feature-gates=CoordinatedLeaderElection=true"),
            QStringLiteral("--runtime-config=coordination.k8s.io/v1beta1=true")};
    testing::TestEnvironment env(options);
    std::optional<Error> error = env.start();
    if (!error) {
        RestClient rest(env.restConfig());
        error = restrictedNamespace(rest);
    }
    if (!error)
        error = writeState(env, assets);
    if (error) {
        env.stop();
        std::fprintf(stderr, "qcm-e2e-cluster: %s\n", qPrintable(error->toString()));
        return 1;
    }
    return 0;
}
