// SPDX-License-Identifier: Apache-2.0
// What configmap-checksum writes, as pure functions (no API server, no informer), so that the
// test checks them case by case: the checksum of a ConfigMap's data, and the merge patch that
// puts it in an annotation.
//
// The checksum is "sha256:" and the hex SHA-256 of the compact JSON of
// {"binaryData": {...}, "data": {...}} (keys sorted, absent fields as {}): equal data gives
// equal checksums whatever the key order, and any change to a key or value changes it. A
// Deployment that copies it into its Pod template's annotations rolls out when the ConfigMap
// changes.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/object.h>

#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <optional>

namespace checksum {

// "sha256:<64 hex digits>" of the ConfigMap's data and binaryData.
QString dataChecksum(const qcm::client::Object &configMap);

// The JSON merge patch that sets `annotation` to dataChecksum(configMap), or nothing if the
// annotation already has that value. It carries the ConfigMap's resourceVersion: if the
// ConfigMap changed since it was read, the API server refuses the patch (409 Conflict) rather
// than label new data with an old checksum.
std::optional<QByteArray> checksumPatch(
    const qcm::client::Object &configMap, const QString &annotation);

} // namespace checksum
