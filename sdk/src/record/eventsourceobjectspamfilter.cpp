// SPDX-License-Identifier: Apache-2.0
#include "lrucache_p.h"

#include <qcm/record/eventsourceobjectspamfilter.h>
#include <qcm/tokenbucket.h>

#include <mutex>

namespace qcm::record {

struct EventSourceObjectSpamFilter::Private
{
    explicit Private(int lruCacheSize) : cache(lruCacheSize) { }

    std::mutex mutex;
    // client-go's spamRecord: a token bucket (flowcontrol's passive rate limiter).
    LruCache<std::shared_ptr<TokenBucket>> cache;
    int burst = 0;
    float qps = 0;
    Clock *clock = nullptr;
    EventSpamKeyFunc spamKeyFunc;
};

EventSourceObjectSpamFilter::EventSourceObjectSpamFilter(
    int lruCacheSize, int burst, float qps, Clock *clock, EventSpamKeyFunc spamKeyFunc)
    : d(std::make_unique<Private>(lruCacheSize))
{
    d->burst = burst;
    d->qps = qps;
    d->clock = clock ? clock : Clock::system();
    d->spamKeyFunc = std::move(spamKeyFunc);
}

EventSourceObjectSpamFilter::~EventSourceObjectSpamFilter() = default;

bool EventSourceObjectSpamFilter::filter(const Event &event)
{
    const QString eventKey = d->spamKeyFunc(event);
    std::lock_guard lock(d->mutex);
    std::shared_ptr<TokenBucket> bucket;
    if (auto *found = d->cache.get(eventKey))
        bucket = *found;
    if (!bucket)
        bucket = std::make_shared<TokenBucket>(double(d->qps), d->burst);
    // TryAccept: a token now, or the event is spam.
    const bool filtered = !bucket->allow(d->clock->now());
    d->cache.add(eventKey, bucket);
    return filtered;
}

} // namespace qcm::record
