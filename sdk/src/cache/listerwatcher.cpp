// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/listerwatcher.h>

namespace qcm::cache {

ListerWatcher::~ListerWatcher() = default;

bool ListerWatcher::isWatchListSemanticsUnsupported() const
{
    return false;
}

RestListerWatcher::RestListerWatcher(client::RestClient *client,
    client::GroupVersionResource resource, QString namespaceName, QString labelSelector,
    QString fieldSelector, bool metadataOnly)
    : m_client(client)
    , m_resource(std::move(resource))
    , m_namespace(std::move(namespaceName))
    , m_labelSelector(std::move(labelSelector))
    , m_fieldSelector(std::move(fieldSelector))
    , m_metadataOnly(metadataOnly)
{ }

client::ListOptions RestListerWatcher::withSelectors(client::ListOptions options) const
{
    options.labelSelector = m_labelSelector;
    options.fieldSelector = m_fieldSelector;
    return options;
}

Result<client::ObjectList, client::Status> RestListerWatcher::list(
    const client::ListOptions &options)
{
    return m_client->list(m_resource, m_namespace, withSelectors(options),
        m_metadataOnly ? client::RestClient::metadataOnlyListAccept : QByteArray());
}

Result<std::shared_ptr<client::WatchStream>, client::Status> RestListerWatcher::watch(
    const client::ListOptions &options)
{
    return std::shared_ptr<client::WatchStream>(
        m_client->watch(m_resource, m_namespace, withSelectors(options),
            m_metadataOnly ? client::RestClient::metadataOnlyWatchAccept : QByteArray()));
}

} // namespace qcm::cache
