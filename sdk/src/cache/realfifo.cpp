// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/realfifo.h>

#include <QtCore/QSet>

#include <algorithm>

namespace qcm::cache {

RealFifo::RealFifo(Options options) : m_options(std::move(options))
{
    if (!m_options.keyFunction)
        m_options.keyFunction = metaNamespaceKey;
}

void RealFifo::checkSyncedLocked()
{
    if (m_syncedReported || !m_populated || m_initialPopulationCount != 0)
        return;
    m_syncedReported = true;
    if (m_options.onSynced)
        m_options.onSynced();
}

void RealFifo::recordQueuedLocked()
{
    m_options.metrics.setQueuedItems(m_items.size());
}

Result<QString> RealFifo::keyOf(const Delta &delta) const
{
    if (const auto *tombstone = std::get_if<DeletedFinalStateUnknown>(&delta.object))
        return tombstone->key;
    return m_options.keyFunction(std::get<Object>(delta.object));
}

std::optional<Error> RealFifo::addToItemsLocked(
    DeltaType type, bool skipTransform, std::variant<Object, DeletedFinalStateUnknown> object)
{
    Delta delta {type, std::move(object)};
    auto key = keyOf(delta);
    if (!key)
        return key.error();
    if (m_options.transformer && !delta.isTombstone() && !skipTransform) {
        auto transformed = m_options.transformer(std::get<Object>(delta.object));
        if (!transformed)
            return transformed.error();
        delta.object = *transformed;
    }
    m_items.push_back(std::move(delta));
    // pop() waits only while the FIFO is empty, so only the item that ends an empty spell can
    // have a waiter to wake (every waiter's snapshot predates it).
    if (m_items.size() == 1)
        m_changed.notifyAll();
    recordQueuedLocked();
    return std::nullopt;
}

std::optional<Error> RealFifo::add(const Object &object)
{
    std::lock_guard lock(m_mutex);
    m_populated = true;
    checkSyncedLocked();
    return addToItemsLocked(DeltaType::Added, false, object);
}

std::optional<Error> RealFifo::update(const Object &object)
{
    std::lock_guard lock(m_mutex);
    m_populated = true;
    checkSyncedLocked();
    return addToItemsLocked(DeltaType::Updated, false, object);
}

std::optional<Error> RealFifo::remove(const Object &object)
{
    std::lock_guard lock(m_mutex);
    m_populated = true;
    checkSyncedLocked();
    return addToItemsLocked(DeltaType::Deleted, false, object);
}

std::optional<Error> RealFifo::replace(const QList<Object> &list, const QString &)
{
    std::lock_guard lock(m_mutex);
    QSet<QString> newKeys;
    newKeys.reserve(list.size());
    for (const Object &object : list) {
        auto key = m_options.keyFunction(object);
        if (!key)
            return key.error();
        newKeys.insert(*key);
    }

    // The queued keys in first-seen order, with the last delta queued for each.
    QStringList queuedKeys;
    QHash<QString, const Delta *> lastQueued;
    for (const Delta &delta : m_items) {
        auto key = keyOf(delta);
        if (!key)
            return key.error();
        auto it = lastQueued.find(*key);
        if (it == lastQueued.end())
            queuedKeys << *key;
        lastQueued.insert(*key, &delta);
    }
    // Collect first: appending to m_items moves the deltas lastQueued points at.
    QList<DeletedFinalStateUnknown> deletions;
    for (const QString &key : std::as_const(queuedKeys)) {
        if (newKeys.contains(key))
            continue;
        const Delta *last = lastQueued.value(key);
        if (last->type == DeltaType::Deleted)
            continue; // already deleted
        deletions << DeletedFinalStateUnknown {key, last->lastKnown()};
    }
    QStringList known = m_options.knownObjects ? m_options.knownObjects->listKeys() : QStringList();
    std::sort(known.begin(), known.end());
    for (const QString &key : std::as_const(known)) {
        if (newKeys.contains(key) || lastQueued.contains(key))
            continue;
        deletions << DeletedFinalStateUnknown {
            key, m_options.knownObjects->getByKey(key).value_or(Object())};
    }
    const auto enqueueError = [](const Error &error) {
        return Error {
            error.file, error.field, QStringLiteral("couldn't enqueue object: ") + error.reason};
    };
    for (DeletedFinalStateUnknown &tombstone : deletions)
        if (auto error = addToItemsLocked(DeltaType::Deleted, true, std::move(tombstone)))
            return enqueueError(*error);
    for (const Object &object : list)
        if (auto error = addToItemsLocked(DeltaType::Replaced, false, object))
            return enqueueError(*error);

    if (!m_populated) {
        m_populated = true;
        m_initialPopulationCount = int(m_items.size());
        checkSyncedLocked();
    }
    return std::nullopt;
}

std::optional<Error> RealFifo::resync()
{
    std::lock_guard lock(m_mutex);
    if (!m_options.knownObjects)
        return std::nullopt;
    QSet<QString> queued;
    for (const Delta &delta : m_items) {
        auto key = keyOf(delta);
        if (!key)
            return key.error();
        queued.insert(*key);
    }
    for (const QString &key : m_options.knownObjects->listKeys()) {
        // A key with queued deltas is skipped: a Sync of the known object would overwrite a
        // newer event with a stale object.
        if (queued.contains(key))
            continue;
        const std::optional<Object> object = m_options.knownObjects->getByKey(key);
        if (!object)
            continue; // gone from the store meanwhile
        if (auto error = addToItemsLocked(DeltaType::Sync, true, *object))
            return Error {error->file, error->field,
                QStringLiteral("couldn't queue object: ") + error->reason};
    }
    return std::nullopt;
}

Result<Deltas> RealFifo::pop(const Process &process)
{
    std::unique_lock lock(m_mutex);
    while (m_items.empty()) {
        if (m_closed)
            return Error {{}, {}, closedError()};
        m_changed.wait(lock);
    }
    return popLocked(process);
}

std::optional<Result<Deltas>> RealFifo::tryPop(const Process &process)
{
    std::lock_guard lock(m_mutex);
    if (m_items.empty())
        return std::nullopt;
    return popLocked(process);
}

bool RealFifo::processNext(const Process &process)
{
    std::lock_guard lock(m_mutex);
    if (m_items.empty())
        return false;
    m_processing.clear(); // not empty only if the last process threw
    popIntoLocked(process, m_processing);
    m_processing.clear(); // keeps its capacity unless process kept a copy
    return true;
}

Result<Deltas> RealFifo::popLocked(const Process &process)
{
    Deltas deltas;
    if (std::optional<Error> error = popIntoLocked(process, deltas))
        return *error;
    return deltas;
}

std::optional<Error> RealFifo::popIntoLocked(const Process &process, Deltas &deltas)
{
    const bool isInInitialList = !hasSyncedLocked();
    deltas.push_back(std::move(m_items.front()));
    m_items.pop_front();
    recordQueuedLocked();
    std::optional<Error> error;
    if (process)
        error = m_options.metrics.timeProcessing([&] { return process(deltas, isInInitialList); });
    // Counted only once processed, so hasSynced() never turns true while the last item of the
    // first list is still being handled (client-go defers the decrement the same way).
    if (m_initialPopulationCount > 0) {
        --m_initialPopulationCount;
        checkSyncedLocked();
    }
    return error;
}

void RealFifo::close()
{
    std::lock_guard lock(m_mutex);
    m_closed = true;
    m_changed.notifyAll();
}

bool RealFifo::isClosed() const
{
    std::lock_guard lock(m_mutex);
    return m_closed;
}

bool RealFifo::hasSynced() const
{
    std::lock_guard lock(m_mutex);
    return hasSyncedLocked();
}

Deltas RealFifo::items() const
{
    std::lock_guard lock(m_mutex);
    return Deltas(m_items.begin(), m_items.end());
}

} // namespace qcm::cache
