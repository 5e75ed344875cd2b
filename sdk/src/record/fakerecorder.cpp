// SPDX-License-Identifier: Apache-2.0
#include <qcm/record/fakerecorder.h>

namespace qcm::record {

FakeRecorder::FakeRecorder(bool includeObject) : m_includeObject(includeObject) { }

FakeRecorder::~FakeRecorder() = default;

QStringList FakeRecorder::events() const
{
    std::lock_guard lock(m_mutex);
    return m_events;
}

QStringList FakeRecorder::takeEvents()
{
    std::lock_guard lock(m_mutex);
    return std::exchange(m_events, {});
}

void FakeRecorder::generateEvent(const ObjectReference &reference,
    const QMap<QString, QString> &annotations, const QString &type, const QString &reason,
    const QString &message)
{
    append(&reference, annotations, type, reason, message);
}

void FakeRecorder::referenceFailed(const Error &, const QMap<QString, QString> &annotations,
    const QString &type, const QString &reason, const QString &message)
{
    append(nullptr, annotations, type, reason, message);
}

void FakeRecorder::append(const ObjectReference *reference,
    const QMap<QString, QString> &annotations, const QString &type, const QString &reason,
    const QString &message)
{
    QString line = type + QLatin1Char(' ') + reason + QLatin1Char(' ') + message;
    if (m_includeObject) {
        line += QStringLiteral(" involvedObject{kind=%1,apiVersion=%2}")
                    .arg(reference ? reference->kind : QString(),
                        reference ? reference->apiVersion : QString());
    }
    if (!annotations.isEmpty()) {
        // Go's fmt.Sprint of a map: map[k1:v1 k2:v2], keys sorted.
        QStringList pairs;
        for (auto it = annotations.begin(); it != annotations.end(); ++it)
            pairs << it.key() + QLatin1Char(':') + it.value();
        line += QStringLiteral(" map[") + pairs.join(QLatin1Char(' ')) + QLatin1Char(']');
    }
    std::lock_guard lock(m_mutex);
    m_events << line;
}

} // namespace qcm::record
