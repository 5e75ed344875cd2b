// SPDX-License-Identifier: Apache-2.0
#include <qcm/controllerutil/controllerutil.h>

#include <qcm/client/patch.h>

#include <QtCore/QJsonDocument>

namespace qcm::controllerutil {

using namespace qcm::client;

QString toString(OperationResult result)
{
    switch (result) {
    case OperationResult::None:
        return QStringLiteral("unchanged");
    case OperationResult::Created:
        return QStringLiteral("created");
    case OperationResult::Updated:
        return QStringLiteral("updated");
    case OperationResult::UpdatedStatus:
        return QStringLiteral("updatedStatus");
    case OperationResult::UpdatedStatusOnly:
        return QStringLiteral("updatedStatusOnly");
    }
    return {};
}

namespace {

QString groupOf(const QString &apiVersion)
{
    return apiVersion.contains(QLatin1Char('/')) ? apiVersion.section(QLatin1Char('/'), 0, 0)
                                                 : QString();
}

// The same object: group (any version), kind and name, as controller-runtime's referSameObject.
bool referSameObject(const OwnerReference &a, const OwnerReference &b)
{
    return groupOf(a.apiVersion) == groupOf(b.apiVersion) && a.kind == b.kind && a.name == b.name;
}

std::optional<OwnershipError> validateOwner(const Object &owner, const Object &object)
{
    if (owner.apiVersion().isEmpty() || owner.kind().isEmpty() || owner.name().isEmpty()
        || owner.uid().isEmpty())
        return OwnershipError {OwnershipError::Kind::IncompleteOwner,
            QStringLiteral(
                "the owner needs apiVersion, kind, name and uid (a created or fetched object)")};
    const QString ownerNs = owner.namespaceName();
    if (ownerNs.isEmpty())
        return std::nullopt;
    if (object.namespaceName().isEmpty())
        return OwnershipError {OwnershipError::Kind::ScopeMismatch,
            QStringLiteral("cluster-scoped resource must not have a namespace-scoped owner, "
                           "owner's namespace %1")
                .arg(ownerNs)};
    if (object.namespaceName() != ownerNs)
        return OwnershipError {OwnershipError::Kind::ScopeMismatch,
            QStringLiteral("cross-namespace owner references are disallowed, owner's namespace %1, "
                           "obj's namespace %2")
                .arg(ownerNs, object.namespaceName())};
    return std::nullopt;
}

OwnerReference referenceTo(const Object &owner)
{
    OwnerReference ref;
    ref.apiVersion = owner.apiVersion();
    ref.kind = owner.kind();
    ref.name = owner.name();
    ref.uid = owner.uid();
    return ref;
}

void upsert(Object &object, const OwnerReference &ref)
{
    QList<OwnerReference> refs = object.ownerReferences();
    for (OwnerReference &r : refs) {
        if (referSameObject(r, ref)) {
            r = ref;
            object.setOwnerReferences(refs);
            return;
        }
    }
    refs.append(ref);
    object.setOwnerReferences(refs);
}

} // namespace

std::optional<OwnershipError> setControllerReference(const Object &owner, Object &object)
{
    if (auto invalid = validateOwner(owner, object))
        return invalid;
    OwnerReference ref = referenceTo(owner);
    ref.controller = true;
    ref.blockOwnerDeletion = true;
    if (const auto existing = object.controllerRef(); existing && !referSameObject(*existing, ref))
        return OwnershipError {OwnershipError::Kind::AlreadyOwned,
            QStringLiteral("Object %1 is already owned by another %2 controller %3")
                .arg(object.key(), existing->kind, existing->name)};
    upsert(object, ref);
    return std::nullopt;
}

std::optional<OwnershipError> setOwnerReference(const Object &owner, Object &object)
{
    if (auto invalid = validateOwner(owner, object))
        return invalid;
    OwnerReference ref = referenceTo(owner);
    for (const OwnerReference &r : object.ownerReferences()) {
        if (referSameObject(r, ref)) {
            ref.controller = r.controller;
            ref.blockOwnerDeletion = r.blockOwnerDeletion;
        }
    }
    upsert(object, ref);
    return std::nullopt;
}

bool hasControllerReference(const Object &owner, const Object &object)
{
    const auto ref = object.controllerRef();
    return ref && referSameObject(*ref, referenceTo(owner)) && ref->uid == owner.uid();
}

bool removeOwnerReference(const Object &owner, Object &object)
{
    QList<OwnerReference> refs = object.ownerReferences();
    const qsizetype removed = refs.removeIf(
        [&](const OwnerReference &r) { return referSameObject(r, referenceTo(owner)); });
    if (removed)
        object.setOwnerReferences(refs);
    return removed > 0;
}

bool addFinalizer(Object &object, const QString &finalizer)
{
    QStringList finalizers = object.finalizers();
    if (finalizers.contains(finalizer))
        return false;
    finalizers.append(finalizer);
    object.setFinalizers(finalizers);
    return true;
}

bool removeFinalizer(Object &object, const QString &finalizer)
{
    QStringList finalizers = object.finalizers();
    if (finalizers.removeAll(finalizer) == 0)
        return false;
    object.setFinalizers(finalizers);
    return true;
}

bool containsFinalizer(const Object &object, const QString &finalizer)
{
    return object.finalizers().contains(finalizer);
}

QString OperationOutcome::errorString() const
{
    if (status)
        return status->toString();
    if (error)
        return error->toString();
    return {};
}

namespace {

OperationOutcome failed(Status s)
{
    OperationOutcome o;
    o.status = std::move(s);
    return o;
}

OperationOutcome failed(Error e)
{
    OperationOutcome o;
    o.error = std::move(e);
    return o;
}

// Runs mutate and checks it kept the object's identity (controller-runtime's mutate()).
std::optional<Error> mutateKeepingKey(const MutateFunction &mutate, Object &object)
{
    const QString key = object.key();
    if (auto error = mutate(object))
        return error;
    if (object.key() != key)
        return Error {
            {}, key, QStringLiteral("MutateFn cannot mutate object name and/or object namespace")};
    return std::nullopt;
}

// Gets the object named by `object`; creates it (mutated) if it is not there. Sets `created`.
std::optional<OperationOutcome> getOrCreate(
    Client &client, const GroupVersionResource &gvr, Object &object, const MutateFunction &mutate)
{
    auto current = client.get(gvr, object.namespaceName(), object.name());
    if (current) {
        object = *current;
        return std::nullopt;
    }
    if (!current.error().isNotFound())
        return failed(current.error());
    if (auto error = mutateKeepingKey(mutate, object))
        return failed(*error);
    auto created = client.create(gvr, object);
    if (!created)
        return failed(created.error());
    object = *created;
    OperationOutcome o;
    o.result = OperationResult::Created;
    return o;
}

} // namespace

OperationOutcome createOrUpdate(
    Client &client, const GroupVersionResource &gvr, Object &object, const MutateFunction &mutate)
{
    if (auto done = getOrCreate(client, gvr, object, mutate))
        return *done;
    const QJsonObject before = std::as_const(object).json();
    if (auto error = mutateKeepingKey(mutate, object))
        return failed(*error);
    if (std::as_const(object).json() == before)
        return {};
    auto updated = client.update(gvr, object);
    if (!updated)
        return failed(updated.error());
    object = *updated;
    OperationOutcome o;
    o.result = OperationResult::Updated;
    return o;
}

OperationOutcome createOrPatch(Client &client, const GroupVersionResource &gvr, Object &object,
    const MutateFunction &mutate, bool hasStatusSubresource)
{
    if (auto done = getOrCreate(client, gvr, object, mutate))
        return *done;
    QJsonObject before = std::as_const(object).json();
    if (auto error = mutateKeepingKey(mutate, object))
        return failed(*error);
    QJsonObject after = std::as_const(object).json();
    const QJsonValue statusBefore = before.value(QLatin1String("status"));
    const QJsonValue statusAfter = after.value(QLatin1String("status"));
    if (hasStatusSubresource) {
        before.remove(QLatin1String("status"));
        after.remove(QLatin1String("status"));
    }
    OperationOutcome o;
    const QJsonObject patch = createMergePatch(before, after);
    if (!patch.isEmpty()) {
        auto patched = client.patch(gvr, object.namespaceName(), object.name(), PatchType::Merge,
            QJsonDocument(patch).toJson(QJsonDocument::Compact));
        if (!patched)
            return failed(patched.error());
        object = *patched;
        o.result = OperationResult::Updated;
    }
    if (hasStatusSubresource && statusBefore != statusAfter) {
        Object withStatus = object;
        if (statusAfter.isUndefined())
            withStatus.json().remove(QLatin1String("status"));
        else
            withStatus.json().insert(QLatin1String("status"), statusAfter);
        auto updated = client.updateStatus(gvr, withStatus);
        if (!updated)
            return failed(updated.error());
        object = *updated;
        o.result = o.result == OperationResult::Updated ? OperationResult::UpdatedStatus
                                                        : OperationResult::UpdatedStatusOnly;
    }
    return o;
}

} // namespace qcm::controllerutil
