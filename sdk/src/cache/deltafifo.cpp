// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/deltafifo.h>

#include <QtCore/QSet>

#include <algorithm>

namespace qcm::cache {

namespace {

// Only two consecutive Deleted deltas merge; the older one is kept unless it is a tombstone.
void dedupDeltas(Deltas &deltas)
{
    const qsizetype n = deltas.size();
    if (n < 2)
        return;
    const Delta &a = deltas[n - 1];
    const Delta &b = deltas[n - 2];
    if (a.type != DeltaType::Deleted || b.type != DeltaType::Deleted)
        return;
    if (b.isTombstone())
        deltas[n - 2] = a;
    deltas.removeLast();
}

} // namespace

DeltaFifo::DeltaFifo() : DeltaFifo(Options {}) { }

DeltaFifo::DeltaFifo(Options options) : m_options(std::move(options))
{
    if (!m_options.keyFunction)
        m_options.keyFunction = metaNamespaceKey;
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
    DeltaType type, DeltaType internalType, std::variant<Object, DeletedFinalStateUnknown> object)
{
    Delta delta {type, std::move(object)};
    auto key = keyOf(delta);
    if (!key)
        return key.error();
    if (m_options.transformer && !delta.isTombstone() && internalType != DeltaType::Sync) {
        auto transformed = m_options.transformer(std::get<Object>(delta.object));
        if (!transformed)
            return transformed.error();
        delta.object = *transformed;
    }
    // One lookup: every key in m_items has at least one delta, so an empty list is a new key.
    Deltas &deltas = m_items[*key];
    const bool isNew = deltas.isEmpty();
    deltas.append(std::move(delta));
    dedupDeltas(deltas);
    if (isNew) {
        m_queue.push_back(*key);
        m_options.metrics.setQueuedItems(m_queue.size());
        // pop() waits only while the queue is empty, so only the key that ends an empty spell
        // can have a waiter to wake (every waiter's snapshot predates it).
        if (m_queue.size() == 1)
            m_changed.notifyAll();
    }
    return std::nullopt;
}

std::optional<Error> DeltaFifo::add(const Object &object)
{
    std::lock_guard lock(m_mutex);
    m_populated = true;
    checkSyncedLocked();
    return queueActionLocked(DeltaType::Added, DeltaType::Added, object);
}

std::optional<Error> DeltaFifo::update(const Object &object)
{
    std::lock_guard lock(m_mutex);
    m_populated = true;
    checkSyncedLocked();
    return queueActionLocked(DeltaType::Updated, DeltaType::Updated, object);
}

std::optional<Error> DeltaFifo::remove(const Object &object)
{
    auto key = m_options.keyFunction(object);
    if (!key)
        return key.error();
    std::lock_guard lock(m_mutex);
    m_populated = true;
    checkSyncedLocked();
    const bool queued = m_items.contains(*key);
    if (!m_options.knownObjects) {
        if (!queued)
            return std::nullopt; // we never saw it: nothing to delete
    } else if (!queued && !m_options.knownObjects->getByKey(*key)) {
        return std::nullopt; // neither known nor queued
    }
    return queueActionLocked(DeltaType::Deleted, DeltaType::Deleted, object);
}

std::optional<Error> DeltaFifo::replace(const QList<Object> &list, const QString &)
{
    std::lock_guard lock(m_mutex);
    QSet<QString> keys;
    keys.reserve(list.size());
    const DeltaType action
        = m_options.emitDeltaTypeReplaced ? DeltaType::Replaced : DeltaType::Sync;
    for (const Object &object : list) {
        auto key = m_options.keyFunction(object);
        if (!key)
            return key.error();
        keys.insert(*key);
        if (auto error = queueActionLocked(action, DeltaType::Replaced, object))
            return Error {error->file, error->field,
                QStringLiteral("couldn't enqueue object: ") + error->reason};
    }

    int queuedDeletions = 0;
    // Queued keys missing from the list, in queue order, with their newest object.
    const std::deque<QString> queued = m_queue;
    for (const QString &key : queued) {
        if (keys.contains(key))
            continue;
        const Deltas &deltas = m_items[key];
        Object last = deltas.isEmpty() ? Object() : deltas.last().lastKnown();
        ++queuedDeletions;
        if (auto error = queueActionLocked(
                DeltaType::Deleted, DeltaType::Deleted, DeletedFinalStateUnknown {key, last}))
            return error;
    }
    // Known keys missing from the list and not queued, in key order, with the known object.
    if (m_options.knownObjects) {
        QStringList known = m_options.knownObjects->listKeys();
        std::sort(known.begin(), known.end());
        for (const QString &key : std::as_const(known)) {
            if (keys.contains(key))
                continue;
            if (auto it = m_items.constFind(key); it != m_items.constEnd() && !it->isEmpty())
                continue;
            const Object last = m_options.knownObjects->getByKey(key).value_or(Object());
            ++queuedDeletions;
            if (auto error = queueActionLocked(
                    DeltaType::Deleted, DeltaType::Deleted, DeletedFinalStateUnknown {key, last}))
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
    if (auto it = m_items.constFind(*id); it != m_items.constEnd() && !it->isEmpty())
        return std::nullopt;
    return queueActionLocked(DeltaType::Sync, DeltaType::Sync, *object);
}

std::optional<Error> DeltaFifo::resync()
{
    std::lock_guard lock(m_mutex);
    if (!m_options.knownObjects)
        return std::nullopt;
    for (const QString &key : m_options.knownObjects->listKeys())
        if (auto error = syncKeyLocked(key))
            return error;
    return std::nullopt;
}

Result<Deltas> DeltaFifo::pop(const Process &process)
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        while (m_queue.empty()) {
            if (m_closed)
                return Error {{}, {}, closedError()};
            m_changed.wait(lock);
        }
        if (auto popped = popLocked(process))
            return std::move(*popped);
    }
}

std::optional<Result<Deltas>> DeltaFifo::tryPop(const Process &process)
{
    std::lock_guard lock(m_mutex);
    while (!m_queue.empty())
        if (auto popped = popLocked(process))
            return popped;
    return std::nullopt;
}

std::optional<Result<Deltas>> DeltaFifo::popLocked(const Process &process)
{
    // Computed before the counter moves: the last item of the first list is still "in".
    const bool isInInitialList = !hasSyncedLocked();
    const QString key = std::move(m_queue.front());
    m_queue.pop_front();
    if (m_initialPopulationCount > 0) {
        --m_initialPopulationCount;
        checkSyncedLocked();
    }
    auto it = m_items.find(key);
    if (it == m_items.end())
        return std::nullopt; // cannot happen: every queued key has items
    Deltas deltas = std::move(*it);
    m_items.erase(it);
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
    std::lock_guard lock(m_mutex);
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
    std::lock_guard lock(m_mutex);
    return hasSyncedLocked();
}

QList<Object> DeltaFifo::list() const
{
    std::lock_guard lock(m_mutex);
    QList<Object> out;
    for (const QString &key : m_queue)
        out << m_items.value(key).last().lastKnown();
    return out;
}

QStringList DeltaFifo::listKeys() const
{
    std::lock_guard lock(m_mutex);
    return QStringList(m_queue.begin(), m_queue.end());
}

std::optional<Deltas> DeltaFifo::getByKey(const QString &key) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_items.constFind(key);
    if (it == m_items.constEnd())
        return std::nullopt;
    return *it; // a copy: the caller may keep it
}

} // namespace qcm::cache
