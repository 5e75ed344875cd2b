// SPDX-License-Identifier: Apache-2.0
// RawObject: an Object's JSON kept as the bytes it arrived in, with the index LazyJsonCodec's
// scanner made of them; the QJsonObject tree is built on first use (internal to the SDK).
//
// Thread safety: immutable once made, except the tree, which the first tree() builds and
// publishes with one compare-and-swap (threads that race each build one, and all but the
// first free theirs); any number of threads may share one RawObject. Not std::call_once:
// glibc's ends every first call with a futex wake, a system call per object whose tree a
// handler reads (one per event on the watch path; tests/bench/RESULTS.md, run 25).
#pragma once

#include "jsonscan.h"

#include <qcm/client/object.h>

#include <QtCore/QJsonObject>

#include <atomic>
#include <memory>
#include <optional>

namespace qcm::detail {

struct RawObject
{
    // A RawObject holding a copy of `bytes` in its own block (the block that also holds the
    // shared_ptr's count): one allocation per decoded object, not two. Its text is raw data
    // (QByteArray::fromRawData) and lives as long as the RawObject; nothing copies the text out
    // of it (views and Qt's reader only).
    static std::shared_ptr<RawObject> withCopyOf(QByteArrayView bytes, const ObjectIndex &index);

    QByteArray text; // the object's JSON, validated by JsonScanner
    ObjectIndex index; // spans into text
    // An item of a list with neither apiVersion nor kind takes the list's apiVersion and
    // kind (without "List"), as client-go's UnstructuredList does; set by the codec, one
    // ListDefaults shared by every such item of a list (16 bytes per object, not two QStrings'
    // 48); null for any other object.
    struct ListDefaults
    {
        QString apiVersion;
        QString itemKind;
    };
    std::shared_ptr<const ListDefaults> listDefaults;

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
        return listDefaults ? listDefaults->apiVersion : string(index.apiVersion);
    }
    QString kind() const { return listDefaults ? listDefaults->itemKind : string(index.kind); }
    bool isEmpty() const { return !index.hasMembers && !listDefaults; }
    // The JSON value of a member (objects and arrays by Qt's reader); undefined if absent.
    QJsonValue value(Span span) const;

    RawObject() = default;
    RawObject(const RawObject &) = delete;
    RawObject &operator=(const RawObject &) = delete;
    ~RawObject() { delete m_tree.load(std::memory_order_acquire); }

    const QJsonObject &tree() const;

private:
    QJsonObject buildTree() const;

    mutable std::atomic<const QJsonObject *> m_tree {nullptr}; // owned; null until tree()
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
    // The namespace, as the first characters of the cached key, under the same conditions;
    // nothing where cachedKey() gives null or the namespace's length was not kept.
    static std::optional<QStringView> cachedNamespace(const client::Object &object);
    // a.resourceVersion() == b.resourceVersion(), told from the bytes where both are decoded
    // Objects whose versions are plain strings (no string is made then).
    static bool sameResourceVersion(const client::Object &a, const client::Object &b);
    // !object.resourceVersion().isEmpty(), without decoding a plain version.
    static bool hasResourceVersion(const client::Object &object);
};

} // namespace qcm::detail
