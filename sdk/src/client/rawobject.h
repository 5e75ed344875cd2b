// RawObject: an Object's JSON kept as the bytes it arrived in, with the index LazyJsonCodec's
// scanner made of them; the QJsonObject tree is built on first use (internal to the SDK).
//
// Thread safety: immutable once made, except the tree, which tree() builds once under
// std::call_once; any number of threads may share one RawObject.
#pragma once

#include "jsonscan.h"

#include <qcm/client/object.h>

#include <QtCore/QJsonObject>

#include <mutex>

namespace qcm::detail {

struct RawObject
{
    QByteArray text; // the object's JSON, validated by JsonScanner
    ObjectIndex index; // spans into text
    // apiVersion and kind for an item of a list that lacks them (client-go's UnstructuredList
    // sets them from the list's).
    QString defaultApiVersion;
    QString defaultKind;

    QByteArrayView view(Span span) const
    {
        return QByteArrayView(text).sliced(span.begin, span.end - span.begin);
    }
    // A string member's value; empty if absent or not a string.
    QString string(Span span) const
    {
        return span.isSet() && text.at(span.begin) == '"' ? decodeJsonString(view(span))
                                                          : QString();
    }
    QString apiVersion() const
    {
        const QString own = string(index.apiVersion);
        return own.isEmpty() ? defaultApiVersion : own;
    }
    QString kind() const
    {
        const QString own = string(index.kind);
        return own.isEmpty() ? defaultKind : own;
    }
    // The JSON value of a member (objects and arrays by Qt's reader); undefined if absent.
    QJsonValue value(Span span) const;

    const QJsonObject &tree() const;

private:
    mutable std::once_flag m_once;
    mutable QJsonObject m_tree;
};

// Makes Objects from RawObjects (Object's constructor for them is private).
struct RawObjectAccess
{
    static client::Object make(std::shared_ptr<const RawObject> raw)
    {
        return client::Object(std::move(raw));
    }
};

} // namespace qcm::detail
