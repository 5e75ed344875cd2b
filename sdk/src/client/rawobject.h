// SPDX-License-Identifier: Apache-2.0
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
    // An item of a list with neither apiVersion nor kind takes the list's apiVersion and
    // kind (without "List"), as client-go's UnstructuredList does; set by the codec.
    bool listDefaults = false;
    QString listApiVersion;
    QString listItemKind;

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
    QString apiVersion() const { return listDefaults ? listApiVersion : string(index.apiVersion); }
    QString kind() const { return listDefaults ? listItemKind : string(index.kind); }
    bool isEmpty() const { return !index.hasMembers && !listDefaults; }
    // The JSON value of a member (objects and arrays by Qt's reader); undefined if absent.
    QJsonValue value(Span span) const;

    const QJsonObject &tree() const;

private:
    mutable std::once_flag m_once;
    mutable QJsonObject m_tree;
};

// A validated JSON value as Qt's reader would give it (objects and arrays by Qt's reader).
QJsonValue decodeJsonValue(QByteArrayView bytes);

// Makes Objects from RawObjects (Object's constructor for them is private).
struct RawObjectAccess
{
    static client::Object make(std::shared_ptr<const RawObject> raw)
    {
        return client::Object(std::move(raw));
    }
    // The bytes of a decoded Object not changed since; null otherwise.
    static const std::shared_ptr<const RawObject> &raw(const client::Object &object);
    // The key cached in the object's block (what key() returns), valid while the block lives;
    // null when the object has no name or its JSON was lent out (key() computes it then).
    static const QString *cachedKey(const client::Object &object);
};

} // namespace qcm::detail
