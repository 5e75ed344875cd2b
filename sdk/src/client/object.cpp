// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/object.h>

#include "rawobject.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QLoggingCategory>

#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

Q_LOGGING_CATEGORY(lcObject, "qcm.client.object")

namespace qcm::client {

namespace {

QMap<QString, QString> stringMap(const QJsonValue &value)
{
    QMap<QString, QString> out;
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it)
        out.insert(it.key(), it.value().toString());
    return out;
}

QJsonObject toJson(const QMap<QString, QString> &map)
{
    QJsonObject out;
    for (auto it = map.begin(); it != map.end(); ++it)
        out.insert(it.key(), it.value());
    return out;
}

QDateTime timestamp(const QJsonValue &value)
{
    return value.isString() ? QDateTime::fromString(value.toString(), Qt::ISODate) : QDateTime();
}

} // namespace

QJsonObject OwnerReference::toJson() const
{
    QJsonObject out {{QStringLiteral("apiVersion"), apiVersion}, {QStringLiteral("kind"), kind},
        {QStringLiteral("name"), name}, {QStringLiteral("uid"), uid}};
    if (controller)
        out.insert(QStringLiteral("controller"), true);
    if (blockOwnerDeletion)
        out.insert(QStringLiteral("blockOwnerDeletion"), true);
    return out;
}

OwnerReference OwnerReference::fromJson(const QJsonObject &json)
{
    return {json.value(QStringLiteral("apiVersion")).toString(),
        json.value(QStringLiteral("kind")).toString(),
        json.value(QStringLiteral("name")).toString(), json.value(QStringLiteral("uid")).toString(),
        json.value(QStringLiteral("controller")).toBool(),
        json.value(QStringLiteral("blockOwnerDeletion")).toBool()};
}

bool OwnerReference::operator==(const OwnerReference &o) const
{
    return apiVersion == o.apiVersion && kind == o.kind && name == o.name && uid == o.uid
        && controller == o.controller && blockOwnerDeletion == o.blockOwnerDeletion;
}

} // namespace qcm::client

namespace qcm::detail {

// An Object's value: the tree (json) or the bytes (raw), and the identity cached from it.
// Shared by the copies of an Object until one is modified. A block whose JSON was lent out
// (the non-const json()) belongs to one instance: copies of it get blocks of their own.
struct ObjectData
{
    static constexpr quint16 UnknownNamespaceSize = 0xffff;

    std::atomic<int> ref {1};
    bool jsonLent = false; // the identity is read from json each time
    bool hasName = false;
    // The namespace is key's first namespaceSize characters (in the padding before key).
    quint16 namespaceSize = UnknownNamespaceSize;
    QString key;
    QJsonObject json; // unless raw
    std::shared_ptr<const RawObject> raw; // a decoded Object until it is modified
};

// A string member's bytes without their quotes where they are plain ASCII with no escape
// (each byte is its character); a null view otherwise. An absent or non-string member is an
// empty string, as RawObject::string() reads it.
static QByteArrayView plainAsciiString(const RawObject &raw, Span span)
{
    if (!span.isSet() || raw.text.at(span.begin) != '"')
        return QByteArrayView("", 0);
    const QByteArrayView inner = raw.view(span).sliced(1, span.end - span.begin - 2);
    for (const char c : inner)
        if (uchar(c) >= 0x80 || c == '\\')
            return {};
    return inner;
}

const std::shared_ptr<const RawObject> &RawObjectAccess::raw(const client::Object &object)
{
    static const std::shared_ptr<const RawObject> none;
    return object.d ? object.d->raw : none;
}

const QString *RawObjectAccess::cachedKey(const client::Object &object)
{
    return object.d && object.d->hasName && !object.d->jsonLent ? &object.d->key : nullptr;
}

std::optional<QStringView> RawObjectAccess::cachedNamespace(const client::Object &object)
{
    const QString *key = cachedKey(object);
    if (!key || object.d->namespaceSize == ObjectData::UnknownNamespaceSize)
        return std::nullopt;
    return QStringView(*key).first(object.d->namespaceSize);
}

// A decoded Object's resourceVersion as its bytes, where it is a plain string (or absent:
// empty); a null view for any other Object or version (read it as a string then).
static QByteArrayView plainResourceVersion(const client::Object &object)
{
    const RawObject *rawObject = RawObjectAccess::raw(object).get();
    return rawObject ? plainAsciiString(*rawObject, rawObject->index.meta[MetaResourceVersion])
                     : QByteArrayView();
}

bool RawObjectAccess::sameResourceVersion(const client::Object &a, const client::Object &b)
{
    // Plain ASCII strings are equal exactly where their bytes are.
    const QByteArrayView versionA = plainResourceVersion(a);
    const QByteArrayView versionB = plainResourceVersion(b);
    if (versionA.data() && versionB.data())
        return versionA == versionB;
    return a.resourceVersion() == b.resourceVersion();
}

bool RawObjectAccess::hasResourceVersion(const client::Object &object)
{
    if (const QByteArrayView version = plainResourceVersion(object); version.data())
        return !version.isEmpty();
    return !object.resourceVersion().isEmpty();
}

} // namespace qcm::detail

namespace qcm::client {

namespace {

// What ObjectData keeps of a namespace's length: up to 65,534 characters (a valid namespace
// has at most 63); a longer one is kept as unknown.
quint16 cachedNamespaceSize(qsizetype size)
{
    return size < detail::ObjectData::UnknownNamespaceSize
        ? quint16(size)
        : detail::ObjectData::UnknownNamespaceSize;
}

void release(detail::ObjectData *d) noexcept
{
    if (d && d->ref.fetch_sub(1, std::memory_order_acq_rel) == 1)
        delete d;
}

const QJsonObject &emptyJson()
{
    static const QJsonObject empty;
    return empty;
}

} // namespace

// Qt 6.4's QJsonObject(QJsonObject &&) copies the pointer with a reference-count increment
// and then releases the source's (two atomic operations); swap() moves the pointer alone.
Object::Object(QJsonObject json)
{
    auto data = std::make_unique<detail::ObjectData>();
    data->json.swap(json);
    Identity identity = identityOf(data->json);
    data->key.swap(identity.key);
    data->hasName = identity.hasName;
    data->namespaceSize = cachedNamespaceSize(identity.namespaceSize);
    d = data.release();
}

Object::Object(std::shared_ptr<const detail::RawObject> raw)
{
    auto data = std::make_unique<detail::ObjectData>();
    const detail::Span nameSpan = raw->index.meta[detail::MetaName];
    const detail::Span nsSpan = raw->index.meta[detail::MetaNamespace];
    const QByteArrayView nameBytes = detail::plainAsciiString(*raw, nameSpan);
    const QByteArrayView nsBytes = detail::plainAsciiString(*raw, nsSpan);
    if (nameBytes.data() && nsBytes.data()) {
        // The usual name and namespace (DNS labels): the key made in one allocation.
        const qsizetype nsSize = nsBytes.size();
        data->hasName = !nameBytes.isEmpty();
        data->namespaceSize = cachedNamespaceSize(nsSize);
        QString &key = data->key;
        key.resize(nsSize ? nsSize + 1 + nameBytes.size() : nameBytes.size());
        QChar *out = key.data();
        for (const char c : nsBytes)
            *out++ = QLatin1Char(c);
        if (nsSize)
            *out++ = QLatin1Char('/');
        for (const char c : nameBytes)
            *out++ = QLatin1Char(c);
    } else {
        const QString name = raw->string(nameSpan);
        const QString ns = raw->string(nsSpan);
        data->hasName = !name.isEmpty();
        data->namespaceSize = cachedNamespaceSize(ns.size());
        data->key = ns.isEmpty() ? name : ns + QLatin1Char('/') + name;
    }
    data->raw = std::move(raw);
    d = data.release();
}

Object::~Object()
{
    release(d);
}

Object::Object(Object &&other) noexcept : d(std::exchange(other.d, nullptr)) { }

Object &Object::operator=(Object &&other) noexcept
{
    std::swap(d, other.d);
    return *this;
}

// A copy of an instance whose JSON was lent out gets a block of its own, holding the JSON as
// it is now, so it may cache its identity again.
Object::Object(const Object &other)
{
    if (!other.d)
        return;
    if (!other.d->jsonLent) {
        other.d->ref.fetch_add(1, std::memory_order_relaxed);
        d = other.d;
        return;
    }
    Object own(other.d->json);
    std::swap(d, own.d);
}

Object &Object::operator=(const Object &other)
{
    if (this != &other) {
        Object copy(other);
        std::swap(d, copy.d);
    }
    return *this;
}

detail::ObjectData &Object::ownData()
{
    if (!d) {
        d = new detail::ObjectData;
    } else if (d->ref.load(std::memory_order_acquire) != 1) {
        // Shared, so not lent (a lent block has one owner).
        auto own = std::make_unique<detail::ObjectData>();
        own->hasName = d->hasName;
        own->namespaceSize = d->namespaceSize;
        own->key = d->key;
        own->json = d->json;
        own->raw = d->raw;
        release(std::exchange(d, own.release()));
    }
    return *d;
}

const QJsonObject &Object::json() const
{
    if (!d)
        return emptyJson();
    return d->raw ? d->raw->tree() : d->json;
}

bool Object::isEmpty() const
{
    if (!d)
        return true;
    return d->raw ? d->raw->isEmpty() : d->json.isEmpty();
}

QJsonObject &Object::tree()
{
    detail::ObjectData &data = ownData();
    if (data.raw) {
        data.json = data.raw->tree();
        data.raw.reset();
    }
    return data.json;
}

QJsonObject &Object::json()
{
    QJsonObject &json = tree();
    d->jsonLent = true;
    return json;
}

Object::Identity Object::identityOf(const QJsonObject &json)
{
    Identity out;
    const auto meta = json.constFind(QLatin1StringView("metadata"));
    if (meta == json.constEnd())
        return out;
    const QJsonObject metadata = meta->toObject();
    const auto name = metadata.constFind(QLatin1StringView("name"));
    const QString nameValue = name == metadata.constEnd() ? QString() : name->toString();
    out.hasName = !nameValue.isEmpty();
    const auto ns = metadata.constFind(QLatin1StringView("namespace"));
    const QString nsValue = ns == metadata.constEnd() ? QString() : ns->toString();
    if (nsValue.isEmpty()) {
        out.key = nameValue;
        return out;
    }
    out.namespaceSize = int(nsValue.size());
    out.key.reserve(nsValue.size() + 1 + nameValue.size());
    out.key.append(nsValue).append(QLatin1Char('/')).append(nameValue);
    return out;
}

// After a setter, which made the block this instance's own.
void Object::refreshIdentity()
{
    if (d->jsonLent)
        return;
    Identity identity = identityOf(d->json);
    d->key.swap(identity.key);
    d->hasName = identity.hasName;
    d->namespaceSize = cachedNamespaceSize(identity.namespaceSize);
}

QJsonObject Object::metadata() const
{
    return json().value(QLatin1StringView("metadata")).toObject();
}

QJsonValue Object::metadataValue(int field, QLatin1StringView name) const
{
    if (d && d->raw)
        return d->raw->value(d->raw->index.meta[field]);
    return metadata().value(name);
}

QString Object::metadataString(int field, QLatin1StringView name) const
{
    if (d && d->raw)
        return d->raw->string(d->raw->index.meta[field]);
    return metadata().value(name).toString();
}

void Object::setMetadataField(const QString &field, const QJsonValue &value)
{
    QJsonObject &json = tree();
    QJsonObject meta = json.value(QLatin1StringView("metadata")).toObject();
    if (value.isNull() || value.isUndefined())
        meta.remove(field);
    else
        meta.insert(field, value);
    json.insert(QStringLiteral("metadata"), meta);
}

QString Object::apiVersion() const
{
    if (d && d->raw)
        return d->raw->apiVersion();
    return json().value(QLatin1StringView("apiVersion")).toString();
}

QString Object::kind() const
{
    if (d && d->raw)
        return d->raw->kind();
    return json().value(QLatin1StringView("kind")).toString();
}

QString Object::name() const
{
    return metadataString(detail::MetaName, QLatin1StringView("name"));
}

QString Object::namespaceName() const
{
    return metadataString(detail::MetaNamespace, QLatin1StringView("namespace"));
}

QString Object::uid() const
{
    return metadataString(detail::MetaUid, QLatin1StringView("uid"));
}

QString Object::resourceVersion() const
{
    return metadataString(detail::MetaResourceVersion, QLatin1StringView("resourceVersion"));
}

qint64 Object::generation() const
{
    return metadataValue(detail::MetaGeneration, QLatin1StringView("generation")).toInteger();
}

QMap<QString, QString> Object::labels() const
{
    return stringMap(metadataValue(detail::MetaLabels, QLatin1StringView("labels")));
}

QMap<QString, QString> Object::annotations() const
{
    return stringMap(metadataValue(detail::MetaAnnotations, QLatin1StringView("annotations")));
}

QList<OwnerReference> Object::ownerReferences() const
{
    QList<OwnerReference> out;
    const QJsonArray refs
        = metadataValue(detail::MetaOwnerReferences, QLatin1StringView("ownerReferences"))
              .toArray();
    for (const QJsonValue &ref : refs)
        out << OwnerReference::fromJson(ref.toObject());
    return out;
}

std::optional<OwnerReference> Object::controllerRef() const
{
    for (const OwnerReference &ref : ownerReferences())
        if (ref.controller)
            return ref;
    return std::nullopt;
}

QStringList Object::finalizers() const
{
    QStringList out;
    for (const QJsonValue &f :
        metadataValue(detail::MetaFinalizers, QLatin1StringView("finalizers")).toArray())
        out << f.toString();
    return out;
}

QDateTime Object::creationTimestamp() const
{
    return timestamp(
        metadataValue(detail::MetaCreationTimestamp, QLatin1StringView("creationTimestamp")));
}

std::optional<QDateTime> Object::deletionTimestamp() const
{
    const QDateTime t = timestamp(
        metadataValue(detail::MetaDeletionTimestamp, QLatin1StringView("deletionTimestamp")));
    return t.isValid() ? std::optional<QDateTime>(t) : std::nullopt;
}

void Object::setApiVersion(const QString &apiVersion)
{
    tree().insert(QStringLiteral("apiVersion"), apiVersion);
}

void Object::setKind(const QString &kind)
{
    tree().insert(QStringLiteral("kind"), kind);
}

void Object::setName(const QString &name)
{
    setMetadataField(QStringLiteral("name"), name);
    refreshIdentity();
}

void Object::setNamespaceName(const QString &ns)
{
    setMetadataField(QStringLiteral("namespace"), ns.isEmpty() ? QJsonValue() : QJsonValue(ns));
    refreshIdentity();
}

void Object::setResourceVersion(const QString &resourceVersion)
{
    setMetadataField(QStringLiteral("resourceVersion"),
        resourceVersion.isEmpty() ? QJsonValue() : QJsonValue(resourceVersion));
}

void Object::setLabels(const QMap<QString, QString> &labels)
{
    setMetadataField(
        QStringLiteral("labels"), labels.isEmpty() ? QJsonValue() : QJsonValue(toJson(labels)));
}

void Object::setAnnotations(const QMap<QString, QString> &annotations)
{
    setMetadataField(QStringLiteral("annotations"),
        annotations.isEmpty() ? QJsonValue() : QJsonValue(toJson(annotations)));
}

void Object::setOwnerReferences(const QList<OwnerReference> &references)
{
    QJsonArray out;
    for (const OwnerReference &ref : references)
        out.append(ref.toJson());
    setMetadataField(
        QStringLiteral("ownerReferences"), out.isEmpty() ? QJsonValue() : QJsonValue(out));
}

void Object::setFinalizers(const QStringList &finalizers)
{
    setMetadataField(QStringLiteral("finalizers"),
        finalizers.isEmpty() ? QJsonValue() : QJsonValue(QJsonArray::fromStringList(finalizers)));
}

QString Object::key() const
{
    if (!d)
        return {};
    return d->jsonLent ? identityOf(d->json).key : d->key;
}

bool Object::hasName() const
{
    if (!d)
        return false;
    return d->jsonLent ? identityOf(d->json).hasName : d->hasName;
}

} // namespace qcm::client

namespace qcm::detail {

QJsonValue decodeJsonValue(QByteArrayView bytes)
{
    switch (bytes.front()) {
    case '"':
        return decodeJsonString(bytes);
    case '{':
        return QJsonDocument::fromJson(QByteArray::fromRawData(bytes.data(), bytes.size()))
            .object();
    case '[':
        return QJsonDocument::fromJson(QByteArray::fromRawData(bytes.data(), bytes.size())).array();
    case 't':
        return true;
    case 'f':
        return false;
    case 'n':
        return QJsonValue(QJsonValue::Null);
    default: {
        // As Qt's reader stores numbers: an integer if it is one, else a double.
        // (1.0 and 1e3 are integers there too).
        bool ok = false;
        const qint64 n = bytes.toLongLong(&ok);
        if (ok)
            return QJsonValue(n);
        const double d = bytes.toDouble();
        if (std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
            return QJsonValue(qint64(d));
        return QJsonValue(d);
    }
    }
}

namespace {

// Allocates what it is asked for with `extra` bytes after it, and says where they start:
// allocate_shared's one allocation then holds the count, the RawObject and its text.
template<typename T>
struct TrailingBytesAllocator
{
    using value_type = T;

    TrailingBytesAllocator(size_t extraBytes, char **trailingAt)
        : extra(extraBytes), trailing(trailingAt)
    { }
    template<typename U>
    TrailingBytesAllocator(const TrailingBytesAllocator<U> &other)
        : extra(other.extra), trailing(other.trailing)
    { }

    T *allocate(size_t n)
    {
        char *block = static_cast<char *>(::operator new(n * sizeof(T) + extra));
        *trailing = block + n * sizeof(T);
        return reinterpret_cast<T *>(block);
    }
    void deallocate(T *block, size_t) noexcept { ::operator delete(block); }

    // Any one frees what another allocated (::operator delete), so all compare equal.
    template<typename U>
    bool operator==(const TrailingBytesAllocator<U> &) const
    {
        return true;
    }
    template<typename U>
    bool operator!=(const TrailingBytesAllocator<U> &) const
    {
        return false;
    }

    size_t extra;
    char **trailing; // written by allocate(), which allocate_shared calls once
};

} // namespace

std::shared_ptr<RawObject> RawObject::withCopyOf(QByteArrayView bytes, const ObjectIndex &index)
{
    char *trailing = nullptr;
    // One byte more for a terminating NUL, as a QByteArray of its own would have.
    auto raw = std::allocate_shared<RawObject>(
        TrailingBytesAllocator<RawObject>(size_t(bytes.size()) + 1, &trailing));
    if (!bytes.isEmpty())
        std::memcpy(trailing, bytes.data(), size_t(bytes.size()));
    trailing[bytes.size()] = '\0';
    raw->text = QByteArray::fromRawData(trailing, bytes.size());
    raw->index = index;
    return raw;
}

QJsonValue RawObject::value(Span span) const
{
    return span.isSet() ? decodeJsonValue(view(span)) : QJsonValue(QJsonValue::Undefined);
}

const QJsonObject &RawObject::tree() const
{
    if (const QJsonObject *tree = m_tree.load(std::memory_order_acquire))
        return *tree;
    auto built = std::make_unique<const QJsonObject>(buildTree());
    const QJsonObject *first = nullptr;
    if (m_tree.compare_exchange_strong(
            first, built.get(), std::memory_order_acq_rel, std::memory_order_acquire))
        return *built.release();
    return *first; // another thread's, published first; ours is freed
}

QJsonObject RawObject::buildTree() const
{
    QJsonParseError error;
    QJsonObject tree = QJsonDocument::fromJson(text, &error).object();
    // The scanner accepts a subset of what Qt's reader does, so this cannot fail; if it ever
    // did, say so rather than hand out an empty object silently.
    if (error.error != QJsonParseError::NoError)
        qCCritical(lcObject,
            "an object the JSON scanner accepted does not parse with Qt's "
            "reader (offset %d: %s)",
            int(error.offset), qPrintable(error.errorString()));
    if (listDefaults) {
        tree.insert(QStringLiteral("apiVersion"), listDefaults->apiVersion);
        tree.insert(QStringLiteral("kind"), listDefaults->itemKind);
    }
    return tree;
}

} // namespace qcm::detail
