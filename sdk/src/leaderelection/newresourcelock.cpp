// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/annotationlock.h>
#include <qcm/leaderelection/leaselock.h>
#include <qcm/leaderelection/multilock.h>
#include <qcm/leaderelection/newresourcelock.h>

#include <QtCore/QSysInfo>
#include <QtCore/QUuid>

namespace qcm::leaderelection {

Result<std::unique_ptr<ResourceLock>> newResourceLock(const QString &lockType, const QString &ns,
    const QString &name, client::RestClient *client, ResourceLockConfig config)
{
    static const QStringList types {QLatin1String(LeasesResourceLock),
        QLatin1String(ConfigMapsResourceLock), QLatin1String(EndpointsResourceLock),
        QLatin1String(EndpointsLeasesResourceLock), QLatin1String(ConfigMapsLeasesResourceLock)};
    if (!types.contains(lockType))
        return Error {QString(), QStringLiteral("lockType"),
            QStringLiteral("invalid lock type \"%1\"; valid types are %2")
                .arg(lockType, types.join(QStringLiteral(", ")))};
    if (name.isEmpty())
        return Error {QString(), QStringLiteral("name"), QStringLiteral("the lock needs a name")};
    if (ns.isEmpty())
        return Error {
            QString(), QStringLiteral("namespace"), QStringLiteral("the lock needs a namespace")};
    if (!client)
        return Error {
            QString(), QStringLiteral("client"), QStringLiteral("the lock needs a RestClient")};
    if (config.identity.isEmpty())
        config.identity = defaultIdentity();
    auto lease = [&] { return std::make_unique<LeaseLock>(ns, name, client, config); };
    std::unique_ptr<ResourceLock> lock;
    if (lockType == QLatin1String(LeasesResourceLock))
        lock = lease();
    else if (lockType == QLatin1String(ConfigMapsResourceLock))
        lock = std::make_unique<ConfigMapLock>(ns, name, client, config);
    else if (lockType == QLatin1String(EndpointsResourceLock))
        lock = std::make_unique<EndpointsLock>(ns, name, client, config);
    else if (lockType == QLatin1String(EndpointsLeasesResourceLock))
        lock = std::make_unique<MultiLock>(
            std::make_unique<EndpointsLock>(ns, name, client, config), lease());
    else
        lock = std::make_unique<MultiLock>(
            std::make_unique<ConfigMapLock>(ns, name, client, config), lease());
    return lock;
}

QString defaultIdentity()
{
    return QSysInfo::machineHostName() + QLatin1Char('_')
        + QUuid::createUuid().toString(QUuid::WithoutBraces);
}

} // namespace qcm::leaderelection
