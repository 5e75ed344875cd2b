// SPDX-License-Identifier: Apache-2.0
// WatchEvent: one event of a watch stream (apimachinery's watch.Event).
//
// Added, Modified and Deleted carry the object; Bookmark carries an object with only its
// kind and resourceVersion; Error carries a Status (a 410 Gone when the resourceVersion was
// compacted, or the client's own InternalError for a malformed frame).
//
// Plain value; copy it freely.
#pragma once

#include <qcm/client/object.h>
#include <qcm/client/status.h>

namespace qcm::client {

struct QCM_SDK_EXPORT WatchEvent
{
    enum class Type { Added, Modified, Deleted, Bookmark, Error };

    Type type = Type::Error;
    Object object;
    Status status; // for Type::Error

    static const char *typeName(Type type); // "ADDED", "MODIFIED", ... as on the wire
};

} // namespace qcm::client
