// SPDX-License-Identifier: Apache-2.0
// FooController: kube's sample-controller (k8s.io/sample-controller, controller.go) on the qcm
// Controller base class. For every Foo it makes sure the Deployment spec.deploymentName exists
// in the Foo's namespace, is controlled by the Foo, and runs spec.replicas replicas; then it
// copies the Deployment's status.availableReplicas into the Foo's status (status subresource)
// and records the Event Normal/Synced. A Deployment of that name that the Foo does not control
// is left alone: a Warning ErrResourceExists Event and an error, so the Foo is retried with
// the queue's backoff, as upstream does.
//
// Watches: Foos (adds and updates, resyncs included, as upstream's enqueueFoo), and
// Deployments through their controller reference to a Foo (watchOwned, upstream's
// handleObject; resyncs skipped).
//
// Thread safety: syncHandler() runs on the worker threads, one key at a time per key.
#pragma once

#include "objectclient.h"
#include "recordevent.h"

#include <qcm/controller.h>

namespace qcm::samples {

class FooController : public Controller
{
public:
    // Writes through `client` and records Events with `recordEvent`.
    FooController(const ControllerContext &context, std::shared_ptr<ObjectClient> client,
        RecordEvent recordEvent);
    // With the host's RestClient and eventRecorderFor(context): what the plugin creates.
    explicit FooController(const ControllerContext &context);
    ~FooController() override;

    // Upstream's syncHandler for the Foo "namespace/name". Public for the unit tests, which
    // call it directly as upstream's controller_test.go does.
    ReconcileResult syncHandler(const QString &key);

protected:
    ReconcileResult reconcile(const QString &key) override { return syncHandler(key); }

private:
    std::shared_ptr<ObjectClient> m_client;
    RecordEvent m_recordEvent;
    cache::SharedIndexInformer *m_foos = nullptr;
    cache::SharedIndexInformer *m_deployments = nullptr;
};

} // namespace qcm::samples
