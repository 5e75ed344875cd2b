// SPDX-License-Identifier: Apache-2.0
// ObjectReference: which object an Event is about (core/v1 ObjectReference), and how one is
// made from an object (client-go's tools/reference GetReference and GetPartialReference).
//
// Plain value; thread safety as for any value.
#pragma once

#include <qcm/client/object.h>
#include <qcm/result.h>

#include <QtCore/QJsonObject>
#include <QtCore/QString>

namespace qcm::record {

struct QCM_SDK_EXPORT ObjectReference
{
    QString kind;
    QString namespaceName; // "namespace" on the wire
    QString name;
    QString uid;
    QString apiVersion;
    QString resourceVersion;
    QString fieldPath; // e.g. spec.containers{name}; empty for the whole object

    // The object's kind, apiVersion, name, namespace, uid and resourceVersion. An object
    // without kind or apiVersion is an error: client-go would look the kind up in its scheme,
    // and qcm has none (objects from the REST client, informers and listers carry both).
    static Result<ObjectReference> getReference(const client::Object &object);
    // getReference() with fieldPath set.
    static Result<ObjectReference> getPartialReference(
        const client::Object &object, const QString &fieldPath);

    // The JSON of core/v1 ObjectReference: empty fields are left out (omitempty).
    QJsonObject toJson() const;
    static ObjectReference fromJson(const QJsonObject &json);
    // Go's %#v of a v1.ObjectReference, as client-go's StartLogging prints it:
    // v1.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"n", UID:"u", ...}
    QString toGoString() const;

    bool operator==(const ObjectReference &other) const;
    bool operator!=(const ObjectReference &other) const { return !(*this == other); }
};

} // namespace qcm::record
