// SPDX-License-Identifier: Apache-2.0
// FakeElections: a real LeaderElector on a FakeLock and a fake clock of its own, in rejoin mode
// (leaseDuration 15 s, renewDeadline 2 s, retryPeriod 1 s), for the tests of what runs during
// a term (the Controller, the host's ControllerManager): terms holds the LeaderToken of each
// term it started. The elector runs on the test's thread; waitForTerms() runs it.
//
// Step the clock past renewDeadline to end a term at once (as a pause would): the token is
// invalid before the elector has even run again; the elector then steps down and, being the
// only candidate, starts the next term.
#pragma once

#include "fakelock.h"

#include <qcm/leaderelection/leaderelector.h>

#include <QtCore/QCoreApplication>

namespace qcm::leaderelection::testing {

struct FakeElections
{
    FakeClock clock;
    std::shared_ptr<FakeLock> lock = std::make_shared<FakeLock>(QStringLiteral("me"), &clock);
    std::unique_ptr<LeaderElector> elector;
    QList<LeaderToken> terms;

    FakeElections()
    {
        LeaderElectionConfig config;
        config.lock = lock;
        config.clock = &clock;
        config.name = QStringLiteral("test");
        config.leaseDuration = std::chrono::seconds(15);
        config.renewDeadline = std::chrono::seconds(2);
        config.retryPeriod = std::chrono::seconds(1);
        config.watchLock = false;
        config.mode = LeaderElectionConfig::Mode::Rejoin;
        config.exitProcess = [](int) { qFatal("the elector exited in rejoin mode"); };
        auto created = LeaderElector::create(config);
        if (!created)
            qFatal("%s", qPrintable(created.error().toString()));
        elector = std::move(*created);
        QObject::connect(elector.get(), &LeaderElector::startedLeading,
            [this](const LeaderToken &token) { terms << token; });
        elector->run();
    }
    ~FakeElections() { elector->stop(); }
    FakeElections(const FakeElections &) = delete;
    FakeElections &operator=(const FakeElections &) = delete;

    // Runs the elector (the lock's replies and its timers are queued calls) until `n` terms
    // have started, moving the clock on a retry period at a time.
    bool waitForTerms(int n)
    {
        for (int i = 0; i < 50 && terms.size() < n; ++i) {
            for (int j = 0; j < 20; ++j)
                QCoreApplication::sendPostedEvents();
            if (terms.size() < n)
                clock.step(std::chrono::seconds(1));
        }
        return terms.size() >= n;
    }
};

} // namespace qcm::leaderelection::testing
