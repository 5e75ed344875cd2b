// SPDX-License-Identifier: Apache-2.0
// Writes a representative exposition to stdout for `promtool check metrics`: every metric
// type, labels that need escaping, and the work-queue metrics of a queue that did work.
#include <qcm/fakeclock.h>
#include <qcm/metrics/builder.h>
#include <qcm/metrics/textserializer.h>
#include <qcm/workqueue/prometheusmetrics.h>
#include <qcm/workqueue/ratelimitingqueue.h>

#include <cstdio>

using namespace std::chrono_literals;

int main()
{
    qcm::metrics::Registry registry;
    qcm::workqueue::PrometheusMetricsProvider provider(registry);
    qcm::FakeClock clock;
    qcm::workqueue::QueueConfig config;
    config.name = QStringLiteral("sample");
    config.clock = &clock;
    config.metricsProvider = &provider;
    {
        qcm::workqueue::RateLimitingQueue<QString> queue(
            qcm::workqueue::defaultControllerRateLimiter<QString>(&clock), config);
        for (int i = 0; i < 20; ++i)
            queue.add(QStringLiteral("ns/item-%1").arg(i));
        clock.step(3ms);
        for (int i = 0; i < 10; ++i) {
            const auto key = queue.get();
            clock.step(std::chrono::milliseconds(i));
            queue.addRateLimited(*key);
            queue.done(*key);
        }
        clock.step(1s);
    }

    auto &reconciles = qcm::metrics::buildCounter()
                           .name(QStringLiteral("qcm_reconcile_total"))
                           .help(QStringLiteral("Reconciles by controller and result."))
                           .registerIn(registry);
    reconciles
        .add({{QStringLiteral("controller"), QStringLiteral("sample")},
            {QStringLiteral("result"), QStringLiteral("success")}})
        .increment(7);
    reconciles
        .add({{QStringLiteral("controller"), QStringLiteral("we\"ird\\name\n")},
            {QStringLiteral("result"), QStringLiteral("error")}})
        .increment();
    qcm::metrics::buildGauge()
        .name(QStringLiteral("qcm_build_info"))
        .help(QStringLiteral("Build information; the value is always 1."))
        .labels({{QStringLiteral("version"), QStringLiteral("0.1.0")}})
        .registerIn(registry)
        .add({})
        .set(1);
    qcm::metrics::buildHistogram()
        .name(QStringLiteral("qcm_reconcile_duration_seconds"))
        .help(QStringLiteral("Reconcile latency."))
        .registerIn(registry)
        .add({{QStringLiteral("controller"), QStringLiteral("sample")}},
            qcm::metrics::exponentialBuckets(0.001, 2, 15))
        .observe(0.042);

    const QByteArray text = qcm::metrics::TextSerializer::serialize(registry.collect());
    std::fwrite(text.constData(), 1, size_t(text.size()), stdout);
    return 0;
}
