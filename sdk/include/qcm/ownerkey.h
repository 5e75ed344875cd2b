// SPDX-License-Identifier: Apache-2.0
// controllerOwnerKey: the work-queue key of the object that controls another one, through its
// ownerReferences (metav1.GetControllerOf, as kube's sample-controller's handleObject uses it).
//
// A Deployment created by a Foo carries an owner reference {kind: Foo, controller: true}; when
// the Deployment changes, the Foo controller wants the Foo's key, "namespace/fooName". The
// reference must be the controller one (controller: true) and name the owner's group and
// kind (the version is ignored: an owner may be referenced through any served version).
// Owner references never cross namespaces, so a namespaced owner shares the dependent's
// namespace; a cluster-scoped owner's key is its name alone.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/object.h>

#include <optional>

namespace qcm {

enum class OwnerScope { Namespaced, Cluster };

// The owner's key, or nothing if `object` has no controller reference of that group and kind.
QCM_SDK_EXPORT std::optional<QString> controllerOwnerKey(const client::Object &object,
    const QString &ownerGroup, const QString &ownerKind, OwnerScope scope = OwnerScope::Namespaced);

} // namespace qcm
