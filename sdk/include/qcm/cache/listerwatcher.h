// SPDX-License-Identifier: Apache-2.0
// ListerWatcher: how a Reflector lists and watches one resource (client-go's
// cache.ListerWatcher). RestListerWatcher does it with a RestClient; tests use fakes.
//
// Thread safety: list() and watch() are called from the reflector's thread.
#pragma once

#include <qcm/client/restclient.h>
#include <qcm/client/watchstream.h>

namespace qcm::cache {

class QCM_SDK_EXPORT ListerWatcher
{
public:
    virtual ~ListerWatcher();
    virtual Result<client::ObjectList, client::Status> list(const client::ListOptions &options) = 0;
    // Errors the server sends once the stream is open come as Error events.
    virtual Result<std::shared_ptr<client::WatchStream>, client::Status> watch(
        const client::ListOptions &options)
        = 0;
    // True for a lister-watcher whose watch cannot stream the initial state
    // (sendInitialEvents=true ending in the k8s.io/initial-events-end bookmark): the
    // reflector then lists even when the WatchListClient feature is on (client-go's
    // watchlist.DoesClientNotSupportWatchListSemantics; its fake clientset says so too).
    virtual bool isWatchListSemanticsUnsupported() const;
};

// Lists and watches one resource, in one namespace or all (empty), with the selectors given.
// With metadataOnly the server sends PartialObjectMetadata: metadata without spec or status,
// for controllers that need only names, labels, owners and versions (far less memory).
class QCM_SDK_EXPORT RestListerWatcher : public ListerWatcher
{
public:
    RestListerWatcher(client::RestClient *client, client::GroupVersionResource resource,
        QString namespaceName = {}, QString labelSelector = {}, QString fieldSelector = {},
        bool metadataOnly = false);

    Result<client::ObjectList, client::Status> list(const client::ListOptions &options) override;
    Result<std::shared_ptr<client::WatchStream>, client::Status> watch(
        const client::ListOptions &options) override;

private:
    client::ListOptions withSelectors(client::ListOptions options) const;

    client::RestClient *m_client;
    client::GroupVersionResource m_resource;
    QString m_namespace;
    QString m_labelSelector;
    QString m_fieldSelector;
    bool m_metadataOnly = false;
};

} // namespace qcm::cache
