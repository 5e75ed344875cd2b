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
// The status subresource is registered for the built-in kinds that have one (pods,
// deployments, statefulsets, replicasets, daemonsets, jobs, cronjobs, services, nodes,
// namespaces, persistentvolumes, persistentvolumeclaims); withStatusSubresource() adds CRDs'.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/client.h>
#include <qcm/testing/objecttracker.h>

namespace qcm::testing {

class QCM_SDK_EXPORT FakeClient final : public client::Client
{
public:
    FakeClient();
    ~FakeClient() override;

    // controller-runtime's WithStatusSubresource, for a CRD's resource.
    FakeClient &withStatusSubresource(const client::GroupVersionResource &gvr);
    // Seeds an object (WithObjects); its status is kept.
    client::ObjectResult add(const client::GroupVersionResource &gvr, const client::Object &object);
    ObjectTracker &tracker() { return m_tracker; }

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
    ObjectTracker m_tracker;
};

} // namespace qcm::testing
