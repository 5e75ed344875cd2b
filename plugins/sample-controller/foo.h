// SPDX-License-Identifier: Apache-2.0
// Foo: the custom resource of kube's sample-controller (samplecontroller.k8s.io/v1alpha1, see
// artifacts/crd-status-subresource.yaml), and the pure parts of its controller: the Deployment
// a Foo wants (newDeployment) and whether a Deployment is the Foo's (isControlledBy).
//
//     spec.deploymentName   the Deployment to create and own (required)
//     spec.replicas         its replicas (optional)
//     status.availableReplicas   copied from the Deployment's status
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/object.h>
#include <qcm/client/resource.h>

#include <optional>

namespace qcm::samples {

inline const QString FooGroup = QStringLiteral("samplecontroller.k8s.io");
inline const QString FooVersion = QStringLiteral("v1alpha1");
inline const QString FooKind = QStringLiteral("Foo");
inline const client::GroupVersionResource Foos {FooGroup, FooVersion, QStringLiteral("foos")};

// sample-controller's event reasons and messages, as upstream's constants.
inline const QString SuccessSynced = QStringLiteral("Synced");
inline const QString ErrResourceExists = QStringLiteral("ErrResourceExists");
inline const QString MessageResourceSynced = QStringLiteral("Foo synced successfully");
// Go's fmt.Sprintf(MessageResourceExists, name): `Resource "name" already exists and is not
// managed by Foo` (%q quotes; Kubernetes names need no escaping).
QString messageResourceExists(const QString &deploymentName);

// The field manager of every write (upstream's FieldManager = controllerAgentName).
inline const QString FooFieldManager = QStringLiteral("sample-controller");

QString fooDeploymentName(const client::Object &foo);
// spec.replicas, if set (and an integer).
std::optional<qint64> fooReplicas(const client::Object &foo);
// The Deployment's spec.replicas. The apiserver defaults it to 1; a Deployment read back from
// it always has one, so 1 is only the answer for an object that never went through it.
qint64 deploymentReplicas(const client::Object &deployment);
// The Deployment's status.availableReplicas; 0 when unset (a Deployment nothing has rolled
// out yet), as the Go field's zero value.
qint64 deploymentAvailableReplicas(const client::Object &deployment);

// metav1.NewControllerRef(owner, gvk): apiVersion, kind, name, uid, controller and
// blockOwnerDeletion both true.
client::OwnerReference newControllerRef(
    const client::Object &owner, const QString &apiVersion, const QString &kind);
// metav1.IsControlledBy: the object's controller reference has the owner's UID.
bool isControlledBy(const client::Object &object, const client::Object &owner);

// sample-controller's newDeployment(foo): the Deployment spec.deploymentName in the Foo's
// namespace, owned by the Foo (a controller reference), with spec.replicas (left out when the
// Foo has none), selector and pod labels {app: nginx, controller: <foo>}, and one container
// nginx running nginx:latest.
client::Object newDeployment(const client::Object &foo);

// The Foo with status.availableReplicas set: what updateFooStatus sends.
client::Object fooWithAvailableReplicas(const client::Object &foo, qint64 availableReplicas);

} // namespace qcm::samples
