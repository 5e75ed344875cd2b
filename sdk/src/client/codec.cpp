#include <qcm/client/codec.h>

#include <QtCore/QJsonDocument>

namespace qcm::client {

Codec::~Codec() = default;

const Codec *Codec::defaultCodec()
{
    static const QtJsonCodec codec;
    return &codec;
}

Result<QJsonObject> QtJsonCodec::decode(const QByteArray &bytes) const
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return Error {{}, {},
            QStringLiteral("invalid JSON at offset %1: %2")
                .arg(error.offset)
                .arg(error.errorString())};
    if (!doc.isObject())
        return Error {{}, {}, QStringLiteral("expected a JSON object")};
    return doc.object();
}

QByteArray QtJsonCodec::encode(const QJsonObject &object) const
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace qcm::client
