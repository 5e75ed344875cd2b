// SPDX-License-Identifier: Apache-2.0
#include <qcm/record/eventsink.h>

namespace qcm::record {

namespace {
const QString RequestConstruction = QStringLiteral("RequestConstruction");
}

EventSink::~EventSink() = default;

client::Status EventSink::requestConstructionError(const QString &message)
{
    return client::Status::transportError(RequestConstruction, message);
}

bool EventSink::isRequestConstructionError(const client::Status &status)
{
    return status.code == 0 && status.reason == RequestConstruction;
}

} // namespace qcm::record
