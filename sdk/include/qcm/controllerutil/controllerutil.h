// SPDX-License-Identifier: Apache-2.0
// controllerutil: controller-runtime's pkg/controller/controllerutil, with its semantics:
// owner references, finalizers, and createOrUpdate / createOrPatch, which return what they did.
//
//     auto result = controllerutil::createOrUpdate(client, Deployments, deployment,
//         [&](client::Object &d) { setSpec(d); return controllerutil::setControllerReference(foo,
//         d); });
//
// Owner references cannot cross namespaces, and a cluster-scoped object cannot have a
// namespaced owner; an object's scope is read from its namespace (empty: cluster-scoped), as
// controller-runtime reads it from its RESTMapper.
//
// Thread safety: functions of their arguments; the client's calls block (call from a worker).
#pragma once

#include <qcm/client/client.h>
#include <qcm/error.h>

#include <functional>
#include <optional>

namespace qcm::controllerutil {

// controller-runtime's OperationResult.
enum class OperationResult {
    None, // "unchanged": the object was as the mutate function wants it
    Created,
    Updated,
    UpdatedStatus, // createOrPatch: the object and its status
    UpdatedStatusOnly, // createOrPatch: only its status
};
QCM_SDK_EXPORT QString toString(OperationResult result); // "unchanged", "created", ...

// What a helper refuses: AlreadyOwnedError (another controller owns the object), a scope
// mismatch, an owner without apiVersion, kind, name or uid, a mutate function that renamed
// the object. `reason` says which and why, as controller-runtime's messages do.
struct QCM_SDK_EXPORT OwnershipError
{
    enum class Kind { AlreadyOwned, ScopeMismatch, IncompleteOwner };
    Kind kind;
    QString reason;
};

// Makes `owner` the controller of `object` (controller: true, blockOwnerDeletion: true). An
// existing reference to the same owner (group, kind, name) is replaced; a controller
// reference to anything else is an AlreadyOwned error, and `object` is unchanged.
QCM_SDK_EXPORT std::optional<OwnershipError> setControllerReference(
    const client::Object &owner, client::Object &object);
// Adds `owner` as a plain owner of `object`, or updates its reference (keeping its
// controller flag).
QCM_SDK_EXPORT std::optional<OwnershipError> setOwnerReference(
    const client::Object &owner, client::Object &object);
// Whether `owner` is the controller of `object` (its group, kind, name and uid).
QCM_SDK_EXPORT bool hasControllerReference(
    const client::Object &owner, const client::Object &object);
// Removes `owner`'s reference from `object`; false if there was none.
QCM_SDK_EXPORT bool removeOwnerReference(const client::Object &owner, client::Object &object);

// Finalizers: whether the list changed.
QCM_SDK_EXPORT bool addFinalizer(client::Object &object, const QString &finalizer);
QCM_SDK_EXPORT bool removeFinalizer(client::Object &object, const QString &finalizer);
QCM_SDK_EXPORT bool containsFinalizer(const client::Object &object, const QString &finalizer);

// Changes the object the way the controller wants it; an Error stops the operation (nothing is
// written) and is returned.
using MutateFunction = std::function<std::optional<Error>(client::Object &object)>;

// What createOrUpdate and createOrPatch report: what they did, or why they did not.
struct QCM_SDK_EXPORT OperationOutcome
{
    OperationResult result = OperationResult::None;
    std::optional<client::Status> status; // the API server's refusal
    std::optional<Error> error; // the mutate function's, or a rename
    bool ok() const { return !status && !error; }
    QString errorString() const;
};

// controller-runtime's CreateOrUpdate: gets the object named by `object` (namespace, name);
// if it does not exist, mutates `object` and creates it; otherwise mutates what is there and
// updates it unless nothing changed. `object` ends as the server returned it.
QCM_SDK_EXPORT OperationOutcome createOrUpdate(client::Client &client,
    const client::GroupVersionResource &gvr, client::Object &object, const MutateFunction &mutate);
// controller-runtime's CreateOrPatch: as createOrUpdate, but writes a merge patch of what
// mutate changed, the status through the status subresource (when `hasStatusSubresource`),
// and reports Updated, UpdatedStatus or UpdatedStatusOnly.
QCM_SDK_EXPORT OperationOutcome createOrPatch(client::Client &client,
    const client::GroupVersionResource &gvr, client::Object &object, const MutateFunction &mutate,
    bool hasStatusSubresource = true);

} // namespace qcm::controllerutil
