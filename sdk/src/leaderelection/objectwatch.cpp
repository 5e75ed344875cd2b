// SPDX-License-Identifier: Apache-2.0
#include "objectwatch_p.h"

#include <QtCore/QTimer>

namespace qcm::leaderelection::detail {

using namespace qcm::client;

ObjectWatch::ObjectWatch(RestClient *client, GroupVersionResource gvr, QString ns, QString name,
    std::function<void(const WatchEvent &)> onEvent, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_gvr(std::move(gvr))
    , m_namespace(std::move(ns))
    , m_name(std::move(name))
    , m_onEvent(std::move(onEvent))
{
    start();
}

ObjectWatch::~ObjectWatch()
{
    if (m_watch) {
        m_watch->disconnect(this);
        m_watch->stop();
    }
}

void ObjectWatch::start()
{
    ListOptions options;
    options.fieldSelector = QStringLiteral("metadata.name=") + m_name;
    options.timeoutSeconds = 300;
    if (m_watch)
        m_watch->disconnect(this);
    m_watch = m_client->watch(m_gvr, m_namespace, options);
    Watch *watch = m_watch.get();
    connect(
        watch, &Watch::eventReceived, this, [this](const WatchEvent &event) { m_onEvent(event); });
    connect(watch, &Watch::finished, this, [this, watch] {
        if (m_watch.get() != watch)
            return;
        QTimer::singleShot(1000, this, [this, watch] {
            if (m_watch.get() == watch)
                start();
        });
    });
}

} // namespace qcm::leaderelection::detail
