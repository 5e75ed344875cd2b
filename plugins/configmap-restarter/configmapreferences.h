// SPDX-License-Identifier: Apache-2.0
// The pure parts of the configmap-restarter controller: which ConfigMaps a pod template
// references, the hashes it records, and what to do about one Deployment (decideRestart).
//
// A pod template references a ConfigMap (in its own namespace) through
//   spec.volumes[].configMap.name
//   spec.volumes[].projected.sources[].configMap.name
//   spec.{containers,initContainers}[].env[].valueFrom.configMapKeyRef.name
//   spec.{containers,initContainers}[].envFrom[].configMapRef.name
//
// The controller keeps three annotations (README.md):
//   metadata.annotations[qcm.io/configmap-hash]           the data hash last seen
//   metadata.annotations[qcm.io/configmap-template-hash]  the pod template it was seen with
//   spec.template.metadata.annotations[qcm.io/configmap-hash]
//                                                         written only to restart the pods
// The first two are on the Deployment itself: writing them starts no rollout.
//
// The hashes are recorded on Deployments and must not change from one release to the next
// (a different hash for the same input would restart every adopted Deployment): both are the
// SHA-256 of Qt's compact JSON of a QJsonObject (keys sorted), whatever reads the fields.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/object.h>

#include <functional>
#include <optional>

namespace qcm::api::core::v1 {
class PodTemplateSpec; // <qcm/api/core/v1.h>
} // namespace qcm::api::core::v1

namespace qcm::samples {

inline const QString ConfigMapHashAnnotation = QStringLiteral("qcm.io/configmap-hash");
inline const QString TemplateHashAnnotation = QStringLiteral("qcm.io/configmap-template-hash");

// The names of the ConfigMaps `podTemplate` (a Deployment's spec.template) references, sorted,
// each once.
QStringList referencedConfigMaps(const api::core::v1::PodTemplateSpec &podTemplate);
// The index function of the Deployments' informer: "namespace/name" of each ConfigMap the
// Deployment's pod template references.
QStringList configMapIndexKeys(const client::Object &deployment);

// Whether two versions of a ConfigMap differ in data or binaryData (labels, annotations and
// the rest are not data).
bool configMapDataDiffers(const client::Object &before, const client::Object &after);

// SHA-256 (hex) of the data and binaryData of `configMaps` (name -> object), in name order.
QString configMapDataHash(const QMap<QString, client::Object> &configMaps);
// SHA-256 (hex) of a pod template without the restart annotation (which the controller writes
// itself), so that only someone else's change to the template changes it.
QString podTemplateHash(const api::core::v1::PodTemplateSpec &podTemplate);

// A ConfigMap of the Deployment's namespace by name, from the cache; nothing if it does not
// exist.
using ConfigMapLookup = std::function<std::optional<client::Object>(const QString &name)>;

struct RestartDecision
{
    enum class Action {
        None, // nothing references a ConfigMap, or nothing changed
        WaitForConfigMaps, // a referenced ConfigMap does not exist: leave the Deployment alone
        Adopt, // record the hashes on the Deployment; the pods keep running
        Restart, // the data changed: record the hashes and bump the template annotation
    };
    Action action = Action::None;
    QStringList configMaps; // referenced, sorted
    QStringList missing; // WaitForConfigMaps: the ConfigMaps that do not exist
    QString dataHash; // Adopt, Restart: what to record
    QString templateHash;
    QString previousDataHash; // Restart: what was recorded
};

// What to do about `deployment`:
//   - being deleted, or no ConfigMap referenced and nothing recorded: None;
//   - a referenced ConfigMap missing: WaitForConfigMaps (its creation queues the Deployment);
//   - nothing recorded, or recorded for another pod template (someone changed the template:
//     the Deployment is rolling out anyway, with the current data): Adopt;
//   - recorded data hash == current one: None;
//   - otherwise: Restart.
RestartDecision decideRestart(const client::Object &deployment, const ConfigMapLookup &lookup);

// The merge patch that applies an Adopt or Restart decision. It carries the Deployment's
// resourceVersion, so that it fails with a conflict (and the Deployment is looked at again)
// if the Deployment changed since it was read.
QByteArray restartPatch(const client::Object &deployment, const RestartDecision &decision);

} // namespace qcm::samples
