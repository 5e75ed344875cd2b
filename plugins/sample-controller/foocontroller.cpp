// SPDX-License-Identifier: Apache-2.0
#include "foocontroller.h"

#include "foo.h"
#include "resources.h"

#include <qcm/cache/sharedinformerfactory.h>

#include <QtCore/QLoggingCategory>

namespace qcm::samples {

using namespace qcm::client;

FooController::FooController(
    const ControllerContext &context, std::shared_ptr<ObjectClient> client, RecordEvent recordEvent)
    : Controller(context), m_client(std::move(client)), m_recordEvent(std::move(recordEvent))
{
    m_foos = context.informerFactory()->informerFor(Foos);
    m_deployments = context.informerFactory()->informerFor(Deployments);
    // Upstream's Foo handler: adds and updates (resyncs too), not deletes.
    cache::ResourceEventHandler onFoo;
    onFoo.onAdd = [this](const Object &foo, bool) { enqueue(foo); };
    onFoo.onUpdate = [this](const Object &, const Object &foo) { enqueue(foo); };
    addEventHandler(m_foos, onFoo);
    // Upstream's handleObject: a change to a Deployment a Foo controls syncs that Foo.
    watchOwned(m_deployments, FooGroup, FooKind);
}

FooController::FooController(const ControllerContext &context)
    : FooController(context, std::make_shared<RestObjectClient>(context.restClient()),
        eventRecorderFor(context))
{ }

FooController::~FooController()
{
    // The host has stopped us already; elsewhere (tests) wait for the workers, which call
    // reconcile() of this subclass.
    stop(std::chrono::hours(24));
}

ReconcileResult FooController::syncHandler(const QString &key)
{
    const Result<cache::NamespacedName> name = cache::splitMetaNamespaceKey(key);
    if (!name) {
        qCWarning(context().logCategory()).noquote()
            << QStringLiteral("invalid resource key: %1").arg(key);
        return ReconcileResult::done();
    }
    const std::optional<Object> foo = m_foos->lister().get(name->namespaceName, name->name);
    if (!foo) {
        // Deleted meanwhile: nothing to do.
        qCInfo(context().logCategory()).noquote()
            << QStringLiteral("Foo '%1' in work queue no longer exists").arg(key);
        return ReconcileResult::done();
    }

    const QString deploymentName = fooDeploymentName(*foo);
    if (deploymentName.isEmpty()) {
        // Absorbed rather than retried: the Foo's next update queues it again.
        qCWarning(context().logCategory()).noquote()
            << QStringLiteral("%1: deployment name must be specified").arg(key);
        return ReconcileResult::done();
    }

    std::optional<Object> deployment
        = m_deployments->lister().get(foo->namespaceName(), deploymentName);
    if (!deployment) {
        WriteOptions options;
        options.fieldManager = FooFieldManager;
        const ObjectResult created
            = m_client->create(Deployments, foo->namespaceName(), newDeployment(*foo), options);
        if (!created)
            return ReconcileResult::error(created.error().toString());
        deployment = *created;
    }

    if (!isControlledBy(*deployment, *foo)) {
        const QString message = messageResourceExists(deployment->name());
        m_recordEvent(*foo, EventTypeWarning, ErrResourceExists, message);
        return ReconcileResult::error(message);
    }

    const std::optional<qint64> replicas = fooReplicas(*foo);
    if (replicas && *replicas != deploymentReplicas(*deployment)) {
        qCDebug(context().logCategory()).noquote()
            << QStringLiteral("Foo %1 replicas: %2, deployment replicas: %3")
                   .arg(key)
                   .arg(*replicas)
                   .arg(deploymentReplicas(*deployment));
        WriteOptions options;
        options.fieldManager = FooFieldManager;
        const ObjectResult updated = m_client->update(Deployments, newDeployment(*foo), options);
        if (!updated)
            return ReconcileResult::error(updated.error().toString());
        deployment = *updated;
    }

    // updateFooStatus: through the status subresource, conditional on the cached Foo's
    // resourceVersion (a stale cache gets a conflict, and a retry).
    WriteOptions options;
    options.fieldManager = FooFieldManager;
    const ObjectResult status = m_client->updateStatus(
        Foos, fooWithAvailableReplicas(*foo, deploymentAvailableReplicas(*deployment)), options);
    if (!status)
        return ReconcileResult::error(status.error().toString());

    m_recordEvent(*foo, EventTypeNormal, SuccessSynced, MessageResourceSynced);
    return ReconcileResult::done();
}

} // namespace qcm::samples
