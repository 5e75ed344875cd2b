// SPDX-License-Identifier: Apache-2.0
// SharedInformerFactory: one informer per (resource, namespace, label selector, field
// selector, metadata only), shared by every caller (client-go's
// dynamicinformer.DynamicSharedInformerFactory).
//
// informerFor() returns the same informer for the same key. start() starts every informer
// not yet started; an informer requested after start() starts at once. The factory owns
// its informers and stops them in shutdown() or its destructor.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/cache/sharedindexinformer.h>

#include <QtCore/QObject>

#include <map>
#include <tuple>

namespace qcm::cache {

class QCM_SDK_EXPORT SharedInformerFactory : public QObject
{
    Q_OBJECT

public:
    struct InformerOptions
    {
        QString namespaceName; // empty: every namespace
        QString labelSelector;
        QString fieldSelector;
        bool metadataOnly = false; // PartialObjectMetadata only (see RestListerWatcher)
    };
    // Makes the ListerWatcher of an informer; the default lists and watches with a RestClient.
    using ListerWatcherFactory = std::function<std::unique_ptr<ListerWatcher>(
        const client::GroupVersionResource &, const InformerOptions &)>;

    SharedInformerFactory(
        client::RestClient *client, Duration defaultResync, QObject *parent = nullptr);
    SharedInformerFactory(ListerWatcherFactory listerWatchers, Duration defaultResync,
        Clock *clock = nullptr, QObject *parent = nullptr);
    ~SharedInformerFactory() override;

    SharedIndexInformer *informerFor(const client::GroupVersionResource &resource);
    SharedIndexInformer *informerFor(
        const client::GroupVersionResource &resource, const InformerOptions &options);
    // client-go's WithInformerName: informers created afterwards register their resource under
    // `name` and record informer metrics into `provider` (null: the global provider). The
    // first informer of a resource gets the metrics; others for the same resource (other
    // namespaces or selectors) record none, as in client-go.
    void setInformerName(
        std::shared_ptr<InformerName> name, InformerMetricsProvider *provider = nullptr);
    void start();
    // Waits (on the informers' synced() signals) until every started informer has synced.
    bool waitForCacheSync(Duration timeout);
    void shutdown();

private:
    using Key = std::tuple<QString, QString, QString, QString, QString, QString, bool>;
    struct Entry
    {
        std::unique_ptr<ListerWatcher> listerWatcher;
        std::unique_ptr<SharedIndexInformer> informer;
    };

    ListerWatcherFactory m_listerWatchers;
    Duration m_defaultResync;
    Clock *m_clock;
    mutable std::mutex m_mutex;
    std::map<Key, Entry> m_informers; // guarded by m_mutex
    bool m_started = false; // guarded by m_mutex
    std::shared_ptr<InformerName> m_informerName; // guarded by m_mutex
    InformerMetricsProvider *m_metricsProvider = nullptr; // guarded by m_mutex
};

} // namespace qcm::cache
