// SPDX-License-Identifier: Apache-2.0
// ControllerContext: everything the host hands a controller plugin when it creates its
// Controller (ControllerPlugin::create, plugin.h).
//
//   controllerName()     the plugin's name from its metadata; names metrics, logs, the queue
//   informerFactory()    the host's shared informers: ask it for every informer, so that two
//                        controllers watching the same resource share one list+watch
//   restClient()         the host's REST client (blocking calls are safe from workers)
//   metricsRegistry()    the process's metrics, served on /metrics
//   eventRecorder()      writes core/v1 Events with client-go's correlation (record/), with
//                        source component = the controller's name
//   logCategory()        "qcm.controller.<name>", for qCDebug/qCInfo/qCWarning
//   settings()           the free-form `settings` map of controller-manager.yaml for this
//                        controller, as QVariants: YAML maps become QVariantMap, sequences
//                        QVariantList, and plain scalars bool, qint64, double or QString by
//                        YAML 1.2's core schema (a quoted scalar stays a string);
//                        requireKnownSettings() refuses keys the controller does not read
//   workers()            how many reconciles may run at once (>= 1)
//   resyncPeriod()       how often handlers get every cached object again; zero: never
//   clock()              the time source (Clock::system(); tests pass a FakeClock)
//   leaderToken()        for a controller that runs only on the leader, the leadership term
//                        it was created in; the Controller base class reconciles only while
//                        it is valid (controller.h). None: it runs regardless of leadership
//   shardFilter()        for a sharded controller, its scale-out group's filter: the
//                        Controller enqueues and starts only the keys this replica owns
//                        (sharding/shardfilter.h, docs/scale-out.md). Null: not sharded
//
// The host fills a context in with the setters; plugins only read it. Any pointer may be null
// in a unit test that does not need it; the host sets all of them.
//
// Thread safety: a value (copies share their data). Reading is safe from any thread; the
// setters are for whoever builds the context, before handing it over.
#pragma once

#include <qcm/clock.h>
#include <qcm/error.h>
#include <qcm/global.h>
#include <qcm/leaderelection/leadertoken.h>

#include <QtCore/QString>
#include <QtCore/QVariantMap>

#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QLoggingCategory;
QT_END_NAMESPACE

namespace qcm {

namespace cache {
class SharedInformerFactory;
}
namespace client {
class RestClient;
}
namespace metrics {
class Registry;
}
namespace sharding {
class ShardFilter;
}
namespace record {
class EventRecorder;
}

class QCM_SDK_EXPORT ControllerContext
{
public:
    explicit ControllerContext(const QString &controllerName = {});
    ControllerContext(const ControllerContext &other);
    ControllerContext &operator=(const ControllerContext &other);
    ~ControllerContext();

    QString controllerName() const;
    cache::SharedInformerFactory *informerFactory() const;
    client::RestClient *restClient() const;
    metrics::Registry *metricsRegistry() const;
    // Shared with the host's EventBroadcaster; null in unit tests that set none (use
    // record::FakeRecorder there).
    std::shared_ptr<record::EventRecorder> eventRecorder() const;
    // eventRecorder(), for a controller that records Events: throws std::invalid_argument
    // naming the controller when the context has none (a plugin factory's exception is the
    // reason the host shows for the failed plugin).
    std::shared_ptr<record::EventRecorder> requireEventRecorder() const;
    const QLoggingCategory &logCategory() const;
    QVariantMap settings() const;
    // For a plugin factory: throws std::invalid_argument with unknownSetting()'s message when
    // settings() has a key not in `known`, so that a misspelt setting is an error rather than
    // silently ignored.
    void requireKnownSettings(const QStringList &known) const;
    int workers() const;
    Duration resyncPeriod() const;
    Clock *clock() const;
    std::optional<leaderelection::LeaderToken> leaderToken() const;
    std::shared_ptr<sharding::ShardFilter> shardFilter() const;

    void setInformerFactory(cache::SharedInformerFactory *factory);
    void setRestClient(client::RestClient *client);
    void setMetricsRegistry(metrics::Registry *registry);
    void setEventRecorder(std::shared_ptr<record::EventRecorder> recorder);
    void setSettings(const QVariantMap &settings);
    // Values below 1 are raised to 1.
    void setWorkers(int workers);
    void setResyncPeriod(Duration period);
    // Null means Clock::system().
    void setClock(Clock *clock);
    // The term this controller leads in (the host sets it for the controllers that need leader
    // election, on the leader); nullopt: not tied to leadership.
    void setLeaderToken(std::optional<leaderelection::LeaderToken> token);
    void setShardFilter(std::shared_ptr<sharding::ShardFilter> filter);

private:
    struct Private;
    void detach();
    std::shared_ptr<Private> d;
};

// The first key of `settings` not in `known`, as an Error naming it:
// "settings.propagation: unknown setting; the settings here are propagationPolicy".
QCM_SDK_EXPORT std::optional<Error> unknownSetting(
    const QVariantMap &settings, const QStringList &known);

} // namespace qcm
