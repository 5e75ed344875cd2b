// SPDX-License-Identifier: Apache-2.0
#include <qcm/tokenbucket.h>

namespace qcm {

namespace {

// time.Duration.Seconds(), bit for bit.
double seconds(Duration d)
{
    const auto sec = d.count() / 1000000000;
    const auto nsec = d.count() % 1000000000;
    return double(sec) + double(nsec) / 1e9;
}

// time.Time.Sub: saturates instead of overflowing.
Duration sub(TimePoint a, TimePoint b)
{
    Duration::rep out;
    if (__builtin_sub_overflow(a.time_since_epoch().count(), b.time_since_epoch().count(), &out))
        return a > b ? Duration::max() : Duration::min();
    return Duration(out);
}

} // namespace

TokenBucket::TokenBucket(double limit, int burst)
    : m_limit(limit), m_burst(burst), m_tokens(double(burst))
{ }

double TokenBucket::advance(TimePoint now) const
{
    TimePoint last = m_last;
    if (now < last)
        last = now;
    const Duration elapsed = sub(now, last);
    const double delta = m_limit <= 0 ? 0 : seconds(elapsed) * m_limit;
    double tokens = m_tokens + delta;
    if (const double burst = double(m_burst); tokens > burst)
        tokens = burst;
    return tokens;
}

bool TokenBucket::isInf() const
{
    // x/time/rate's Inf is math.MaxFloat64; +infinity means the same here.
    return m_limit >= std::numeric_limits<double>::max();
}

// x/time/rate's reserveN: commits and returns the wait, or returns nothing when refused.
std::optional<Duration> TokenBucket::reserveLocked(TimePoint now, int n, Duration maxFutureReserve)
{
    if (isInf())
        return Duration::zero();
    const double tokens = advance(now) - double(n);
    Duration wait = Duration::zero();
    if (tokens < 0) {
        if (m_limit <= 0) {
            wait = InfDuration;
        } else {
            const double duration = (-tokens / m_limit) * 1e9;
            wait = duration > double(std::numeric_limits<Duration::rep>::max())
                ? InfDuration
                : Duration(Duration::rep(duration));
        }
    }
    if (n > m_burst || wait > maxFutureReserve)
        return std::nullopt;
    m_last = now;
    m_tokens = tokens;
    return wait;
}

Duration TokenBucket::reserve(TimePoint now, int n)
{
    std::lock_guard lock(m_mutex);
    return reserveLocked(now, n, InfDuration).value_or(InfDuration);
}

bool TokenBucket::allow(TimePoint now, int n)
{
    std::lock_guard lock(m_mutex);
    return reserveLocked(now, n, Duration::zero()).has_value();
}

double TokenBucket::tokensAt(TimePoint now) const
{
    std::lock_guard lock(m_mutex);
    return advance(now);
}

double TokenBucket::limit() const
{
    return m_limit;
}

int TokenBucket::burst() const
{
    return m_burst;
}

} // namespace qcm
