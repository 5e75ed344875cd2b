// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/queue.h>

namespace qcm::cache {

Queue::~Queue() = default;

QString Queue::closedError()
{
    return QStringLiteral("DeltaFIFO: manipulating with closed queue");
}

} // namespace qcm::cache
