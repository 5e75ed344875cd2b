// SPDX-License-Identifier: Apache-2.0
// Lister: a read-only view of an informer's cache for plugins (client-go's generated
// listers, for any resource).
//
// get(namespace, name) looks an object up by key; list() and listByNamespace() filter by a
// LabelSelector, using the namespace index when the store has one.
//
// Thread safety: every method is safe from any thread; results are copies (cheap: objects
// are implicitly shared).
#pragma once

#include <qcm/cache/indexer.h>
#include <qcm/cache/labelselector.h>

namespace qcm::cache {

class QCM_SDK_EXPORT Lister
{
public:
    explicit Lister(const Indexer *indexer);

    std::optional<client::Object> get(const QString &namespaceName, const QString &name) const;
    QList<client::Object> list(const LabelSelector &selector = {}) const;
    QList<client::Object> listByNamespace(
        const QString &namespaceName, const LabelSelector &selector = {}) const;

private:
    const Indexer *m_indexer;
};

} // namespace qcm::cache
