// SPDX-License-Identifier: Apache-2.0
// Object: one Kubernetes object, an implicitly shared JSON value with typed metadata
// accessors (client-go's unstructured.Unstructured plus metav1.Object's getters).
//
// Copies are cheap (the JSON is implicitly shared) and never alias: a setter detaches.
// Spec and status are reached as JSON through json().
//
// An Object decoded by LazyJsonCodec (the default codec) keeps the bytes it arrived in, with
// an index of where its apiVersion, kind and metadata fields are: the metadata getters read
// those from the bytes, and the QJsonObject tree is built once, on the first json() or setter
// call, and then shared by every copy; from then on it holds both the bytes and the tree. An
// Object made from a QJsonObject holds the tree from the start. Both behave the same in every
// respect but cost.
//
// An Object is one pointer to an implicitly shared block (the tree or the bytes, and the
// identity): a copy or a release is one reference-count change, and a move touches nothing
// shared. A setter or the non-const json() first gives this instance a block of its own if
// the block is shared (copy on write). The empty Object holds no block.
//
// The identity (key() and hasName()) is computed once, when the Object is made, and kept with
// it: the FIFOs and the store key every object several times, and reading it out of the JSON
// each time was most of their cost. setName() and setNamespaceName() keep it current.
// The non-const json() hands out the JSON itself, so from that call on this instance reads its
// identity from the JSON again each time (a copy made later caches it afresh, and never shares
// the lent JSON). A reference from the non-const json() stays valid until the Object is
// assigned a new value; one from the const json() only until the Object is next modified (a
// setter or the non-const json()) or assigned.
//
// Thread safety: reentrant; copies may be used from different threads, and the const members
// of one Object may be called from several threads at once.
#pragma once

#include <qcm/global.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QStringList>

#include <memory>
#include <optional>

namespace qcm::detail {
struct ObjectData;
struct RawObject;
struct RawObjectAccess;
} // namespace qcm::detail

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
    Object() noexcept = default;
    explicit Object(QJsonObject json);

    const QJsonObject &json() const; // builds the tree of a decoded Object on first use
    QJsonObject &json(); // see the contract above: the identity is no longer cached
    bool isEmpty() const;

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
    ~Object();

private:
    friend struct detail::RawObjectAccess;
    explicit Object(std::shared_ptr<const detail::RawObject> raw);

    struct Identity
    {
        QString key;
        int namespaceSize = 0; // the namespace's length: key's first characters
        bool hasName = false;
    };
    static Identity identityOf(const QJsonObject &json);
    QJsonObject metadata() const;
    // metadata.<name>: from the bytes (field is the scanner's index slot) or from the tree.
    QJsonValue metadataValue(int field, QLatin1StringView name) const;
    QString metadataString(int field, QLatin1StringView name) const;
    // The block, this instance's own (copied first if shared; made if there is none).
    detail::ObjectData &ownData();
    QJsonObject &tree(); // the tree, to be modified: a decoded Object builds it
    void setMetadataField(const QString &field, const QJsonValue &value);
    void refreshIdentity();

    detail::ObjectData *d = nullptr; // reference-counted; null for the empty Object
};

} // namespace qcm::client
