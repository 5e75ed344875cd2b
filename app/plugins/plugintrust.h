// SPDX-License-Identifier: Apache-2.0
// Plugin trust: a plugin runs with the host's cluster credentials, so whoever can write a
// plugin file, or a directory on its path, can act as the host. Before a .so is read, the host
// checks it as sshd's StrictModes checks authorized_keys: after resolving symlinks, the file
// and every directory from it up to / must be owned by root or by the host's user, and no one
// else may write to them (no group or other write permission; a directory with the sticky bit,
// such as /tmp, may be writable by others, since they cannot replace what they do not own).
//
// PluginTrust::Warn (--plugin-trust=warn, for development) loads such a plugin anyway and logs
// the same reason as a warning.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/result.h>

#include <QtCore/QString>

#include <optional>
#include <sys/types.h>

namespace qcm::host {

enum class PluginTrust { Strict, Warn };

Result<PluginTrust> parsePluginTrust(const QString &text);
QString pluginTrustName(PluginTrust trust);

// Why `path` may not be trusted by a host running as `hostUid`, naming the path at fault, its
// owner and its mode; nothing if it may.
std::optional<QString> untrustedReason(const QString &path, uid_t hostUid);

} // namespace qcm::host
