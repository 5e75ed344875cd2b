// SPDX-License-Identifier: Apache-2.0
// ObjectLock: a ResourceLock kept in one Kubernetes object, read and written through a
// RestClient. The base of LeaseLock, ConfigMapLock and EndpointsLock; a subclass only says
// where in the object the record lives.
//
// The lock remembers one object, whose resourceVersion the next update() writes over, as
// client-go's locks do:
//   get()     remembers the object it read, also when the record in it cannot be read (the
//             get fails, but a later update may write a good record over it); a get that
//             fails leaves the remembered object as it was (client-go since
//             kubernetes/client-go#966);
//   create()  POSTs a new object and remembers it; a failed create forgets the object
//             (client-go keeps the empty object its client returns), so update() then fails
//             until a get();
//   update()  writes the record into the remembered object and PUTs it, so the server rejects
//             it with Conflict if anyone wrote in between; the remembered object carries the
//             new record from then on, and the server's reply once it succeeds.
// Only the reply to the latest call is remembered: a late reply to an earlier call is
// reported to its caller but changes nothing here.
// patch() writes other fields of the object (scale-out's annotations on a membership Lease,
// sharding/membership.h) through the lock, in turn with update(): it is sent once no update is
// in flight, and an update asked for while it is in flight is sent after its reply. The object
// it returns is remembered as the latest call's, so the next update writes over its
// resourceVersion and keeps those fields, instead of failing with Conflict (a renewal that
// crossed a patch on the wire used to, and lost the term when its slow path lost a race too).
// setWatching(true) watches the object (a field selector on its name) and emits changed() on every
// event; a watch that ends is started again after a second.
//
// Thread safety: as ResourceLock. The RestClient must outlive the lock.
#pragma once

#include <qcm/client/object.h>
#include <qcm/client/resource.h>
#include <qcm/client/restclient.h>
#include <qcm/leaderelection/resourcelock.h>

#include <memory>

namespace qcm::leaderelection {

class QCM_SDK_EXPORT ObjectLock : public ResourceLock
{
    Q_OBJECT

public:
    ~ObjectLock() override;

    QFuture<GetResult> get() override;
    QFuture<WriteResult> create(const LeaderElectionRecord &record) override;
    QFuture<WriteResult> update(const LeaderElectionRecord &record) override;
    void recordEvent(const QString &message) override;
    QString identity() const override;
    QString describe() const override;
    void setWatching(bool on) override;
    // PATCHes the object with `body` of `contentType` (a merge or JSON patch), in turn with
    // update(); the patched object, once it succeeds, counts as the latest call's.
    QFuture<client::ObjectResult> patch(QByteArray body, QByteArray contentType);

    QString namespaceName() const;
    QString name() const;
    const client::GroupVersionResource &resource() const;

protected:
    // `kind` names the object in messages ("lease", "configmap", "endpoint"), as client-go's
    // "lease not initialized, call get or create first".
    ObjectLock(client::GroupVersionResource gvr, QString kind, QString ns, QString name,
        client::RestClient *client, ResourceLockConfig config, QObject *parent);

    // The record kept in `object`, and its raw form. A record that cannot be read is an
    // error: get() fails with it (the elector then retries, as client-go's).
    virtual GetResult recordOf(const client::Object &object) const = 0;
    // `object` (a new one with only apiVersion, kind and metadata when creating) with
    // `record` written into it.
    virtual client::Object withRecord(
        client::Object object, const LeaderElectionRecord &record) const = 0;
    // apiVersion and kind of a new object.
    virtual client::Object newObject() const = 0;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::leaderelection
