// SPDX-License-Identifier: Apache-2.0
#include <qcm/ownerkey.h>

#include <qcm/client/resource.h>

namespace qcm {

std::optional<QString> controllerOwnerKey(const client::Object &object, const QString &ownerGroup,
    const QString &ownerKind, OwnerScope scope)
{
    const std::optional<client::OwnerReference> owner = object.controllerRef();
    if (!owner || owner->kind != ownerKind || owner->name.isEmpty())
        return std::nullopt;
    if (client::GroupVersionKind::fromApiVersion(owner->apiVersion, owner->kind).group
        != ownerGroup)
        return std::nullopt;
    if (scope == OwnerScope::Cluster || object.namespaceName().isEmpty())
        return owner->name;
    return object.namespaceName() + QLatin1Char('/') + owner->name;
}

} // namespace qcm
