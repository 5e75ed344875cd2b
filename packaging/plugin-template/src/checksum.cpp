// SPDX-License-Identifier: Apache-2.0
#include "checksum.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QJsonDocument>

namespace checksum {

QString dataChecksum(const qcm::client::Object &configMap)
{
    const QJsonObject &json = configMap.json();
    // QJsonObject keeps its keys sorted, so its compact JSON does not depend on their order.
    const QJsonObject content {
        {QStringLiteral("binaryData"), json.value(QLatin1String("binaryData")).toObject()},
        {QStringLiteral("data"), json.value(QLatin1String("data")).toObject()},
    };
    const QByteArray digest = QCryptographicHash::hash(
        QJsonDocument(content).toJson(QJsonDocument::Compact), QCryptographicHash::Sha256);
    return QStringLiteral("sha256:") + QString::fromLatin1(digest.toHex());
}

std::optional<QByteArray> checksumPatch(
    const qcm::client::Object &configMap, const QString &annotation)
{
    const QString checksum = dataChecksum(configMap);
    if (configMap.annotations().value(annotation) == checksum)
        return std::nullopt;
    const QJsonObject patch {{QStringLiteral("metadata"),
        QJsonObject {
            {QStringLiteral("resourceVersion"), configMap.resourceVersion()},
            {QStringLiteral("annotations"), QJsonObject {{annotation, checksum}}},
        }}};
    return QJsonDocument(patch).toJson(QJsonDocument::Compact);
}

} // namespace checksum
