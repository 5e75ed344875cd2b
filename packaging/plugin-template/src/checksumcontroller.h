// SPDX-License-Identifier: Apache-2.0
// ChecksumController: keeps an annotation on every ConfigMap that matches a label selector
// equal to the checksum of the ConfigMap's data (checksum.h). By default the ConfigMaps
// labelled example.com/checksum=enabled get example.com/data-checksum: sha256:<hex>.
//
// It is client-go's controller pattern: a shared informer on ConfigMaps (only the matching
// ones), every change enqueued by key, and reconcile(key) compares the cached object with what
// it should be and patches the difference. A failed patch is retried with backoff; a conflict
// (the ConfigMap changed meanwhile) is retried the same way, against the newer copy.
//
// Settings (controllerConfig.configmap-checksum.settings of controller-manager.yaml):
//   labelSelector   which ConfigMaps, a Kubernetes label selector
//                   (default "example.com/checksum=enabled"; "" is every ConfigMap)
//   annotation      the annotation that holds the checksum (default "example.com/data-checksum")
//
// Thread safety: reconcile() runs on the worker threads (never twice at once for one key); it
// reads the informer's cache, which is thread-safe, and calls the blocking client.
#pragma once

#include <qcm/cache/sharedindexinformer.h>
#include <qcm/client/client.h>
#include <qcm/controller.h>

#include <QtCore/QVariantMap>

#include <memory>

namespace checksum {

struct Settings
{
    QString labelSelector = QStringLiteral("example.com/checksum=enabled");
    QString annotation = QStringLiteral("example.com/data-checksum");

    // The settings map, checked. Throws std::invalid_argument naming the setting
    // ("settings.labelSelector: ...") for a key it does not know, a value that is not a
    // string, a selector that does not parse, or an empty annotation; the host shows the
    // message as the reason the plugin failed.
    static Settings fromMap(const QVariantMap &settings);
};

class ChecksumController : public qcm::Controller
{
public:
    // Writes through a DirectClient over the host's REST client (what the plugin creates).
    explicit ChecksumController(const qcm::ControllerContext &context);
    // Writes through `client` (a test's qcm::testing::FakeClient); it must outlive this.
    ChecksumController(const qcm::ControllerContext &context, qcm::client::Client &client);
    ~ChecksumController() override;

protected:
    qcm::ReconcileResult reconcile(const QString &key) override;

private:
    ChecksumController(const qcm::ControllerContext &context,
        std::unique_ptr<qcm::client::Client> own, qcm::client::Client *client = nullptr);

    const Settings m_settings;
    std::unique_ptr<qcm::client::Client> m_ownClient; // the default DirectClient
    qcm::client::Client &m_client;
    qcm::cache::SharedIndexInformer *m_configMaps = nullptr;
};

} // namespace checksum
