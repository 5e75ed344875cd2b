// SPDX-License-Identifier: Apache-2.0
// Checking a sample controller's `settings` (controllerConfig.<name>.settings of
// controller-manager.yaml): every key must be one the controller reads, so that a misspelt
// setting is an error rather than silently ignored.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/context.h>
#include <qcm/error.h>

#include <optional>

namespace qcm::samples {

// An error naming the first key of `settings` that is not in `known`:
// "settings.propagation: unknown setting; the settings here are propagationPolicy".
std::optional<Error> unknownSetting(const QVariantMap &settings, const QStringList &known);

// For a plugin factory: throws std::invalid_argument with unknownSetting()'s message, which the
// host shows as the reason the plugin failed.
void requireKnownSettings(const ControllerContext &context, const QStringList &known);

} // namespace qcm::samples
