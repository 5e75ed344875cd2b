// SPDX-License-Identifier: Apache-2.0
#include "configmapreferences.h"

#include <qcm/api/apps/v1.h>
#include <qcm/api/core/v1.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QJsonDocument>

#include <set>

namespace qcm::samples {

using namespace qcm::api;
using client::Object;

namespace {

QString sha256(const QJsonObject &content)
{
    // QJsonObject keeps its keys sorted, so the bytes depend on the content alone.
    return QString::fromLatin1(QCryptographicHash::hash(
        QJsonDocument(content).toJson(QJsonDocument::Compact), QCryptographicHash::Sha256)
                                   .toHex());
}

// A map field as Qt's JSON, what the hashes are made of: absent, null and {} all read as {}.
// (Reading it as QMap<QString, QString> would turn a value of another type into "".)
QJsonObject jsonOf(const typed::MapView<QString> &map)
{
    return map.node().toJsonValue().toObject();
}

core::v1::PodTemplateSpec podTemplateOf(const Object &deployment)
{
    return apps::v1::Deployment(deployment).spec().template_();
}

} // namespace

QStringList referencedConfigMaps(const core::v1::PodTemplateSpec &podTemplate)
{
    std::set<QString> names;
    // An absent reference reads as an empty name.
    auto insert = [&names](const QString &name) {
        if (!name.isEmpty())
            names.insert(name);
    };
    const core::v1::PodSpec spec = podTemplate.spec();
    for (const core::v1::Volume &volume : spec.volumes()) {
        insert(volume.configMap().name());
        for (const core::v1::VolumeProjection &source : volume.projected().sources())
            insert(source.configMap().name());
    }
    for (const typed::ArrayView<core::v1::Container> &containers :
        {spec.initContainers(), spec.containers()}) {
        for (const core::v1::Container &container : containers) {
            for (const core::v1::EnvVar &env : container.env())
                insert(env.valueFrom().configMapKeyRef().name());
            for (const core::v1::EnvFromSource &envFrom : container.envFrom())
                insert(envFrom.configMapRef().name());
        }
    }
    return QStringList(names.begin(), names.end());
}

QStringList configMapIndexKeys(const Object &deployment)
{
    QStringList keys;
    for (const QString &name : referencedConfigMaps(podTemplateOf(deployment)))
        keys << deployment.namespaceName() + QLatin1Char('/') + name;
    return keys;
}

bool configMapDataDiffers(const Object &before, const Object &after)
{
    const core::v1::ConfigMap b(before), a(after);
    return jsonOf(b.data()) != jsonOf(a.data()) || jsonOf(b.binaryData()) != jsonOf(a.binaryData());
}

QString configMapDataHash(const QMap<QString, Object> &configMaps)
{
    // One JSON document: {name: {data, binaryData}, ...}.
    QJsonObject content;
    for (auto it = configMaps.begin(); it != configMaps.end(); ++it) {
        const core::v1::ConfigMap configMap(*it);
        content.insert(it.key(),
            QJsonObject {{QStringLiteral("data"), jsonOf(configMap.data())},
                {QStringLiteral("binaryData"), jsonOf(configMap.binaryData())}});
    }
    return sha256(content);
}

QString podTemplateHash(const core::v1::PodTemplateSpec &podTemplate)
{
    // The whole template, whatever fields it has: a field the typed views do not know must
    // change the hash too. The API server leaves out an empty map: so does the hash, so that
    // the template hashes the same before the first restart and after it.
    auto setOrRemove = [](QJsonObject &object, const QString &key, const QJsonObject &value) {
        if (value.isEmpty())
            object.remove(key);
        else
            object.insert(key, value);
    };
    QJsonObject copy = podTemplate.toJsonValue().toObject();
    QJsonObject metadata = copy.value(QLatin1String("metadata")).toObject();
    QJsonObject annotations = metadata.value(QLatin1String("annotations")).toObject();
    annotations.remove(ConfigMapHashAnnotation);
    setOrRemove(metadata, QStringLiteral("annotations"), annotations);
    setOrRemove(copy, QStringLiteral("metadata"), metadata);
    return sha256(copy);
}

RestartDecision decideRestart(const Object &deployment, const ConfigMapLookup &lookup)
{
    RestartDecision decision;
    if (deployment.deletionTimestamp())
        return decision;
    const core::v1::PodTemplateSpec podTemplate = podTemplateOf(deployment);
    const QMap<QString, QString> annotations = deployment.annotations();
    decision.configMaps = referencedConfigMaps(podTemplate);
    if (decision.configMaps.isEmpty() && !annotations.contains(ConfigMapHashAnnotation))
        return decision;

    QMap<QString, Object> configMaps;
    for (const QString &name : std::as_const(decision.configMaps)) {
        if (std::optional<Object> configMap = lookup(name))
            configMaps.insert(name, *configMap);
        else
            decision.missing << name;
    }
    if (!decision.missing.isEmpty()) {
        decision.action = RestartDecision::Action::WaitForConfigMaps;
        return decision;
    }

    decision.dataHash = configMapDataHash(configMaps);
    decision.templateHash = podTemplateHash(podTemplate);
    if (!annotations.contains(ConfigMapHashAnnotation)
        || annotations.value(TemplateHashAnnotation) != decision.templateHash) {
        decision.action = RestartDecision::Action::Adopt;
        return decision;
    }
    decision.previousDataHash = annotations.value(ConfigMapHashAnnotation);
    decision.action = decision.previousDataHash == decision.dataHash
        ? RestartDecision::Action::None
        : RestartDecision::Action::Restart;
    return decision;
}

QByteArray restartPatch(const Object &deployment, const RestartDecision &decision)
{
    const QJsonObject annotations {{ConfigMapHashAnnotation, decision.dataHash},
        {TemplateHashAnnotation, decision.templateHash}};
    QJsonObject patch {{QStringLiteral("metadata"),
        QJsonObject {{QStringLiteral("resourceVersion"), deployment.resourceVersion()},
            {QStringLiteral("annotations"), annotations}}}};
    if (decision.action == RestartDecision::Action::Restart) {
        const QJsonObject templateMetadata {{QStringLiteral("annotations"),
            QJsonObject {{ConfigMapHashAnnotation, decision.dataHash}}}};
        patch.insert(QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("template"),
                QJsonObject {{QStringLiteral("metadata"), templateMetadata}}}});
    }
    return QJsonDocument(patch).toJson(QJsonDocument::Compact);
}

} // namespace qcm::samples
