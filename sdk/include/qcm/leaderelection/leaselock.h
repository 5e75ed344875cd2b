// SPDX-License-Identifier: Apache-2.0
// LeaseLock: the record is the spec of a coordination.k8s.io/v1 Lease (client-go's
// resourcelock.LeaseLock). The default lock, and the only one client-go still has.
//
// The raw form compared by the elector is the spec as JSON (holder, duration, times in
// milliseconds, transitions), so every renewal changes it. (client-go's is json.Marshal of the
// record, times in seconds: the same changes, since renewals are at least a second apart.)
//
// setLabels() (client-go's LeaseLock.Labels) puts labels on the Lease when it is created and
// on every update, over whatever labels it already has; others' labels stay. Scale-out's
// membership Leases carry their group this way (docs/scale-out.md).
//
// Thread safety: as ResourceLock; setLabels() before the first call.
#pragma once

#include <qcm/leaderelection/objectlock.h>

#include <QtCore/QMap>

namespace qcm::leaderelection {

class QCM_SDK_EXPORT LeaseLock : public ObjectLock
{
    Q_OBJECT

public:
    LeaseLock(const QString &ns, const QString &name, client::RestClient *client,
        ResourceLockConfig config, QObject *parent = nullptr);

    ~LeaseLock() override;

    static const client::GroupVersionResource Leases;

    void setLabels(const QMap<QString, QString> &labels);
    QMap<QString, QString> labels() const;

protected:
    GetResult recordOf(const client::Object &object) const override;
    client::Object withRecord(
        client::Object object, const LeaderElectionRecord &record) const override;
    client::Object newObject() const override;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::leaderelection
