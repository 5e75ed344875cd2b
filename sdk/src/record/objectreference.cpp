// SPDX-License-Identifier: Apache-2.0
#include "goquote_p.h"
#include "jsonfields_p.h"

#include <qcm/record/objectreference.h>

namespace qcm::record {

Result<ObjectReference> ObjectReference::getReference(const client::Object &object)
{
    if (object.isEmpty())
        return Error {{}, {}, QStringLiteral("can't reference a nil object")};
    ObjectReference ref;
    ref.kind = object.kind();
    ref.apiVersion = object.apiVersion();
    ref.name = object.name();
    ref.namespaceName = object.namespaceName();
    ref.uid = object.uid();
    ref.resourceVersion = object.resourceVersion();
    if (ref.kind.isEmpty() || ref.apiVersion.isEmpty()) {
        const QString missing = ref.kind.isEmpty() && ref.apiVersion.isEmpty()
            ? QStringLiteral("kind and apiVersion")
            : ref.kind.isEmpty() ? QStringLiteral("kind")
                                 : QStringLiteral("apiVersion");
        return Error {object.key(), missing,
            QStringLiteral("the object has no %1, so no reference to it can be made (qcm has no "
                           "scheme to look it up in: set apiVersion and kind on the object)")
                .arg(missing)};
    }
    return ref;
}

Result<ObjectReference> ObjectReference::getPartialReference(
    const client::Object &object, const QString &fieldPath)
{
    auto ref = getReference(object);
    if (ref)
        ref->fieldPath = fieldPath;
    return ref;
}

QJsonObject ObjectReference::toJson() const
{
    QJsonObject json;
    insertIfSet(json, QStringLiteral("kind"), kind);
    insertIfSet(json, QStringLiteral("namespace"), namespaceName);
    insertIfSet(json, QStringLiteral("name"), name);
    insertIfSet(json, QStringLiteral("uid"), uid);
    insertIfSet(json, QStringLiteral("apiVersion"), apiVersion);
    insertIfSet(json, QStringLiteral("resourceVersion"), resourceVersion);
    insertIfSet(json, QStringLiteral("fieldPath"), fieldPath);
    return json;
}

ObjectReference ObjectReference::fromJson(const QJsonObject &json)
{
    ObjectReference ref;
    ref.kind = json.value(QStringLiteral("kind")).toString();
    ref.namespaceName = json.value(QStringLiteral("namespace")).toString();
    ref.name = json.value(QStringLiteral("name")).toString();
    ref.uid = json.value(QStringLiteral("uid")).toString();
    ref.apiVersion = json.value(QStringLiteral("apiVersion")).toString();
    ref.resourceVersion = json.value(QStringLiteral("resourceVersion")).toString();
    ref.fieldPath = json.value(QStringLiteral("fieldPath")).toString();
    return ref;
}

QString ObjectReference::toGoString() const
{
    return QStringLiteral("v1.ObjectReference{Kind:%1, Namespace:%2, Name:%3, UID:%4, "
                          "APIVersion:%5, ResourceVersion:%6, FieldPath:%7}")
        .arg(goQuote(kind), goQuote(namespaceName), goQuote(name), goQuote(uid),
            goQuote(apiVersion), goQuote(resourceVersion), goQuote(fieldPath));
}

bool ObjectReference::operator==(const ObjectReference &o) const
{
    return kind == o.kind && namespaceName == o.namespaceName && name == o.name && uid == o.uid
        && apiVersion == o.apiVersion && resourceVersion == o.resourceVersion
        && fieldPath == o.fieldPath;
}

} // namespace qcm::record
