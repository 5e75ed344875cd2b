// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/indexer.h>

#include "../client/rawobject.h"

#include <algorithm>
#include <mutex>
#include <utility>

namespace qcm::cache {

using client::Object;

QStringList metaNamespaceIndexFunc(const Object &object)
{
    return {object.namespaceName()};
}

Indexer::Indexer() : Indexer(KeyFunction {}) { }

Indexer::Indexer(KeyFunction keyFunction, Indexers indexers)
    : m_keyFunction(keyFunction ? std::move(keyFunction) : KeyFunction(metaNamespaceKey))
{
    for (auto it = indexers.cbegin(); it != indexers.cend(); ++it)
        addSlot(it.key(), it.value());
}

void Indexer::addSlot(const QString &name, const IndexFunction &function)
{
    using Plain = QStringList (*)(const Object &);
    const Plain *plain = function.target<Plain>();
    m_slots.push_back({name, function, plain && *plain == &metaNamespaceIndexFunc, {}});
}

const Indexer::IndexSlot *Indexer::slotLocked(const QString &name) const
{
    for (const IndexSlot &slot : m_slots)
        if (slot.name == name)
            return &slot;
    return nullptr;
}

Result<QString> Indexer::keyOf(const Object &object) const
{
    return m_keyFunction(object);
}

Error Indexer::unknownIndex(const QString &name) const
{
    return Error {{}, {}, QStringLiteral("index with name %1 does not exist").arg(name)};
}

void Indexer::updateIndexLocked(
    IndexSlot &slot, const Object *oldObject, const Object *newObject, const QString &key)
{
    if (slot.byNamespace && oldObject && newObject) {
        // An update in the same namespace, told from the two objects' cached keys: neither
        // namespace is decoded, and the old object's bytes are not read.
        const auto oldNamespace = detail::RawObjectAccess::cachedNamespace(*oldObject);
        const auto newNamespace = detail::RawObjectAccess::cachedNamespace(*newObject);
        if (oldNamespace && newNamespace && *oldNamespace == *newNamespace)
            return;
    }
    const QStringList oldValues = oldObject ? slot.function(*oldObject) : QStringList();
    const QStringList newValues = newObject ? slot.function(*newObject) : QStringList();
    if (oldValues.size() == 1 && newValues.size() == 1 && oldValues[0] == newValues[0])
        return; // the common case: nothing moves
    Index &index = slot.index;
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
    for (IndexSlot &slot : m_slots)
        updateIndexLocked(slot, oldObject, newObject, key);
}

std::optional<Error> Indexer::add(const Object &object)
{
    return update(object);
}

std::optional<Error> Indexer::update(const Object &object)
{
    auto previous = exchange(object);
    if (!previous)
        return previous.error();
    return std::nullopt;
}

Result<std::optional<Object>> Indexer::exchange(const Object &object)
{
    auto key = m_keyFunction(object);
    if (!key)
        return key.error();
    const size_t hash = Items::hashOf(*key);
    std::unique_lock lock(m_mutex);
    bool created = false;
    Object &stored = m_items.entry(m_items.findOrInsert(*key, hash, &created)).value;
    if (created) {
        stored = object;
        updateIndicesLocked(nullptr, &object, *key);
        return std::optional<Object>();
    }
    Object old = std::exchange(stored, object);
    updateIndicesLocked(&old, &object, *key);
    return std::optional<Object>(std::move(old));
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
    const size_t hash = Items::hashOf(key);
    std::unique_lock lock(m_mutex);
    const int entry = m_items.find(key, hash);
    if (entry < 0)
        return;
    // The pooled entry would keep the object until it is reused.
    const Object old = std::exchange(m_items.entry(entry).value, Object());
    m_items.erase(entry);
    updateIndicesLocked(&old, nullptr, key);
}

std::optional<Error> Indexer::replace(const QList<Object> &objects, const QString &)
{
    Items items; // built outside the lock; the old table is released outside it too
    for (const Object &object : objects) {
        auto key = m_keyFunction(object);
        if (!key)
            return key.error();
        const size_t hash = Items::hashOf(*key);
        items.entry(items.findOrInsert(std::move(*key), hash)).value = object; // the last wins
    }
    std::unique_lock lock(m_mutex);
    m_items.swap(items);
    for (IndexSlot &slot : m_slots)
        slot.index.clear();
    m_items.forEach([this](const Items::Entry &entry) {
        updateIndicesLocked(nullptr, &entry.value, entry.item);
    });
    return std::nullopt;
}

QList<Object> Indexer::list() const
{
    QList<Object> out;
    std::shared_lock lock(m_mutex);
    out.reserve(qsizetype(m_items.size()));
    m_items.forEach([&out](const Items::Entry &entry) { out << entry.value; });
    return out;
}

QStringList Indexer::listKeys() const
{
    QStringList out;
    std::shared_lock lock(m_mutex);
    out.reserve(qsizetype(m_items.size()));
    m_items.forEach([&out](const Items::Entry &entry) { out << entry.item; });
    return out;
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
    const size_t hash = Items::hashOf(key);
    std::shared_lock lock(m_mutex);
    const int entry = m_items.find(key, hash);
    if (entry < 0)
        return std::nullopt;
    return m_items.entry(entry).value;
}

// For the index queries: their keys come from the indexes, so each is stored.
const Object *Indexer::findLocked(const QString &key) const
{
    const int entry = m_items.find(key, Items::hashOf(key));
    return entry < 0 ? nullptr : &m_items.entry(entry).value;
}

qsizetype Indexer::size() const
{
    std::shared_lock lock(m_mutex);
    return qsizetype(m_items.size());
}

Result<QList<Object>> Indexer::index(const QString &indexName, const Object &object) const
{
    std::shared_lock lock(m_mutex);
    const IndexSlot *slot = slotLocked(indexName);
    if (!slot)
        return unknownIndex(indexName);
    QSet<QString> keys;
    for (const QString &value : slot->function(object))
        keys.unite(slot->index.value(value));
    QList<Object> out;
    out.reserve(keys.size());
    for (const QString &key : std::as_const(keys))
        if (const Object *stored = findLocked(key))
            out << *stored;
    return out;
}

Result<QList<Object>> Indexer::byIndex(const QString &indexName, const QString &value) const
{
    std::shared_lock lock(m_mutex);
    const IndexSlot *slot = slotLocked(indexName);
    if (!slot)
        return unknownIndex(indexName);
    QList<Object> out;
    for (const QString &key : slot->index.value(value))
        if (const Object *object = findLocked(key))
            out << *object;
    return out;
}

Result<QStringList> Indexer::indexKeys(const QString &indexName, const QString &value) const
{
    std::shared_lock lock(m_mutex);
    const IndexSlot *slot = slotLocked(indexName);
    if (!slot)
        return unknownIndex(indexName);
    const QSet<QString> keys = slot->index.value(value);
    QStringList out(keys.begin(), keys.end());
    std::sort(out.begin(), out.end());
    return out;
}

QStringList Indexer::listIndexFuncValues(const QString &indexName) const
{
    std::shared_lock lock(m_mutex);
    const IndexSlot *slot = slotLocked(indexName);
    QStringList values = slot ? slot->index.keys() : QStringList();
    std::sort(values.begin(), values.end());
    return values;
}

Indexers Indexer::indexers() const
{
    Indexers out;
    std::shared_lock lock(m_mutex);
    for (const IndexSlot &slot : m_slots)
        out.insert(slot.name, slot.function);
    return out;
}

std::optional<Error> Indexer::addIndexers(const Indexers &indexers)
{
    std::unique_lock lock(m_mutex);
    for (auto it = indexers.cbegin(); it != indexers.cend(); ++it)
        if (slotLocked(it.key()))
            return Error {{}, {}, QStringLiteral("indexer conflict: %1").arg(it.key())};
    for (auto it = indexers.cbegin(); it != indexers.cend(); ++it) {
        addSlot(it.key(), it.value());
        m_items.forEach([&](const Items::Entry &entry) {
            updateIndexLocked(m_slots.back(), nullptr, &entry.value, entry.item);
        });
    }
    return std::nullopt;
}

} // namespace qcm::cache
