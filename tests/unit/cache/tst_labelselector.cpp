// SPDX-License-Identifier: Apache-2.0
// LabelSelector: apimachinery's labels.Parse and Matches (selector_test.go's cases).
#include <qcm/cache/labelselector.h>

#include <QtTest/QtTest>

using qcm::cache::LabelSelector;

using Labels = QMap<QString, QString>;
Q_DECLARE_METATYPE(Labels)

class tst_LabelSelector : public QObject
{
    Q_OBJECT

private slots:
    void matches_data();
    void matches();
    void errors_data();
    void errors();
    void emptyMatchesEverything();
};

void tst_LabelSelector::matches_data()
{
    QTest::addColumn<QString>("selector");
    QTest::addColumn<Labels>("labels");
    QTest::addColumn<bool>("match");
    const Labels xy {{QStringLiteral("x"), QStringLiteral("y")}};
    const Labels xyz {
        {QStringLiteral("x"), QStringLiteral("y")}, {QStringLiteral("z"), QStringLiteral("w")}};
    QTest::newRow("x=y") << QStringLiteral("x=y") << xy << true;
    QTest::newRow("x==y") << QStringLiteral("x==y") << xy << true;
    QTest::newRow("x=z") << QStringLiteral("x=z") << xy << false;
    QTest::newRow("x!=z") << QStringLiteral("x!=z") << xy << true;
    QTest::newRow("x!=y") << QStringLiteral("x!=y") << xy << false;
    QTest::newRow("missing key !=") << QStringLiteral("q!=y") << xy << true;
    QTest::newRow("exists") << QStringLiteral("x") << xy << true;
    QTest::newRow("not exists") << QStringLiteral("!x") << xy << false;
    QTest::newRow("not exists, absent") << QStringLiteral("!q") << xy << true;
    QTest::newRow("in") << QStringLiteral("x in (y,z)") << xy << true;
    QTest::newRow("in, spaces") << QStringLiteral(" x  in  ( z , y ) ") << xy << true;
    QTest::newRow("in, no") << QStringLiteral("x in (a,b)") << xy << false;
    QTest::newRow("in, absent") << QStringLiteral("q in (y)") << xy << false;
    QTest::newRow("notin") << QStringLiteral("x notin (a,b)") << xy << true;
    QTest::newRow("notin, absent") << QStringLiteral("q notin (y)") << xy << true;
    QTest::newRow("notin, no") << QStringLiteral("x notin (y)") << xy << false;
    QTest::newRow("and") << QStringLiteral("x=y,z=w") << xyz << true;
    QTest::newRow("and, one fails") << QStringLiteral("x=y,z=q") << xyz << false;
    QTest::newRow("empty value") << QStringLiteral("x=")
                                 << Labels {{QStringLiteral("x"), QString()}} << true;
    QTest::newRow("in with empty value")
        << QStringLiteral("x in (,a)") << Labels {{QStringLiteral("x"), QString()}} << true;
    QTest::newRow("prefixed key") << QStringLiteral("app.kubernetes.io/name=web")
                                  << Labels {{QStringLiteral("app.kubernetes.io/name"),
                                         QStringLiteral("web")}}
                                  << true;
    QTest::newRow("gt") << QStringLiteral("n>3")
                        << Labels {{QStringLiteral("n"), QStringLiteral("4")}} << true;
    QTest::newRow("gt, not") << QStringLiteral("n>3")
                             << Labels {{QStringLiteral("n"), QStringLiteral("3")}} << false;
    QTest::newRow("lt, not a number")
        << QStringLiteral("n<3") << Labels {{QStringLiteral("n"), QStringLiteral("x")}} << false;
}

void tst_LabelSelector::matches()
{
    QFETCH(QString, selector);
    QFETCH(Labels, labels);
    QFETCH(bool, match);
    auto parsed = LabelSelector::parse(selector);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().toString()));
    QCOMPARE(parsed->matches(labels), match);
}

void tst_LabelSelector::errors_data()
{
    QTest::addColumn<QString>("selector");
    QTest::addColumn<QString>("message");
    QTest::newRow("no key") << QStringLiteral("=y")
                            << QStringLiteral("at character 1: expected a key");
    QTest::newRow("dangling comma")
        << QStringLiteral("x=y,") << QStringLiteral("at character 5: expected a key");
    QTest::newRow("in without parens")
        << QStringLiteral("x in y") << QStringLiteral("expected '(' after in");
    QTest::newRow("unclosed") << QStringLiteral("x in (a,b")
                              << QStringLiteral("at character 10: expected ',' or ')'");
    QTest::newRow("empty set") << QStringLiteral("x notin ()")
                               << QStringLiteral("the set of values of 'notin' cannot be empty");
    QTest::newRow("no operator") << QStringLiteral("x y") << QStringLiteral("expected an operator");
    QTest::newRow("bad key") << QStringLiteral("-x=y")
                             << QStringLiteral("key \"-x\" must be a qualified name");
    QTest::newRow("bad prefix") << QStringLiteral("Bad_Prefix/x=y")
                                << QStringLiteral("the prefix must be a DNS subdomain");
    QTest::newRow("long value") << QStringLiteral("x=") + QString(64, QLatin1Char('a'))
                                << QStringLiteral("longer than 63 characters");
    QTest::newRow("bad value") << QStringLiteral("x=a$b")
                               << QStringLiteral("value \"a$b\" must be alphanumeric");
    QTest::newRow("gt needs a number")
        << QStringLiteral("x>y") << QStringLiteral("\"y\" is not an integer");
    QTest::newRow("double bang") << QStringLiteral("!!x")
                                 << QStringLiteral("expected a key after '!'");
}

void tst_LabelSelector::errors()
{
    QFETCH(QString, selector);
    QFETCH(QString, message);
    auto parsed = LabelSelector::parse(selector);
    QVERIFY2(!parsed, qPrintable(selector));
    QVERIFY2(parsed.error().reason.contains(message), qPrintable(parsed.error().reason));
    QVERIFY(parsed.error().reason.startsWith(QStringLiteral("invalid label selector \"")));
}

void tst_LabelSelector::emptyMatchesEverything()
{
    QVERIFY(LabelSelector().matches({}));
    QVERIFY(LabelSelector::parse(QStringLiteral("  "))->isEmpty());
    QVERIFY(LabelSelector::parse(QString())->matches({{QStringLiteral("a"), QStringLiteral("b")}}));
}

QTEST_GUILESS_MAIN(tst_LabelSelector)
#include "tst_labelselector.moc"
