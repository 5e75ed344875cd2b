// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/cachedclient.h>

#include <qcm/cache/labelselector.h>

#include <QtCore/QThread>

namespace qcm::client {

CachedClient::CachedClient(
    cache::SharedInformerFactory *informers, Client *writer, Duration syncTimeout)
    : m_informers(informers), m_writer(writer), m_syncTimeout(syncTimeout)
{ }

Result<cache::SharedIndexInformer *, Status> CachedClient::informer(const GroupVersionResource &gvr)
{
    cache::SharedIndexInformer *informer = m_informers->informerFor(gvr);
    // Polled rather than waited on through synced(): this runs on worker threads, which have
    // no event loop. A synced informer returns at once.
    const auto deadline = std::chrono::steady_clock::now() + m_syncTimeout;
    while (!informer->hasSynced()) {
        if (std::chrono::steady_clock::now() >= deadline)
            return Status::transportError(QStringLiteral("CacheNotSynced"),
                QStringLiteral("the cache of %1 did not sync within the timeout (is the informer "
                               "factory started?)")
                    .arg(gvr.toString()));
        QThread::msleep(5);
    }
    return informer;
}

ObjectResult CachedClient::get(
    const GroupVersionResource &gvr, const QString &ns, const QString &name)
{
    auto i = informer(gvr);
    if (!i)
        return i.error();
    if (auto object = (*i)->lister().get(ns, name))
        return *object;
    return notFoundStatus(gvr, name);
}

ListResult CachedClient::list(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options)
{
    if (!options.fieldSelector.isEmpty())
        return Status::transportError(QStringLiteral("FieldSelectorUnsupported"),
            QStringLiteral("a cached list takes label selectors only; use a DirectClient for field "
                           "selectors"));
    auto selector = cache::LabelSelector::parse(options.labelSelector);
    if (!selector)
        return Status::transportError(
            QStringLiteral("BadLabelSelector"), selector.error().toString());
    auto i = informer(gvr);
    if (!i)
        return i.error();
    ObjectList out;
    for (const Object &o : (*i)->lister().list(*selector))
        if (ns.isEmpty() || o.namespaceName() == ns)
            out.items.append(o);
    std::sort(out.items.begin(), out.items.end(),
        [](const Object &a, const Object &b) { return a.key() < b.key(); });
    return out;
}

ObjectResult CachedClient::create(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_writer->create(gvr, object, options);
}

ObjectResult CachedClient::update(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_writer->update(gvr, object, options);
}

ObjectResult CachedClient::updateStatus(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_writer->updateStatus(gvr, object, options);
}

ObjectResult CachedClient::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options)
{
    return m_writer->patch(gvr, ns, name, type, patch, options);
}

ObjectResult CachedClient::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    return m_writer->remove(gvr, ns, name, options);
}

} // namespace qcm::client
