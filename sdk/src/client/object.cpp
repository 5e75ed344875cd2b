#include <qcm/client/object.h>

#include <QtCore/QJsonArray>

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

Object::Object(Object &&other) noexcept
    : m_identity(std::move(other.m_identity)), m_jsonLent(other.m_jsonLent)
{
    m_json.swap(other.m_json);
    other.m_identity.hasName = false; // the moved-from Object is empty: no name, no key
}

Object &Object::operator=(Object &&other) noexcept
{
    m_json.swap(other.m_json);
    std::swap(m_identity, other.m_identity);
    std::swap(m_jsonLent, other.m_jsonLent);
    return *this;
}

// A copy of an instance whose JSON was lent out owns a JSON nobody else can reach, so it may
// cache its identity again.
Object::Object(const Object &other)
    : m_json(other.m_json), m_identity(other.m_jsonLent ? identityOf(m_json) : other.m_identity)
{ }

Object &Object::operator=(const Object &other)
{
    if (this != &other) {
        m_json = other.m_json;
        m_identity = other.m_jsonLent ? identityOf(m_json) : other.m_identity;
        m_jsonLent = false;
    }
    return *this;
}

QJsonObject &Object::json()
{
    m_jsonLent = true;
    return m_json;
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
    return m_json.value(QStringLiteral("metadata")).toObject();
}

void Object::setMetadataField(const QString &field, const QJsonValue &value)
{
    QJsonObject meta = metadata();
    if (value.isNull() || value.isUndefined())
        meta.remove(field);
    else
        meta.insert(field, value);
    m_json.insert(QStringLiteral("metadata"), meta);
}

QString Object::apiVersion() const
{
    return m_json.value(QStringLiteral("apiVersion")).toString();
}

QString Object::kind() const
{
    return m_json.value(QStringLiteral("kind")).toString();
}

QString Object::name() const
{
    return metadata().value(QStringLiteral("name")).toString();
}

QString Object::namespaceName() const
{
    return metadata().value(QStringLiteral("namespace")).toString();
}

QString Object::uid() const
{
    return metadata().value(QStringLiteral("uid")).toString();
}

QString Object::resourceVersion() const
{
    return metadata().value(QStringLiteral("resourceVersion")).toString();
}

qint64 Object::generation() const
{
    return qint64(metadata().value(QStringLiteral("generation")).toDouble());
}

QMap<QString, QString> Object::labels() const
{
    return stringMap(metadata().value(QStringLiteral("labels")));
}

QMap<QString, QString> Object::annotations() const
{
    return stringMap(metadata().value(QStringLiteral("annotations")));
}

QList<OwnerReference> Object::ownerReferences() const
{
    QList<OwnerReference> out;
    const QJsonArray refs = metadata().value(QStringLiteral("ownerReferences")).toArray();
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
    for (const QJsonValue &f : metadata().value(QStringLiteral("finalizers")).toArray())
        out << f.toString();
    return out;
}

QDateTime Object::creationTimestamp() const
{
    return timestamp(metadata().value(QStringLiteral("creationTimestamp")));
}

std::optional<QDateTime> Object::deletionTimestamp() const
{
    const QDateTime t = timestamp(metadata().value(QStringLiteral("deletionTimestamp")));
    return t.isValid() ? std::optional<QDateTime>(t) : std::nullopt;
}

void Object::setApiVersion(const QString &apiVersion)
{
    m_json.insert(QStringLiteral("apiVersion"), apiVersion);
}

void Object::setKind(const QString &kind)
{
    m_json.insert(QStringLiteral("kind"), kind);
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
