// SPDX-License-Identifier: Apache-2.0
// EventSourceObjectSpamFilter: limits how many Events a source sends about one object
// (client-go's EventSourceObjectSpamFilter): one token bucket per spam key (by default source
// + involved object + type), `burst` tokens refilled at `qps`; an Event that finds the bucket
// empty is filtered out. Buckets live in an LRU cache of lruCacheSize keys.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/record/correlatoroptions.h>

#include <memory>

namespace qcm::record {

class QCM_SDK_EXPORT EventSourceObjectSpamFilter
{
public:
    EventSourceObjectSpamFilter(
        int lruCacheSize, int burst, float qps, Clock *clock, EventSpamKeyFunc spamKeyFunc);
    ~EventSourceObjectSpamFilter();
    EventSourceObjectSpamFilter(const EventSourceObjectSpamFilter &) = delete;
    EventSourceObjectSpamFilter &operator=(const EventSourceObjectSpamFilter &) = delete;

    // True if `event` must be skipped: its key's bucket has no token now.
    bool filter(const Event &event);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::record
