// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/informername.h>

#include <QtCore/QLoggingCategory>

namespace qcm::cache {

Q_LOGGING_CATEGORY(lcInformerName, "qcm.cache.informername")

namespace {

struct NameRegistry
{
    std::mutex mutex;
    QHash<QString, std::weak_ptr<InformerName>> names;
};

NameRegistry &registry()
{
    static NameRegistry r;
    return r;
}

} // namespace

InformerName::InformerName(const QString &name)
    : m_name(name), m_reserved(std::make_shared<std::atomic<bool>>(true))
{ }

InformerName::~InformerName()
{
    release();
}

Result<std::shared_ptr<InformerName>> InformerName::create(const QString &name)
{
    if (name.isEmpty())
        return Error {
            {}, QStringLiteral("informerName"), QStringLiteral("informer name cannot be empty")};
    NameRegistry &r = registry();
    std::lock_guard lock(r.mutex);
    if (const auto existing = r.names.value(name).lock()) {
        std::lock_guard existingLock(existing->m_mutex);
        if (existing->m_reserved->load())
            return Error {{}, QStringLiteral("informerName"),
                QStringLiteral("informer name \"%1\" is already registered").arg(name)};
    }
    std::shared_ptr<InformerName> created(new InformerName(name));
    r.names.insert(name, created);
    return created;
}

InformerNameAndResource InformerName::withResource(const client::GroupVersionResource &resource)
{
    std::lock_guard lock(m_mutex);
    InformerNameAndResource id;
    id.m_name = m_name;
    id.m_resource = resource;
    auto reserved = std::make_shared<std::atomic<bool>>(false);
    if (m_reserved->load()) {
        if (!m_resources.contains(resource)) {
            reserved->store(true);
            m_resources.insert(resource, reserved);
        } else {
            qCWarning(lcInformerName,
                "duplicate informer registration - metrics will not be published: informerName "
                "%s group %s version %s resource %s",
                qPrintable(m_name), qPrintable(resource.group), qPrintable(resource.version),
                qPrintable(resource.resource));
        }
    }
    id.m_reserved = std::move(reserved);
    return id;
}

void InformerName::release()
{
    {
        std::lock_guard lock(m_mutex);
        for (const auto &reserved : std::as_const(m_resources))
            reserved->store(false);
        m_resources.clear();
        m_reserved->store(false);
    }
    NameRegistry &r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.names.find(m_name);
    if (it != r.names.end()) {
        const auto current = it->lock();
        if (!current || current.get() == this)
            r.names.erase(it);
    }
}

} // namespace qcm::cache
