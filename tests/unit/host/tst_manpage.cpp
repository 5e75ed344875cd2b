// SPDX-License-Identifier: Apache-2.0
// The man pages and the configuration schema: qcm(1) documents every flag --help prints, with
// the same words; controller-manager.yaml(5) documents every field of the schema; the parser
// accepts every field of the schema and no other; docs/configuration.md's field table names
// the same fields.
#include "config/config.h"
#include "config/configschema.h"
#include "config/options.h"
#include "manpages/manpage.h"

#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;

class tst_ManPage : public QObject
{
    Q_OBJECT

private slots:
    void troffEscaping_data();
    void troffEscaping();
    void qcmPageHasEveryFlagOfHelp();
    void configPageHasEveryField();
    void parserAcceptsEverySchemaField();
    void parserRefusesFieldsOutsideTheSchema_data();
    void parserRefusesFieldsOutsideTheSchema();
    void docsTableMatchesTheSchema();
};

namespace {

const ManPageInfo Info {QStringLiteral("0.1.0"), QStringLiteral("2026-11-26")};

// A value of the field's type that the parser accepts.
QString sample(const ConfigField &f)
{
    if (f.type == QLatin1String("duration"))
        return QStringLiteral("1s");
    if (f.type == QLatin1String("bool"))
        return QStringLiteral("false");
    if (f.type.startsWith(QLatin1String("integer >= ")))
        return f.type.mid(11); // its minimum
    if (f.type.startsWith(QLatin1String("integer ")) && f.type.contains(QLatin1Char('-')))
        return f.type.mid(8).section(QLatin1Char('-'), 0, 0); // its minimum
    if (f.type.startsWith(QLatin1String("integer")))
        return QStringLiteral("1");
    if (f.type == QLatin1String("number"))
        return QStringLiteral("1.5");
    if (f.type == QLatin1String("list of paths"))
        return QStringLiteral("[/srv/plugins]");
    if (f.path == QLatin1String("serving.authorization.alwaysAllowPaths"))
        return QStringLiteral("[/healthz, /debug/*]");
    if (f.path == QLatin1String("serving.tlsCipherSuites"))
        return QStringLiteral("[TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]");
    if (f.type == QLatin1String("list of strings"))
        return QStringLiteral("[\"*\"]");
    if (f.type == QLatin1String("path"))
        return QStringLiteral("/etc/qcm/file");
    if (f.type == QLatin1String("IP address"))
        return QStringLiteral("127.0.0.1");
    if (f.type == QLatin1String("map"))
        return QStringLiteral("{a: 1}");
    return f.defaultValue.isEmpty() ? QStringLiteral("x") : f.defaultValue;
}

// The YAML document that sets `path` (dotted, <name> a controller) to `value`.
QByteArray documentSetting(const QString &path, const QString &value)
{
    QStringList parts = path.split(QLatin1Char('.'));
    parts.replaceInStrings(QStringLiteral("<name>"), QStringLiteral("ttl-after-finished"));
    QString yaml;
    for (int i = 0; i < parts.size(); ++i) {
        yaml += QString(i * 2, QLatin1Char(' ')) + parts.at(i) + QLatin1Char(':');
        yaml += i + 1 == parts.size() ? QLatin1Char(' ') + value : QStringLiteral("\n");
    }
    return (yaml + QLatin1Char('\n')).toUtf8();
}

bool hasChildren(const QString &path)
{
    return !configFieldsUnder(path).isEmpty();
}

} // namespace

void tst_ManPage::troffEscaping_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("troff");
    QTest::newRow("plain") << "leases"
                           << "leases";
    QTest::newRow("hyphen") << "--leader-elect"
                            << "\\-\\-leader\\-elect";
    QTest::newRow("backslash") << "a\\b"
                               << "a\\eb";
    QTest::newRow("leading dot") << ".TH"
                                 << "\\&.TH";
    QTest::newRow("leading quote") << "'x"
                                   << "\\&'x";
    QTest::newRow("inner dot") << "a.b"
                               << "a.b";
}

void tst_ManPage::troffEscaping()
{
    QFETCH(QString, text);
    QFETCH(QString, troff);
    QCOMPARE(troffEscape(text), troff);
}

void tst_ManPage::qcmPageHasEveryFlagOfHelp()
{
    const QString page = qcmManPage(Info);
    QVERIFY(page.startsWith(QStringLiteral(".TH QCM 1 \"2026-11-26\" \"qcm 0.1.0\"")));
    // Every flag --help prints is in the page, and every flag of the table is in --help.
    const QString help = helpText();
    const QRegularExpression flagRx(QStringLiteral("(?:^|\\s)--([a-z][a-z-]*)"));
    QStringList helpFlags;
    for (auto it = flagRx.globalMatch(help); it.hasNext();)
        helpFlags << it.next().captured(1);
    helpFlags.removeDuplicates();
    QVERIFY2(helpFlags.size() > 20, qPrintable(helpFlags.join(QLatin1Char(' '))));
    for (const QString &flag : helpFlags)
        QVERIFY2(page.contains(troffEscape(QStringLiteral("--") + flag)), qPrintable(flag));
    for (const FlagHelp &flag : flagTable()) {
        const QString name = flag.names.constLast();
        QVERIFY2(help.contains(QStringLiteral("--") + name), qPrintable(name));
        // The same words: the description, as troff.
        QVERIFY2(page.contains(troffEscape(flag.description)), qPrintable(name));
    }
}

void tst_ManPage::configPageHasEveryField()
{
    const QString page = configManPage(Info);
    QVERIFY(page.startsWith(QStringLiteral(".TH CONTROLLER\\-MANAGER.YAML 5 \"2026-11-26\"")));
    QCOMPARE(configSchema().size(), 65);
    for (const ConfigField &f : configSchema()) {
        QVERIFY2(
            page.contains(QStringLiteral(".B %1\n").arg(troffEscape(f.path))), qPrintable(f.path));
        QVERIFY2(page.contains(troffEscape(f.description)), qPrintable(f.path));
        if (!f.flag.isEmpty())
            QVERIFY2(page.contains(QStringLiteral("flag \\fB%1\\fR").arg(troffEscape(f.flag))),
                qPrintable(f.path));
    }
}

void tst_ManPage::parserAcceptsEverySchemaField()
{
    for (const ConfigField &f : configSchema()) {
        if (hasChildren(f.path))
            continue;
        const QByteArray yaml = documentSetting(f.path, sample(f));
        const Result<ControllerManagerConfig> parsed = parseConfig(yaml, QStringLiteral("c.yaml"));
        if (!parsed)
            QFAIL(qPrintable(f.path + QLatin1String(": ") + parsed.error().toString()));
    }
}

void tst_ManPage::parserRefusesFieldsOutsideTheSchema_data()
{
    QTest::addColumn<QString>("parent");
    QTest::newRow("top") << QString();
    QTest::newRow("clientConnection") << "clientConnection";
    QTest::newRow("leaderElection") << "leaderElection";
    QTest::newRow("serving") << "serving";
    QTest::newRow("a controller's entry") << "controllerConfig.<name>";
}

void tst_ManPage::parserRefusesFieldsOutsideTheSchema()
{
    QFETCH(QString, parent);
    const QString path
        = parent.isEmpty() ? QStringLiteral("notAField") : parent + QStringLiteral(".notAField");
    const Result<ControllerManagerConfig> parsed
        = parseConfig(documentSetting(path, QStringLiteral("1")), QStringLiteral("c.yaml"));
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().reason.contains(configFieldsUnder(parent).join(QStringLiteral(", "))),
        qPrintable(parsed.error().toString()));
}

void tst_ManPage::docsTableMatchesTheSchema()
{
    QFile docs(QStringLiteral(QCM_SOURCE_DIR "/docs/configuration.md"));
    QVERIFY2(docs.open(QIODevice::ReadOnly), qPrintable(docs.fileName()));
    // The field table is in the section "## `controller-manager.yaml`".
    QString text = QString::fromUtf8(docs.readAll());
    const qsizetype section = text.indexOf(QStringLiteral("\n## `controller-manager.yaml`\n"));
    QVERIFY(section >= 0);
    text = text.mid(section + 1);
    text.truncate(text.indexOf(QStringLiteral("\n## "), 1));
    const QRegularExpression rowRx(
        QStringLiteral("^\\| `([A-Za-z<>.]+)` \\|"), QRegularExpression::MultilineOption);
    QSet<QString> documented;
    for (auto it = rowRx.globalMatch(text); it.hasNext();)
        documented.insert(it.next().captured(1));
    QVERIFY2(documented.size() >= 25, qPrintable(QString::number(documented.size())));
    QSet<QString> schema;
    for (const ConfigField &f : configSchema())
        schema.insert(f.path);
    // Every documented field is in the schema; every field without children is documented
    // (the maps that only group others, such as serving, need no row of their own).
    for (const QString &path : documented)
        QVERIFY2(schema.contains(path), qPrintable(path + QLatin1String(" is not a field")));
    for (const QString &path : schema)
        QVERIFY2(documented.contains(path) || hasChildren(path),
            qPrintable(path + QLatin1String(" is missing from docs/configuration.md")));
}

QTEST_GUILESS_MAIN(tst_ManPage)
#include "tst_manpage.moc"
