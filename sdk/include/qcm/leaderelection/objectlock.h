// ObjectLock: a ResourceLock kept in one Kubernetes object, read and written through a
// RestClient. The base of LeaseLock, ConfigMapLock and EndpointsLock; a subclass only says
// where in the object the record lives.
//
// get() remembers the object it read, with its resourceVersion; update() writes the record
// into that object and PUTs it, so the server rejects it with Conflict if anyone wrote in
// between. create() POSTs a new object. Only the reply to the latest call is remembered: a
// late reply to an earlier call is reported to its caller but changes nothing here.
// setWatching(true) watches the object (a field selector on its name) and emits changed() on every
// event; a watch that ends is started again after a second.
//
// Thread safety: as ResourceLock. The RestClient must outlive the lock.
#pragma once

#include <qcm/client/object.h>
#include <qcm/client/resource.h>
#include <qcm/leaderelection/resourcelock.h>

#include <memory>

namespace qcm::client {
class RestClient;
}

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

    QString namespaceName() const;
    QString name() const;
    const client::GroupVersionResource &resource() const;

protected:
    // `kind` names the object in messages ("lease", "configmap", "endpoint"), as client-go's
    // "lease not initialized, call get or create first".
    ObjectLock(client::GroupVersionResource gvr, QString kind, QString ns, QString name,
        client::RestClient *client, ResourceLockConfig config, QObject *parent);

    // The record kept in `object`, and its raw form. A record that cannot be read is an
    // error (the elector then retries; it never overwrites what it cannot read).
    virtual GetResult recordOf(const client::Object &object) const = 0;
    // `object` (a new one with only apiVersion, kind and metadata when creating) with
    // `record` written into it.
    virtual client::Object withRecord(
        client::Object object, const LeaderElectionRecord &record) const = 0;
    // apiVersion and kind of a new object.
    virtual client::Object newObject() const = 0;

private:
    void startWatch();

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::leaderelection
