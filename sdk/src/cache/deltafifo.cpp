// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/deltafifo.h>

#include "../client/rawobject.h"

#include <QtCore/QSet>

#include <algorithm>
#include <utility>

namespace qcm::cache {

DeltaFifo::DeltaFifo() : DeltaFifo(Options {}) { }

DeltaFifo::DeltaFifo(Options options) : m_options(std::move(options))
{
    m_objectKeys = !m_options.keyFunction && !m_options.transformer;
    if (!m_options.keyFunction)
        m_options.keyFunction = metaNamespaceKey;
}

DeltaFifo::~DeltaFifo() // here, where Pending is complete
{
    delete[] m_spareChunk.load(std::memory_order_acquire);
}

void DeltaFifo::prepareSpareChunk()
{
    m_spareWanted.store(false, std::memory_order_relaxed);
    auto chunk = std::make_unique<Node[]>(decltype(m_nodes)::ChunkSize);
    Node *expected = nullptr;
    if (m_spareChunk.compare_exchange_strong(
            expected, chunk.get(), std::memory_order_release, std::memory_order_relaxed))
        chunk.release(); // now the slot's
}

void DeltaFifo::checkSyncedLocked()
{
    if (m_syncedReported || !hasSyncedLocked())
        return;
    m_syncedReported = true;
    if (m_options.onSynced)
        m_options.onSynced();
}

Result<QString> DeltaFifo::keyOf(const Delta &delta) const
{
    if (const auto *tombstone = std::get_if<DeletedFinalStateUnknown>(&delta.object))
        return tombstone->key;
    return m_options.keyFunction(std::get<Object>(delta.object));
}

std::optional<Error> DeltaFifo::queueActionLocked(
    DeltaType internalType, Delta &&delta, const QString &key, size_t hash)
{
    if (m_options.transformer && !delta.isTombstone() && internalType != DeltaType::Sync) {
        auto transformed = m_options.transformer(std::get<Object>(delta.object));
        if (!transformed)
            return transformed.error();
        delta.object = *transformed;
    }
    bool isNew = false;
    const int e = m_items.findOrInsert(key, hash, &isNew);
    int n;
    if (!m_freeNodes.empty()) {
        n = m_freeNodes.back();
        m_freeNodes.pop_back();
    } else {
        n = int(m_nodes.size());
        if (m_nodes.full()) {
            if (Node *spare = m_spareChunk.exchange(nullptr, std::memory_order_acquire))
                m_nodes.adopt(std::unique_ptr<Node[]>(spare));
            m_spareWanted.store(true, std::memory_order_relaxed); // for the next growth
        }
        m_nodes.grow();
    }
    Chain &chain = m_items.entry(e).value;
    Node &node = nodeLocked(n);
    node.delta = std::move(delta);
    node.prev = chain.tail;
    node.next = -1;
    if (chain.tail >= 0)
        nodeLocked(chain.tail).next = n;
    else
        chain.head = n;
    chain.tail = n;
    ++chain.count;
    // Only two consecutive Deleted deltas merge; the older one is kept unless it is a
    // tombstone.
    if (chain.count >= 2) {
        Node &older = nodeLocked(node.prev);
        if (node.delta.type == DeltaType::Deleted && older.delta.type == DeltaType::Deleted) {
            if (older.delta.isTombstone())
                older.delta = std::move(node.delta);
            node.delta = Delta {}; // releases its object
            chain.tail = node.prev;
            older.next = -1;
            --chain.count;
            m_freeNodes.push_back(n);
        }
    }
    if (isNew) {
        m_queue.push_back(e);
        m_options.metrics.setQueuedItems(m_queue.size());
        // pop() waits only while the queue is empty, so only the key that ends an empty spell
        // can have a waiter to wake (every waiter's snapshot predates it).
        if (m_queue.size() == 1)
            m_changed.notifyAll();
    }
    return std::nullopt;
}

struct DeltaFifo::Pending
{
    Pending *next;
    Delta delta;
    QString key; // null when the key is the one delta's object caches
    size_t hash;
    bool cachedKey;
};

void DeltaFifo::applyInboxLocked(Applied &applied) const
{
    Pending *last = nullptr;
    Pending *oldestFirst = m_inbox.takeAll(&last);
    if (!oldestFirst)
        return;
    applied.adopt(oldestFirst, last); // freed after unlocking, even if applying throws
    // Applying changes what the const methods report only as the pushes already did.
    auto *self = const_cast<DeltaFifo *>(this);
    for (Pending *p = oldestFirst; p; p = p->next) {
        self->m_populated = true;
        self->checkSyncedLocked();
        // Only pushed without a transformer, so this cannot fail.
        const DeltaType type = p->delta.type;
        const QString &key = p->cachedKey
            ? *detail::RawObjectAccess::cachedKey(std::get<Object>(p->delta.object))
            : p->key;
        (void)self->queueActionLocked(type, std::move(p->delta), key, p->hash);
    }
}

std::optional<Error> DeltaFifo::queueAction(DeltaType type, const Object &object)
{
    // The key, its hash and the delta's copy of the object are made before the lock. The
    // object's cached key is read in place (the delta's copy keeps its block alive), so the
    // key's reference count is not touched unless a new entry takes a copy.
    Delta delta {type, object};
    const QString *cachedKey = m_objectKeys
        ? detail::RawObjectAccess::cachedKey(std::get<Object>(delta.object))
        : nullptr;
    std::optional<Result<QString>> computed;
    if (!cachedKey)
        computed.emplace(m_options.keyFunction(object));
    const QString *key = cachedKey ? cachedKey : *computed ? &**computed : nullptr;
    const size_t hash = key ? Table::hashOf(*key) : 0;
    if (key)
        m_items.prefetch(hash);
    if (m_spareWanted.load(std::memory_order_relaxed))
        prepareSpareChunk();
    Applied applied; // destroyed after the lock is released
    std::unique_lock lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock()) {
        if (key && !m_options.transformer) { // nothing to report: push, and return
            const bool wasEmpty = m_inbox.push(new Pending {nullptr, std::move(delta),
                cachedKey ? QString() : std::move(**computed), hash, cachedKey != nullptr});
            // Only a push onto an empty inbox can have a waiter to wake: pop() looks at the
            // inbox after registering, before it sleeps.
            if (wasEmpty && m_waiters.load(std::memory_order_seq_cst) > 0)
                m_changed.notifyAll();
            return std::nullopt;
        }
        lock.lock();
    }
    applyInboxLocked(applied);
    m_populated = true;
    checkSyncedLocked();
    if (!key)
        return computed->error();
    return queueActionLocked(type, std::move(delta), *key, hash);
}

std::optional<Error> DeltaFifo::add(const Object &object)
{
    return queueAction(DeltaType::Added, object);
}

std::optional<Error> DeltaFifo::update(const Object &object)
{
    return queueAction(DeltaType::Updated, object);
}

std::optional<Error> DeltaFifo::remove(const Object &object)
{
    auto key = m_options.keyFunction(object);
    if (!key)
        return key.error();
    const size_t hash = Table::hashOf(*key);
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    m_populated = true;
    checkSyncedLocked();
    const bool queued = m_items.find(*key, hash) >= 0;
    if (!m_options.knownObjects) {
        if (!queued)
            return std::nullopt; // we never saw it: nothing to delete
    } else if (!queued && !m_options.knownObjects->getByKey(*key)) {
        return std::nullopt; // neither known nor queued
    }
    return queueActionLocked(DeltaType::Deleted, Delta {DeltaType::Deleted, object}, *key, hash);
}

std::optional<Error> DeltaFifo::replace(const QList<Object> &list, const QString &)
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    QSet<QString> keys;
    keys.reserve(list.size());
    const DeltaType action
        = m_options.emitDeltaTypeReplaced ? DeltaType::Replaced : DeltaType::Sync;
    for (const Object &object : list) {
        auto key = m_options.keyFunction(object);
        if (!key)
            return key.error();
        keys.insert(*key);
        if (auto error = queueActionLocked(
                DeltaType::Replaced, Delta {action, object}, *key, Table::hashOf(*key)))
            return Error {error->file, error->field,
                QStringLiteral("couldn't enqueue object: ") + error->reason};
    }

    int queuedDeletions = 0;
    // Queued keys missing from the list, in queue order, with their newest object.
    const std::deque<int> queued = m_queue; // entry numbers stay valid: nothing is erased
    for (const int e : queued) {
        const QString key = m_items.entry(e).item;
        if (keys.contains(key))
            continue;
        Object last = newestLocked(e).lastKnown();
        ++queuedDeletions;
        if (auto error = queueActionLocked(DeltaType::Deleted,
                Delta {DeltaType::Deleted, DeletedFinalStateUnknown {key, std::move(last)}}, key,
                m_items.entry(e).hash))
            return error;
    }
    // Known keys missing from the list and not queued, in key order, with the known object.
    if (m_options.knownObjects) {
        QStringList known = m_options.knownObjects->listKeys();
        std::sort(known.begin(), known.end());
        for (const QString &key : std::as_const(known)) {
            if (keys.contains(key))
                continue;
            const size_t hash = Table::hashOf(key);
            if (m_items.find(key, hash) >= 0)
                continue;
            Object last = m_options.knownObjects->getByKey(key).value_or(Object());
            ++queuedDeletions;
            if (auto error = queueActionLocked(DeltaType::Deleted,
                    Delta {DeltaType::Deleted, DeletedFinalStateUnknown {key, std::move(last)}},
                    key, hash))
                return error;
        }
    }
    if (!m_populated) {
        m_populated = true;
        m_initialPopulationCount = int(keys.size()) + queuedDeletions;
        checkSyncedLocked();
    }
    return std::nullopt;
}

std::optional<Error> DeltaFifo::syncKeyLocked(const QString &key)
{
    const std::optional<Object> object = m_options.knownObjects->getByKey(key);
    if (!object)
        return std::nullopt; // gone from the store meanwhile
    auto id = m_options.keyFunction(*object);
    if (!id)
        return id.error();
    // Keys with queued deltas are skipped: a Sync of the known object would overwrite a newer
    // event with a stale object.
    const size_t hash = Table::hashOf(*id);
    if (m_items.find(*id, hash) >= 0)
        return std::nullopt;
    return queueActionLocked(DeltaType::Sync, Delta {DeltaType::Sync, *object}, *id, hash);
}

std::optional<Error> DeltaFifo::resync()
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    if (!m_options.knownObjects)
        return std::nullopt;
    for (const QString &key : m_options.knownObjects->listKeys())
        if (auto error = syncKeyLocked(key))
            return error;
    return std::nullopt;
}

Result<Deltas> DeltaFifo::pop(const Process &process)
{
    // Most keys hold one delta when popped: the list for it is allocated before the lock.
    Deltas deltas;
    deltas.reserve(1);
    Applied applied;
    std::unique_lock lock(m_mutex);
    for (;;) {
        applyInboxLocked(applied);
        if (!m_queue.empty())
            break;
        if (m_closed)
            return Error {{}, {}, closedError()};
        // A push after the last look at the inbox sees the waiter.
        m_changed.waitUnless(lock, m_waiters, [this] { return !m_inbox.empty(); });
    }
    return popLocked(process, std::move(deltas));
}

std::optional<Result<Deltas>> DeltaFifo::tryPop(const Process &process)
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    if (m_queue.empty())
        return std::nullopt;
    return popLocked(process, Deltas());
}

const Delta &DeltaFifo::newestLocked(int entry) const
{
    return nodeLocked(m_items.entry(entry).value.tail).delta;
}

Deltas DeltaFifo::copyLocked(int entry) const
{
    const Chain &chain = m_items.entry(entry).value;
    Deltas deltas;
    deltas.reserve(chain.count);
    for (int n = chain.head; n >= 0; n = nodeLocked(n).next)
        deltas.append(nodeLocked(n).delta);
    return deltas;
}

void DeltaFifo::takeLocked(int entry, Deltas &deltas)
{
    const Chain chain = m_items.entry(entry).value;
    deltas.reserve(chain.count);
    for (int n = chain.head; n >= 0;) {
        Node &node = nodeLocked(n);
        deltas.append(std::move(node.delta));
        m_freeNodes.push_back(n);
        n = node.next;
    }
    m_items.erase(entry);
    // A queue that drained after a long list gives its pool back rather than keeping a node
    // per object of the largest backlog it ever held.
    if (m_queue.empty() && m_nodes.size() > size_t(IdlePoolNodes)) {
        m_nodes.clear();
        m_freeNodes = {};
        m_items.clear();
    }
}

Result<Deltas> DeltaFifo::popLocked(const Process &process, Deltas deltas)
{
    // Computed before the counter moves: the last item of the first list is still "in".
    const bool isInInitialList = !hasSyncedLocked();
    const int entry = m_queue.front();
    m_queue.pop_front();
    if (m_initialPopulationCount > 0) {
        --m_initialPopulationCount;
        checkSyncedLocked();
    }
    takeLocked(entry, deltas);
    m_options.metrics.setQueuedItems(m_queue.size());
    if (process) {
        if (auto error
            = m_options.metrics.timeProcessing([&] { return process(deltas, isInInitialList); }))
            return Result<Deltas>(*error);
    }
    return Result<Deltas>(std::move(deltas));
}

void DeltaFifo::close()
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    m_closed = true;
    m_changed.notifyAll();
}

bool DeltaFifo::isClosed() const
{
    std::lock_guard lock(m_mutex);
    return m_closed;
}

bool DeltaFifo::hasSynced() const
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    return hasSyncedLocked();
}

QList<Object> DeltaFifo::list() const
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    QList<Object> out;
    out.reserve(qsizetype(m_queue.size()));
    for (const int e : m_queue)
        out << newestLocked(e).lastKnown();
    return out;
}

QStringList DeltaFifo::listKeys() const
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    QStringList out;
    out.reserve(qsizetype(m_queue.size()));
    for (const int e : m_queue)
        out << m_items.entry(e).item;
    return out;
}

std::optional<Deltas> DeltaFifo::getByKey(const QString &key) const
{
    Applied applied;
    std::lock_guard lock(m_mutex);
    applyInboxLocked(applied);
    const int e = findLocked(key);
    if (e < 0)
        return std::nullopt;
    return copyLocked(e); // a copy: the caller may keep it
}

} // namespace qcm::cache
