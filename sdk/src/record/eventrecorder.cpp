// SPDX-License-Identifier: Apache-2.0
#include "logging_p.h"

#include <qcm/record/eventrecorder.h>

namespace qcm::record {

EventRecorder::~EventRecorder() = default;

void EventRecorder::event(const client::Object &object, const QString &type, const QString &reason,
    const QString &message)
{
    annotatedEvent(object, {}, type, reason, message);
}

void EventRecorder::event(const ObjectReference &reference, const QString &type,
    const QString &reason, const QString &message)
{
    generateEvent(reference, {}, type, reason, message);
}

void EventRecorder::annotatedEvent(const client::Object &object,
    const QMap<QString, QString> &annotations, const QString &type, const QString &reason,
    const QString &message)
{
    const auto reference = ObjectReference::getReference(object);
    if (!reference) {
        referenceFailed(reference.error(), annotations, type, reason, message);
        return;
    }
    generateEvent(*reference, annotations, type, reason, message);
}

void EventRecorder::annotatedEvent(const ObjectReference &reference,
    const QMap<QString, QString> &annotations, const QString &type, const QString &reason,
    const QString &message)
{
    generateEvent(reference, annotations, type, reason, message);
}

void EventRecorder::referenceFailed(const Error &error, const QMap<QString, QString> &,
    const QString &type, const QString &reason, const QString &message)
{
    qCWarning(lcRecord).noquote() << "Could not construct reference, will not report event:"
                                  << error.toString() << "eventType:" << type << "reason:" << reason
                                  << "message:" << message;
}

} // namespace qcm::record
