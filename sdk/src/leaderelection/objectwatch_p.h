// SPDX-License-Identifier: Apache-2.0
// ObjectWatch: watches one object by its name (a field selector on metadata.name), for as long
// as it lives: each event reaches `onEvent` on the owner's thread, and a watch that ends (its
// timeout, an apiserver restart, no access) is started again after a second. What a lock or a
// candidate watches its own object with. Private to the SDK.
//
// Thread safety: create and destroy it on the thread of `parent`, which must have an event
// loop; the RestClient must outlive it.
#pragma once

#include <qcm/client/restclient.h>

#include <QtCore/QObject>

#include <functional>
#include <memory>

namespace qcm::leaderelection::detail {

class ObjectWatch : public QObject
{
public:
    ObjectWatch(client::RestClient *client, client::GroupVersionResource gvr, QString ns,
        QString name, std::function<void(const client::WatchEvent &)> onEvent, QObject *parent);
    ~ObjectWatch() override;

private:
    void start();

    client::RestClient *m_client;
    client::GroupVersionResource m_gvr;
    QString m_namespace;
    QString m_name;
    std::function<void(const client::WatchEvent &)> m_onEvent;
    std::shared_ptr<client::Watch> m_watch;
};

} // namespace qcm::leaderelection::detail
