// SPDX-License-Identifier: Apache-2.0
// EventSource: who records an Event (core/v1 EventSource): the component, e.g.
// "deployment-controller", and optionally the host it runs on.
//
// Plain value; thread safety as for any value.
#pragma once

#include <qcm/global.h>

#include <QtCore/QJsonObject>
#include <QtCore/QString>

namespace qcm::record {

struct QCM_SDK_EXPORT EventSource
{
    QString component;
    QString host;

    QJsonObject toJson() const; // empty fields left out
    static EventSource fromJson(const QJsonObject &json);
    bool operator==(const EventSource &o) const
    {
        return component == o.component && host == o.host;
    }
    bool operator!=(const EventSource &o) const { return !(*this == o); }
};

} // namespace qcm::record
