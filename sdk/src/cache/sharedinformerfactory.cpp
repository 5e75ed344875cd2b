// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/sharedinformerfactory.h>

namespace qcm::cache {

SharedInformerFactory::SharedInformerFactory(
    client::RestClient *client, Duration defaultResync, QObject *parent)
    : SharedInformerFactory(
        [client](const client::GroupVersionResource &resource, const InformerOptions &options) {
            return std::make_unique<RestListerWatcher>(client, resource, options.namespaceName,
                options.labelSelector, options.fieldSelector, options.metadataOnly);
        },
        defaultResync, nullptr, parent)
{ }

SharedInformerFactory::SharedInformerFactory(
    ListerWatcherFactory listerWatchers, Duration defaultResync, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_listerWatchers(std::move(listerWatchers))
    , m_defaultResync(defaultResync)
    , m_clock(clock)
{ }

SharedInformerFactory::~SharedInformerFactory()
{
    shutdown();
}

SharedIndexInformer *SharedInformerFactory::informerFor(
    const client::GroupVersionResource &resource)
{
    return informerFor(resource, InformerOptions());
}

SharedIndexInformer *SharedInformerFactory::informerFor(
    const client::GroupVersionResource &resource, const InformerOptions &options)
{
    std::lock_guard lock(m_mutex);
    const Key key {resource.group, resource.version, resource.resource, options.namespaceName,
        options.labelSelector, options.fieldSelector, options.metadataOnly};
    auto it = m_informers.find(key);
    if (it == m_informers.end()) {
        Entry entry;
        entry.listerWatcher = m_listerWatchers(resource, options);
        SharedIndexInformer::Options informerOptions;
        informerOptions.resyncPeriod = m_defaultResync;
        informerOptions.clock = m_clock;
        if (m_informerName)
            informerOptions.identifier = m_informerName->withResource(resource);
        informerOptions.metricsProvider = m_metricsProvider;
        entry.informer
            = std::make_unique<SharedIndexInformer>(entry.listerWatcher.get(), informerOptions);
        it = m_informers.emplace(key, std::move(entry)).first;
        if (m_started) // requested after start(): start at once
            it->second.informer->start();
    }
    return it->second.informer.get();
}

void SharedInformerFactory::setInformerName(
    std::shared_ptr<InformerName> name, InformerMetricsProvider *provider)
{
    std::lock_guard lock(m_mutex);
    m_informerName = std::move(name);
    m_metricsProvider = provider;
}

void SharedInformerFactory::start()
{
    std::lock_guard lock(m_mutex);
    m_started = true;
    for (auto &[key, entry] : m_informers)
        entry.informer->start(); // a no-op for one already started
}

bool SharedInformerFactory::waitForCacheSync(Duration timeout)
{
    QList<SharedIndexInformer *> started;
    {
        std::lock_guard lock(m_mutex);
        for (auto &[key, entry] : m_informers)
            if (entry.informer->isStarted())
                started << entry.informer.get();
    }
    return cache::waitForCacheSync(started, timeout);
}

void SharedInformerFactory::shutdown()
{
    std::map<Key, Entry> informers;
    {
        std::lock_guard lock(m_mutex);
        informers.swap(m_informers);
        m_started = false;
    }
    for (auto &[key, entry] : informers)
        entry.informer->stop(); // informers before their ListerWatchers
}

} // namespace qcm::cache
