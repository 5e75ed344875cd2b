// Object: one Kubernetes object, an implicitly shared JSON value with typed metadata
// accessors (client-go's unstructured.Unstructured plus metav1.Object's getters).
//
// Copies are cheap (QJsonObject is implicitly shared) and never alias: a setter detaches.
// Spec and status are reached as JSON through json().
//
// The identity (key() and hasName()) is computed once, when the Object is built from JSON, and
// kept with it: the FIFOs and the store key every object several times, and reading it out of
// the JSON each time was most of their cost. setName() and setNamespaceName() keep it current.
// The non-const json() hands out the JSON itself, so from that call on this instance reads its
// identity from the JSON again each time (a copy made later caches it afresh). A reference from
// json() must not be used after the Object is assigned a new value.
//
// Thread safety: reentrant; copies may be used from different threads.
#pragma once

#include <qcm/global.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QStringList>

#include <optional>

namespace qcm::client {

struct QCM_SDK_EXPORT OwnerReference
{
    QString apiVersion;
    QString kind;
    QString name;
    QString uid;
    bool controller = false;
    bool blockOwnerDeletion = false;

    QJsonObject toJson() const;
    static OwnerReference fromJson(const QJsonObject &json);
    bool operator==(const OwnerReference &other) const;
};

class QCM_SDK_EXPORT Object
{
public:
    Object() = default;
    explicit Object(QJsonObject json);

    const QJsonObject &json() const { return m_json; }
    QJsonObject &json(); // see the contract above: the identity is no longer cached
    bool isEmpty() const { return m_json.isEmpty(); }

    QString apiVersion() const;
    QString kind() const;
    QString name() const;
    QString namespaceName() const; // metadata.namespace; empty for cluster-scoped objects
    QString uid() const;
    QString resourceVersion() const;
    qint64 generation() const;
    QMap<QString, QString> labels() const;
    QMap<QString, QString> annotations() const;
    QList<OwnerReference> ownerReferences() const;
    // The owner reference with controller: true (metav1.GetControllerOf).
    std::optional<OwnerReference> controllerRef() const;
    QStringList finalizers() const;
    QDateTime creationTimestamp() const; // invalid if unset
    std::optional<QDateTime> deletionTimestamp() const; // set once deletion has begun

    void setApiVersion(const QString &apiVersion);
    void setKind(const QString &kind);
    void setName(const QString &name);
    void setNamespaceName(const QString &ns);
    void setResourceVersion(const QString &resourceVersion);
    void setLabels(const QMap<QString, QString> &labels);
    void setAnnotations(const QMap<QString, QString> &annotations);
    void setOwnerReferences(const QList<OwnerReference> &references);
    void setFinalizers(const QStringList &finalizers);

    // "namespace/name", or "name" for cluster-scoped objects (cache.MetaNamespaceKeyFunc).
    QString key() const;
    // Whether metadata.name is set and not empty.
    bool hasName() const;

    Object(const Object &other);
    Object(Object &&other) noexcept;
    Object &operator=(const Object &other);
    Object &operator=(Object &&other) noexcept;
    ~Object() = default;

private:
    struct Identity
    {
        QString key;
        bool hasName = false;
    };
    static Identity identityOf(const QJsonObject &json);
    QJsonObject metadata() const;
    void setMetadataField(const QString &field, const QJsonValue &value);
    void refreshIdentity();

    QJsonObject m_json;
    Identity m_identity; // valid unless m_jsonLent
    bool m_jsonLent = false; // json() was handed out non-const: read the identity from m_json
};

} // namespace qcm::client
