// SPDX-License-Identifier: Apache-2.0
// CachedClient: a client::Client that reads from the shared informers' caches and writes
// through another client (controller-runtime's default manager client: cached reads, direct
// writes). A controller's reads then cost no request, and see what its handlers saw.
//
// The first read of a resource asks the factory for its informer (all namespaces), which
// starts it if the factory is started, and waits until it has synced, up to `syncTimeout`
// (an error Status "CacheNotSynced" after). Reads are as fresh as the cache: a write is seen
// once its watch event has arrived. List takes label selectors; a field selector is refused
// (controller-runtime needs an index for one). Use a DirectClient (the APIReader) for a read
// that must see the server's state now.
//
// Thread safety: safe from any thread; reads wait for the sync, so call them from a worker.
#pragma once

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/client.h>

namespace qcm::client {

class QCM_SDK_EXPORT CachedClient final : public Client
{
public:
    CachedClient(cache::SharedInformerFactory *informers, Client *writer,
        Duration syncTimeout = std::chrono::seconds(30));

    // The typed forms, which the overrides below would hide.
    using Client::create;
    using Client::get;
    using Client::list;

    ObjectResult get(
        const GroupVersionResource &gvr, const QString &ns, const QString &name) override;
    ListResult list(const GroupVersionResource &gvr, const QString &ns,
        const ListOptions &options = {}) override;
    ObjectResult create(const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options = {}) override;
    ObjectResult update(const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options = {}) override;
    ObjectResult updateStatus(const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options = {}) override;
    ObjectResult patch(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        PatchType type, const QByteArray &patch, const PatchOptions &options = {}) override;
    ObjectResult remove(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        const DeleteOptions &options = {}) override;

private:
    // The synced informer of `gvr`, or why not.
    Result<cache::SharedIndexInformer *, Status> informer(const GroupVersionResource &gvr);

    cache::SharedInformerFactory *const m_informers;
    Client *const m_writer;
    const Duration m_syncTimeout;
};

} // namespace qcm::client
