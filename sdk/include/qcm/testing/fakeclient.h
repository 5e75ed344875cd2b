// SPDX-License-Identifier: Apache-2.0
// FakeClient: a client::Client over an in-memory ObjectTracker, for unit tests of reconcilers
// (controller-runtime's client/fake). Its semantics are the API server's, as far as
// ObjectTracker's contract says, and one test suite runs against it and the real API server
// (tests/clientsuite).
//
//     qcm::testing::FakeClient client;
//     client.add(core::v1::ConfigMap::groupVersionResource(), existing);
//     Reconciler(client).reconcile(key);
//     QCOMPARE(client.get<apps::v1::Deployment>(ns, name)->spec().replicas(), 3);
//
// informerFactory() runs the SDK's real informers on it: every write the test or the
// reconciler makes reaches their handlers as a watch event, through the Qt event loop as from
// a server (the fake-informer helper of issue 13 §5).
//
// Like client-go's fake clientset, it records every call made through the Client interface as
// an Action (actions(), "create deployments ns/name"), and reactors (prependReactor()) may
// answer a call instead of the tracker, to inject errors. Seeding (add()) and tracker() calls
// are not recorded.
//
// The status subresource is registered for the built-in kinds that have one (pods,
// deployments, statefulsets, replicasets, daemonsets, jobs, cronjobs, services, nodes,
// namespaces, persistentvolumes, persistentvolumeclaims); withStatusSubresource() adds CRDs'.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/client.h>
#include <qcm/testing/objecttracker.h>

#include <functional>
#include <mutex>
#include <optional>

namespace qcm::testing {

// One call through the Client interface (client-go's testing.Action).
struct QCM_SDK_EXPORT Action
{
    QString verb; // get, list, create, update, patch, delete
    QString resource; // e.g. "deployments"
    QString subresource; // "status" for updateStatus
    QString namespaceName;
    QString name;
    client::Object object; // create, update
    QByteArray patch; // patch
    client::PatchType patchType = client::PatchType::Merge;
    client::WriteOptions writeOptions;
    client::PatchOptions patchOptions;
    client::DeleteOptions deleteOptions;
    client::ListOptions listOptions;

    // "create deployments ns/name", "update foos/status ns/name", "list configmaps ns/".
    QString toString() const;
};

class QCM_SDK_EXPORT FakeClient final : public client::Client
{
public:
    // Answers a call instead of the tracker when it returns a result (client-go's Reactor).
    using Reactor = std::function<std::optional<client::ObjectResult>(const Action &action)>;

    FakeClient();
    ~FakeClient() override;

    // controller-runtime's WithStatusSubresource, for a CRD's resource.
    FakeClient &withStatusSubresource(const client::GroupVersionResource &gvr);
    // Seeds an object (WithObjects); its status, uid and timestamps are kept (ObjectTracker::add).
    client::ObjectResult add(const client::GroupVersionResource &gvr, const client::Object &object);
    ObjectTracker &tracker() { return m_tracker; }

    QList<Action> actions() const;
    QStringList actionStrings() const;
    void clearActions();
    // Runs before those added earlier; get, create, update, patch and delete calls only.
    void prependReactor(Reactor reactor);

    using Client::create;
    using Client::get;
    using Client::list;
    client::ObjectResult get(
        const client::GroupVersionResource &gvr, const QString &ns, const QString &name) override;
    client::ListResult list(const client::GroupVersionResource &gvr, const QString &ns,
        const client::ListOptions &options = {}) override;
    client::ObjectResult create(const client::GroupVersionResource &gvr,
        const client::Object &object, const client::WriteOptions &options = {}) override;
    client::ObjectResult update(const client::GroupVersionResource &gvr,
        const client::Object &object, const client::WriteOptions &options = {}) override;
    client::ObjectResult updateStatus(const client::GroupVersionResource &gvr,
        const client::Object &object, const client::WriteOptions &options = {}) override;
    client::ObjectResult patch(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, client::PatchType type, const QByteArray &patch,
        const client::PatchOptions &options = {}) override;
    client::ObjectResult remove(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, const client::DeleteOptions &options = {}) override;

    // The ListerWatchers of informers over this client's objects.
    cache::SharedInformerFactory::ListerWatcherFactory listerWatcherFactory();
    // A SharedInformerFactory whose informers list and watch this client (owned by `parent`,
    // or by the caller; it must not outlive this client).
    cache::SharedInformerFactory *informerFactory(
        QObject *parent = nullptr, Duration resync = Duration::zero());

private:
    // Records the action; a reactor's answer, if one gives it.
    std::optional<client::ObjectResult> record(const Action &action);

    ObjectTracker m_tracker;
    mutable std::mutex m_mutex;
    QList<Action> m_actions; // guarded by m_mutex
    QList<Reactor> m_reactors; // guarded by m_mutex
};

} // namespace qcm::testing
