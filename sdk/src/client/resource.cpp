// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/resource.h>

namespace qcm::client {

QString GroupVersionResource::groupVersion() const
{
    return group.isEmpty() ? version : group + QLatin1Char('/') + version;
}

QString GroupVersionResource::collectionPath(const QString &ns) const
{
    QString path = group.isEmpty() ? QStringLiteral("/api/") + version
                                   : QStringLiteral("/apis/") + group + QLatin1Char('/') + version;
    if (!ns.isEmpty())
        path += QStringLiteral("/namespaces/") + ns;
    return path + QLatin1Char('/') + resource;
}

QString GroupVersionResource::toString() const
{
    return resource + QLatin1Char('.') + version + QLatin1Char('.') + group;
}

QString GroupVersionKind::groupVersion() const
{
    return group.isEmpty() ? version : group + QLatin1Char('/') + version;
}

GroupVersionKind GroupVersionKind::fromApiVersion(const QString &apiVersion, const QString &kind)
{
    const int slash = apiVersion.indexOf(QLatin1Char('/'));
    if (slash < 0)
        return {QString(), apiVersion, kind};
    return {apiVersion.left(slash), apiVersion.mid(slash + 1), kind};
}

QString GroupVersionKind::toString() const
{
    return groupVersion() + QStringLiteral(", Kind=") + kind;
}

} // namespace qcm::client
