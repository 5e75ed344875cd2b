// SPDX-License-Identifier: Apache-2.0
#include <qcm/typed/jsonnode.h>

#include "client/jsonscan.h"
#include "client/rawobject.h"
#include "typed/validatedjson.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>

#include <cmath>

namespace qcm::typed {

using detail::skipSpaceValidated;
using detail::skipValueValidated;

namespace {

// Past the value at p, a member's value of the object at `objectAt` in raw's text. In the root
// object (at 0), the members the scanner indexed (metadata, spec, status) end where their spans
// say, without walking them again (a root lookup of "data" passes metadata, managedFields and
// all).
const char *skipMemberValue(
    const detail::RawObject &raw, qint32 objectAt, const char *p, const char *end)
{
    if (objectAt == 0) {
        const qint32 at = qint32(p - raw.text.constData());
        for (const detail::Span *span : {&raw.index.metadata, &raw.index.spec, &raw.index.status})
            if (span->isSet() && span->begin == at)
                return raw.text.constData() + span->end;
    }
    return skipValueValidated(p, end);
}

} // namespace

JsonNode::JsonNode(QJsonValue value)
    : m_value(std::move(value)), m_source(m_value.isUndefined() ? Source::Absent : Source::Tree)
{ }

JsonNode::JsonNode(std::shared_ptr<const detail::RawObject> raw, qint32 at)
    : m_raw(std::move(raw)), m_at(at), m_source(Source::Bytes)
{ }

JsonNode JsonNode::of(const client::Object &object)
{
    if (const auto &raw = detail::RawObjectAccess::raw(object))
        return JsonNode(raw, 0); // the text starts at the object's '{'
    return JsonNode(QJsonValue(object.json()));
}

const char *JsonNode::begin() const
{
    return m_raw->text.constData() + m_at;
}

const char *JsonNode::end() const
{
    return m_raw->text.constData() + m_raw->text.size();
}

JsonNode JsonNode::nodeAt(const char *p) const
{
    return JsonNode(m_raw, qint32(p - m_raw->text.constData()));
}

bool JsonNode::isPresent() const
{
    return m_source != Source::Absent;
}

bool JsonNode::isNull() const
{
    return m_source == Source::Bytes ? *begin() == 'n' : m_value.isNull();
}

bool JsonNode::isObject() const
{
    return m_source == Source::Bytes ? *begin() == '{' : m_value.isObject();
}

bool JsonNode::isArray() const
{
    return m_source == Source::Bytes ? *begin() == '[' : m_value.isArray();
}

bool JsonNode::isString() const
{
    return m_source == Source::Bytes ? *begin() == '"' : m_value.isString();
}

bool JsonNode::isNumber() const
{
    if (m_source != Source::Bytes)
        return m_value.isDouble();
    const char c = *begin();
    return c == '-' || (c >= '0' && c <= '9');
}

bool JsonNode::isBool() const
{
    if (m_source != Source::Bytes)
        return m_value.isBool();
    const char c = *begin();
    return c == 't' || c == 'f';
}

JsonNode JsonNode::memberBytes(QByteArrayView key, const QString *exact) const
{
    if (m_at == 0) {
        // The root: the scanner indexed these members of it.
        const detail::ObjectIndex &index = m_raw->index;
        const detail::Span *span = key == "metadata" ? &index.metadata
            : key == "spec"                          ? &index.spec
            : key == "status"                        ? &index.status
            : key == "apiVersion"                    ? &index.apiVersion
            : key == "kind"                          ? &index.kind
                                                     : nullptr;
        if (m_raw->listDefaults && (key == "apiVersion" || key == "kind"))
            return JsonNode(QJsonValue(
                key == "kind" ? m_raw->listDefaults->itemKind : m_raw->listDefaults->apiVersion));
        if (span)
            return span->isSet() ? JsonNode(m_raw, span->begin) : JsonNode();
    } else if (m_at == m_raw->index.metadata.begin && *begin() == '{') {
        // The root's metadata: so were these members of it.
        if (const int field = detail::metaFieldOf(key); field >= 0) {
            const detail::Span span = m_raw->index.meta[field];
            return span.isSet() ? JsonNode(m_raw, span.begin) : JsonNode();
        }
    }
    const char *p = begin();
    if (*p != '{')
        return {};
    p = skipSpaceValidated(p + 1);
    JsonNode found;
    while (*p == '"') {
        const char *keyEnd = detail::skipStringValidated(p, end());
        const QByteArrayView raw(p + 1, keyEnd - p - 2);
        // A key with an escape is compared by its value (rare: the API server writes none), with
        // the QString asked for when there is one: an escaped lone surrogate has no UTF-8 form,
        // and a key holding one matches no unescaped key, as in Qt's tree.
        const bool matches = raw.contains('\\')
            ? detail::decodeJsonString(QByteArrayView(p, keyEnd - p))
                == (exact ? *exact : QString::fromUtf8(key))
            : raw == key && (!exact || QString::fromUtf8(key) == *exact);
        p = skipSpaceValidated(keyEnd);
        p = skipSpaceValidated(p + 1); // ':'
        if (matches)
            found = nodeAt(p);
        p = skipSpaceValidated(skipMemberValue(*m_raw, m_at, p, end()));
        if (*p != ',')
            break;
        p = skipSpaceValidated(p + 1);
    }
    return found;
}

JsonNode JsonNode::member(QLatin1StringView key) const
{
    switch (m_source) {
    case Source::Bytes:
        return memberBytes(QByteArrayView(key.data(), key.size()));
    case Source::Tree:
        return m_value.isObject() ? JsonNode(m_value.toObject().value(key)) : JsonNode();
    case Source::Absent:
        break;
    }
    return {};
}

JsonNode JsonNode::member(const QString &key) const
{
    switch (m_source) {
    case Source::Bytes:
        return memberBytes(key.toUtf8(), &key);
    case Source::Tree:
        return m_value.isObject() ? JsonNode(m_value.toObject().value(key)) : JsonNode();
    case Source::Absent:
        break;
    }
    return {};
}

JsonNode JsonNode::at(qsizetype index) const
{
    if (index < 0)
        return {};
    if (m_source == Source::Tree)
        return m_value.isArray() && index < m_value.toArray().size()
            ? JsonNode(m_value.toArray().at(index))
            : JsonNode();
    if (m_source != Source::Bytes || *begin() != '[')
        return {};
    const char *p = skipSpaceValidated(begin() + 1);
    if (*p == ']')
        return {};
    for (qsizetype i = 0;; ++i) {
        if (i == index)
            return nodeAt(p);
        p = skipSpaceValidated(skipValueValidated(p, end()));
        if (*p != ',')
            return {};
        p = skipSpaceValidated(p + 1);
    }
}

QList<JsonNode> JsonNode::elements() const
{
    QList<JsonNode> out;
    if (m_source == Source::Tree) {
        const QJsonArray array = m_value.toArray();
        out.reserve(array.size());
        for (const QJsonValue &v : array)
            out.append(JsonNode(v));
        return out;
    }
    if (m_source != Source::Bytes || *begin() != '[')
        return out;
    const char *p = skipSpaceValidated(begin() + 1);
    while (*p != ']') {
        out.append(nodeAt(p));
        p = skipSpaceValidated(skipValueValidated(p, end()));
        if (*p == ',')
            p = skipSpaceValidated(p + 1);
    }
    return out;
}

QList<std::pair<QString, JsonNode>> JsonNode::members() const
{
    QList<std::pair<QString, JsonNode>> out;
    if (m_source == Source::Tree) {
        const QJsonObject object = m_value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            out.append({it.key(), JsonNode(it.value())});
        return out;
    }
    if (m_source != Source::Bytes || *begin() != '{')
        return out;
    const char *p = skipSpaceValidated(begin() + 1);
    while (*p == '"') {
        const char *keyEnd = detail::skipStringValidated(p, end());
        QString key = detail::decodeJsonString(QByteArrayView(p, keyEnd - p));
        p = skipSpaceValidated(skipSpaceValidated(keyEnd) + 1);
        JsonNode value = nodeAt(p);
        // A repeated key keeps its first place and its last value, as QJsonObject does.
        auto same
            = std::find_if(out.begin(), out.end(), [&](const auto &m) { return m.first == key; });
        if (same != out.end())
            same->second = std::move(value);
        else
            out.append({std::move(key), std::move(value)});
        p = skipSpaceValidated(skipMemberValue(*m_raw, m_at, p, end()));
        if (*p == ',')
            p = skipSpaceValidated(p + 1);
    }
    if (m_at == 0 && m_raw->listDefaults) { // an item of a list has its list's (see RawObject)
        out.append(
            {QStringLiteral("apiVersion"), JsonNode(QJsonValue(m_raw->listDefaults->apiVersion))});
        out.append({QStringLiteral("kind"), JsonNode(QJsonValue(m_raw->listDefaults->itemKind))});
    }
    return out;
}

qsizetype JsonNode::size() const
{
    if (m_source == Source::Tree)
        return m_value.isArray() ? m_value.toArray().size()
            : m_value.isObject() ? m_value.toObject().size()
                                 : 0;
    if (isArray()) {
        qsizetype n = 0;
        for (qsizetype i = 0; at(i).isPresent(); ++i)
            ++n;
        return n;
    }
    return isObject() ? members().size() : 0;
}

std::optional<QString> JsonNode::toString() const
{
    if (m_source == Source::Tree)
        return m_value.isString() ? std::optional<QString>(m_value.toString()) : std::nullopt;
    if (!isString())
        return std::nullopt;
    const char *stop = detail::skipStringValidated(begin(), end());
    return detail::decodeJsonString(QByteArrayView(begin(), stop - begin()));
}

std::optional<double> JsonNode::toDouble() const
{
    if (m_source == Source::Tree)
        return m_value.isDouble() ? std::optional<double>(m_value.toDouble()) : std::nullopt;
    if (!isNumber())
        return std::nullopt;
    const char *stop = skipValueValidated(begin(), end());
    return QByteArrayView(begin(), stop - begin()).toDouble();
}

std::optional<qint64> JsonNode::toInteger() const
{
    if (m_source == Source::Bytes && isNumber()) {
        bool ok = false;
        const qint64 n
            = QByteArrayView(begin(), skipValueValidated(begin(), end()) - begin()).toLongLong(&ok);
        if (ok)
            return n;
    } else if (m_source == Source::Tree && m_value.isDouble()) {
        // Qt keeps integers it read exactly; a double that is whole converts.
        const QVariant v = m_value.toVariant();
        if (v.typeId() == QMetaType::LongLong)
            return v.toLongLong();
    }
    const std::optional<double> d = toDouble();
    if (d && std::trunc(*d) == *d && *d >= -9223372036854775808.0 && *d < 9223372036854775808.0)
        return qint64(*d);
    return std::nullopt;
}

std::optional<bool> JsonNode::toBool() const
{
    if (m_source == Source::Tree)
        return m_value.isBool() ? std::optional<bool>(m_value.toBool()) : std::nullopt;
    if (!isBool())
        return std::nullopt;
    return *begin() == 't';
}

QJsonValue JsonNode::toJsonValue() const
{
    switch (m_source) {
    case Source::Tree:
        return m_value;
    case Source::Bytes:
        if (m_at == 0)
            return m_raw->tree(); // built once, shared with the Object's json()
        return detail::decodeJsonValue(
            QByteArrayView(begin(), skipValueValidated(begin(), end()) - begin()));
    case Source::Absent:
        break;
    }
    return QJsonValue(QJsonValue::Undefined);
}

} // namespace qcm::typed
