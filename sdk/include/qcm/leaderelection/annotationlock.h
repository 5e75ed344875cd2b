// SPDX-License-Identifier: Apache-2.0
// ConfigMapLock and EndpointsLock: the record is JSON in the annotation
// `control-plane.alpha.kubernetes.io/leader` of a v1 ConfigMap or Endpoints object, as
// client-go kept it before v0.24 (seed 001 describes them; client-go removed them).
//
// The raw form compared by the elector is the annotation text itself. An object without the
// annotation reads as an empty record (nobody holds it), so a candidate takes it over.
//
// Thread safety: as ResourceLock.
#pragma once

#include <qcm/leaderelection/objectlock.h>

namespace qcm::leaderelection {

// The shared part: the record in the annotation of a core/v1 object.
class QCM_SDK_EXPORT AnnotationLock : public ObjectLock
{
    Q_OBJECT

protected:
    AnnotationLock(const QString &resource, const QString &kind, const QString &ns,
        const QString &name, client::RestClient *client, ResourceLockConfig config,
        QObject *parent);

    GetResult recordOf(const client::Object &object) const override;
    client::Object withRecord(
        client::Object object, const LeaderElectionRecord &record) const override;
    client::Object newObject() const override;

private:
    QString m_kind;
};

class QCM_SDK_EXPORT ConfigMapLock : public AnnotationLock
{
    Q_OBJECT

public:
    ConfigMapLock(const QString &ns, const QString &name, client::RestClient *client,
        ResourceLockConfig config, QObject *parent = nullptr);
};

class QCM_SDK_EXPORT EndpointsLock : public AnnotationLock
{
    Q_OBJECT

public:
    EndpointsLock(const QString &ns, const QString &name, client::RestClient *client,
        ResourceLockConfig config, QObject *parent = nullptr);
};

} // namespace qcm::leaderelection
