// SPDX-License-Identifier: Apache-2.0
// LeaderElector, coordinated leader election (KEP-4355): client-go's tryCoordinatedRenew. The
// holder is written by the API server's election controller; the elector only renews a term it
// was given (leaderelector.h).
#include <qcm/leaderelection/leaderelector.h>

#include "leaderelector_p.h"
#include "logging_p.h"

namespace qcm::leaderelection {

using namespace std::chrono;

void LeaderElector::tryCoordinatedRenew(quint64 attempt, std::function<void(bool)> done)
{
    const TimePoint now = d->clock->now();
    d->attemptStart = now;
    detail::whenFinished(
        d->config.lock->get(), d->mailbox, [this, attempt, now, done](const GetResult &old) {
            if (attempt != d->attempt)
                return;
            if (!old) {
                if (old.error().isNotFound())
                    qCInfo(lcLeaderElection).noquote()
                        << "Lease lock" << d->desc()
                        << "not found: the election controller has not written it yet";
                else
                    qCWarning(lcLeaderElection).noquote()
                        << "error retrieving resource lock" << d->desc() << old.error().toString();
                done(false);
                return;
            }
            observe(old);
            if (!isLeaseValid(now)) {
                qCInfo(lcLeaderElection).noquote() << "Lease" << d->desc() << "has expired";
                if (observedHolderIsMe() && d->state != Private::State::Leading) {
                    handBackLapsedLease(attempt, old->record, done);
                    return;
                }
                done(false);
                return;
            }
            if (!observedHolderIsMe()) {
                qCDebug(lcLeaderElection).noquote()
                    << "lock is held by" << old->record.holderIdentity << "and has not yet expired";
                done(false);
                return;
            }
            if (!old->record.preferredHolder.isEmpty()) {
                // The election controller marked the end of this term: renew no more, so that
                // the lease runs out and it can hand the Lease to the preferred holder.
                qCInfo(lcLeaderElection).noquote()
                    << "Lease" << d->desc() << "is marked as 'end of term' (preferredHolder"
                    << old->record.preferredHolder + QLatin1Char(')');
                done(false);
                return;
            }
            LeaderElectionRecord record = old->record;
            record.holderIdentity = d->config.lock->identity();
            record.leaseDurationSeconds
                = int(duration_cast<seconds>(d->config.leaseDuration).count());
            record.renewTime = QDateTime::currentDateTimeUtc();
            if (d->slowpath && d->state == Private::State::Leading)
                d->slowpath->increment();
            writeRecord(attempt, record, done);
        });
}

// Beyond client-go: the election controller leaves a lapsed Lease as it is when the holder it
// names is the one it would elect again (it resets only a lapsed Lease of another holder), and
// client-go's coordinated elector never renews a lapsed Lease; so a Lease that lapsed naming
// this candidate (its term marked ended, or its leader gone past the deadline) would stay
// without a leader. Releasing it, as a leader's release does, lets the controller write the
// holder again. Only a candidate that is not leading does it, after the lease ran out as
// observed, when any plain elector could take the Lease anyway. The update carries the
// resourceVersion just read, so a controller's write in between wins.
void LeaderElector::handBackLapsedLease(
    quint64 attempt, const LeaderElectionRecord &current, std::function<void(bool)> done)
{
    writeRecord(attempt, releasedRecord(current), [this, done](bool released) {
        if (released)
            qCInfo(lcLeaderElection).noquote()
                << "handed back lapsed lease" << d->desc()
                << "so that the election controller writes the holder again";
        done(false); // a candidate still: the controller writes the holder
    });
}

} // namespace qcm::leaderelection
