// SPDX-License-Identifier: Apache-2.0
// GroupVersionResource and GroupVersionKind: how resources and kinds are named
// (apimachinery's schema.GroupVersionResource and schema.GroupVersionKind).
//
// The core group is the empty string: {"", "v1", "configmaps"}.
// Plain values; copy them freely.
#pragma once

#include <qcm/global.h>

#include <QtCore/QHashFunctions>
#include <QtCore/QString>

namespace qcm::client {

struct QCM_SDK_EXPORT GroupVersionResource
{
    QString group;
    QString version;
    QString resource;

    QString groupVersion() const; // "v1" or "apps/v1"
    // The URL path of the collection: /api/v1[/namespaces/ns]/configmaps, or /apis/g/v/...
    QString collectionPath(const QString &ns = {}) const;
    QString toString() const; // "configmaps.v1." or "deployments.v1.apps", as kubectl does
    bool operator==(const GroupVersionResource &o) const
    {
        return group == o.group && version == o.version && resource == o.resource;
    }
    bool operator!=(const GroupVersionResource &o) const { return !(*this == o); }
};

struct QCM_SDK_EXPORT GroupVersionKind
{
    QString group;
    QString version;
    QString kind;

    QString groupVersion() const;
    // From an object's apiVersion and kind.
    static GroupVersionKind fromApiVersion(const QString &apiVersion, const QString &kind);
    QString toString() const;
    bool operator==(const GroupVersionKind &o) const
    {
        return group == o.group && version == o.version && kind == o.kind;
    }
    bool operator!=(const GroupVersionKind &o) const { return !(*this == o); }
};

inline size_t qHash(const GroupVersionResource &r, size_t seed = 0)
{
    return qHashMulti(seed, r.group, r.version, r.resource);
}
inline size_t qHash(const GroupVersionKind &k, size_t seed = 0)
{
    return qHashMulti(seed, k.group, k.version, k.kind);
}

} // namespace qcm::client
