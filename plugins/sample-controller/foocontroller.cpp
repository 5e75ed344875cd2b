// SPDX-License-Identifier: Apache-2.0
#include "foocontroller.h"

#include "foo.h"

#include <qcm/api/apps/v1.h>
#include <qcm/builder/controllerbuilder.h>
#include <qcm/cache/keys.h>
#include <qcm/client/cachedclient.h>
#include <qcm/client/fieldownerclient.h>
#include <qcm/controllerutil/controllerutil.h>

#include <QtCore/QLoggingCategory>

#include <stdexcept>

namespace qcm::samples {

using namespace qcm::client;
using api::apps::v1::Deployment;

FooController::FooController(const ControllerContext &context, std::shared_ptr<Client> client,
    std::shared_ptr<record::EventRecorder> recorder)
    : Controller(context)
    , m_client(std::move(client))
    , m_writer(std::make_unique<FieldOwnerClient>(*m_client, FooFieldManager))
    , m_cache(std::make_unique<CachedClient>(context.informerFactory(), m_writer.get()))
    , m_recorder(std::move(recorder))
{
    // Upstream registers no delete handler for Foos: a deleted Foo's Deployment goes with it
    // (garbage collection), and a sync would only find the Foo gone.
    predicate::Predicate fooChanged;
    fooChanged.remove = [](const Object &) { return false; };
    const std::optional<Error> error = builder::ControllerBuilder(*this)
                                           .forKind<Foo>(fooChanged)
                                           .owns<Deployment>(predicate::resourceVersionChanged())
                                           .complete();
    if (error)
        throw std::invalid_argument(error->toString().toStdString());
}

FooController::FooController(const ControllerContext &context)
    : FooController(context, std::make_shared<DirectClient>(context.restClient()),
        context.requireEventRecorder())
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
    const Result<Foo, Status> foo = m_cache->get<Foo>(name->namespaceName, name->name);
    if (!foo && !foo.error().isNotFound())
        return ReconcileResult::error(foo.error().toString()); // the cache did not sync
    if (!foo) {
        // Deleted meanwhile: nothing to do.
        qCInfo(context().logCategory()).noquote()
            << QStringLiteral("Foo '%1' in work queue no longer exists").arg(key);
        return ReconcileResult::done();
    }

    const QString deploymentName = foo->spec().deploymentName().value_or(QString());
    if (deploymentName.isEmpty()) {
        // Absorbed rather than retried: the Foo's next update queues it again.
        qCWarning(context().logCategory()).noquote()
            << QStringLiteral("%1: deployment name must be specified").arg(key);
        return ReconcileResult::done();
    }

    // Upstream's get (from the cache), create if missing, "is it ours?", then scale. The mutate
    // function runs on newDeployment(foo) before it is created, or on the cached Deployment,
    // which is updated (conditionally, on its resourceVersion) only if it changed something.
    // Only spec.replicas is the Foo's to change: the API server defaults the rest of the spec,
    // and writing newDeployment's whole spec back would be an update on every sync.
    Object deployment = newDeployment(*foo);
    bool notOurs = false;
    const controllerutil::OperationOutcome outcome
        = controllerutil::createOrUpdate(*m_cache, Deployment::groupVersionResource(), deployment,
            [&](Object &object) -> std::optional<Error> {
                if (!controllerutil::hasControllerReference(foo->object(), object)) {
                    notOurs = true; // nothing is written
                    return Error {key, object.key(), QStringLiteral("not controlled by the Foo")};
                }
                const std::optional<qint64> replicas = foo->spec().replicas();
                // The API server defaults a Deployment's replicas to 1.
                const qint32 current = Deployment(object).spec().replicas().value_or(1);
                if (replicas && *replicas != current) {
                    qCDebug(context().logCategory()).noquote()
                        << QStringLiteral("Foo %1 replicas: %2, deployment replicas: %3")
                               .arg(key)
                               .arg(*replicas)
                               .arg(current);
                    QJsonObject spec
                        = std::as_const(object).json().value(QLatin1String("spec")).toObject();
                    spec.insert(QStringLiteral("replicas"), *replicas);
                    object.json().insert(QStringLiteral("spec"), spec);
                }
                return std::nullopt;
            });
    if (notOurs) {
        const QString message = messageResourceExists(deploymentName);
        m_recorder->event(foo->object(), record::EventTypeWarning, ErrResourceExists, message);
        return ReconcileResult::error(message);
    }
    if (!outcome.ok())
        return ReconcileResult::error(outcome.errorString());

    // updateFooStatus: through the status subresource, conditional on the cached Foo's
    // resourceVersion (a stale cache gets a conflict, and a retry). An unset availableReplicas
    // (nothing rolled out yet) is 0, the Go field's zero value.
    Object status = foo->object(); // implicitly shared: the cache's object is never modified
    status.json().insert(QStringLiteral("status"),
        samplecontroller::v1alpha1::FooStatus::build()
            .availableReplicas(Deployment(deployment).status().availableReplicas().value_or(0))
            .toJson());
    const ObjectResult updated = m_cache->updateStatus(Foo::groupVersionResource(), status);
    if (!updated)
        return ReconcileResult::error(updated.error().toString());

    m_recorder->event(foo->object(), record::EventTypeNormal, SuccessSynced, MessageResourceSynced);
    return ReconcileResult::done();
}

} // namespace qcm::samples
