// SPDX-License-Identifier: Apache-2.0
// Which controllers run: kube-controller-manager's rules for --controllers and for the
// `controllers:` list of controller-manager.yaml (k8s.io/controller-manager's
// IsControllerEnabled and GenericControllerManagerConfigurationOptions.Validate).
//
//   "*"      every controller that is on by default
//   "foo"    enables foo (needed for a controller that is off by default)
//   "-foo"   disables foo
// The first entry that names a controller decides; without one, "*" decides; without "*",
// nothing is on. Every name except "*", with or without its '-', must be a known controller.
//
// Thread safety: reentrant.
#pragma once

#include <QtCore/QSet>
#include <QtCore/QStringList>

namespace qcm::host {

bool isControllerEnabled(
    const QString &name, const QSet<QString> &disabledByDefault, const QStringList &controllers);

// One reason per unknown name, in order: "\"foo\" is not in the list of known controllers".
QStringList unknownControllers(const QStringList &controllers, const QSet<QString> &known);

} // namespace qcm::host
