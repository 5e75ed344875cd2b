#include "recordevent.h"

#include <QtCore/QLoggingCategory>

namespace qcm::samples {

namespace {
// A klog value: quoted, with quotes and backslashes escaped.
QString quoted(QString value)
{
    value.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    value.replace(QLatin1Char('"'), QLatin1String("\\\""));
    return QLatin1Char('"') + value + QLatin1Char('"');
}
} // namespace

QString eventLogLine(const client::Object &object, const QString &type, const QString &reason,
    const QString &message)
{
    return QStringLiteral("Event occurred: object=%1 kind=%2 apiVersion=%3 type=%4 reason=%5 "
                          "message=%6")
        .arg(quoted(object.key()), quoted(object.kind()), quoted(object.apiVersion()), quoted(type),
            quoted(reason), quoted(message));
}

RecordEvent eventRecorderFor(const ControllerContext &context)
{
    // The one place to wire ControllerContext::eventRecorder() once it exists:
    //     return [recorder = context.eventRecorder()](const client::Object &object,
    //                const QString &type, const QString &reason, const QString &message) {
    //         recorder->event(object, type, reason, message);
    //     };
    // Until then each Event is logged (the context is captured: it owns the category).
    return [context](const client::Object &object, const QString &type, const QString &reason,
               const QString &message) {
        qCInfo(context.logCategory()).noquote() << eventLogLine(object, type, reason, message);
    };
}

} // namespace qcm::samples
