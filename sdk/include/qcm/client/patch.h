// SPDX-License-Identifier: Apache-2.0
// JSON patches as the API server applies them (apimachinery's jsonmergepatch and
// evanphx/json-patch, which the API server uses):
// - a JSON merge patch (RFC 7386): applyMergePatch(), and createMergePatch() from two
//   objects (controller-runtime's client.MergeFrom);
// - a JSON Patch (RFC 6902): applyJsonPatch(), with add, remove, replace, move, copy and
//   test on JSON Pointers (RFC 6901).
//
// Thread safety: pure functions.
#pragma once

#include <qcm/global.h>
#include <qcm/result.h>

#include <QtCore/QByteArray>
#include <QtCore/QJsonObject>
#include <QtCore/QJsonValue>

namespace qcm::client {

// RFC 7386: members of `patch` replace those of `target`, objects merge recursively, null
// removes a member; anything but an object replaces the whole target.
QCM_SDK_EXPORT QJsonValue applyMergePatch(const QJsonValue &target, const QJsonValue &patch);
// The merge patch that turns `original` into `modified`: changed and added members, removed
// ones as null, objects recursively. Empty when they are equal.
QCM_SDK_EXPORT QJsonObject createMergePatch(
    const QJsonObject &original, const QJsonObject &modified);
// RFC 6902: applies the operations of `patch` (a JSON array) in order. An error (a malformed
// operation, a path that does not resolve, a failed test) says which operation and why; the
// document is then unchanged.
QCM_SDK_EXPORT Result<QJsonValue> applyJsonPatch(
    const QJsonValue &document, const QByteArray &patch);

} // namespace qcm::client
