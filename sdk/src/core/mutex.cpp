// SPDX-License-Identifier: Apache-2.0
#include <qcm/detail/mutex.h>

#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define QCM_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define QCM_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define QCM_CPU_RELAX()                                                                            \
    do {                                                                                           \
    } while (0)
#endif

namespace qcm::detail {

namespace {

// Before a thread sleeps in the kernel it spins a few times, then yields its CPU a while.
// Spinning covers a lock released a moment later on the other core; yielding lets a holder
// (or a producer) that is waiting for this very CPU run, which is what matters when threads
// outnumber cores: with 2 producers and 2 consumers on 2 cores, spinning alone (64 to 1024
// pauses) ran tests/bench case (b) in 4.5-7 ms, 4 pauses then up to 128 yields in 2.2 ms.
// On an idle machine the yields return at once, so a thread that finds nothing to do burns
// at most some tens of microseconds before it sleeps.
constexpr int SpinIterations = 4;
constexpr int YieldIterations = 128;

// One step of that back-off; returns false once it is time to sleep.
bool backOff(int step)
{
    if (step < SpinIterations) {
        QCM_CPU_RELAX();
        return true;
    }
    if (step < SpinIterations + YieldIterations) {
        sched_yield();
        return true;
    }
    return false;
}

long futex(void *address, int op, int value, const timespec *timeout = nullptr)
{
    return syscall(SYS_futex, address, op, value, timeout, nullptr, 0);
}

long membarrier(int command)
{
    return syscall(SYS_membarrier, command, 0, 0);
}

bool registerForMembarrier()
{
    const long commands = membarrier(MEMBARRIER_CMD_QUERY);
    return commands >= 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED)
        && membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

} // namespace

// A light lock's unlock() is "store Unlocked; load the mode", with no fence between them,
// and a thread about to sleep does "store Fenced; membarrier; exchange Contended; sleep".
// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) returns only once every thread of the process
// that was running has passed a full memory barrier, and the others pass one when they are
// next scheduled; so it splits each unlocker's run at a barrier. If the unlocker's load of the
// mode comes after that point, it sees Fenced and wakes a sleeper. If it came before, so did
// the store before it, which the barrier has made visible: the sleeper's exchange then finds
// the lock free (or taken since, by a thread whose own unlock comes later and sees Fenced).
// So no wake-up is lost, and an uncontended unlock costs no locked instruction: that was
// 3 of the 10 locked instructions of each add, get and done in tests/bench case (a)
// (RESULTS.md run 26). The same asymmetric fence is folly's asymmetricHeavyBarrier.
//
// A lock turns fenced once and stays so, since turning it back would need the barrier again;
// so a lock that contends pays one membarrier in its life (measured here: 85 ns alone,
// ~4 us with another thread of the process running on the other CPU).
void Mutex::lockSlow()
{
    for (int step = 0; backOff(step); ++step) {
        int expected = Unlocked;
        if (m_state.load(std::memory_order_relaxed) == Unlocked
            && m_state.compare_exchange_weak(expected, Locked, std::memory_order_acquire))
            return;
    }
    if (m_mode.load(std::memory_order_relaxed) == Light) {
        m_mode.store(Fenced, std::memory_order_seq_cst);
        // Registration is per address space and survives fork() (exec starts a new one, and
        // the SDK registers again there), so this does not fail; should it, a light unlock
        // may have raced this, and the waits below time out instead of relying on a wake-up.
        if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
            m_mode.store(Unfenced, std::memory_order_relaxed);
    }
    const timespec millisecond {0, 1000 * 1000};
    const timespec *timeout
        = m_mode.load(std::memory_order_relaxed) == Unfenced ? &millisecond : nullptr;
    // Mark the lock contended and sleep until it is released (Drepper, "Futexes are tricky").
    while (m_state.exchange(Contended, std::memory_order_acquire) != Unlocked)
        futex(&m_state, FUTEX_WAIT_PRIVATE, Contended, timeout);
}

bool Mutex::lightUnlockAvailable()
{
    static const bool registered = registerForMembarrier();
    return registered;
}

namespace {
// Registers when the SDK is loaded, while a process usually has one thread: registering
// took 2 us then, and 12-15 ms (an RCU grace period) in a process with running threads.
[[maybe_unused]] const bool registeredAtLoad = Mutex::lightUnlockAvailable();
} // namespace

void Mutex::wakeOne()
{
    futex(&m_state, FUTEX_WAKE_PRIVATE, 1);
}

// m_sleepers counts the threads that may be asleep: a waiter adds itself before it checks the
// sequence a last time and sleeps, and removes itself once it is awake again. A notifier
// increments the sequence first and reads the count after it, both sequentially consistent, so
// one of the two sees the other: either the waiter sees the new sequence and does not sleep
// (the kernel compares it again), or the notifier sees the waiter and wakes a sleeper.
//
// Only the waiter may remove itself. A notifier that removed "one sleeper" before its wake
// (as this did before) can count out a waiter whose snapshot of the sequence already includes
// that notifier's own increment (taken while the notifier was preempted between its two
// steps): the wake finds nobody, the waiter then sleeps on the new value, uncounted, and every
// later notification sees no sleeper (found when the queue benchmark hung at shutdown; see
// tst_core_waitqueue).
void WaitQueue::waitFor(unsigned sequence)
{
    for (int step = 0; backOff(step); ++step) {
        if (m_sequence.load(std::memory_order_acquire) != sequence)
            return;
    }
    m_sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (m_sequence.load(std::memory_order_seq_cst) == sequence)
        futex(&m_sequence, FUTEX_WAIT_PRIVATE, int(sequence));
    m_sleepers.fetch_sub(1, std::memory_order_relaxed);
    // Pairs with notify()'s increment.
    (void)m_sequence.load(std::memory_order_acquire);
}

void WaitQueue::wake(int count)
{
    futex(&m_sequence, FUTEX_WAKE_PRIVATE, count < 0 ? INT_MAX : count);
}

} // namespace qcm::detail
