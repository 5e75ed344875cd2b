// SPDX-License-Identifier: Apache-2.0
// EventRecorder: records Kubernetes Events about objects on behalf of one EventSource
// (client-go's record.EventRecorder). Controllers get one from their ControllerContext or
// from EventBroadcaster::newRecorder().
//
//     recorder->event(foo, EventTypeNormal, QStringLiteral("Synced"),
//                     QStringLiteral("Foo synced successfully"));
//     recorder->eventf(foo, EventTypeWarning, QStringLiteral("ErrResourceExists"),
//                      QStringLiteral("Resource %1 already exists and is not managed by Foo"),
//                      name);
//
// `type` is EventTypeNormal or EventTypeWarning; any other type is logged and dropped.
// `reason` is short, UpperCamelCase and stable: tools switch on it. `message` is for humans.
// The Event is created in the object's namespace ("default" for cluster-scoped objects).
//
// eventf() formats in Qt's way: "%1", "%2", ... are replaced in one pass, as QString::arg
// with several arguments does (a replacement text is never scanned again). Arguments may be
// strings, numbers, or anything QVariant converts to a string.
//
// Recording never blocks and never fails the caller: the Event is queued for the
// broadcaster's writer threads, or dropped (and logged) when a queue is full or the
// broadcaster is shut down.
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/record/event.h>

#include <QtCore/QVariant>

#include <type_traits>

namespace qcm::record {

namespace detail {
template<typename T>
QString eventArg(const T &value)
{
    if constexpr (std::is_same_v<T, bool>)
        return value ? QStringLiteral("true") : QStringLiteral("false");
    else if constexpr (std::is_arithmetic_v<T>)
        return QString::number(value);
    else if constexpr (std::is_convertible_v<const T &, const char *>)
        return QString::fromUtf8(value);
    else if constexpr (std::is_same_v<T, QByteArray>)
        return QString::fromUtf8(value);
    else if constexpr (std::is_same_v<T, QStringView>)
        return value.toString();
    else if constexpr (std::is_convertible_v<const T &, QString>)
        return QString(value);
    else
        return QVariant::fromValue(value).toString();
}
template<typename... Args>
QString formatEventMessage(const QString &format, const Args &...args)
{
    if constexpr (sizeof...(Args) == 0)
        return format;
    else
        return format.arg(eventArg(args)...);
}
} // namespace detail

class QCM_SDK_EXPORT EventRecorder
{
public:
    virtual ~EventRecorder();

    // Records an Event about `object`, referenced by ObjectReference::getReference() (an
    // object without kind or apiVersion is logged and not recorded).
    void event(const client::Object &object, const QString &type, const QString &reason,
        const QString &message);
    // Records an Event about the object `reference` names (client-go accepts a reference too).
    void event(const ObjectReference &reference, const QString &type, const QString &reason,
        const QString &message);

    template<typename Object, typename... Args>
    void eventf(const Object &object, const QString &type, const QString &reason,
        const QString &messageFormat, const Args &...args)
    {
        event(object, type, reason, detail::formatEventMessage(messageFormat, args...));
    }

    // event() with annotations on the Event's metadata.
    void annotatedEvent(const client::Object &object, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message);
    void annotatedEvent(const ObjectReference &reference, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message);

    template<typename Object, typename... Args>
    void annotatedEventf(const Object &object, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &messageFormat,
        const Args &...args)
    {
        annotatedEvent(
            object, annotations, type, reason, detail::formatEventMessage(messageFormat, args...));
    }

protected:
    // Implementations record one Event about the object `reference` names.
    virtual void generateEvent(const ObjectReference &reference,
        const QMap<QString, QString> &annotations, const QString &type, const QString &reason,
        const QString &message)
        = 0;
    // An object that cannot be referenced: logged, as client-go does, and not recorded.
    virtual void referenceFailed(const Error &error, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message);
};

} // namespace qcm::record
