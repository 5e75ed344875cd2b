// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/annotationlock.h>

namespace qcm::leaderelection {

using namespace qcm::client;

AnnotationLock::AnnotationLock(const QString &resource, const QString &kind, const QString &ns,
    const QString &name, RestClient *client, ResourceLockConfig config, QObject *parent)
    : ObjectLock({QString(), QStringLiteral("v1"), resource},
        // client-go's messages: "configmap not initialized", "endpoint not initialized".
        kind == QLatin1String("ConfigMap") ? QStringLiteral("configmap")
                                           : QStringLiteral("endpoint"),
        ns, name, client, std::move(config), parent)
    , m_kind(kind)
{ }

GetResult AnnotationLock::recordOf(const Object &object) const
{
    const QMap<QString, QString> annotations = object.annotations();
    const auto it = annotations.constFind(QString::fromLatin1(LeaderElectionRecordAnnotationKey));
    if (it == annotations.constEnd())
        return ObservedRecord {}; // no record yet: nobody holds it
    const QByteArray raw = it->toUtf8();
    auto record = LeaderElectionRecord::fromAnnotation(raw);
    if (!record)
        return Status::transportError(QStringLiteral("InvalidRecord"),
            QStringLiteral("%1 %2: %3").arg(m_kind, describe(), record.error().toString()));
    return ObservedRecord {*record, raw};
}

Object AnnotationLock::withRecord(Object object, const LeaderElectionRecord &record) const
{
    QMap<QString, QString> annotations = object.annotations();
    annotations.insert(QString::fromLatin1(LeaderElectionRecordAnnotationKey),
        QString::fromUtf8(record.toAnnotation()));
    object.setAnnotations(annotations);
    return object;
}

Object AnnotationLock::newObject() const
{
    Object object;
    object.setApiVersion(QStringLiteral("v1"));
    object.setKind(m_kind);
    return object;
}

ConfigMapLock::ConfigMapLock(const QString &ns, const QString &name, RestClient *client,
    ResourceLockConfig config, QObject *parent)
    : AnnotationLock(QStringLiteral("configmaps"), QStringLiteral("ConfigMap"), ns, name, client,
        std::move(config), parent)
{ }

EndpointsLock::EndpointsLock(const QString &ns, const QString &name, RestClient *client,
    ResourceLockConfig config, QObject *parent)
    : AnnotationLock(QStringLiteral("endpoints"), QStringLiteral("Endpoints"), ns, name, client,
        std::move(config), parent)
{ }

} // namespace qcm::leaderelection
