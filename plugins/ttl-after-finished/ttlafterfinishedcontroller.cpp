// SPDX-License-Identifier: Apache-2.0
#include "ttlafterfinishedcontroller.h"

#include "resources.h"
#include "settings.h"
#include "ttlafterfinished.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/metrics/registry.h>

#include <QtCore/QLoggingCategory>

#include <stdexcept>

namespace qcm::samples {

using namespace qcm::client;

TtlAfterFinishedController::TtlAfterFinishedController(
    const ControllerContext &context, std::shared_ptr<ObjectClient> client, Options options)
    : Controller(context), m_client(std::move(client)), m_options(std::move(options))
{
    if (!m_options.now)
        m_options.now = [] { return QDateTime::currentDateTimeUtc(); };
    if (metrics::Registry *registry = context.metricsRegistry()) {
        m_deletionDuration
            = &registry
                   ->add<metrics::Histogram>(
                       QStringLiteral(
                           "ttl_after_finished_controller_job_deletion_duration_seconds"),
                       QStringLiteral("The time it took to delete the job since it became "
                                      "eligible for deletion"))
                   .add({}, metrics::exponentialBuckets(0.1, 2, 14));
    }
    m_jobs = context.informerFactory()->informerFor(Jobs);
    cache::ResourceEventHandler onJob;
    onJob.onAdd = [this](const Object &job, bool) { enqueueIfNeedsCleanup(job); };
    onJob.onUpdate = [this](const Object &, const Object &job) { enqueueIfNeedsCleanup(job); };
    addEventHandler(m_jobs, onJob);
}

namespace {
TtlAfterFinishedController::Options optionsOrThrow(const ControllerContext &context)
{
    Result<TtlAfterFinishedController::Options> options
        = TtlAfterFinishedController::optionsFromSettings(context.settings());
    if (!options)
        throw std::invalid_argument(options.error().toString().toStdString());
    return *options;
}
} // namespace

TtlAfterFinishedController::TtlAfterFinishedController(const ControllerContext &context)
    : TtlAfterFinishedController(
        context, std::make_shared<RestObjectClient>(context.restClient()), optionsOrThrow(context))
{ }

TtlAfterFinishedController::~TtlAfterFinishedController()
{
    // See FooController's destructor: wait for the workers, which call our reconcile().
    stop(std::chrono::hours(24));
}

Result<TtlAfterFinishedController::Options> TtlAfterFinishedController::optionsFromSettings(
    const QVariantMap &settings)
{
    Options options;
    if (std::optional<Error> error
        = unknownSetting(settings, {QStringLiteral("propagationPolicy")}))
        return *error;
    if (settings.contains(QStringLiteral("propagationPolicy"))) {
        const QVariant policy = settings.value(QStringLiteral("propagationPolicy"));
        const QStringList known {
            QStringLiteral("Background"), QStringLiteral("Foreground"), QStringLiteral("Orphan")};
        if (policy.typeId() != QMetaType::QString || !known.contains(policy.toString()))
            return Error {QString(), QStringLiteral("settings.propagationPolicy"),
                QStringLiteral("must be Background, Foreground or Orphan, not \"%1\"")
                    .arg(policy.toString())};
        options.propagationPolicy = policy.toString();
    }
    return options;
}

QDateTime TtlAfterFinishedController::now() const
{
    return m_options.now();
}

void TtlAfterFinishedController::enqueueIfNeedsCleanup(const Object &job)
{
    if (!job.deletionTimestamp() && needsCleanup(job))
        enqueue(job);
}

ReconcileResult TtlAfterFinishedController::processJob(const QString &key)
{
    const Result<cache::NamespacedName> name = cache::splitMetaNamespaceKey(key);
    if (!name)
        return ReconcileResult::error(name.error().toString());
    // Jobs deleted or being deleted, and those that need no cleaning up, are left alone.
    const std::optional<Object> job = m_jobs->lister().get(name->namespaceName, name->name);
    if (!job)
        return ReconcileResult::done();

    // The TTL as the cache knows it; then, before deleting, as the API server does. Returns
    // what to do unless the TTL has expired, and then sets expireAt.
    QDateTime expireAt;
    auto check = [&](const Object &object) -> std::optional<ReconcileResult> {
        const QDateTime at = now();
        const Result<TtlCheck> ttl = checkTtl(object, at);
        if (!ttl)
            return ReconcileResult::error(ttl.error().toString());
        if (ttl->kind == TtlCheck::Kind::NoCleanup)
            return ReconcileResult::done();
        if (ttl->finishAt > at)
            qCWarning(context().logCategory()).noquote()
                << QStringLiteral("Found Job %1 finished in the future. This is likely due to "
                                  "time skew in the cluster. Job cleanup will be deferred.")
                       .arg(key);
        if (ttl->kind == TtlCheck::Kind::NotYet)
            return ReconcileResult::requeueAfter(ttl->remaining);
        expireAt = ttl->expireAt;
        return std::nullopt;
    };
    if (std::optional<ReconcileResult> result = check(*job))
        return *result;

    // The TTL may have changed since the cache saw the Job, and the latest Job may be
    // another one of the same name (its own checks then run again): check the API server's.
    const ObjectResult fresh = m_client->get(Jobs, name->namespaceName, name->name);
    if (!fresh) {
        if (fresh.error().isNotFound())
            return ReconcileResult::done();
        return ReconcileResult::error(fresh.error().toString());
    }
    if (std::optional<ReconcileResult> result = check(*fresh))
        return *result;

    DeleteOptions options;
    options.propagationPolicy = m_options.propagationPolicy;
    options.preconditionUid = fresh->uid();
    qCInfo(context().logCategory()).noquote() << QStringLiteral("Cleaning up Job %1").arg(key);
    const ObjectResult deleted
        = m_client->remove(Jobs, fresh->namespaceName(), fresh->name(), options);
    if (!deleted)
        return ReconcileResult::error(deleted.error().toString());
    if (m_deletionDuration)
        m_deletionDuration->observe(double(expireAt.msecsTo(now())) / 1000.0);
    return ReconcileResult::done();
}

} // namespace qcm::samples
