// SPDX-License-Identifier: Apache-2.0
// Result<T, E> and Error: values, errors, and safe use of temporaries.
#include <qcm/result.h>

#include <QtCore/QStringList>
#include <QtTest/QtTest>

using qcm::Error;
using qcm::Result;

namespace {
Result<QStringList> names(bool ok)
{
    if (!ok)
        return Error {QStringLiteral("f.yaml"), QStringLiteral("a.b"), QStringLiteral("is wrong")};
    return QStringList {QStringLiteral("x"), QStringLiteral("y")};
}
} // namespace

class tst_Result : public QObject
{
    Q_OBJECT

private slots:
    void valueAndError();
    void iteratingATemporaryIsSafe();
    void errorText();
};

void tst_Result::valueAndError()
{
    auto good = names(true);
    QVERIFY(good.ok());
    QCOMPARE(good->size(), 2);
    auto bad = names(false);
    QVERIFY(!bad);
    QCOMPARE(bad.error().field, QStringLiteral("a.b"));
}

// Under ASan this would be a use-after-free if operator* on a temporary returned a reference.
void tst_Result::iteratingATemporaryIsSafe()
{
    QString joined;
    for (const QString &name : *names(true))
        joined += name;
    QCOMPARE(joined, QStringLiteral("xy"));
    const QStringList moved = names(true).value();
    QCOMPARE(moved.size(), 2);
}

void tst_Result::errorText()
{
    QCOMPARE(names(false).error().toString(), QStringLiteral("f.yaml: a.b: is wrong"));
    QCOMPARE((Error {{}, {}, QStringLiteral("only a reason")}.toString()),
        QStringLiteral("only a reason"));
    QCOMPARE(Error {}.toString(), QStringLiteral("unknown error"));
}

QTEST_GUILESS_MAIN(tst_Result)
#include "tst_result.moc"
