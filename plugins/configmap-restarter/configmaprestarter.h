// SPDX-License-Identifier: Apache-2.0
// ConfigMapRestarter: restarts the Deployments whose pod template references a ConfigMap when
// that ConfigMap's data changes, the way `kubectl rollout restart` does: by changing a pod
// template annotation, so the Deployment controller rolls the pods out again. Unchanged data
// never restarts anything (configmapreferences.h says what is recorded where).
//
// Two resources from the host's shared informers, one queue of Deployment keys:
//   - Deployments. The controller adds the index ConfigMapIndex to their informer's indexer:
//     "namespace/configmap" -> the Deployments whose pod template references it. Every change
//     of a Deployment queues it.
//   - ConfigMaps. An added ConfigMap, or an update that changes data or binaryData, queues the
//     Deployments the index gives for it; other updates (labels, annotations, resyncs) and
//     deletions queue nothing.
//
// syncDeployment(key) applies decideRestart() with a merge patch conditional on the
// Deployment's resourceVersion, and records a Normal ConfigMapChanged Event on each restart.
//
// Thread safety: syncDeployment() runs on the worker threads, one key at a time per key.
#pragma once

#include "objectclient.h"
#include "recordevent.h"

#include <qcm/controller.h>

namespace qcm::samples {

class ConfigMapRestarter : public Controller
{
public:
    // Named after the plugin: the informer is shared, and another plugin may index it too.
    static inline const QString ConfigMapIndex
        = QStringLiteral("configmap-restarter.qcm.io/configmaps");
    static inline const QString EventReason = QStringLiteral("ConfigMapChanged");

    // Writes through `client` and records Events with `recordEvent`.
    ConfigMapRestarter(const ControllerContext &context, std::shared_ptr<ObjectClient> client,
        RecordEvent recordEvent);
    // With the host's RestClient and eventRecorderFor(context): what the plugin creates.
    explicit ConfigMapRestarter(const ControllerContext &context);
    ~ConfigMapRestarter() override;

    // The Deployments' informer, with ConfigMapIndex.
    const cache::SharedIndexInformer *deploymentInformer() const { return m_deployments; }

    // One sync of the Deployment "namespace/name". Public for the unit tests.
    ReconcileResult syncDeployment(const QString &key);

protected:
    ReconcileResult reconcile(const QString &key) override { return syncDeployment(key); }

private:
    void enqueueReferencing(const client::Object &configMap);

    std::shared_ptr<ObjectClient> m_client;
    RecordEvent m_recordEvent;
    cache::SharedIndexInformer *m_deployments = nullptr;
    cache::SharedIndexInformer *m_configMaps = nullptr;
};

} // namespace qcm::samples
