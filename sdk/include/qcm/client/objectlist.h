// SPDX-License-Identifier: Apache-2.0
// ObjectList: the items of a list response and its list metadata (client-go's
// unstructured.UnstructuredList).
//
// Plain value; copy it freely.
#pragma once

#include <qcm/client/object.h>

namespace qcm::client {

struct ObjectList
{
    QString apiVersion;
    QString kind;
    QString resourceVersion; // of the list, for a following watch
    QString continueToken; // non-empty when more pages remain
    std::optional<qint64> remainingItemCount;
    QList<Object> items;
};

} // namespace qcm::client
