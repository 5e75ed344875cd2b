// SPDX-License-Identifier: Apache-2.0
// MultiLock: two locks held as one, for migrating from one lock type to another (client-go's
// resourcelock.MultiLock, behind the seed's `endpointsleases` and `configmapsleases`).
//
//   get():    reads the primary, then the secondary. A missing secondary while someone else
//             holds the primary is the primary's record (an old client leads). If the two
//             holders differ, the holder reads as UnknownLeader. The raw form is both raw
//             forms joined by ','.
//   create(): creates the primary, then the secondary. The primary's AlreadyExists is fine
//             when the last get() found the primary (ours; only the secondary is missing);
//             after a get() that found none, it is a lost race and create() fails with it
//             (client-go goes on, and two candidates racing to create split the objects).
//   update(): updates the primary, then reads the secondary and creates it if missing, or
//             updates it.
// A call that is superseded by a newer one (resourcelock.h) stops before its next request and
// finishes with a Canceled Status.
//
// The MultiLock owns both locks. Identity and description are the primary's.
// Thread safety: as ResourceLock.
#pragma once

#include <qcm/leaderelection/resourcelock.h>

#include <memory>

namespace qcm::leaderelection {

class QCM_SDK_EXPORT MultiLock : public ResourceLock
{
    Q_OBJECT

public:
    MultiLock(std::unique_ptr<ResourceLock> primary, std::unique_ptr<ResourceLock> secondary,
        QObject *parent = nullptr);
    ~MultiLock() override;

    QFuture<GetResult> get() override;
    QFuture<WriteResult> create(const LeaderElectionRecord &record) override;
    QFuture<WriteResult> update(const LeaderElectionRecord &record) override;
    void recordEvent(const QString &message) override;
    QString identity() const override;
    QString describe() const override;
    void setWatching(bool on) override;

    ResourceLock *primary() const;
    ResourceLock *secondary() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::leaderelection
