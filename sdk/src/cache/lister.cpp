// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/lister.h>

namespace qcm::cache {

using client::Object;

Lister::Lister(const Indexer *indexer) : m_indexer(indexer) { }

std::optional<Object> Lister::get(const QString &namespaceName, const QString &name) const
{
    return m_indexer->getByKey(
        namespaceName.isEmpty() ? name : namespaceName + QLatin1Char('/') + name);
}

QList<Object> Lister::list(const LabelSelector &selector) const
{
    QList<Object> all = m_indexer->list();
    if (selector.isEmpty())
        return all;
    all.removeIf([&](const Object &o) { return !selector.matches(o.labels()); });
    return all;
}

QList<Object> Lister::listByNamespace(
    const QString &namespaceName, const LabelSelector &selector) const
{
    QList<Object> objects;
    // The namespace index where there is one, else a scan (client-go's ListAllByNamespace).
    if (auto indexed = m_indexer->byIndex(NamespaceIndex, namespaceName)) {
        objects = std::move(*indexed);
    } else {
        objects = m_indexer->list();
        objects.removeIf([&](const Object &o) { return o.namespaceName() != namespaceName; });
    }
    if (!selector.isEmpty())
        objects.removeIf([&](const Object &o) { return !selector.matches(o.labels()); });
    return objects;
}

} // namespace qcm::cache
