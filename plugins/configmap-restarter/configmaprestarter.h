// SPDX-License-Identifier: Apache-2.0
// ConfigMapRestarter: restarts the Deployments whose pod template references a ConfigMap when
// that ConfigMap's data changes, the way `kubectl rollout restart` does: by changing a pod
// template annotation, so the Deployment controller rolls the pods out again. Unchanged data
// never restarts anything (configmapreferences.h says what is recorded where).
//
// Two resources from the host's shared informers, one queue of Deployment keys:
//   - Deployments (the reconciled kind). The controller adds the index ConfigMapIndex to their
//     informer's indexer: "namespace/configmap" -> the Deployments whose pod template
//     references it. Every change of a Deployment queues it.
//   - ConfigMaps. An added ConfigMap, or an update that changes data or binaryData, queues the
//     Deployments the index gives for it; other updates (labels, annotations, resyncs) and
//     deletions queue nothing.
//
// syncDeployment(key) applies decideRestart() with a merge patch conditional on the
// Deployment's resourceVersion, and records a Normal ConfigMapChanged Event on each restart.
//
// Thread safety: syncDeployment() runs on the worker threads, never twice at once for one key;
// it reads the informers' caches and calls the client and the recorder, all thread-safe.
#pragma once

#include <qcm/client/client.h>
#include <qcm/controller.h>
#include <qcm/record/eventrecorder.h>

#include <memory>

namespace qcm::samples {

class ConfigMapRestarter : public Controller
{
public:
    // Named after the plugin: the informer is shared, and another plugin may index it too.
    static inline const QString ConfigMapIndex
        = QStringLiteral("configmap-restarter.qcm.io/configmaps");
    static inline const QString EventReason = QStringLiteral("ConfigMapChanged");

    // Writes through `client` and records Events with `recorder`. Throws std::runtime_error if
    // the watches cannot be set up.
    ConfigMapRestarter(const ControllerContext &context, std::shared_ptr<client::Client> client,
        std::shared_ptr<record::EventRecorder> recorder);
    // With a DirectClient over the host's RestClient and the context's recorder (throws
    // std::invalid_argument without one): what the plugin creates.
    explicit ConfigMapRestarter(const ControllerContext &context);
    ~ConfigMapRestarter() override;

    // The Deployments' informer, with ConfigMapIndex.
    const cache::SharedIndexInformer *deploymentInformer() const { return m_deployments; }

    // One sync of the Deployment "namespace/name". Public for the unit tests.
    ReconcileResult syncDeployment(const QString &key);

protected:
    ReconcileResult reconcile(const QString &key) override { return syncDeployment(key); }

private:
    // The keys of the Deployments that reference `configMap`, from the index.
    QStringList referencing(const client::Object &configMap) const;

    const std::shared_ptr<client::Client> m_client;
    const std::shared_ptr<record::EventRecorder> m_recorder;
    cache::SharedIndexInformer *m_deployments = nullptr;
    cache::SharedIndexInformer *m_configMaps = nullptr;
};

} // namespace qcm::samples
