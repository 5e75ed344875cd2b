// SPDX-License-Identifier: Apache-2.0
// FooController: kube's sample-controller (k8s.io/sample-controller, controller.go) on the
// plugin-author kit (docs/kit.md). For every Foo it makes sure the Deployment
// spec.deploymentName exists in the Foo's namespace, is controlled by the Foo, and runs
// spec.replicas replicas; then it copies the Deployment's status.availableReplicas into the
// Foo's status (status subresource) and records the Event Normal/Synced. A Deployment of that
// name that the Foo does not control is left alone: a Warning ErrResourceExists Event and an
// error, so the Foo is retried with the queue's backoff, as upstream does.
//
// Watches (builder::ControllerBuilder): Foos, adds and updates, resyncs included, as upstream's
// enqueueFoo (deletes are filtered out: upstream has no delete handler); Deployments through
// their controller reference to a Foo (owns), resyncs skipped (resourceVersionChanged), as
// upstream's handleObject.
//
// Reads come from those informers' caches (a client::CachedClient: upstream's listers); every
// write goes through the given client with the field manager "sample-controller"
// (client::FieldOwnerClient), createOrUpdate's too.
//
// Thread safety: syncHandler() runs on the worker threads, never twice at once for one key;
// the clients and the recorder it uses are safe from any thread.
#pragma once

#include <qcm/client/client.h>
#include <qcm/controller.h>
#include <qcm/record/eventrecorder.h>

#include <memory>

namespace qcm::samples {

class FooController : public Controller
{
public:
    // Writes through `client` and records Events with `recorder` (not null). Throws
    // std::invalid_argument when the watches cannot be wired (a context without informers).
    FooController(const ControllerContext &context, std::shared_ptr<client::Client> client,
        std::shared_ptr<record::EventRecorder> recorder);
    // A DirectClient over the host's RestClient, and context.requireEventRecorder() (which
    // throws for a context without one): what the plugin creates.
    explicit FooController(const ControllerContext &context);
    ~FooController() override;

    // Upstream's syncHandler for the Foo "namespace/name". Public for the unit tests, which
    // call it directly as upstream's controller_test.go does.
    ReconcileResult syncHandler(const QString &key);

protected:
    ReconcileResult reconcile(const QString &key) override { return syncHandler(key); }

private:
    std::shared_ptr<client::Client> m_client; // the API server (or a test's fake)
    std::unique_ptr<client::Client> m_writer; // m_client, writing as "sample-controller"
    std::unique_ptr<client::Client> m_cache; // reads from the informers, writes to m_writer
    std::shared_ptr<record::EventRecorder> m_recorder;
};

} // namespace qcm::samples
