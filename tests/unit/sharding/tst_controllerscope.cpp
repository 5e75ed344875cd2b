// SPDX-License-Identifier: Apache-2.0
// ControllerScope on fake locks and a fake clock (one Lease per controller): a member alone
// holds every controller; in an epoch of three it holds exactly those placed on it, handing
// the others back (their terms end, their Leases are released) without ever campaigning for
// them; a controller placed on it whose Lease another holds is taken once that Lease expires;
// a member outside the epoch holds nothing; stop() releases all and finishes; setControllers()
// hands back a controller taken out and places one added. Coordinated: a candidate is
// registered for each controller placed here before its elector runs, the elector never
// claims a Lease (the test writes the holder, as the election controller does), and a
// controller placed elsewhere keeps running until its candidate is withdrawn, and only then is
// its Lease released.
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
    QStringList candidates; // "register <controller>", "withdraw <controller>", in order
    std::map<QString, std::function<void()>> withdrawing; // by controller: its `done`

    explicit Scope(bool coordinated = false)
    {
        for (const QString &controller : Controllers)
            locks[controller] = std::make_shared<FakeLock>(QStringLiteral("a"), &clock);
        ControllerScope::Config config;
        config.controllers = Controllers;
        if (coordinated) {
            config.registerCandidate = [this](const QString &controller) {
                candidates << QStringLiteral("register ") + controller;
            };
            config.withdrawCandidate
                = [this](const QString &controller, std::function<void()> done) {
                      candidates << QStringLiteral("withdraw ") + controller;
                      withdrawing[controller] = std::move(done);
                  };
        }
        config.electorFor = [this](const QString &controller) {
            LeaderElectionConfig elector;
            std::shared_ptr<FakeLock> &lock = locks[controller];
            if (!lock) // a controller added later
                lock = std::make_shared<FakeLock>(QStringLiteral("a"), &clock);
            elector.lock = lock;
            elector.clock = &clock;
            elector.name = controller;
            elector.leaseDuration = 15s;
            elector.renewDeadline = 2s;
            elector.retryPeriod = 1s;
            elector.watchLock = false;
            return elector;
        };
        auto created = ControllerScope::create(std::move(config));
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
    void coordinatedACandidateComesBeforeTheTermAndGoesBeforeTheRelease();
    void coordinatedCandidatesGoTogether();
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

void tst_ControllerScope::coordinatedACandidateComesBeforeTheTermAndGoesBeforeTheRelease()
{
    Scope s(true);
    const QString a = QStringLiteral("a");
    s.scope->setMembers({a}, a);
    QStringList registered;
    for (const QString &c : sorted(Controllers))
        registered << QStringLiteral("register ") + c;
    QCOMPARE(s.candidates, registered);
    s.run(3);
    QVERIFY(s.started.isEmpty()); // it never claims a Lease
    for (const auto &[controller, lock] : s.locks)
        QVERIFY(!lock->ops.contains(QStringLiteral("create")));
    for (const QString &c : Controllers) // the election controller writes the holder
        s.locks.at(c)->writeByOther(holder(a, 15));
    s.run(2);
    QCOMPARE(s.scope->held(), sorted(Controllers));

    // b and c join: what is placed elsewhere has its candidate withdrawn first, and runs on
    // until that is over; then its term ends and its Lease is released.
    const QStringList mine = assignControllers(Members, Controllers).value(a);
    s.candidates.clear();
    s.scope->setMembers(Members, a);
    s.run(3);
    QStringList handedBack = Controllers;
    for (const QString &c : mine)
        handedBack.removeAll(c);
    QStringList withdrawn;
    for (const QString &c : sorted(handedBack))
        withdrawn << QStringLiteral("withdraw ") + c;
    QCOMPARE(s.candidates, withdrawn);
    QCOMPARE(s.scope->held(), sorted(Controllers)); // still running: not yet withdrawn
    QVERIFY(s.stopped.isEmpty());
    const QString first = sorted(handedBack).first();
    std::exchange(s.withdrawing[first], nullptr)();
    s.run(0);
    QCOMPARE(s.stopped, QStringList {first});
    QCOMPARE(s.locks.at(first)->stored->holderIdentity, QString()); // released
    for (const QString &c : handedBack)
        if (auto done = std::exchange(s.withdrawing[c], nullptr))
            done();
    s.run(0);
    QCOMPARE(s.scope->held(), mine);
    QCOMPARE(sorted(s.stopped), sorted(handedBack));

    // Placed here again while withdrawn: registered again.
    s.candidates.clear();
    s.scope->setMembers({a}, a);
    QCOMPARE(s.candidates.size(), handedBack.size());
    QVERIFY(s.candidates.first().startsWith(QStringLiteral("register ")));

    // stop(): every candidate is withdrawn, and finished() waits for that.
    s.candidates.clear();
    s.scope->stop();
    s.run(1);
    QCOMPARE(s.finished, 0);
    QCOMPARE(s.candidates.size(), Controllers.size());
    for (auto &[c, done] : s.withdrawing)
        if (done)
            std::exchange(done, nullptr)();
    s.run(1);
    QCOMPARE(s.finished, 1);
    QVERIFY(s.scope->held().isEmpty());
}

void tst_ControllerScope::coordinatedCandidatesGoTogether()
{
    ControllerScope::Config config;
    config.controllers = Controllers;
    config.electorFor = [](const QString &) { return LeaderElectionConfig(); };
    config.registerCandidate = [](const QString &) {};
    auto created = ControllerScope::create(std::move(config));
    QVERIFY(!created);
    QCOMPARE(created.error().field, QStringLiteral("candidates"));
}

QTEST_MAIN(tst_ControllerScope)
#include "tst_controllerscope.moc"
