// SPDX-License-Identifier: Apache-2.0
// Indexer: the informer's local cache, a thread-safe store of objects by key with named
// indexes (client-go's cache.Indexer over threadSafeStore).
//
// An index function maps an object to the values it is indexed under; byIndex() finds the
// objects with a value, indexKeys() their keys (sorted), listIndexFuncValues() every value.
// The "namespace" index (NamespaceIndex, metaNamespaceIndexFunc) is the usual one. Indexes
// can be added to a store that already holds objects. An unknown index name is an error.
//
// Thread safety: every method is safe from any thread; readers run concurrently, writers
// one at a time (an informer has one writer and many readers).
#pragma once

#include <qcm/cache/keylistergetter.h>
#include <qcm/cache/keys.h>
#include <qcm/detail/itemtable.h>

#include <QtCore/QHash>
#include <QtCore/QMap>
#include <QtCore/QSet>

#include <shared_mutex>
#include <vector>

namespace qcm::cache {

using IndexFunction = std::function<QStringList(const client::Object &)>;
using Indexers = QMap<QString, IndexFunction>;

inline const QString NamespaceIndex = QStringLiteral("namespace");
// {metadata.namespace}, or nothing for cluster-scoped objects (client-go's
// MetaNamespaceIndexFunc indexes them under "").
QCM_SDK_EXPORT QStringList metaNamespaceIndexFunc(const client::Object &object);

class QCM_SDK_EXPORT Indexer : public KeyListerGetter
{
public:
    Indexer();
    explicit Indexer(KeyFunction keyFunction, Indexers indexers = {});

    // The store (client-go's cache.Store).
    std::optional<Error> add(const client::Object &object);
    std::optional<Error> update(const client::Object &object);
    // update() that hands back what the key held before (nothing for a new key): one key
    // computation and one lookup where get() and then update() take two (the informer's
    // handleDeltas, client-go's processDeltas).
    Result<std::optional<client::Object>> exchange(const client::Object &object);
    std::optional<Error> remove(const client::Object &object); // client-go's Delete
    void removeByKey(const QString &key);
    // Replaces everything with `objects`; indexes are rebuilt.
    std::optional<Error> replace(
        const QList<client::Object> &objects, const QString &resourceVersion = {});
    QList<client::Object> list() const;
    QStringList listKeys() const override;
    std::optional<client::Object> get(const client::Object &object) const;
    std::optional<client::Object> getByKey(const QString &key) const override;
    qsizetype size() const;
    Result<QString> keyOf(const client::Object &object) const;

    // The indexes.
    Result<QList<client::Object>> index(
        const QString &indexName, const client::Object &object) const;
    Result<QList<client::Object>> byIndex(const QString &indexName, const QString &value) const;
    Result<QStringList> indexKeys(const QString &indexName, const QString &value) const;
    QStringList listIndexFuncValues(const QString &indexName) const;
    Indexers indexers() const; // a copy, made per call
    // Adds indexes (and indexes what the store holds); a name already in use is an error.
    std::optional<Error> addIndexers(const Indexers &indexers);

private:
    using Index = QHash<QString, QSet<QString>>; // value -> keys
    // An index by name, with its function: the write path walks them, a query finds its own
    // by name (an informer has one or a few).
    struct IndexSlot
    {
        QString name;
        IndexFunction function;
        bool byNamespace; // function is metaNamespaceIndexFunc
        Index index;
    };
    void addSlot(const QString &name, const IndexFunction &function);
    const IndexSlot *slotLocked(const QString &name) const; // null for an unknown name
    void updateIndicesLocked(
        const client::Object *oldObject, const client::Object *newObject, const QString &key);
    void updateIndexLocked(IndexSlot &slot, const client::Object *oldObject,
        const client::Object *newObject, const QString &key);
    Error unknownIndex(const QString &name) const;

    KeyFunction m_keyFunction;
    mutable std::shared_mutex m_mutex;
    using Items = detail::ItemTable<QString, client::Object>;
    const client::Object *findLocked(const QString &key) const;

    Items m_items; // guarded by m_mutex
    std::vector<IndexSlot> m_slots; // the indexes; guarded by m_mutex
};

} // namespace qcm::cache
