// SPDX-License-Identifier: Apache-2.0
// Foo: the custom resource of kube's sample-controller (samplecontroller.k8s.io/v1alpha1),
// typed as samplecontroller::v1alpha1::Foo, which qcm_generate_types makes from
// artifacts/crd-status-subresource.yaml; and the pure parts of its controller: upstream's
// Event reasons and messages, its field manager, and the Deployment a Foo wants.
//
//     spec.deploymentName        the Deployment to create and own (required)
//     spec.replicas              its replicas (optional)
//     status.availableReplicas   copied from the Deployment's status
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/object.h>

#include <samplecontroller/v1alpha1.h>

namespace qcm::samples {

using samplecontroller::v1alpha1::Foo;

// sample-controller's Event reasons and messages, as upstream's constants.
inline const QString SuccessSynced = QStringLiteral("Synced");
inline const QString ErrResourceExists = QStringLiteral("ErrResourceExists");
inline const QString MessageResourceSynced = QStringLiteral("Foo synced successfully");
// Go's fmt.Sprintf(MessageResourceExists, name): `Resource "name" already exists and is not
// managed by Foo` (%q quotes; Kubernetes names need no escaping).
QString messageResourceExists(const QString &deploymentName);

// The field manager of every write (upstream's FieldManager = controllerAgentName).
inline const QString FooFieldManager = QStringLiteral("sample-controller");

// sample-controller's newDeployment(foo): the Deployment spec.deploymentName in the Foo's
// namespace, controlled by the Foo (controllerutil::setControllerReference: controller and
// blockOwnerDeletion true), with spec.replicas (left out when the Foo has none, for the API
// server to default), selector and pod labels {app: nginx, controller: <foo>}, and one
// container nginx running nginx:latest. The Foo must have a uid (one read from the API server
// does); without one the Deployment has no controller reference, which the controller then
// refuses as not its own.
client::Object newDeployment(const Foo &foo);

} // namespace qcm::samples
