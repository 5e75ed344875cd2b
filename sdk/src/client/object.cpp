// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/object.h>

#include "rawobject.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QLoggingCategory>

#include <cmath>

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

// Qt 6.4's QJsonObject(QJsonObject &&) copies the pointer with a reference-count increment
// and then releases the source's (two atomic operations); swap() moves the pointer alone. The
// FIFOs move every Object several times, so the moves here swap.
Object::Object(QJsonObject json)
{
    m_json.swap(json);
    m_identity = identityOf(m_json);
}

Object::Object(std::shared_ptr<const detail::RawObject> raw) : m_raw(std::move(raw))
{
    const QString name = m_raw->string(m_raw->index.meta[detail::MetaName]);
    const QString ns = m_raw->string(m_raw->index.meta[detail::MetaNamespace]);
    m_identity.hasName = !name.isEmpty();
    m_identity.key = ns.isEmpty() ? name : ns + QLatin1Char('/') + name;
}

Object::Object(Object &&other) noexcept
    : m_raw(std::move(other.m_raw))
    , m_retired(std::move(other.m_retired))
    , m_identity(std::move(other.m_identity))
    , m_jsonLent(other.m_jsonLent)
{
    m_json.swap(other.m_json);
    other.m_identity.hasName = false; // the moved-from Object is empty: no name, no key
}

Object &Object::operator=(Object &&other) noexcept
{
    m_json.swap(other.m_json);
    m_raw.swap(other.m_raw);
    m_retired.swap(other.m_retired);
    std::swap(m_identity, other.m_identity);
    std::swap(m_jsonLent, other.m_jsonLent);
    return *this;
}

// A copy of an instance whose JSON was lent out owns a JSON nobody else can reach, so it may
// cache its identity again.
Object::Object(const Object &other)
    : m_json(other.m_json)
    , m_raw(other.m_raw)
    , m_identity(other.m_jsonLent ? identityOf(m_json) : other.m_identity)
{ }

Object &Object::operator=(const Object &other)
{
    if (this != &other) {
        m_json = other.m_json;
        m_raw = other.m_raw;
        m_retired.reset();
        m_identity = other.m_jsonLent ? identityOf(m_json) : other.m_identity;
        m_jsonLent = false;
    }
    return *this;
}

const QJsonObject &Object::json() const
{
    return m_raw ? m_raw->tree() : m_json;
}

bool Object::isEmpty() const
{
    return m_raw ? m_raw->isEmpty() : m_json.isEmpty();
}

QJsonObject &Object::tree()
{
    if (m_raw) {
        m_json = m_raw->tree();
        m_retired = std::move(m_raw);
    }
    return m_json;
}

QJsonObject &Object::json()
{
    m_jsonLent = true;
    return tree();
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
    out.key.reserve(nsValue.size() + 1 + nameValue.size());
    out.key.append(nsValue).append(QLatin1Char('/')).append(nameValue);
    return out;
}

void Object::refreshIdentity()
{
    if (!m_jsonLent)
        m_identity = identityOf(m_json);
}

QJsonObject Object::metadata() const
{
    return m_json.value(QLatin1StringView("metadata")).toObject();
}

QJsonValue Object::metadataValue(int field, QLatin1StringView name) const
{
    if (m_raw)
        return m_raw->value(m_raw->index.meta[field]);
    return metadata().value(name);
}

QString Object::metadataString(int field, QLatin1StringView name) const
{
    if (m_raw)
        return m_raw->string(m_raw->index.meta[field]);
    return metadata().value(name).toString();
}

void Object::setMetadataField(const QString &field, const QJsonValue &value)
{
    QJsonObject meta = tree().value(QLatin1StringView("metadata")).toObject();
    if (value.isNull() || value.isUndefined())
        meta.remove(field);
    else
        meta.insert(field, value);
    m_json.insert(QStringLiteral("metadata"), meta);
}

QString Object::apiVersion() const
{
    return m_raw ? m_raw->apiVersion() : m_json.value(QLatin1StringView("apiVersion")).toString();
}

QString Object::kind() const
{
    return m_raw ? m_raw->kind() : m_json.value(QLatin1StringView("kind")).toString();
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
    return m_jsonLent ? identityOf(m_json).key : m_identity.key;
}

bool Object::hasName() const
{
    return m_jsonLent ? identityOf(m_json).hasName : m_identity.hasName;
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

QJsonValue RawObject::value(Span span) const
{
    return span.isSet() ? decodeJsonValue(view(span)) : QJsonValue(QJsonValue::Undefined);
}

const QJsonObject &RawObject::tree() const
{
    std::call_once(m_once, [this] {
        QJsonParseError error;
        m_tree = QJsonDocument::fromJson(text, &error).object();
        // The scanner accepts a subset of what Qt's reader does, so this cannot fail; if it
        // ever did, say so rather than hand out an empty object silently.
        if (error.error != QJsonParseError::NoError)
            qCCritical(lcObject,
                "an object the JSON scanner accepted does not parse with Qt's "
                "reader (offset %d: %s)",
                int(error.offset), qPrintable(error.errorString()));
        if (listDefaults) {
            m_tree.insert(QStringLiteral("apiVersion"), listApiVersion);
            m_tree.insert(QStringLiteral("kind"), listItemKind);
        }
    });
    return m_tree;
}

} // namespace qcm::detail
