// SPDX-License-Identifier: Apache-2.0
// FakeRecorder: an EventRecorder for unit tests that keeps what it records as text (client-go's
// record.FakeRecorder): "<type> <reason> <message>", plus
// " involvedObject{kind=<kind>,apiVersion=<apiVersion>}" when includeObject is set, plus
// " map[k:v ...]" when the Event has annotations.
//
// Unlike client-go's, which blocks once its channel is full, it keeps every Event, and it
// records Events of any type (client-go's fake does not validate either).
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/record/eventrecorder.h>

#include <QtCore/QStringList>

#include <memory>
#include <mutex>

namespace qcm::record {

class QCM_SDK_EXPORT FakeRecorder : public EventRecorder
{
public:
    explicit FakeRecorder(bool includeObject = false);
    ~FakeRecorder() override;

    // Every Event recorded so far, oldest first.
    QStringList events() const;
    // events(), emptying the list.
    QStringList takeEvents();

protected:
    void generateEvent(const ObjectReference &reference, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message) override;
    void referenceFailed(const Error &error, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message) override;

private:
    void append(const ObjectReference *reference, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message);

    bool m_includeObject;
    mutable std::mutex m_mutex;
    QStringList m_events;
};

} // namespace qcm::record
