// SPDX-License-Identifier: Apache-2.0
#include "plugins/installdirs.h"

#include <QtCore/QDir>
#include <QtCore/QFileInfo>

#ifndef QCM_PLUGIN_DIR_FROM_BINDIR
#error "QCM_PLUGIN_DIR_FROM_BINDIR is set by app/CMakeLists.txt from QCM_INSTALL_PLUGINDIR"
#endif

namespace qcm::host {

QString defaultPluginDir()
{
    // The running binary, as QCoreApplication::applicationDirPath() finds it on Linux, but
    // without needing the application object (Options::applyTo() runs in tests without one).
    const QString binary = QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath();
    // QDir::filePath() keeps an absolute QCM_INSTALL_PLUGINDIR as it is.
    return QDir::cleanPath(
        QDir(QFileInfo(binary).path()).filePath(QStringLiteral(QCM_PLUGIN_DIR_FROM_BINDIR)));
}

QString defaultPluginDirDescription()
{
    const QString dir = QStringLiteral(QCM_PLUGIN_DIR_FROM_BINDIR);
    return QDir::isAbsolutePath(dir) ? dir : QStringLiteral("<qcm's directory>/") + dir;
}

void applyDefaultPluginDir(ControllerManagerConfig &config)
{
    if (config.pluginDirs.isEmpty())
        config.pluginDirs = QStringList {defaultPluginDir()};
}

} // namespace qcm::host
