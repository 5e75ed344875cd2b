// SPDX-License-Identifier: Apache-2.0
// JsonNode: one value inside an Object's JSON, read where it lies: in the bytes a decoded
// Object arrived in (walked by path, building no QJsonObject tree), or in a QJsonValue for an
// Object made from, or changed into, a tree. Generated typed views (qcm-gen) read through it.
//
//     const JsonNode image = JsonNode::of(pod).member("spec").member("containers").at(0)
//                                .member("image");
//     std::optional<QString> value = image.toString();
//
// A node that is not there is absent (isPresent() false): a missing member, an index past
// the end, a member of something that is not an object. Every read of an absent node, or of
// a node of another JSON type, is std::nullopt or empty; nothing throws.
//
// A node keeps the bytes (or the tree) it reads alive: it may outlive the Object it came from.
// Walking the bytes costs a scan of the members before the one asked for; a view that reads
// several members of one object should keep that object's node rather than walk from the
// root each time.
//
// Thread safety: reentrant; the const members may be called from several threads at once.
#pragma once

#include <qcm/client/object.h>

#include <QtCore/QByteArray>
#include <QtCore/QJsonValue>
#include <QtCore/QList>
#include <QtCore/QString>

#include <memory>
#include <optional>
#include <utility>

namespace qcm::typed {

class QCM_SDK_EXPORT JsonNode
{
public:
    JsonNode() = default; // absent
    // A value of a tree; an undefined QJsonValue is absent.
    explicit JsonNode(QJsonValue value);
    // The root of an object: its bytes if it was decoded and has not been changed since,
    // otherwise its tree.
    static JsonNode of(const client::Object &object);

    bool isPresent() const;
    bool isNull() const;
    bool isObject() const;
    bool isArray() const;
    bool isString() const;
    bool isNumber() const;
    bool isBool() const;

    // The member `key` of an object (the last one, if the key repeats, as Qt's reader keeps).
    JsonNode member(QLatin1StringView key) const;
    JsonNode member(const QString &key) const;
    // The element `index` of an array.
    JsonNode at(qsizetype index) const;
    // The elements of an array, in order; empty for anything else.
    QList<JsonNode> elements() const;
    // The members of an object, in order (a repeated key once, with its last value).
    QList<std::pair<QString, JsonNode>> members() const;
    // Elements of an array or members of an object; 0 for anything else.
    qsizetype size() const;

    std::optional<QString> toString() const;
    // A number that is an integer and fits; a fraction or an exponent that makes a whole
    // number (3.0, 1e3) counts, as in Go's json decoding into an int.
    std::optional<qint64> toInteger() const;
    std::optional<double> toDouble() const;
    std::optional<bool> toBool() const;
    // The value as Qt's JSON (built from the bytes for this node only); undefined if absent.
    QJsonValue toJsonValue() const;

private:
    enum class Source : quint8 { Absent, Bytes, Tree };
    JsonNode(std::shared_ptr<const detail::RawObject> raw, qint32 at);
    const char *begin() const; // Bytes: the first byte of the value
    const char *end() const; // Bytes: the end of the text
    JsonNode nodeAt(const char *p) const; // Bytes: the node of the value at p in the same text
    // The Bytes node of the member `key`, matching the raw key bytes; null key = next member.
    // `key` as UTF-8; `exact`, when given, the key as a QString, which an escaped key is
    // compared with (a lone surrogate, which "\ud84d" escapes and UTF-8 cannot hold).
    JsonNode memberBytes(QByteArrayView key, const QString *exact = nullptr) const;

    // Bytes: the decoded object (its validated text, and the index of its top-level members,
    // which the root's member() uses instead of a scan).
    std::shared_ptr<const detail::RawObject> m_raw;
    QJsonValue m_value; // Tree
    qint32 m_at = -1; // Bytes: offset of the value in the text
    Source m_source = Source::Absent;
};

} // namespace qcm::typed
