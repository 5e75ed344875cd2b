// SPDX-License-Identifier: Apache-2.0
// Delta and DeletedFinalStateUnknown: what informer queues hold (client-go's cache.Delta).
//
// A delta's object is either the object itself or a DeletedFinalStateUnknown tombstone: the
// object was deleted while the watch was down, so its final state is unknown and the tombstone
// carries the last state that was known (possibly none).
//
// Plain values; copy them freely.
#pragma once

#include <qcm/client/object.h>

#include <QtCore/QList>

#include <variant>

namespace qcm::cache {

using client::Object;

enum class DeltaType { Added, Updated, Deleted, Replaced, Sync };

QCM_SDK_EXPORT const char *deltaTypeName(DeltaType type); // "Added", ... as in client-go

struct DeletedFinalStateUnknown
{
    QString key;
    Object object; // the last known state; empty when none was known
};

struct QCM_SDK_EXPORT Delta
{
    DeltaType type = DeltaType::Added;
    std::variant<Object, DeletedFinalStateUnknown> object;

    bool isTombstone() const { return std::holds_alternative<DeletedFinalStateUnknown>(object); }
    // The object, or the tombstone's last known state.
    const Object &lastKnown() const;
};

// Oldest first, newest last.
using Deltas = QList<Delta>;

} // namespace qcm::cache
