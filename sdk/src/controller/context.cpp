// SPDX-License-Identifier: Apache-2.0
#include <qcm/context.h>

#include <qcm/record/eventrecorder.h>
#include <qcm/sharding/shardfilter.h>

#include <QtCore/QLoggingCategory>

#include <stdexcept>

namespace qcm {

namespace {

// A logging category owns no copy of its name: the name lives beside it.
struct NamedCategory
{
    explicit NamedCategory(const QString &controllerName)
        : name(QByteArrayLiteral("qcm.controller.")
            + (controllerName.isEmpty() ? QByteArrayLiteral("unnamed") : controllerName.toUtf8()))
        , category(name.constData())
    { }

    const QByteArray name;
    QLoggingCategory category;
};

} // namespace

struct ControllerContext::Private
{
    QString controllerName;
    std::shared_ptr<const NamedCategory> logCategory;
    cache::SharedInformerFactory *informerFactory = nullptr;
    client::RestClient *restClient = nullptr;
    metrics::Registry *metricsRegistry = nullptr;
    std::shared_ptr<record::EventRecorder> eventRecorder;
    QVariantMap settings;
    int workers = 1;
    Duration resyncPeriod {0};
    Clock *clock = nullptr;
    std::optional<leaderelection::LeaderToken> leaderToken;
    std::shared_ptr<sharding::ShardFilter> shardFilter;
};

ControllerContext::ControllerContext(const QString &controllerName) : d(std::make_shared<Private>())
{
    d->controllerName = controllerName;
    d->logCategory = std::make_shared<const NamedCategory>(controllerName);
}

ControllerContext::ControllerContext(const ControllerContext &other) = default;
ControllerContext &ControllerContext::operator=(const ControllerContext &other) = default;
ControllerContext::~ControllerContext() = default;

void ControllerContext::detach()
{
    if (d.use_count() > 1)
        d = std::make_shared<Private>(*d);
}

QString ControllerContext::controllerName() const
{
    return d->controllerName;
}

cache::SharedInformerFactory *ControllerContext::informerFactory() const
{
    return d->informerFactory;
}

client::RestClient *ControllerContext::restClient() const
{
    return d->restClient;
}

metrics::Registry *ControllerContext::metricsRegistry() const
{
    return d->metricsRegistry;
}

std::shared_ptr<record::EventRecorder> ControllerContext::eventRecorder() const
{
    return d->eventRecorder;
}

std::shared_ptr<record::EventRecorder> ControllerContext::requireEventRecorder() const
{
    if (!d->eventRecorder)
        throw std::invalid_argument(
            QStringLiteral("%1 records Events, and its context has no event recorder "
                           "(ControllerContext::eventRecorder())")
                .arg(controllerName())
                .toStdString());
    return d->eventRecorder;
}

void ControllerContext::requireKnownSettings(const QStringList &known) const
{
    if (const std::optional<Error> error = unknownSetting(settings(), known))
        throw std::invalid_argument(error->toString().toStdString());
}

std::optional<Error> unknownSetting(const QVariantMap &settings, const QStringList &known)
{
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        if (known.contains(it.key()))
            continue;
        return Error {QString(), QStringLiteral("settings.") + it.key(),
            known.isEmpty() ? QStringLiteral("unknown setting; this controller has no settings")
                            : QStringLiteral("unknown setting; the settings here are %1")
                                  .arg(known.join(QStringLiteral(", ")))};
    }
    return std::nullopt;
}

const QLoggingCategory &ControllerContext::logCategory() const
{
    return d->logCategory->category;
}

QVariantMap ControllerContext::settings() const
{
    return d->settings;
}

int ControllerContext::workers() const
{
    return d->workers;
}

Duration ControllerContext::resyncPeriod() const
{
    return d->resyncPeriod;
}

Clock *ControllerContext::clock() const
{
    return d->clock ? d->clock : Clock::system();
}

std::optional<leaderelection::LeaderToken> ControllerContext::leaderToken() const
{
    return d->leaderToken;
}

std::shared_ptr<sharding::ShardFilter> ControllerContext::shardFilter() const
{
    return d->shardFilter;
}

void ControllerContext::setInformerFactory(cache::SharedInformerFactory *factory)
{
    detach();
    d->informerFactory = factory;
}

void ControllerContext::setRestClient(client::RestClient *client)
{
    detach();
    d->restClient = client;
}

void ControllerContext::setMetricsRegistry(metrics::Registry *registry)
{
    detach();
    d->metricsRegistry = registry;
}

void ControllerContext::setEventRecorder(std::shared_ptr<record::EventRecorder> recorder)
{
    detach();
    d->eventRecorder = std::move(recorder);
}

void ControllerContext::setSettings(const QVariantMap &settings)
{
    detach();
    d->settings = settings;
}

void ControllerContext::setWorkers(int workers)
{
    detach();
    d->workers = std::max(1, workers);
}

void ControllerContext::setResyncPeriod(Duration period)
{
    detach();
    d->resyncPeriod = std::max(Duration::zero(), period);
}

void ControllerContext::setClock(Clock *clock)
{
    detach();
    d->clock = clock;
}

void ControllerContext::setLeaderToken(std::optional<leaderelection::LeaderToken> token)
{
    detach();
    d->leaderToken = std::move(token);
}

void ControllerContext::setShardFilter(std::shared_ptr<sharding::ShardFilter> filter)
{
    detach();
    d->shardFilter = std::move(filter);
}

} // namespace qcm
