// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/indexer.h>

#include <algorithm>
#include <mutex>

namespace qcm::cache {

using client::Object;

QStringList metaNamespaceIndexFunc(const Object &object)
{
    return {object.namespaceName()};
}

Indexer::Indexer() : Indexer(KeyFunction {}) { }

Indexer::Indexer(KeyFunction keyFunction, Indexers indexers)
    : m_keyFunction(keyFunction ? std::move(keyFunction) : KeyFunction(metaNamespaceKey))
    , m_indexers(std::move(indexers))
{ }

Result<QString> Indexer::keyOf(const Object &object) const
{
    return m_keyFunction(object);
}

Error Indexer::unknownIndex(const QString &name) const
{
    return Error {{}, {}, QStringLiteral("index with name %1 does not exist").arg(name)};
}

void Indexer::updateIndexLocked(
    const QString &name, const Object *oldObject, const Object *newObject, const QString &key)
{
    // constFind: operator[] would detach m_indexers while the caller iterates it.
    const IndexFunction &function = *m_indexers.constFind(name);
    const QStringList oldValues = oldObject ? function(*oldObject) : QStringList();
    const QStringList newValues = newObject ? function(*newObject) : QStringList();
    if (oldValues.size() == 1 && newValues.size() == 1 && oldValues[0] == newValues[0])
        return; // the common case: nothing moves
    Index &index = m_indices[name];
    for (const QString &value : oldValues) {
        auto it = index.find(value);
        if (it == index.end())
            continue;
        it->remove(key);
        if (it->isEmpty())
            index.erase(it); // no empty sets left behind (client-go's memory leak fix)
    }
    for (const QString &value : newValues)
        index[value].insert(key);
}

void Indexer::updateIndicesLocked(
    const Object *oldObject, const Object *newObject, const QString &key)
{
    for (auto it = m_indexers.cbegin(); it != m_indexers.cend(); ++it)
        updateIndexLocked(it.key(), oldObject, newObject, key);
}

std::optional<Error> Indexer::add(const Object &object)
{
    return update(object);
}

std::optional<Error> Indexer::update(const Object &object)
{
    auto key = m_keyFunction(object);
    if (!key)
        return key.error();
    std::unique_lock lock(m_mutex);
    auto it = m_items.find(*key);
    if (it == m_items.end()) {
        m_items.insert(*key, object);
        updateIndicesLocked(nullptr, &object, *key);
    } else {
        const Object old = *it;
        *it = object;
        updateIndicesLocked(&old, &object, *key);
    }
    return std::nullopt;
}

std::optional<Error> Indexer::remove(const Object &object)
{
    auto key = m_keyFunction(object);
    if (!key)
        return key.error();
    removeByKey(*key);
    return std::nullopt;
}

void Indexer::removeByKey(const QString &key)
{
    std::unique_lock lock(m_mutex);
    auto it = m_items.find(key);
    if (it == m_items.end())
        return;
    const Object old = *it;
    m_items.erase(it);
    updateIndicesLocked(&old, nullptr, key);
}

std::optional<Error> Indexer::replace(const QList<Object> &objects, const QString &)
{
    QHash<QString, Object> items;
    items.reserve(objects.size());
    for (const Object &object : objects) {
        auto key = m_keyFunction(object);
        if (!key)
            return key.error();
        items.insert(*key, object);
    }
    std::unique_lock lock(m_mutex);
    m_items = std::move(items);
    m_indices.clear();
    for (auto it = m_items.cbegin(); it != m_items.cend(); ++it)
        updateIndicesLocked(nullptr, &it.value(), it.key());
    return std::nullopt;
}

QList<Object> Indexer::list() const
{
    std::shared_lock lock(m_mutex);
    return m_items.values();
}

QStringList Indexer::listKeys() const
{
    std::shared_lock lock(m_mutex);
    return m_items.keys();
}

std::optional<Object> Indexer::get(const Object &object) const
{
    auto key = m_keyFunction(object);
    if (!key)
        return std::nullopt;
    return getByKey(*key);
}

std::optional<Object> Indexer::getByKey(const QString &key) const
{
    std::shared_lock lock(m_mutex);
    auto it = m_items.constFind(key);
    if (it == m_items.constEnd())
        return std::nullopt;
    return *it;
}

qsizetype Indexer::size() const
{
    std::shared_lock lock(m_mutex);
    return m_items.size();
}

Result<QList<Object>> Indexer::index(const QString &indexName, const Object &object) const
{
    std::shared_lock lock(m_mutex);
    const auto function = m_indexers.constFind(indexName);
    if (function == m_indexers.constEnd())
        return unknownIndex(indexName);
    const Index index = m_indices.value(indexName);
    QSet<QString> keys;
    for (const QString &value : (*function)(object))
        keys.unite(index.value(value));
    QList<Object> out;
    out.reserve(keys.size());
    for (const QString &key : std::as_const(keys))
        out << m_items.value(key);
    return out;
}

Result<QList<Object>> Indexer::byIndex(const QString &indexName, const QString &value) const
{
    std::shared_lock lock(m_mutex);
    if (!m_indexers.contains(indexName))
        return unknownIndex(indexName);
    QList<Object> out;
    for (const QString &key : m_indices.value(indexName).value(value))
        out << m_items.value(key);
    return out;
}

Result<QStringList> Indexer::indexKeys(const QString &indexName, const QString &value) const
{
    std::shared_lock lock(m_mutex);
    if (!m_indexers.contains(indexName))
        return unknownIndex(indexName);
    const QSet<QString> keys = m_indices.value(indexName).value(value);
    QStringList out(keys.begin(), keys.end());
    std::sort(out.begin(), out.end());
    return out;
}

QStringList Indexer::listIndexFuncValues(const QString &indexName) const
{
    std::shared_lock lock(m_mutex);
    QStringList values = m_indices.value(indexName).keys();
    std::sort(values.begin(), values.end());
    return values;
}

Indexers Indexer::indexers() const
{
    std::shared_lock lock(m_mutex);
    return m_indexers;
}

std::optional<Error> Indexer::addIndexers(const Indexers &indexers)
{
    std::unique_lock lock(m_mutex);
    for (auto it = indexers.cbegin(); it != indexers.cend(); ++it)
        if (m_indexers.contains(it.key()))
            return Error {{}, {}, QStringLiteral("indexer conflict: %1").arg(it.key())};
    for (auto it = indexers.cbegin(); it != indexers.cend(); ++it) {
        m_indexers.insert(it.key(), it.value());
        for (auto item = m_items.cbegin(); item != m_items.cend(); ++item)
            updateIndexLocked(it.key(), nullptr, &item.value(), item.key());
    }
    return std::nullopt;
}

} // namespace qcm::cache
