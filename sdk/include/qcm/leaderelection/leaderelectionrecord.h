// SPDX-License-Identifier: Apache-2.0
// LeaderElectionRecord: who holds a leader lock and since when (client-go's
// resourcelock.LeaderElectionRecord).
//
// The elector never trusts the timestamps in a record: they come from another machine's
// clock. A change of the record only tells it that the holder renewed, and it judges expiry by
// its own monotonic clock (see leaderelector.h). The timestamps are informational.
//
// Two encodings: the JSON that the ConfigMap and Endpoints locks keep in the annotation
// `control-plane.alpha.kubernetes.io/leader` (client-go before v0.24, seconds precision), and
// the spec of a coordination.k8s.io/v1 Lease (leaseTransitions, MicroTime).
//
// Plain value; copy it freely.
#pragma once

#include <qcm/result.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonObject>

namespace qcm::leaderelection {

// The annotation that the ConfigMap and Endpoints locks use.
inline constexpr char LeaderElectionRecordAnnotationKey[]
    = "control-plane.alpha.kubernetes.io/leader";
// The holder MultiLock reports when its two objects disagree (client-go's UnknownLeader).
inline constexpr char UnknownLeader[] = "leaderelection.k8s.io/unknown";

struct QCM_SDK_EXPORT LeaderElectionRecord
{
    // Empty: nobody holds the lock (a holder that stepped down writes "").
    QString holderIdentity;
    int leaseDurationSeconds = 0;
    QDateTime acquireTime; // UTC; invalid when unset
    QDateTime renewTime; // UTC; invalid when unset
    int leaderTransitions = 0;
    // Coordinated leader election (Lease only); kept as read, never acted on.
    QString strategy;
    QString preferredHolder;

    // The annotation form: {"holderIdentity":…,"leaseDurationSeconds":…,"acquireTime":…,
    // "renewTime":…,"leaderTransitions":…}, times as RFC 3339 seconds or null.
    QByteArray toAnnotation() const;
    // Parses the annotation form as client-go's json.Unmarshal into the record does: unknown
    // fields are ignored, null or a missing field leaves its zero value, times are RFC 3339
    // (Go's time.Parse(time.RFC3339, …): a zone is required; sub-second digits are kept to
    // the millisecond). A bad value is an Error naming the field. Differences left: keys match
    // exactly (Go's also case-insensitively), and an integer written as 15.0 or 1.5e1 is
    // accepted (Go's refuses it).
    static Result<LeaderElectionRecord> fromAnnotation(const QByteArray &json);

    // The Lease spec form (LeaderElectionRecordToLeaseSpec / LeaseSpecToLeaderElectionRecord).
    QJsonObject toLeaseSpec() const;
    static LeaderElectionRecord fromLeaseSpec(const QJsonObject &spec);

    bool operator==(const LeaderElectionRecord &other) const;
    bool operator!=(const LeaderElectionRecord &other) const { return !(*this == other); }
};

} // namespace qcm::leaderelection
