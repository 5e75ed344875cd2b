// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/codec.h>

#include "rawobject.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

#include <vector>

namespace qcm::client {

using detail::JsonScanner;

namespace {

Error decodeError(const QString &reason)
{
    return Error {{}, {}, reason};
}

std::optional<WatchEvent::Type> watchEventType(QStringView name)
{
    for (auto type : {WatchEvent::Type::Added, WatchEvent::Type::Modified,
             WatchEvent::Type::Deleted, WatchEvent::Type::Bookmark, WatchEvent::Type::Error})
        if (name == QLatin1StringView(WatchEvent::typeName(type)))
            return type;
    return std::nullopt;
}

// The event once its type and object are known: shared by both codecs. `object` makes the
// Object (the tree or the raw bytes); `status` the Status of an ERROR event.
template<typename MakeObject, typename MakeStatus>
Result<WatchEvent> watchEvent(
    const QString &type, bool hasObject, MakeObject &&object, MakeStatus &&status)
{
    if (!hasObject)
        return decodeError(QStringLiteral("no \"object\" in a %1 event")
                               .arg(type.isEmpty() ? QStringLiteral("typeless") : type));
    const std::optional<WatchEvent::Type> t = watchEventType(type);
    if (!t)
        return decodeError(QStringLiteral("unknown event type \"%1\"").arg(type));
    WatchEvent event;
    event.type = *t;
    if (event.type == WatchEvent::Type::Error)
        event.status = status();
    else
        event.object = object();
    return event;
}

QString itemKindOf(const QString &listKind)
{
    return listKind.endsWith(QLatin1String("List")) ? listKind.chopped(4) : listKind;
}

} // namespace

Codec::~Codec() = default;

const Codec *Codec::defaultCodec()
{
    static const LazyJsonCodec codec;
    return &codec;
}

Result<Object> Codec::decodeObject(const QByteArray &bytes) const
{
    auto json = decode(bytes);
    if (!json)
        return json.error();
    return Object(std::move(*json));
}

Result<ObjectList> Codec::decodeList(const QByteArray &bytes) const
{
    auto json = decode(bytes);
    if (!json)
        return json.error();
    ObjectList list;
    list.apiVersion = json->value(QStringLiteral("apiVersion")).toString();
    list.kind = json->value(QStringLiteral("kind")).toString();
    const QJsonObject meta = json->value(QStringLiteral("metadata")).toObject();
    list.resourceVersion = meta.value(QStringLiteral("resourceVersion")).toString();
    list.continueToken = meta.value(QStringLiteral("continue")).toString();
    if (meta.contains(QStringLiteral("remainingItemCount")))
        list.remainingItemCount = meta.value(QStringLiteral("remainingItemCount")).toInteger();
    const QString itemKind = itemKindOf(list.kind);
    const QJsonArray items = json->value(QStringLiteral("items")).toArray();
    list.items.reserve(items.size());
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (!items.at(i).isObject())
            return decodeError(QStringLiteral("items[%1] is not an object").arg(i));
        Object object(items.at(i).toObject());
        if (object.apiVersion().isEmpty() && object.kind().isEmpty()) {
            object.setKind(itemKind);
            object.setApiVersion(list.apiVersion);
        }
        list.items.append(std::move(object));
    }
    return list;
}

Result<WatchEvent> Codec::decodeWatchEvent(QByteArrayView frame) const
{
    auto json = decode(frame.toByteArray());
    if (!json)
        return json.error();
    const QJsonValue object = json->value(QStringLiteral("object"));
    return watchEvent(
        json->value(QStringLiteral("type")).toString(), object.isObject(),
        [&] { return Object(object.toObject()); },
        [&] { return Status::fromJson(object.toObject()); });
}

Result<QJsonObject> QtJsonCodec::decode(const QByteArray &bytes) const
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return decodeError(QStringLiteral("invalid JSON at offset %1: %2")
                               .arg(error.offset)
                               .arg(error.errorString()));
    if (!doc.isObject())
        return decodeError(QStringLiteral("expected a JSON object"));
    return doc.object();
}

QByteArray QtJsonCodec::encode(const QJsonObject &object) const
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

namespace {

// Scans the object at the cursor into a RawObject holding a copy of its bytes (or `whole`
// itself when the object is all of it).
std::shared_ptr<detail::RawObject> scanRaw(
    JsonScanner &scanner, int depth, const QByteArray *whole = nullptr)
{
    scanner.skipSpace();
    const char *begin = scanner.cursor();
    detail::ObjectIndex index;
    if (!scanner.indexObject(index, depth))
        return nullptr;
    const qsizetype size = scanner.cursor() - begin;
    if (whole && begin == whole->constData() && size == whole->size()) {
        auto raw = std::make_shared<detail::RawObject>();
        raw->text = *whole;
        raw->index = index;
        return raw;
    }
    return detail::RawObject::withCopyOf(QByteArrayView(begin, size), index);
}

// A string member's value at the cursor with its quotes; null if the value is not a string.
QByteArrayView scanQuotedValue(JsonScanner &scanner, int depth)
{
    if (!scanner.peek('"')) {
        scanner.skipValue(depth);
        return {};
    }
    const char *begin = scanner.cursor();
    if (!scanner.scanString())
        return {};
    return QByteArrayView(begin, scanner.cursor() - begin);
}

// A string member's value at the cursor; empty if the value is not a string.
QString scanStringValue(JsonScanner &scanner, int depth)
{
    const QByteArrayView quoted = scanQuotedValue(scanner, depth);
    return quoted.isNull() ? QString() : detail::decodeJsonString(quoted);
}

// A watch event's type: one of the five names as static text (no allocation per event), any
// other string decoded.
QString scanEventTypeValue(JsonScanner &scanner, int depth)
{
    static const QString names[] = {QStringLiteral("ADDED"), QStringLiteral("MODIFIED"),
        QStringLiteral("DELETED"), QStringLiteral("BOOKMARK"), QStringLiteral("ERROR")};
    const QByteArrayView quoted = scanQuotedValue(scanner, depth);
    if (quoted.isNull())
        return QString();
    const QByteArrayView inner = quoted.sliced(1, quoted.size() - 2);
    for (const QString &name : names)
        if (QLatin1StringView(inner) == name)
            return name;
    return detail::decodeJsonString(quoted);
}

// Trailing bytes after the document are an error, as in Qt's reader.
bool endOfDocument(JsonScanner &scanner)
{
    return scanner.atEnd()
        || scanner.fail(scanner.cursor(), QStringLiteral("garbage after the JSON object"));
}

// Scans a document that is one JSON object: `member(key)` scans the value of each member it
// wants and returns false to have the others skipped. True if the whole document is valid;
// trailing bytes after the object are an error, as in Qt's reader.
template<typename Member>
bool scanDocument(JsonScanner &scanner, Member &&member)
{
    QByteArrayView key;
    QByteArray storage;
    for (bool first = true; scanner.nextMember(key, storage, first); first = false) {
        if (!member(key))
            scanner.skipValue(1);
        if (scanner.failed())
            return false;
    }
    return !scanner.failed() && endOfDocument(scanner);
}

} // namespace

Result<Object> LazyJsonCodec::decodeObject(const QByteArray &bytes) const
{
    JsonScanner scanner(bytes);
    std::shared_ptr<detail::RawObject> raw = scanRaw(scanner, 0, &bytes);
    if (!raw || !endOfDocument(scanner))
        return decodeError(scanner.errorMessage());
    return detail::RawObjectAccess::make(std::move(raw));
}

Result<ObjectList> LazyJsonCodec::decodeList(const QByteArray &bytes) const
{
    JsonScanner scanner(bytes);
    ObjectList list;
    std::vector<std::shared_ptr<detail::RawObject>> items;
    QString itemError; // the first item that is not an object
    QByteArrayView remainingItemCount; // the value's bytes
    const bool valid = scanDocument(scanner, [&](QByteArrayView key) {
        if (key == "apiVersion") {
            list.apiVersion = scanStringValue(scanner, 1);
        } else if (key == "kind") {
            list.kind = scanStringValue(scanner, 1);
        } else if (key == "metadata") { // the last "metadata" counts, as in Qt's reader
            list.resourceVersion.clear();
            list.continueToken.clear();
            remainingItemCount = QByteArrayView();
            if (!scanner.peek('{'))
                return false;
            QByteArrayView metaKey;
            QByteArray metaStorage;
            for (bool m = true; scanner.nextMember(metaKey, metaStorage, m, 1); m = false) {
                if (metaKey == "resourceVersion") {
                    list.resourceVersion = scanStringValue(scanner, 2);
                } else if (metaKey == "continue") {
                    list.continueToken = scanStringValue(scanner, 2);
                } else if (metaKey == "remainingItemCount") {
                    const char *begin = scanner.cursor();
                    if (scanner.skipValue(2))
                        remainingItemCount = QByteArrayView(begin, scanner.cursor() - begin);
                } else {
                    scanner.skipValue(2);
                }
            }
        } else if (key == "items") { // the last "items" counts
            items.clear();
            itemError.clear();
            if (!scanner.peek('['))
                return false;
            for (bool e = true; scanner.nextElement(e, 1); e = false) {
                if (!scanner.peek('{')) {
                    if (itemError.isEmpty())
                        itemError = QStringLiteral("items[%1] is not an object").arg(items.size());
                    scanner.skipValue(2);
                    continue;
                }
                std::shared_ptr<detail::RawObject> raw = scanRaw(scanner, 2);
                if (!raw)
                    break;
                items.push_back(std::move(raw));
            }
        } else {
            return false;
        }
        return true;
    });
    if (!valid)
        return decodeError(scanner.errorMessage());
    if (!itemError.isEmpty())
        return decodeError(itemError);
    if (!remainingItemCount.isNull())
        list.remainingItemCount = detail::decodeJsonValue(remainingItemCount).toInteger();
    const auto defaults = std::make_shared<const detail::RawObject::ListDefaults>(
        detail::RawObject::ListDefaults {list.apiVersion, itemKindOf(list.kind)});
    list.items.reserve(qsizetype(items.size()));
    for (std::shared_ptr<detail::RawObject> &raw : items) {
        if (raw->string(raw->index.apiVersion).isEmpty() && raw->string(raw->index.kind).isEmpty())
            raw->listDefaults = defaults;
        list.items.append(detail::RawObjectAccess::make(std::move(raw)));
    }
    return list;
}

Result<WatchEvent> LazyJsonCodec::decodeWatchEvent(QByteArrayView frame) const
{
    JsonScanner scanner(frame);
    QString type;
    std::shared_ptr<detail::RawObject> object;
    const bool valid = scanDocument(scanner, [&](QByteArrayView key) {
        if (key == "type") {
            type = scanEventTypeValue(scanner, 1);
            return true;
        }
        if (key != "object")
            return false;
        object.reset();
        if (!scanner.peek('{'))
            return false;
        object = scanRaw(scanner, 1);
        return true;
    });
    if (!valid)
        return decodeError(scanner.errorMessage());
    return watchEvent(
        type, object != nullptr, [&] { return detail::RawObjectAccess::make(object); },
        [&] { return Status::fromJson(object->tree()); });
}

} // namespace qcm::client
