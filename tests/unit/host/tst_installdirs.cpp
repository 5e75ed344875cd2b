// SPDX-License-Identifier: Apache-2.0
// The installed qcm's default plugin directory (app/plugins/installdirs.h): QCM_INSTALL_PLUGINDIR
// of the build, found from the running binary's directory as if it were the installed bin/, and
// used only when neither --plugin-dir nor pluginDirs names a directory.
#include "config/options.h"
#include "plugins/installdirs.h"

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;

class tst_InstallDirs : public QObject
{
    Q_OBJECT

private slots:
    void defaultIsBesideTheBinary();
    void usedOnlyWhenNoDirectoryIsNamed();
};

namespace {

// <this binary's directory>/<the path from bin/ to the plugin directory>, with the relative
// path worked out here from the two install directories.
QString expectedDefault()
{
    const QString plugindir = QStringLiteral(QCM_TEST_INSTALL_PLUGINDIR);
    if (QDir::isAbsolutePath(plugindir))
        return plugindir;
    const QString prefix = QStringLiteral("/prefix/");
    const QString fromBin = QDir(prefix + QStringLiteral(QCM_TEST_INSTALL_BINDIR))
                                .relativeFilePath(prefix + plugindir);
    return QDir::cleanPath(QCoreApplication::applicationDirPath() + QLatin1Char('/') + fromBin);
}

ControllerManagerConfig applied(const QStringList &args, const QByteArray &file)
{
    const Result<Options> options = parseOptions(QStringList {QStringLiteral("qcm")} + args);
    if (!options)
        qFatal("%s", qPrintable(options.error().toString()));
    Result<ControllerManagerConfig> config
        = parseConfig(file, QStringLiteral("/etc/qcm/controller-manager.yaml"));
    if (!config)
        qFatal("%s", qPrintable(config.error().toString()));
    options->applyTo(*config);
    return *config;
}

} // namespace

void tst_InstallDirs::defaultIsBesideTheBinary()
{
    QCOMPARE(defaultPluginDir(), expectedDefault());
    QVERIFY(QDir::isAbsolutePath(defaultPluginDir()));
    QVERIFY(defaultPluginDirDescription().endsWith(QStringLiteral(QCM_TEST_INSTALL_PLUGINDIR)));
}

void tst_InstallDirs::usedOnlyWhenNoDirectoryIsNamed()
{
    const QStringList fallback {expectedDefault()};
    QCOMPARE(applied({}, {}).pluginDirs, fallback);
    QCOMPARE(applied({}, "pluginDirs: []\n").pluginDirs, fallback);
    QCOMPARE(applied({}, "pluginDirs: [/opt/plugins]\n").pluginDirs,
        QStringList {QStringLiteral("/opt/plugins")});
    QCOMPARE(
        applied({QStringLiteral("--plugin-dir=/a,/b")}, "pluginDirs: [/opt/plugins]\n").pluginDirs,
        (QStringList {QStringLiteral("/a"), QStringLiteral("/b")}));
    // Relative to the configuration file, as every path of the file.
    QCOMPARE(applied({}, "pluginDirs: [plugins]\n").pluginDirs,
        QStringList {QStringLiteral("/etc/qcm/plugins")});
}

QTEST_GUILESS_MAIN(tst_InstallDirs)
#include "tst_installdirs.moc"
