// SPDX-License-Identifier: Apache-2.0
// Status conditions, with apimachinery's conditions_test.go cases (TestSetStatusCondition,
// TestRemoveStatusCondition, TestFindStatusCondition, TestIsStatusCondition...): the transition
// time changes only with the status.
#include <qcm/meta/conditions.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::meta;

namespace {

const QDateTime OneHourBefore = QDateTime(QDate(2026, 11, 26), QTime(9, 0, 0), Qt::UTC);
const QDateTime OneHourAfter = QDateTime(QDate(2026, 11, 26), QTime(11, 0, 0), Qt::UTC);
const QDateTime Now = QDateTime(QDate(2026, 11, 26), QTime(10, 0, 0), Qt::UTC);

QJsonArray conditions(const QList<Condition> &list)
{
    QJsonArray out;
    for (const Condition &c : list)
        out.append(c.toJson());
    return out;
}

} // namespace

class tst_Conditions : public QObject
{
    Q_OBJECT

private slots:
    void setStatusCondition_data();
    void setStatusCondition();
    void newConditionWithoutTimeGetsNow();
    void removeStatusCondition();
    void findAndPredicates();
    void onAnObject();
};

void tst_Conditions::setStatusCondition_data()
{
    QTest::addColumn<QList<Condition>>("existing");
    QTest::addColumn<Condition>("toAdd");
    QTest::addColumn<QList<Condition>>("expected");
    QTest::addColumn<bool>("changed");
    const Condition first {
        QStringLiteral("first"), QStringLiteral("True"), 0, OneHourBefore, {}, {}};
    const Condition third {
        QStringLiteral("third"), QStringLiteral("True"), 0, OneHourBefore, {}, {}};
    QTest::newRow("should-add") << QList<Condition> {first, third}
                                << Condition {QStringLiteral("second"), QStringLiteral("True"), 3,
                                       OneHourAfter, QStringLiteral("reason"),
                                       QStringLiteral("message")}
                                << QList<Condition> {first, third,
                                       Condition {QStringLiteral("second"), QStringLiteral("True"),
                                           3, OneHourAfter, QStringLiteral("reason"),
                                           QStringLiteral("message")}}
                                << true;
    QTest::newRow("use-supplied-time")
        << QList<Condition> {first,
               Condition {
                   QStringLiteral("second"), QStringLiteral("False"), 0, OneHourBefore, {}, {}},
               third}
        << Condition {QStringLiteral("second"), QStringLiteral("True"), 3, OneHourAfter,
               QStringLiteral("reason"), QStringLiteral("message")}
        << QList<Condition> {first,
               Condition {QStringLiteral("second"), QStringLiteral("True"), 3, OneHourAfter,
                   QStringLiteral("reason"), QStringLiteral("message")},
               third}
        << true;
    QTest::newRow("update-fields")
        << QList<Condition> {first,
               Condition {
                   QStringLiteral("second"), QStringLiteral("True"), 0, OneHourBefore, {}, {}},
               third}
        << Condition {QStringLiteral("second"), QStringLiteral("True"), 3, OneHourAfter,
               QStringLiteral("reason"), QStringLiteral("message")}
        << QList<Condition> {first,
               Condition {QStringLiteral("second"), QStringLiteral("True"), 3, OneHourBefore,
                   QStringLiteral("reason"), QStringLiteral("message")},
               third}
        << true;
    QTest::newRow("empty-reason") << QList<Condition> {Condition {QStringLiteral("first"),
        QStringLiteral("True"), 0, OneHourBefore, QStringLiteral("reason"),
        {}}} << Condition {QStringLiteral("first"), QStringLiteral("True"), 0, OneHourAfter, {}, {}}
                                  << QList<Condition> {first} << true;
    QTest::newRow("nothing-changes")
        << QList<Condition> {first}
        << Condition {QStringLiteral("first"), QStringLiteral("True"), 0, OneHourAfter, {}, {}}
        << QList<Condition> {first} << false;
}

void tst_Conditions::setStatusCondition()
{
    QFETCH(QList<Condition>, existing);
    QFETCH(Condition, toAdd);
    QFETCH(QList<Condition>, expected);
    QFETCH(bool, changed);
    QJsonArray c = conditions(existing);
    QCOMPARE(qcm::meta::setStatusCondition(c, toAdd, Now), changed);
    QCOMPARE(c, conditions(expected));
}

void tst_Conditions::newConditionWithoutTimeGetsNow()
{
    QJsonArray c;
    QVERIFY(qcm::meta::setStatusCondition(c,
        {QStringLiteral("Ready"), QStringLiteral("False"), 1, {}, QStringLiteral("r"), {}}, Now));
    QCOMPARE(findStatusCondition(c, QStringLiteral("Ready"))->lastTransitionTime, Now);
    // A status change without a time takes now; without a change the time stays.
    QVERIFY(qcm::meta::setStatusCondition(c,
        {QStringLiteral("Ready"), QStringLiteral("True"), 1, {}, QStringLiteral("r"), {}},
        OneHourAfter));
    QCOMPARE(findStatusCondition(c, QStringLiteral("Ready"))->lastTransitionTime, OneHourAfter);
    QVERIFY(qcm::meta::setStatusCondition(
        c, {QStringLiteral("Ready"), QStringLiteral("True"), 2, {}, QStringLiteral("r"), {}}, Now));
    QCOMPARE(findStatusCondition(c, QStringLiteral("Ready"))->lastTransitionTime, OneHourAfter);
    QCOMPARE(findStatusCondition(c, QStringLiteral("Ready"))->observedGeneration, 2);
    // Without a clock given, now (UTC, whole seconds).
    QJsonArray d;
    QVERIFY(qcm::meta::setStatusCondition(
        d, {QStringLiteral("A"), QStringLiteral("True"), 0, {}, {}, {}}));
    const QDateTime t = findStatusCondition(d, QStringLiteral("A"))->lastTransitionTime;
    QVERIFY(qAbs(t.secsTo(QDateTime::currentDateTimeUtc())) < 5);
    QCOMPARE(t.time().msec(), 0);
}

void tst_Conditions::removeStatusCondition()
{
    QJsonArray c = conditions({{QStringLiteral("first"), QStringLiteral("True"), 0, Now, {}, {}},
        {QStringLiteral("second"), QStringLiteral("True"), 0, Now, {}, {}}});
    QVERIFY(qcm::meta::removeStatusCondition(c, QStringLiteral("second")));
    QCOMPARE(c.size(), 1);
    QVERIFY(!qcm::meta::removeStatusCondition(c, QStringLiteral("second")));
    QJsonArray empty;
    QVERIFY(!qcm::meta::removeStatusCondition(empty, QStringLiteral("x")));
}

void tst_Conditions::findAndPredicates()
{
    const QJsonArray c
        = conditions({{QStringLiteral("Ready"), QStringLiteral("True"), 0, Now, {}, {}},
            {QStringLiteral("Degraded"), QStringLiteral("False"), 0, Now, {}, {}},
            {QStringLiteral("Odd"), QStringLiteral("Unknown"), 0, Now, {}, {}}});
    QVERIFY(!findStatusCondition(c, QStringLiteral("Missing")));
    QVERIFY(isStatusConditionTrue(c, QStringLiteral("Ready")));
    QVERIFY(!isStatusConditionFalse(c, QStringLiteral("Ready")));
    QVERIFY(isStatusConditionFalse(c, QStringLiteral("Degraded")));
    QVERIFY(!isStatusConditionTrue(c, QStringLiteral("Odd"))
        && !isStatusConditionFalse(c, QStringLiteral("Odd")));
    QVERIFY(isStatusConditionPresentAndEqual(c, QStringLiteral("Odd"), QStringLiteral("Unknown")));
    QVERIFY(!isStatusConditionTrue(c, QStringLiteral("Missing")));
}

void tst_Conditions::onAnObject()
{
    client::Object foo(QJsonObject {
        {QStringLiteral("status"), QJsonObject {{QStringLiteral("availableReplicas"), 1}}}});
    QVERIFY(qcm::meta::setStatusCondition(foo,
        {QStringLiteral("Ready"), QStringLiteral("True"), 4, {}, QStringLiteral("Synced"),
            QStringLiteral("ok")},
        Now));
    QVERIFY(!qcm::meta::setStatusCondition(foo,
        {QStringLiteral("Ready"), QStringLiteral("True"), 4, {}, QStringLiteral("Synced"),
            QStringLiteral("ok")},
        OneHourAfter));
    const QJsonObject status = foo.json().value(QStringLiteral("status")).toObject();
    QCOMPARE(
        status.value(QStringLiteral("availableReplicas")).toInt(), 1); // the rest of status kept
    const QJsonObject ready
        = status.value(QStringLiteral("conditions")).toArray().first().toObject();
    QCOMPARE(ready.value(QStringLiteral("lastTransitionTime")).toString(),
        QStringLiteral("2026-11-26T10:00:00Z"));
    QCOMPARE(ready.value(QStringLiteral("observedGeneration")).toInt(), 4);
    QCOMPARE(qcm::meta::findStatusCondition(foo, QStringLiteral("Ready"))->reason,
        QStringLiteral("Synced"));
    QVERIFY(qcm::meta::removeStatusCondition(foo, QStringLiteral("Ready")));
    QVERIFY(!qcm::meta::findStatusCondition(foo, QStringLiteral("Ready")));
}

QTEST_APPLESS_MAIN(tst_Conditions)
#include "tst_conditions.moc"
