// SPDX-License-Identifier: Apache-2.0
// kube-controller-manager's controller selection: IsControllerEnabled and the validation of
// --controllers (k8s.io/controller-manager), with the cases of their tests.
#include "plugins/controllerselection.h"

#include <QtTest/QtTest>

using namespace qcm::host;

class tst_ControllerSelection : public QObject
{
    Q_OBJECT

private slots:
    void enabled_data();
    void enabled();
    void unknown_data();
    void unknown();
};

void tst_ControllerSelection::enabled_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("controllers");
    QTest::addColumn<bool>("enabled");
    const QString on = QStringLiteral("on");
    const QString off = QStringLiteral("off"); // disabled by default
    QTest::newRow("star: on") << on << QStringList {QStringLiteral("*")} << true;
    QTest::newRow("star: off stays off") << off << QStringList {QStringLiteral("*")} << false;
    QTest::newRow("named off") << off << QStringList {QStringLiteral("off")} << true;
    QTest::newRow("star and named off")
        << off << QStringList {QStringLiteral("*"), QStringLiteral("off")} << true;
    QTest::newRow("star minus on")
        << on << QStringList {QStringLiteral("*"), QStringLiteral("-on")} << false;
    QTest::newRow("empty list: nothing") << on << QStringList {} << false;
    QTest::newRow("other names only: nothing") << on << QStringList {QStringLiteral("x")} << false;
    // The first entry that names the controller decides.
    QTest::newRow("name then minus")
        << on << QStringList {QStringLiteral("on"), QStringLiteral("-on")} << true;
    QTest::newRow("minus then name")
        << on << QStringList {QStringLiteral("-on"), QStringLiteral("on")} << false;
    QTest::newRow("minus before star")
        << on << QStringList {QStringLiteral("-on"), QStringLiteral("*")} << false;
    QTest::newRow("minus off with star")
        << off << QStringList {QStringLiteral("*"), QStringLiteral("-off")} << false;
}

void tst_ControllerSelection::enabled()
{
    QFETCH(QString, name);
    QFETCH(QStringList, controllers);
    QFETCH(bool, enabled);
    QCOMPARE(isControllerEnabled(name, {QStringLiteral("off")}, controllers), enabled);
}

void tst_ControllerSelection::unknown_data()
{
    QTest::addColumn<QStringList>("controllers");
    QTest::addColumn<QStringList>("reasons");
    QTest::newRow("known") << QStringList {QStringLiteral("*"), QStringLiteral("-red-controller"),
        QStringLiteral("blue-controller")}
                           << QStringList {};
    QTest::newRow("disabled by default is known")
        << QStringList {QStringLiteral("green-controller")} << QStringList {};
    QTest::newRow("star alone") << QStringList {QStringLiteral("*")} << QStringList {};
    QTest::newRow("unknown") << QStringList {QStringLiteral("grey-controller")}
                             << QStringList {QStringLiteral(
                                    "\"grey-controller\" is not in the list of known controllers")};
    // As in today's kube-controller-manager, "-name" must name a known controller too.
    QTest::newRow("minus unknown")
        << QStringList {QStringLiteral("-notacontroller")}
        << QStringList {
               QStringLiteral("\"notacontroller\" is not in the list of known controllers")};
    QTest::newRow("several")
        << QStringList {QStringLiteral("a"), QStringLiteral("red-controller"), QStringLiteral("-b")}
        << QStringList {QStringLiteral("\"a\" is not in the list of known controllers"),
               QStringLiteral("\"b\" is not in the list of known controllers")};
}

void tst_ControllerSelection::unknown()
{
    QFETCH(QStringList, controllers);
    QFETCH(QStringList, reasons);
    const QSet<QString> known {QStringLiteral("red-controller"), QStringLiteral("green-controller"),
        QStringLiteral("blue-controller")};
    QCOMPARE(unknownControllers(controllers, known), reasons);
}

QTEST_APPLESS_MAIN(tst_ControllerSelection)
#include "tst_controllerselection.moc"
