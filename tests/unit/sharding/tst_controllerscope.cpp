// SPDX-License-Identifier: Apache-2.0
// ControllerScope on fake locks and a fake clock (one Lease per controller): a member alone
// holds every controller; in an epoch of three it holds exactly those placed on it, handing
// the others back (their terms end, their Leases are released) without ever campaigning for
// them; a controller placed on it whose Lease another holds is taken once that Lease expires;
// a member outside the epoch holds nothing; stop() releases all and finishes; setControllers()
// hands back a controller taken out and places one added.
#include <qcm/sharding/controllerscope.h>
#include <qcm/sharding/placement.h>

#include "../leaderelection/fakelock.h"

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::leaderelection;
using namespace qcm::leaderelection::testing;
using namespace qcm::sharding;
using namespace std::chrono_literals;

namespace {

const QStringList Controllers {QStringLiteral("alpha"), QStringLiteral("beta"),
    QStringLiteral("gamma"), QStringLiteral("delta"), QStringLiteral("epsilon")};
const QStringList Members {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};

struct Scope
{
    FakeClock clock;
    std::map<QString, std::shared_ptr<FakeLock>> locks;
    std::unique_ptr<ControllerScope> scope;
    QStringList started;
    QStringList stopped;
    int finished = 0;

    Scope()
    {
        for (const QString &controller : Controllers)
            locks[controller] = std::make_shared<FakeLock>(QStringLiteral("a"), &clock);
        auto created = ControllerScope::create(
            {Controllers, [this](const QString &controller) {
                 LeaderElectionConfig config;
                 std::shared_ptr<FakeLock> &lock = locks[controller];
                 if (!lock) // a controller added later
                     lock = std::make_shared<FakeLock>(QStringLiteral("a"), &clock);
                 config.lock = lock;
                 config.clock = &clock;
                 config.name = controller;
                 config.leaseDuration = 15s;
                 config.renewDeadline = 2s;
                 config.retryPeriod = 1s;
                 config.watchLock = false;
                 return config;
             }});
        if (!created)
            qFatal("%s", qPrintable(created.error().toString()));
        scope = std::move(*created);
        QObject::connect(scope.get(), &ControllerScope::controllerStarted,
            [this](const QString &c, const LeaderToken &) { started << c; });
        QObject::connect(scope.get(), &ControllerScope::controllerStopped,
            [this](const QString &c) { stopped << c; });
        QObject::connect(scope.get(), &ControllerScope::finished, [this] { ++finished; });
    }

    // Lets the electors run for `seconds` of the fake clock.
    void run(int seconds)
    {
        for (int i = 0; i <= seconds; ++i) {
            for (int j = 0; j < 20; ++j)
                QCoreApplication::sendPostedEvents();
            clock.step(1s);
        }
        for (int j = 0; j < 20; ++j)
            QCoreApplication::sendPostedEvents();
    }

    // The controllers whose Lease names `holder`.
    QStringList heldBy(const QString &holder) const
    {
        QStringList out;
        for (const auto &[controller, lock] : locks)
            if (lock->stored && lock->stored->holderIdentity == holder)
                out << controller;
        return out;
    }
};

QStringList sorted(QStringList list)
{
    list.sort();
    return list;
}

} // namespace

class tst_ControllerScope : public QObject
{
    Q_OBJECT

private slots:
    void aloneItHoldsEveryController();
    void itHoldsWhatIsPlacedOnItAndHandsBackTheRest();
    void aLeaseHeldElsewhereIsTakenWhenItExpires();
    void outsideTheEpochItHoldsNothing();
    void stopReleasesEverything();
    void setControllersPlacesWhatIsEnabled();
};

void tst_ControllerScope::aloneItHoldsEveryController()
{
    Scope s;
    s.run(2);
    QVERIFY(s.started.isEmpty()); // no epoch yet: no campaign
    s.scope->setMembers({QStringLiteral("a")}, QStringLiteral("a"));
    s.run(2);
    QCOMPARE(sorted(s.started), sorted(Controllers));
    QCOMPARE(s.scope->held(), sorted(Controllers));
    QCOMPARE(s.heldBy(QStringLiteral("a")), sorted(Controllers));
}

void tst_ControllerScope::itHoldsWhatIsPlacedOnItAndHandsBackTheRest()
{
    Scope s;
    s.scope->setMembers({QStringLiteral("a")}, QStringLiteral("a"));
    s.run(2);
    QCOMPARE(s.scope->held().size(), Controllers.size());

    // b and c join: a keeps its part, hands back the rest at once, and renews what it keeps.
    const QStringList mine = assignControllers(Members, Controllers).value(QStringLiteral("a"));
    QCOMPARE(mine.size(), controllerQuota(Members, QStringLiteral("a"), Controllers.size()));
    s.scope->setMembers(Members, QStringLiteral("a"));
    s.run(0);
    QCOMPARE(s.scope->placed(), mine);
    QCOMPARE(s.scope->held(), mine);
    QStringList handedBack = Controllers;
    for (const QString &c : mine)
        handedBack.removeAll(c);
    QCOMPARE(sorted(s.stopped), sorted(handedBack));
    QCOMPARE(s.heldBy(QStringLiteral("a")), mine);
    QCOMPARE(sorted(s.heldBy(QString())), sorted(handedBack)); // released: holder ""
    s.run(20); // and it does not campaign for them again
    QCOMPARE(s.heldBy(QStringLiteral("a")), mine);
    QCOMPARE(s.started.size(), Controllers.size());
}

void tst_ControllerScope::aLeaseHeldElsewhereIsTakenWhenItExpires()
{
    Scope s;
    const QStringList mine = assignControllers(Members, Controllers).value(QStringLiteral("a"));
    QVERIFY(!mine.isEmpty());
    const QString taken = mine.first();
    s.locks.at(taken)->writeByOther(holder(QStringLiteral("c"), 15)); // c, which then crashed
    s.scope->setMembers(Members, QStringLiteral("a"));
    s.run(5);
    QVERIFY(!s.scope->held().contains(taken));
    QCOMPARE(s.locks.at(taken)->stored->holderIdentity, QStringLiteral("c"));
    s.run(15); // the lease expires as observed
    QCOMPARE(s.scope->held(), mine);
    QCOMPARE(s.locks.at(taken)->stored->holderIdentity, QStringLiteral("a"));
}

void tst_ControllerScope::outsideTheEpochItHoldsNothing()
{
    Scope s;
    s.scope->setMembers({QStringLiteral("b"), QStringLiteral("c")}, QStringLiteral("a"));
    s.run(5);
    QVERIFY(s.scope->placed().isEmpty());
    QVERIFY(s.started.isEmpty());
    for (const auto &[controller, lock] : s.locks)
        QVERIFY(lock->ops.isEmpty()); // never even read
}

void tst_ControllerScope::stopReleasesEverything()
{
    Scope s;
    s.scope->setMembers({QStringLiteral("a")}, QStringLiteral("a"));
    s.run(2);
    s.scope->stop();
    s.run(1);
    QCOMPARE(s.finished, 1);
    QCOMPARE(sorted(s.stopped), sorted(Controllers));
    QCOMPARE(sorted(s.heldBy(QString())), sorted(Controllers));
    QVERIFY(s.scope->held().isEmpty());
}

// A controller taken out of the list is handed back like one placed elsewhere; one added (or
// back) gets an elector and is held where the placement puts it.
void tst_ControllerScope::setControllersPlacesWhatIsEnabled()
{
    Scope s;
    s.scope->setMembers({QStringLiteral("a")}, QStringLiteral("a"));
    s.run(2);
    const QString zeta = QStringLiteral("zeta");
    QStringList fewer = Controllers;
    fewer.removeAll(QStringLiteral("beta"));
    QVERIFY(!s.scope->setControllers(fewer + QStringList {zeta}));
    s.run(2);
    QCOMPARE(s.scope->controllers(), sorted(fewer + QStringList {zeta}));
    QCOMPARE(s.stopped, QStringList {QStringLiteral("beta")});
    QCOMPARE(s.heldBy(QString()), QStringList {QStringLiteral("beta")}); // released
    QCOMPARE(s.scope->held(), sorted(fewer + QStringList {zeta}));
    QCOMPARE(s.locks.at(zeta)->stored->holderIdentity, QStringLiteral("a"));

    QVERIFY(!s.scope->setControllers(Controllers)); // beta back, zeta gone
    s.run(2);
    QCOMPARE(s.scope->held(), sorted(Controllers));
    QCOMPARE(s.stopped, (QStringList {QStringLiteral("beta"), zeta}));
}

QTEST_MAIN(tst_ControllerScope)
#include "tst_controllerscope.moc"
