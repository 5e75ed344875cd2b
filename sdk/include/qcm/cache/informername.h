// SPDX-License-Identifier: Apache-2.0
// InformerName: a named informer identity for metrics (client-go's cache.InformerName).
//
// Informer metrics are published only for informers with a reserved identity, as in
// client-go: create one InformerName per process component (the name is unique within the
// process), hand it to the SharedInformerFactory, and each resource registered under it with
// withResource() gets metrics; a second registration of the same resource under the same
// name gets none, so no series is ever written by two informers. release() turns every
// identity made from the name off and frees the name for reuse.
//
// Thread safety: every method is safe from any thread; reserved() is a lock-free load.
#pragma once

#include <qcm/client/resource.h>
#include <qcm/result.h>

#include <QtCore/QHash>

#include <atomic>
#include <memory>
#include <mutex>

namespace qcm::cache {

class QCM_SDK_EXPORT InformerNameAndResource
{
public:
    InformerNameAndResource() = default;

    QString name() const { return m_name; }
    client::GroupVersionResource groupVersionResource() const { return m_resource; }
    // False when no name was configured, the name was released, or the resource was already
    // registered under the name.
    bool reserved() const { return m_reserved && m_reserved->load(std::memory_order_relaxed); }

private:
    friend class InformerName;
    QString m_name;
    client::GroupVersionResource m_resource;
    std::shared_ptr<const std::atomic<bool>> m_reserved;
};

class QCM_SDK_EXPORT InformerName
{
public:
    // An error if `name` is empty or already held by an InformerName not released.
    static Result<std::shared_ptr<InformerName>> create(const QString &name);
    ~InformerName();
    Q_DISABLE_COPY_MOVE(InformerName)

    QString name() const { return m_name; }
    InformerNameAndResource withResource(const client::GroupVersionResource &resource);
    void release();

private:
    explicit InformerName(const QString &name);

    const QString m_name;
    std::mutex m_mutex;
    std::shared_ptr<std::atomic<bool>> m_reserved; // guarded by m_mutex
    QHash<client::GroupVersionResource, std::shared_ptr<std::atomic<bool>>> m_resources;
};

} // namespace qcm::cache
