// SPDX-License-Identifier: Apache-2.0
#include <qcm/detail/activitytracker.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QThread>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <list>
#include <mutex>

namespace qcm::detail {

namespace {

struct Slot
{
    std::mutex mutex; // guards the QStrings and since, for snapshot()
    bool active = false;
    ActivityTracker::Activity activity;
    // For the signal handler: the name, copied before `busy` is set.
    char controller[128] = {};
    std::atomic<bool> busy {false};
};

struct Registry
{
    std::mutex mutex;
    std::list<Slot *> threadSlots;
};

Registry &registry()
{
    static Registry *r = new Registry; // never destroyed: threads may end after main()
    return *r;
}

// The calling thread's slot, registered with the registry until the thread ends.
struct ThreadSlot
{
    Slot slot;
    ThreadSlot()
    {
        std::lock_guard lock(registry().mutex);
        registry().threadSlots.push_back(&slot);
    }
    ~ThreadSlot()
    {
        std::lock_guard lock(registry().mutex);
        registry().threadSlots.remove(&slot);
    }
};

thread_local ThreadSlot t_slot;

} // namespace

ActivityTracker::Scope::Scope(const QString &controller, Kind kind, const QString &what)
{
    Slot &slot = t_slot.slot;
    std::lock_guard lock(slot.mutex);
    if (slot.active) {
        m_nested = true; // the outer activity stays the one reported
        return;
    }
    slot.active = true;
    const QCoreApplication *app = QCoreApplication::instance();
    slot.activity.kind = kind;
    slot.activity.what = what;
    slot.activity.since = Clock::system()->now();
    slot.activity.onMainThread = app && QThread::currentThread() == app->thread();
    // The name changes rarely on one thread (a worker serves one controller): encode it then.
    if (slot.activity.controller != controller) {
        slot.activity.controller = controller;
        const QByteArray name = controller.toUtf8();
        const std::size_t n
            = std::min<std::size_t>(std::size_t(name.size()), sizeof slot.controller - 1);
        slot.busy.store(false, std::memory_order_relaxed);
        std::memcpy(slot.controller, name.constData(), n);
        slot.controller[n] = '\0';
    }
    slot.busy.store(true, std::memory_order_release);
}

ActivityTracker::Scope::~Scope()
{
    if (m_nested)
        return;
    Slot &slot = t_slot.slot;
    slot.busy.store(false, std::memory_order_release);
    std::lock_guard lock(slot.mutex);
    slot.active = false;
}

QList<ActivityTracker::Activity> ActivityTracker::snapshot()
{
    QList<Activity> out;
    std::lock_guard lock(registry().mutex);
    for (Slot *slot : registry().threadSlots) {
        std::lock_guard slotLock(slot->mutex);
        if (slot->active)
            out << slot->activity;
    }
    return out;
}

const char *ActivityTracker::currentControllerForSignal()
{
    const Slot &slot = t_slot.slot;
    return slot.busy.load(std::memory_order_acquire) ? slot.controller : nullptr;
}

QString ActivityTracker::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Create:
        return QStringLiteral("factory");
    case Kind::Handler:
        return QStringLiteral("handler");
    case Kind::Reconcile:
        return QStringLiteral("reconcile");
    }
    return {};
}

} // namespace qcm::detail
