// SPDX-License-Identifier: Apache-2.0
#include "ttlafterfinishedcontroller.h"

#include "ttlafterfinished.h"

#include <qcm/builder/controllerbuilder.h>
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/metrics/registry.h>

#include <QtCore/QLoggingCategory>

#include <stdexcept>

namespace qcm::samples {

using api::batch::v1::Job;

TtlAfterFinishedController::TtlAfterFinishedController(
    const ControllerContext &context, std::shared_ptr<client::Client> client, Options options)
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
    if (std::optional<Error> error
        = builder::ControllerBuilder(*this).forKind<Job>(jobsToCleanUp()).complete())
        throw std::invalid_argument(error->toString().toStdString());
    // The builder's informer (the factory shares one per resource): processJob reads its cache.
    m_jobs = context.informerFactory()->informerFor(Job::groupVersionResource());
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
    : TtlAfterFinishedController(context,
        std::make_shared<client::DirectClient>(context.restClient()), optionsOrThrow(context))
{ }

TtlAfterFinishedController::~TtlAfterFinishedController()
{
    // The workers call our reconcile(): they must be gone before this subclass is.
    stop(std::chrono::hours(24));
}

Result<TtlAfterFinishedController::Options> TtlAfterFinishedController::optionsFromSettings(
    const QVariantMap &settings)
{
    const QString key = QStringLiteral("propagationPolicy");
    if (std::optional<Error> error = unknownSetting(settings, {key}))
        return *error;
    Options options;
    if (settings.contains(key)) {
        const QVariant policy = settings.value(key);
        const QStringList known {
            QStringLiteral("Background"), QStringLiteral("Foreground"), QStringLiteral("Orphan")};
        // A YAML scalar that is not a string (3, true) is refused even if it prints as one.
        if (policy.typeId() != QMetaType::QString || !known.contains(policy.toString()))
            return Error {QString(), QStringLiteral("settings.propagationPolicy"),
                QStringLiteral("must be Background, Foreground or Orphan, not \"%1\"")
                    .arg(policy.toString())};
        options.propagationPolicy = policy.toString();
    }
    return options;
}

ReconcileResult TtlAfterFinishedController::processJob(const QString &key)
{
    // Jobs deleted or being deleted, and those that need no cleaning up, are left alone.
    const std::optional<client::Object> cached = m_jobs->indexer().getByKey(key);
    if (!cached)
        return ReconcileResult::done();

    // The TTL as the cache knows it; then, before deleting, as the API server does. Returns
    // what to do unless the TTL has expired, and then sets expireAt.
    QDateTime expireAt;
    auto check = [&](const Job &job) -> std::optional<ReconcileResult> {
        const QDateTime now = m_options.now();
        const Result<TtlCheck> ttl = checkTtl(job, now);
        if (!ttl)
            return ReconcileResult::error(ttl.error().toString());
        if (ttl->kind == TtlCheck::Kind::NoCleanup)
            return ReconcileResult::done();
        if (ttl->finishAt > now)
            qCWarning(context().logCategory()).noquote()
                << QStringLiteral("Found Job %1 finished in the future. This is likely due to "
                                  "time skew in the cluster. Job cleanup will be deferred.")
                       .arg(key);
        if (ttl->kind == TtlCheck::Kind::NotYet)
            return ReconcileResult::requeueAfter(ttl->remaining);
        expireAt = ttl->expireAt;
        return std::nullopt;
    };
    if (std::optional<ReconcileResult> result = check(Job(*cached)))
        return *result;

    // The TTL may have changed since the cache saw the Job, and the latest Job may be
    // another one of the same name (its own checks then run again): check the API server's.
    const Result<Job, client::Status> fresh
        = m_client->get<Job>(cached->namespaceName(), cached->name());
    if (!fresh) {
        if (fresh.error().isNotFound())
            return ReconcileResult::done();
        return ReconcileResult::error(fresh.error().toString());
    }
    if (std::optional<ReconcileResult> result = check(*fresh))
        return *result;

    client::DeleteOptions options;
    options.propagationPolicy = m_options.propagationPolicy;
    options.preconditionUid = fresh->uid();
    qCInfo(context().logCategory()).noquote() << QStringLiteral("Cleaning up Job %1").arg(key);
    const client::ObjectResult deleted = m_client->remove(
        Job::groupVersionResource(), fresh->namespaceName(), fresh->name(), options);
    if (!deleted)
        return ReconcileResult::error(deleted.error().toString());
    if (m_deletionDuration)
        m_deletionDuration->observe(double(expireAt.msecsTo(m_options.now())) / 1000.0);
    return ReconcileResult::done();
}

} // namespace qcm::samples
