// SPDX-License-Identifier: Apache-2.0
// TtlAfterFinishedController: kube-controller-manager's TTL-after-finished controller
// (pkg/controller/ttlafterfinished/ttlafterfinished_controller.go) on the qcm Controller base
// class. It deletes Jobs (batch/v1) whose spec.ttlSecondsAfterFinished has passed since they
// finished (ttlafterfinished.h).
//
// Jobs are queued when they are added or updated (resyncs too), finished, with a TTL, and not
// being deleted (upstream's addJob/updateJob, as the jobsToCleanUp() predicate; deletes queue
// nothing). processJob(key):
//   1. the Job from the cache; gone: done;
//   2. its TTL: nothing to clean up: done; not expired: requeue after the time left;
//   3. expired: GET the Job from the API server (the TTL, or the Job, may have changed since
//      the cache saw it) and check that one again, the same way;
//   4. still expired: DELETE it with the propagation policy (settings.propagationPolicy,
//      Background by default, see README.md) and a precondition on the fresh Job's UID, so a
//      new Job of the same name is never deleted by mistake.
// Errors are retried with the queue's backoff. Each deletion observes the seconds since the
// Job expired in ttl_after_finished_controller_job_deletion_duration_seconds, upstream's
// histogram (exponential buckets 0.1 s x2, 14 of them).
//
// Thread safety: processJob() runs on the worker threads, never twice at once for one key;
// it reads the informer's cache and calls the client, both thread-safe.
#pragma once

#include <qcm/client/client.h>
#include <qcm/controller.h>
#include <qcm/metrics/histogram.h>

#include <QtCore/QDateTime>

#include <functional>
#include <memory>

namespace qcm::samples {

class TtlAfterFinishedController : public Controller
{
public:
    struct Options
    {
        // metav1.DeletionPropagation: Background, Foreground or Orphan.
        QString propagationPolicy = QStringLiteral("Background");
        // Wall-clock time, which the conditions' times are compared with. Null: the system's.
        // (The context's Clock is monotonic and cannot be compared with them.)
        std::function<QDateTime()> now;
    };

    // Reads and deletes Jobs through `client` (a test's testing::FakeClient).
    TtlAfterFinishedController(
        const ControllerContext &context, std::shared_ptr<client::Client> client, Options options);
    // Through a DirectClient over the host's RestClient, with the options of
    // context.settings(); throws std::invalid_argument, naming the setting, for a bad one (the
    // host marks the plugin failed with that message).
    explicit TtlAfterFinishedController(const ControllerContext &context);
    ~TtlAfterFinishedController() override;

    // The options `settings` asks for: {propagationPolicy: Background|Foreground|Orphan}.
    static Result<Options> optionsFromSettings(const QVariantMap &settings);

    // Upstream's processJob for the Job "namespace/name". Public for the unit tests.
    ReconcileResult processJob(const QString &key);

protected:
    ReconcileResult reconcile(const QString &key) override { return processJob(key); }

private:
    std::shared_ptr<client::Client> m_client;
    Options m_options;
    cache::SharedIndexInformer *m_jobs = nullptr;
    metrics::Histogram *m_deletionDuration = nullptr; // null without a metrics registry
};

} // namespace qcm::samples
