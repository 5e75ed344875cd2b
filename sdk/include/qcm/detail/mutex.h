// SPDX-License-Identifier: Apache-2.0
// Mutex: a futex-based lock that spins briefly before it sleeps (Linux only).
//
// The work queues take a lock on every add, get and done. glibc's default mutex puts a
// contended thread to sleep at once, and each sleep is a context switch; Go's sync.Mutex
// spins first. This lock does the same: a contended lock spins briefly, then yields its CPU a
// while, before it sleeps (the tuning is explained in mutex.cpp).
//
// Until a thread first has to sleep on it, a lock is "light": unlock() is a plain store and a
// load, not a locked exchange, and an uncontended lock/unlock costs one locked instruction
// instead of two. The first thread that sleeps turns the lock "fenced" for good (the unlock of
// today's futex locks) with one process-wide memory barrier (membarrier(2)), which orders every
// light unlock that raced it (mutex.cpp). Where membarrier is unavailable every lock is
// fenced from the start.
// Meets the Lockable requirements, so std::lock_guard and std::unique_lock work with it.
//
// Not part of the plugin API: it may change without notice.
// Thread safety: it is a mutex.
#pragma once

#include <qcm/global.h>

#include <atomic>

namespace qcm::detail {

class QCM_SDK_EXPORT Mutex
{
public:
    Mutex() : m_mode(lightUnlockAvailable() ? Light : Fenced) { }
    Mutex(const Mutex &) = delete;
    Mutex &operator=(const Mutex &) = delete;

    void lock()
    {
        int expected = Unlocked;
        if (!m_state.compare_exchange_strong(expected, Locked, std::memory_order_acquire))
            lockSlow();
    }

    bool try_lock()
    {
        int expected = Unlocked;
        return m_state.compare_exchange_strong(expected, Locked, std::memory_order_acquire);
    }

    void unlock()
    {
        if (m_mode.load(std::memory_order_relaxed) != Light) {
            if (m_state.exchange(Unlocked, std::memory_order_release) == Contended)
                wakeOne();
            return;
        }
        // Light: the store, then the look at the mode, which the CPU may do first; a thread
        // that is about to sleep makes the pair ordered with its membarrier (mutex.cpp).
        m_state.store(Unlocked, std::memory_order_release);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        if (m_mode.load(std::memory_order_relaxed) != Light)
            wakeOne();
    }

    // Whether no thread has slept on this lock yet (unlock() is then a plain store). For tests.
    bool isLight() const { return m_mode.load(std::memory_order_relaxed) == Light; }
    // Whether locks start light: membarrier(2) registered for the process (once, on first use).
    static bool lightUnlockAvailable();

private:
    enum : int { Unlocked = 0, Locked = 1, Contended = 2 };
    // Light: no thread has slept on the lock. Fenced: one has, after a membarrier. Unfenced:
    // one has, but its membarrier failed (it should not), so waits on this lock time out
    // after a millisecond instead of relying on every wake-up (mutex.cpp).
    enum : int { Light = 0, Fenced = 1, Unfenced = 2 };
    void lockSlow();
    void wakeOne();

    std::atomic<int> m_state {Unlocked};
    std::atomic<int> m_mode;
};

// WaitQueue: lets threads wait for a condition guarded by a Mutex (an "event count").
//
//     lock; while (!condition) waitQueue.wait(lock); ...        // waiter
//     lock; make condition true; unlock; waitQueue.notifyOne(); // notifier
//
// wait() backs off like Mutex before it sleeps; notify*() makes a system call only when a
// thread may be asleep (between registering to sleep and waking up). notifyOne() wakes at
// least one thread that waits at the time, as std::condition_variable::notify_one does.
// Spurious wake-ups are possible, so always wait in a loop.
class QCM_SDK_EXPORT WaitQueue
{
public:
    WaitQueue() = default;
    WaitQueue(const WaitQueue &) = delete;
    WaitQueue &operator=(const WaitQueue &) = delete;

    // Unlocks `mutex`, waits for a notification, locks `mutex` again.
    template<typename Lock>
    void wait(Lock &lock)
    {
        const unsigned sequence = m_sequence.load(std::memory_order_relaxed);
        lock.unlock();
        waitFor(sequence);
        lock.lock();
    }

    // wait() for a condition that a notifier may make true *without* the mutex (a lock-free
    // push, say): registers in `waiters`, takes a ticket, and sleeps only if `pending()` is
    // still false. The notifier makes pending() true, then reads `waiters` and notifies if it
    // is not zero, all sequentially consistent: either it sees this waiter and its notify()
    // comes after the ticket (the wait ends at once), or this look at pending() sees its
    // change. For a condition only ever made true under the mutex, wait(lock) is enough.
    template<typename Lock, typename Pending>
    void waitUnless(Lock &lock, std::atomic<int> &waiters, Pending pending)
    {
        waiters.fetch_add(1, std::memory_order_seq_cst);
        const unsigned ticket = m_sequence.load(std::memory_order_seq_cst);
        if (!pending()) {
            lock.unlock();
            waitFor(ticket);
            lock.lock();
        }
        waiters.fetch_sub(1, std::memory_order_relaxed);
    }

    void notifyOne() { notify(1); }
    void notifyAll() { notify(-1); }

private:
    void waitFor(unsigned sequence);
    void notify(int count)
    {
        m_sequence.fetch_add(1, std::memory_order_seq_cst);
        if (m_sleepers.load(std::memory_order_seq_cst) > 0)
            wake(count);
    }
    void wake(int count);

    std::atomic<unsigned> m_sequence {0};
    std::atomic<int> m_sleepers {0};
};

} // namespace qcm::detail
