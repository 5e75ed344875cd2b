// SPDX-License-Identifier: Apache-2.0
// LeaseLock: the record is the spec of a coordination.k8s.io/v1 Lease (client-go's
// resourcelock.LeaseLock). The default lock, and the only one client-go still has.
//
// The raw form compared by the elector is the spec as JSON (holder, duration, times in
// milliseconds, transitions), so every renewal changes it. (client-go's is json.Marshal of the
// record, times in seconds: the same changes, since renewals are at least a second apart.)
//
// Thread safety: as ResourceLock.
#pragma once

#include <qcm/leaderelection/objectlock.h>

namespace qcm::leaderelection {

class QCM_SDK_EXPORT LeaseLock : public ObjectLock
{
    Q_OBJECT

public:
    LeaseLock(const QString &ns, const QString &name, client::RestClient *client,
        ResourceLockConfig config, QObject *parent = nullptr);

    static const client::GroupVersionResource Leases;

protected:
    GetResult recordOf(const client::Object &object) const override;
    client::Object withRecord(
        client::Object object, const LeaderElectionRecord &record) const override;
    client::Object newObject() const override;
};

} // namespace qcm::leaderelection
