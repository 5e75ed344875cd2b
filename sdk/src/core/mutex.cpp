// SPDX-License-Identifier: Apache-2.0
#include <qcm/detail/mutex.h>

#include <climits>
#include <linux/futex.h>
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

long futex(void *address, int op, int value)
{
    return syscall(SYS_futex, address, op, value, nullptr, nullptr, 0);
}

} // namespace

void Mutex::lockSlow()
{
    for (int step = 0; backOff(step); ++step) {
        int expected = Unlocked;
        if (m_state.load(std::memory_order_relaxed) == Unlocked
            && m_state.compare_exchange_weak(expected, Locked, std::memory_order_acquire))
            return;
    }
    // Mark the lock contended and sleep until it is released (Drepper, "Futexes are tricky").
    while (m_state.exchange(Contended, std::memory_order_acquire) != Unlocked)
        futex(&m_state, FUTEX_WAIT_PRIVATE, Contended);
}

void Mutex::wakeOne()
{
    futex(&m_state, FUTEX_WAKE_PRIVATE, 1);
}

// m_sleepers counts threads that may be asleep. A waiter adds itself before it sleeps; a
// waker removes one (or all) before it issues the wake, so each sleeper costs one wake system
// call, not one per notification while it is being scheduled. A waiter that does not sleep
// after all (the sequence moved on) stays counted until a later wake removes it: the count
// can exceed the number of sleepers, never fall below it, so no wake is ever lost.
void WaitQueue::waitFor(unsigned sequence)
{
    for (int step = 0; backOff(step); ++step) {
        if (m_sequence.load(std::memory_order_acquire) != sequence)
            return;
    }
    m_sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (m_sequence.load(std::memory_order_seq_cst) == sequence)
        futex(&m_sequence, FUTEX_WAIT_PRIVATE, int(sequence));
    // Pairs with notify()'s increment.
    (void)m_sequence.load(std::memory_order_acquire);
}

void WaitQueue::wake(int count)
{
    if (count < 0) {
        if (m_sleepers.exchange(0, std::memory_order_seq_cst) > 0)
            futex(&m_sequence, FUTEX_WAKE_PRIVATE, INT_MAX);
        return;
    }
    int sleepers = m_sleepers.load(std::memory_order_seq_cst);
    do {
        if (sleepers <= 0)
            return;
    } while (!m_sleepers.compare_exchange_weak(sleepers, sleepers - 1, std::memory_order_seq_cst));
    futex(&m_sequence, FUTEX_WAKE_PRIVATE, 1);
}

} // namespace qcm::detail
