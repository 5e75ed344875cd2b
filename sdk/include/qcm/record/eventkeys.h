// SPDX-License-Identifier: Apache-2.0
// The keys the event correlator groups Events by (client-go's getEventKey and getSpamKey in
// tools/record/events_cache.go). Fields are joined with no separator, exactly as client-go
// joins them, so the same Events collide (or not) as they do there.
//
// Thread safety: reentrant functions.
#pragma once

#include <qcm/record/event.h>

namespace qcm::record {

// Identical events: source, involved object (with fieldPath), type, reason and message. An
// Event whose key was seen before is counted (count patched) instead of created again.
QCM_SDK_EXPORT QString getEventKey(const Event &event);

// The spam filter's default key: source and involved object (without fieldPath) and type.
QCM_SDK_EXPORT QString getSpamKey(const Event &event);

} // namespace qcm::record
