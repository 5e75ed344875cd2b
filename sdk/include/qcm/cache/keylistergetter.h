// SPDX-License-Identifier: Apache-2.0
// KeyListerGetter: what informer queues need of the informer's store ("knownObjects").
//
// Thread safety: implementations must be safe to call from the FIFO's callers' threads.
#pragma once

#include <qcm/client/object.h>

#include <QtCore/QStringList>

#include <optional>

namespace qcm::cache {

class QCM_SDK_EXPORT KeyListerGetter
{
public:
    virtual ~KeyListerGetter();
    virtual QStringList listKeys() const = 0;
    virtual std::optional<client::Object> getByKey(const QString &key) const = 0;
};

} // namespace qcm::cache
