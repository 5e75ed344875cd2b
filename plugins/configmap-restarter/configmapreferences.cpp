// SPDX-License-Identifier: Apache-2.0
#include "configmapreferences.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

#include <set>

namespace qcm::samples {

using namespace qcm::client;

namespace {

QJsonObject objectAt(const QJsonObject &object, const char *field)
{
    return object.value(QLatin1String(field)).toObject();
}

QJsonArray arrayAt(const QJsonObject &object, const char *field)
{
    return object.value(QLatin1String(field)).toArray();
}

void insertName(std::set<QString> &names, const QJsonObject &reference)
{
    const QString name = reference.value(QLatin1String("name")).toString();
    if (!name.isEmpty())
        names.insert(name);
}

QString sha256(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QJsonObject podTemplateOf(const Object &deployment)
{
    return objectAt(objectAt(deployment.json(), "spec"), "template");
}

} // namespace

QStringList referencedConfigMaps(const QJsonObject &podTemplate)
{
    std::set<QString> names;
    const QJsonObject spec = objectAt(podTemplate, "spec");
    for (const QJsonValue &volume : arrayAt(spec, "volumes")) {
        insertName(names, objectAt(volume.toObject(), "configMap"));
        for (const QJsonValue &source :
            arrayAt(objectAt(volume.toObject(), "projected"), "sources"))
            insertName(names, objectAt(source.toObject(), "configMap"));
    }
    for (const char *containers : {"initContainers", "containers"}) {
        for (const QJsonValue &value : arrayAt(spec, containers)) {
            const QJsonObject container = value.toObject();
            for (const QJsonValue &env : arrayAt(container, "env"))
                insertName(
                    names, objectAt(objectAt(env.toObject(), "valueFrom"), "configMapKeyRef"));
            for (const QJsonValue &envFrom : arrayAt(container, "envFrom"))
                insertName(names, objectAt(envFrom.toObject(), "configMapRef"));
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
    return objectAt(before.json(), "data") != objectAt(after.json(), "data")
        || objectAt(before.json(), "binaryData") != objectAt(after.json(), "binaryData");
}

QString configMapDataHash(const QMap<QString, Object> &configMaps)
{
    // One JSON document: {name: {data, binaryData}, ...}. QJsonObject keeps its keys sorted, so
    // the bytes depend on the content alone.
    QJsonObject content;
    for (auto it = configMaps.begin(); it != configMaps.end(); ++it) {
        content.insert(it.key(),
            QJsonObject {{QStringLiteral("data"), objectAt(it->json(), "data")},
                {QStringLiteral("binaryData"), objectAt(it->json(), "binaryData")}});
    }
    return sha256(QJsonDocument(content).toJson(QJsonDocument::Compact));
}

QString podTemplateHash(const QJsonObject &podTemplate)
{
    QJsonObject copy = podTemplate;
    QJsonObject metadata = objectAt(copy, "metadata");
    QJsonObject annotations = objectAt(metadata, "annotations");
    annotations.remove(ConfigMapHashAnnotation);
    // The API server leaves out an empty map: so does the hash, so that the template hashes
    // the same before the first restart and after it.
    if (annotations.isEmpty())
        metadata.remove(QStringLiteral("annotations"));
    else
        metadata.insert(QStringLiteral("annotations"), annotations);
    if (metadata.isEmpty())
        copy.remove(QStringLiteral("metadata"));
    else
        copy.insert(QStringLiteral("metadata"), metadata);
    return sha256(QJsonDocument(copy).toJson(QJsonDocument::Compact));
}

RestartDecision decideRestart(const Object &deployment, const ConfigMapLookup &lookup)
{
    RestartDecision decision;
    if (deployment.deletionTimestamp())
        return decision;
    const QJsonObject podTemplate = podTemplateOf(deployment);
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
    QJsonObject patch {{QStringLiteral("metadata"),
        QJsonObject {{QStringLiteral("resourceVersion"), deployment.resourceVersion()},
            {QStringLiteral("annotations"),
                QJsonObject {{ConfigMapHashAnnotation, decision.dataHash},
                    {TemplateHashAnnotation, decision.templateHash}}}}}};
    if (decision.action == RestartDecision::Action::Restart) {
        patch.insert(QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("template"),
                QJsonObject {{QStringLiteral("metadata"),
                    QJsonObject {{QStringLiteral("annotations"),
                        QJsonObject {{ConfigMapHashAnnotation, decision.dataHash}}}}}}}});
    }
    return QJsonDocument(patch).toJson(QJsonDocument::Compact);
}

} // namespace qcm::samples
