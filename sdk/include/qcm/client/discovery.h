// SPDX-License-Identifier: Apache-2.0
// Discovery: which resources the API server serves (client-go's discovery client and
// RESTMapper): kind <-> resource, whether a resource is namespaced, and its verbs.
//
// It uses aggregated discovery (apidiscovery.k8s.io/v2: two requests, /api and /apis) and
// falls back to the per-group walk on servers without it. Results are cached; a lookup that
// misses refreshes the cache once and looks again, because CRDs are installed after start.
//
// Thread safety: every method is safe from any thread but the client's I/O thread (it makes
// blocking requests).
#pragma once

#include <qcm/client/restclient.h>

#include <QtCore/QSet>
#include <QtCore/QStringList>

#include <functional>
#include <mutex>

namespace qcm::client {

struct ApiResource
{
    GroupVersionResource gvr;
    GroupVersionKind gvk;
    bool namespaced = false;
    QStringList verbs;
    QString singularName;
    QStringList shortNames;
    QStringList subresources; // "status", "scale", ...
};

class QCM_SDK_EXPORT Discovery
{
public:
    explicit Discovery(RestClient *client);

    // The resource of a kind. With an empty version, the group's preferred version wins.
    Result<ApiResource, Status> resourceFor(const GroupVersionKind &gvk);
    // The kind of a resource (its plural name, "configmaps").
    Result<ApiResource, Status> kindFor(const GroupVersionResource &gvr);
    // Every resource the server serves, in every version.
    Result<QList<ApiResource>, Status> resources();
    // Forget the cache; the next lookup asks the server.
    void invalidate();

private:
    Result<ApiResource, Status> findLocked(
        const std::function<bool(const ApiResource &)> &matches, const QString &notFoundMessage);
    std::optional<Status> refreshLocked();
    std::optional<Status> legacyRefreshLocked();
    void addResourceList(
        const QString &group, const QString &version, const QJsonObject &list, bool preferred);

    RestClient *const m_client;
    std::mutex m_mutex;
    QList<ApiResource> m_resources; // guarded by m_mutex
    QSet<QString> m_preferred; // "group/version" that is its group's preferred one
    bool m_loaded = false; // guarded by m_mutex
};

} // namespace qcm::client
