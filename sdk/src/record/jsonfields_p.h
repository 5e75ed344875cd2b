// SPDX-License-Identifier: Apache-2.0
// insertIfSet: writes a string field only when it is not empty, as Go's omitempty does.
//
// Thread safety: reentrant.
#pragma once

#include <QtCore/QJsonObject>

namespace qcm::record {

inline void insertIfSet(QJsonObject &json, const QString &key, const QString &value)
{
    if (!value.isEmpty())
        json.insert(key, value);
}

} // namespace qcm::record
