// SPDX-License-Identifier: Apache-2.0
// Object keys: "namespace/name", or "name" for cluster-scoped objects
// (client-go's MetaNamespaceKeyFunc and SplitMetaNamespaceKey).
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/object.h>
#include <qcm/result.h>

#include <functional>

namespace qcm::cache {

// What keys an object; the default is metaNamespaceKey.
using KeyFunction = std::function<Result<QString>(const client::Object &)>;

// "namespace/name", or "name"; an object without a name is an error.
QCM_SDK_EXPORT Result<QString> metaNamespaceKey(const client::Object &object);

struct NamespacedName
{
    QString namespaceName;
    QString name;
};
// "ns/name" -> {ns, name}; "name" -> {"", name}; more than one '/' is an error.
QCM_SDK_EXPORT Result<NamespacedName> splitMetaNamespaceKey(const QString &key);

} // namespace qcm::cache
