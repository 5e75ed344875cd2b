// SPDX-License-Identifier: Apache-2.0
// Plugin trust (app/plugins/plugintrust.h): a plugin file, or a directory above it, that
// someone other than root or qcm's user could write is refused before anything of it is read,
// with the path, owner and mode in the message; --plugin-trust=warn loads it; the other
// plugins go on.
#include "config/options.h"
#include "plugins/pluginhost.h"
#include "plugins/pluginspec.h"
#include "plugins/plugintrust.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace qcm;
using namespace qcm::host;

class tst_PluginTrust : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void trustedFileAndDirectories();
    void groupWritableFileIsRefused();
    void worldWritableDirectoryIsRefused();
    void stickyDirectoryIsTrusted();
    void symlinkIsJudgedByItsTarget();
    void fileOwnedByAnotherUserIsRefused();
    void warnLoadsAnUntrustedPlugin();
    void hostRefusesOneAndKeepsTheOthers();
    void flagAndField();

private:
    QString copyPlugin(const QString &dir, const char *name, mode_t mode = 0644);
    std::unique_ptr<QTemporaryDir> m_tmp;
};

namespace {

const QString Fixtures = QStringLiteral(QCM_FIXTURE_PLUGIN_DIR);

void setMode(const QString &path, mode_t mode)
{
    QVERIFY2(::chmod(QFile::encodeName(path).constData(), mode) == 0, qPrintable(path));
}

} // namespace

void tst_PluginTrust::init()
{
    m_tmp = std::make_unique<QTemporaryDir>(); // 0700, in /tmp (sticky): trusted
    QVERIFY(m_tmp->isValid());
}

QString tst_PluginTrust::copyPlugin(const QString &dir, const char *name, mode_t mode)
{
    QDir().mkpath(dir);
    const QString target = dir + QStringLiteral("/lib%1.so").arg(QLatin1String(name));
    QFile::remove(target);
    if (!QFile::copy(Fixtures + QStringLiteral("/lib%1.so").arg(QLatin1String(name)), target))
        return {};
    ::chmod(QFile::encodeName(target).constData(), mode);
    return target;
}

void tst_PluginTrust::trustedFileAndDirectories()
{
    const QString file
        = copyPlugin(m_tmp->path() + QStringLiteral("/plugins"), "fixture-configmaps");
    QVERIFY(!file.isEmpty());
    setMode(m_tmp->path() + QStringLiteral("/plugins"), 0755);
    QCOMPARE(untrustedReason(file, ::geteuid()), std::nullopt);
    PluginSpec spec(file);
    QVERIFY(spec.read());
    QCOMPARE(spec.state(), PluginState::Discovered);
}

void tst_PluginTrust::groupWritableFileIsRefused()
{
    const QString file = copyPlugin(m_tmp->path(), "fixture-configmaps", 0664);
    const std::optional<QString> why = untrustedReason(file, ::geteuid());
    QVERIFY(why);
    QVERIFY2(why->startsWith(QStringLiteral("the plugin %1 (owner ").arg(file)), qPrintable(*why));
    QVERIFY2(
        why->endsWith(QStringLiteral("mode 0664) is writable by its group")), qPrintable(*why));

    PluginSpec spec(file);
    QVERIFY(!spec.read());
    QCOMPARE(spec.state(), PluginState::Failed);
    QCOMPARE(spec.error().kind, PluginError::Kind::Untrusted);
    QCOMPARE(PluginError::kindName(spec.error().kind), QStringLiteral("untrusted"));
    QVERIFY2(spec.error().message.contains(*why), qPrintable(spec.error().message));
    QVERIFY2(spec.error().message.contains(QStringLiteral("--plugin-trust=warn")),
        qPrintable(spec.error().message));
    QVERIFY(spec.name().isEmpty()); // nothing of the file was read
}

void tst_PluginTrust::worldWritableDirectoryIsRefused()
{
    const QString dir = m_tmp->path() + QStringLiteral("/open");
    const QString file = copyPlugin(dir + QStringLiteral("/plugins"), "fixture-configmaps");
    setMode(dir + QStringLiteral("/plugins"), 0755);
    setMode(dir, 0777); // a directory above the plugin's
    const std::optional<QString> why = untrustedReason(file, ::geteuid());
    QVERIFY(why);
    QVERIFY2(why->startsWith(QStringLiteral("directory %1 (owner ").arg(dir)), qPrintable(*why));
    QVERIFY2(why->endsWith(QStringLiteral("mode 0777) is writable by everyone")), qPrintable(*why));
}

void tst_PluginTrust::stickyDirectoryIsTrusted()
{
    const QString dir = m_tmp->path() + QStringLiteral("/shared");
    const QString file = copyPlugin(dir, "fixture-configmaps");
    setMode(dir, 01777); // like /tmp: others cannot replace what they do not own
    QCOMPARE(untrustedReason(file, ::geteuid()), std::nullopt);
}

void tst_PluginTrust::symlinkIsJudgedByItsTarget()
{
    const QString open = m_tmp->path() + QStringLiteral("/open");
    const QString target = copyPlugin(open, "fixture-configmaps");
    setMode(open, 0777);
    const QString trusted = m_tmp->path() + QStringLiteral("/plugins");
    QDir().mkpath(trusted);
    setMode(trusted, 0755);
    const QString link = trusted + QStringLiteral("/libfixture-configmaps.so");
    QVERIFY(QFile::link(target, link));
    const std::optional<QString> why = untrustedReason(link, ::geteuid());
    QVERIFY(why);
    QVERIFY2(why->startsWith(QStringLiteral("directory %1 ").arg(open)), qPrintable(*why));

    // And the directory it was found in counts too: a trusted target through an open one.
    setMode(open, 0755);
    QCOMPARE(untrustedReason(link, ::geteuid()), std::nullopt);
    setMode(trusted, 0777);
    QVERIFY(untrustedReason(link, ::geteuid()));
}

void tst_PluginTrust::fileOwnedByAnotherUserIsRefused()
{
    if (::geteuid() != 0)
        QSKIP("giving a file to another user needs root (CI runs the suite as root)");
    const QString file = copyPlugin(m_tmp->path(), "fixture-configmaps");
    QVERIFY(::chown(QFile::encodeName(file).constData(), 65534, 65534) == 0);
    const std::optional<QString> why = untrustedReason(file, ::geteuid());
    QVERIFY(why);
    QVERIFY2(
        why->startsWith(QStringLiteral("the plugin %1 is owned by ").arg(file)), qPrintable(*why));
    QVERIFY2(why->endsWith(QStringLiteral("uid 65534), not by root or root (uid 0) (mode 0644)")),
        qPrintable(*why));
    // Owned by the host's user, it is trusted.
    QCOMPARE(untrustedReason(file, 65534), std::nullopt);
}

void tst_PluginTrust::warnLoadsAnUntrustedPlugin()
{
    const QString file = copyPlugin(m_tmp->path(), "fixture-configmaps", 0666);
    PluginSpec spec(file);
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(
            QStringLiteral("loading an untrusted plugin \\(--plugin-trust=warn\\)")));
    QVERIFY(spec.read(PluginTrust::Warn));
    QCOMPARE(spec.state(), PluginState::Discovered);
    QVERIFY(spec.load());
}

void tst_PluginTrust::hostRefusesOneAndKeepsTheOthers()
{
    const QString dir = m_tmp->path() + QStringLiteral("/plugins");
    copyPlugin(dir, "fixture-configmaps", 0644);
    copyPlugin(dir, "fixture-labelled", 0646);
    setMode(dir, 0755);
    PluginHost host;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("failed: untrusted: ")));
    host.discover({dir});
    QCOMPARE(host.plugins().size(), size_t(2));
    for (const auto &plugin : host.plugins()) {
        if (plugin->filePath().endsWith(QLatin1String("libfixture-configmaps.so")))
            QCOMPARE(plugin->state(), PluginState::Discovered);
        else
            QCOMPARE(plugin->error().kind, PluginError::Kind::Untrusted);
    }
}

void tst_PluginTrust::flagAndField()
{
    QCOMPARE(*parsePluginTrust(QStringLiteral("warn")), PluginTrust::Warn);
    QCOMPARE(parsePluginTrust(QStringLiteral("off")).error().reason,
        QStringLiteral("must be strict or warn, not \"off\""));
    const auto options
        = parseOptions({QStringLiteral("qcm"), QStringLiteral("--plugin-trust=warn")});
    QVERIFY(options);
    ControllerManagerConfig config;
    QCOMPARE(config.pluginTrust, PluginTrust::Strict); // the default
    options->applyTo(config);
    QCOMPARE(config.pluginTrust, PluginTrust::Warn);
    const auto bad = parseOptions({QStringLiteral("qcm"), QStringLiteral("--plugin-trust=lax")});
    QVERIFY(!bad);
    QCOMPARE(bad.error().toString(),
        QStringLiteral("--plugin-trust: must be strict or warn, not \"lax\""));
    const auto file = parseConfig("pluginTrust: maybe\n", QStringLiteral("c.yaml"));
    QVERIFY(!file);
    QVERIFY2(file.error().toString().startsWith(QStringLiteral("c.yaml: pluginTrust: ")),
        qPrintable(file.error().toString()));
}

QTEST_GUILESS_MAIN(tst_PluginTrust)
#include "tst_plugintrust.moc"
