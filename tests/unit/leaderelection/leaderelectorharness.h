// SPDX-License-Identifier: Apache-2.0
// LeaderElectorHarness: one LeaderElector named "foo" of identity "baz" on a FakeLock and a
// FakeClock (leaseDuration 15 s, renewDeadline 2 s, retryPeriod 1 s, no watch), with the
// signals it emitted, and its private steps (tryAcquireOrRenew, tryCoordinatedRenew,
// release) called one at a time as client-go's tests call them. For the elector's unit tests.
#pragma once

#include <qcm/fakeclock.h>
#include <qcm/leaderelection/leaderelector.h>

#include "../../../sdk/src/leaderelection/leaderelector_p.h"
#include "fakelock.h"

#include <QtCore/QCoreApplication>

#include <functional>
#include <memory>
#include <optional>

using namespace std::chrono_literals;

// Delivers everything queued for this thread: lock results and timers reach the elector as
// queued calls.
inline void settle()
{
    for (int i = 0; i < 20; ++i)
        QCoreApplication::sendPostedEvents();
}

using namespace qcm;
using namespace qcm::leaderelection;
using namespace qcm::leaderelection::testing;

struct LeaderElectorHarness
{
    FakeClock clock;
    std::shared_ptr<FakeLock> lock = std::make_shared<FakeLock>(QStringLiteral("baz"), &clock);
    std::unique_ptr<LeaderElector> elector;
    QStringList signalsSeen;
    int exits = 0;

    explicit LeaderElectorHarness(std::function<void(LeaderElectionConfig &)> tweak = {})
    {
        LeaderElectionConfig config;
        config.lock = lock;
        config.clock = &clock;
        config.name = QStringLiteral("foo");
        config.leaseDuration = 15s;
        config.renewDeadline = 2s;
        config.retryPeriod = 1s;
        config.watchLock = false;
        config.exitProcess = [this](int) { ++exits; };
        if (tweak)
            tweak(config);
        auto created = LeaderElector::create(config);
        if (!created)
            qFatal("%s", qPrintable(created.error().toString()));
        elector = std::move(*created);
        QObject::connect(elector.get(), &LeaderElector::startedLeading,
            [this](const LeaderToken &) { signalsSeen << QStringLiteral("started"); });
        QObject::connect(elector.get(), &LeaderElector::stoppedLeading,
            [this] { signalsSeen << QStringLiteral("stopped"); });
        QObject::connect(elector.get(), &LeaderElector::newLeader,
            [this](const QString &id) { signalsSeen << QStringLiteral("new ") + id; });
        QObject::connect(elector.get(), &LeaderElector::finished,
            [this] { signalsSeen << QStringLiteral("finished"); });
    }

    LeaderElector::Private &d() { return *elector->d; }
    static LeaderElector::Private &d(LeaderElector &e) { return *e.d; }

    void advance(Duration step)
    {
        clock.step(step);
        settle();
    }

    // One tryAcquireOrRenew, as client-go's tests call it.
    bool tryAcquireOrRenew()
    {
        return step("tryAcquireOrRenew", [this](std::function<void(bool)> done) {
            elector->tryAcquireOrRenew(++d().attempt, std::move(done));
        });
    }

    // One tryCoordinatedRenew (KEP-4355), as client-go's coordinated tests call it.
    bool tryCoordinatedRenew()
    {
        return step("tryCoordinatedRenew", [this](std::function<void(bool)> done) {
            elector->tryCoordinatedRenew(++d().attempt, std::move(done));
        });
    }

    bool release()
    {
        return step("release",
            [this](std::function<void(bool)> done) { elector->release(std::move(done)); });
    }

    // Starts one step of the elector and delivers its results: whether it succeeded.
    bool step(const char *name, const std::function<void(std::function<void(bool)>)> &start)
    {
        std::optional<bool> result;
        start([&](bool ok) { result = ok; });
        settle();
        if (!result)
            qFatal("%s did not finish", name);
        return *result;
    }

    void seedObserved(const LeaderElectionRecord &record, TimePoint observedTime)
    {
        std::lock_guard guard(d().mutex);
        d().observedRecord = record;
        d().observedRawRecord = rawOf(record);
        d().observedTime = observedTime;
    }

    // The Leading state without a term (or back to Idle), for one step's test.
    void setLeading(bool leading)
    {
        d().setState(
            leading ? LeaderElector::Private::State::Leading : LeaderElector::Private::State::Idle);
    }

    LeaderElectionRecord observed()
    {
        std::lock_guard guard(d().mutex);
        return d().observedRecord;
    }

    void reportTransition() { elector->maybeReportTransition(); }
};
