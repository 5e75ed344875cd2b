#include <qcm/detail/mutex.h>

#include <climits>
#include <linux/futex.h>
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

// A few microseconds at most (a pause is 10 to 140 cycles, depending on the CPU): long
// enough to cover a short critical section on the other core, short enough not to waste a
// time slice.
constexpr int SpinIterations = 128;

long futex(void *address, int op, int value)
{
    return syscall(SYS_futex, address, op, value, nullptr, nullptr, 0);
}

} // namespace

void Mutex::lockSlow()
{
    for (int i = 0; i < SpinIterations; ++i) {
        QCM_CPU_RELAX();
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
    for (int i = 0; i < SpinIterations; ++i) {
        if (m_sequence.load(std::memory_order_acquire) != sequence)
            return;
        QCM_CPU_RELAX();
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
