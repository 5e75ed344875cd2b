// SPDX-License-Identifier: Apache-2.0
// What the host's YAML reading shares: loading a document, node positions for messages, and
// YAML -> QVariant for the free-form `settings` of a controller (handed to plugins without
// exposing yaml-cpp).
//
// Thread safety: reentrant.
#pragma once

#include <qcm/detail/yaml.h>
#include <qcm/result.h>

#include <QtCore/QVariant>

#include <yaml-cpp/yaml.h>

namespace qcm::host {

// " (line L, column C)", 1-based, or empty when the node has no position; and loading a
// document with malformed YAML as an Error (shared with the SDK's kubeconfig reader).
using detail::loadYamlDocument;
using detail::yamlPosition;

// Maps become QVariantMap (keys must be scalars), sequences QVariantList, and scalars are
// resolved by YAML 1.2's core schema: null, bool (true/false in three spellings), qint64
// (decimal, 0o octal, 0x hex), double (including .inf and .nan), or else QString. A quoted
// scalar, or one tagged !!str, is always a string. `path` names the node in errors.
Result<QVariant> yamlToVariant(const YAML::Node &node, const QString &path);

} // namespace qcm::host
