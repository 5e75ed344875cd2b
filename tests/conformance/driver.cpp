// SPDX-License-Identifier: Apache-2.0
// The qcm side of the conformance traces (README.md in this folder describes the format).
// Reads a trace on stdin, runs it on qcm::workqueue with a FakeClock (or, for a `deltafifo`
// trace, on qcm::cache::DeltaFifo: deltafifodriver.cpp), and prints one line per operation.
#include <qcm/fakeclock.h>
#include <qcm/workqueue/bucketratelimiter.h>
#include <qcm/workqueue/defaultratelimiters.h>
#include <qcm/workqueue/itemexponentialfailureratelimiter.h>
#include <qcm/workqueue/itemfastslowratelimiter.h>
#include <qcm/workqueue/maxofratelimiter.h>
#include <qcm/workqueue/ratelimitingqueue.h>
#include <qcm/workqueue/withmaxwaitratelimiter.h>

#include "deltafifodriver.h"
#include "traceparser.h"

#include <QtCore/QString>
#include <QtCore/QStringList>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <iostream>

using namespace qcm;
using namespace qcm::workqueue;
using namespace qcm::conformance;

namespace {

struct Parser : TraceParser
{
    RateLimiterPtr<QString> limiter(Clock *clock)
    {
        const QString kind = next();
        if (kind == QLatin1String("exponential")) {
            const Duration base = duration();
            const Duration max = duration();
            return std::make_unique<ItemExponentialFailureRateLimiter<QString>>(base, max);
        }
        if (kind == QLatin1String("fastslow")) {
            const Duration fast = duration();
            const Duration slow = duration();
            const int maxFast = int(integer());
            return std::make_unique<ItemFastSlowRateLimiter<QString>>(fast, slow, maxFast);
        }
        if (kind == QLatin1String("bucket")) {
            const double qps = number();
            const int burst = int(integer());
            return std::make_unique<BucketRateLimiter<QString>>(qps, burst, clock);
        }
        if (kind == QLatin1String("maxof")) {
            const qint64 n = integer();
            std::vector<RateLimiterPtr<QString>> all;
            for (qint64 i = 0; i < n; ++i)
                all.push_back(limiter(clock));
            return std::make_unique<MaxOfRateLimiter<QString>>(std::move(all));
        }
        if (kind == QLatin1String("maxwait")) {
            const Duration max = duration();
            return std::make_unique<WithMaxWaitRateLimiter<QString>>(limiter(clock), max);
        }
        if (kind == QLatin1String("default"))
            return defaultControllerRateLimiter<QString>(clock);
        fail(lineNumber, QStringLiteral("unknown limiter: %1").arg(kind));
    }
};

} // namespace

int main()
{
    FakeClock clock;
    QueueConfig config;
    config.clock = &clock;

    std::unique_ptr<Queue<QString>> queue;
    DelayingQueue<QString> *delaying = nullptr;
    RateLimitingQueue<QString> *rateLimiting = nullptr;
    RateLimiterPtr<QString> limiter;

    std::deque<QString> handedOut; // items get() returned and done() has not taken back
    int lineNumber = 0;
    bool haveSubject = false;
    while (auto next = nextTraceLine(std::cin, lineNumber)) {
        Parser p {std::move(*next)};
        const QString &line = p.line;
        const QString op = p.next();
        QString result = QStringLiteral("ok");

        auto needQueue = [&] {
            if (!queue)
                fail(lineNumber, QStringLiteral("%1 needs a queue").arg(op));
        };
        auto needDelaying = [&] {
            if (!delaying)
                fail(lineNumber, QStringLiteral("%1 needs a delaying queue").arg(op));
        };
        auto needRateLimited = [&] {
            if (!rateLimiting && !limiter)
                fail(lineNumber, QStringLiteral("%1 needs a rate limiter").arg(op));
        };

        if (!haveSubject) {
            haveSubject = true;
            if (op == QLatin1String("deltafifo"))
                return runDeltaFifoTrace(p, line, lineNumber);
            if (op == QLatin1String("queue")) {
                queue = std::make_unique<Queue<QString>>(config);
            } else if (op == QLatin1String("delaying")) {
                auto q = std::make_unique<DelayingQueue<QString>>(config);
                delaying = q.get();
                queue = std::move(q);
            } else if (op == QLatin1String("ratelimiting")) {
                auto q = std::make_unique<RateLimitingQueue<QString>>(p.limiter(&clock), config);
                rateLimiting = q.get();
                delaying = q.get();
                queue = std::move(q);
            } else if (op == QLatin1String("limiter")) {
                limiter = p.limiter(&clock);
            } else {
                fail(lineNumber,
                    QStringLiteral("the first line must name the subject, not %1").arg(op));
            }
        } else if (op == QLatin1String("add")) {
            needQueue();
            queue->add(p.next());
        } else if (op == QLatin1String("get")) {
            needQueue();
            if (queue->len() == 0 && !queue->shuttingDown()) {
                result = QStringLiteral("empty");
            } else {
                const auto item = queue->get();
                result = item ? *item : QStringLiteral("shutdown");
                if (item)
                    handedOut.push_back(*item);
            }
        } else if (op == QLatin1String("done")) {
            needQueue();
            const QString item = p.next();
            if (item == QLatin1String("^")) {
                if (handedOut.empty()) {
                    result = QStringLiteral("none");
                } else {
                    result = handedOut.front();
                    handedOut.pop_front();
                    queue->done(result);
                }
            } else {
                if (auto it = std::find(handedOut.begin(), handedOut.end(), item);
                    it != handedOut.end())
                    handedOut.erase(it);
                queue->done(item);
            }
        } else if (op == QLatin1String("len")) {
            needQueue();
            result = QString::number(queue->len());
        } else if (op == QLatin1String("shutdown")) {
            needQueue();
            queue->shutDown();
        } else if (op == QLatin1String("shuttingdown")) {
            needQueue();
            result = queue->shuttingDown() ? QStringLiteral("true") : QStringLiteral("false");
        } else if (op == QLatin1String("addafter")) {
            needDelaying();
            const QString item = p.next();
            delaying->addAfter(item, p.duration());
        } else if (op == QLatin1String("addratelimited")) {
            if (!rateLimiting)
                fail(lineNumber, QStringLiteral("addratelimited needs a rate-limiting queue"));
            rateLimiting->addRateLimited(p.next());
        } else if (op == QLatin1String("forget")) {
            needRateLimited();
            rateLimiting ? rateLimiting->forget(p.next()) : limiter->forget(p.next());
        } else if (op == QLatin1String("numrequeues")) {
            needRateLimited();
            const QString item = p.next();
            result = QString::number(
                rateLimiting ? rateLimiting->numRequeues(item) : limiter->numRequeues(item));
        } else if (op == QLatin1String("when")) {
            if (!limiter)
                fail(lineNumber, QStringLiteral("when needs a bare limiter"));
            result = QString::number(limiter->when(p.next()).count());
        } else if (op == QLatin1String("advance")) {
            clock.step(p.duration());
        } else {
            fail(lineNumber, QStringLiteral("unknown operation: %1").arg(op));
        }
        p.end();
        std::printf("%s -> %s\n", qPrintable(line), qPrintable(result));
    }
    return 0;
}
