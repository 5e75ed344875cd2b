// SPDX-License-Identifier: Apache-2.0
// The installed layout as the host sees it: where an installed qcm finds its plugins when the
// configuration names no plugin directory. The directory is QCM_INSTALL_PLUGINDIR of the build
// (default lib/qcm/plugins), taken relative to the qcm binary's own directory, so that a tree
// installed with `cmake --install --prefix`, unpacked with `dpkg -x` or moved keeps finding
// the plugins installed beside it (docs/packaging.md).
//
// Thread safety: reentrant.
#pragma once

#include "config/config.h"

#include <QtCore/QString>

namespace qcm::host {

// The plugin directory of the installation this qcm binary belongs to: for /usr/bin/qcm,
// /usr/lib/qcm/plugins. Found from /proc/self/exe (symlinks resolved); cleaned, absolute; it
// need not exist (a build-tree binary's does not).
QString defaultPluginDir();

// How --help names the default: "<qcm's directory>/../lib/qcm/plugins".
QString defaultPluginDirDescription();

// Gives `config` the default plugin directory if neither --plugin-dir nor pluginDirs named
// one (or pluginDirs is empty); otherwise leaves it as it is.
void applyDefaultPluginDir(ControllerManagerConfig &config);

} // namespace qcm::host
