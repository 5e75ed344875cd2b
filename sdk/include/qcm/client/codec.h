// Codec: the one place where bytes from the API server become JSON objects.
//
// Lists and watch events are where a controller manager spends its CPU, so decoding sits
// behind this interface to be measured and replaced. QtJsonCodec uses QJsonDocument, which
// builds Qt's JSON tree in one pass; a simdjson parser feeding the same QJsonObject tree was
// measured at half its speed (tests/bench/RESULTS.md), so the tree, not the parser, is what
// a faster codec has to change.
//
// Thread safety: implementations must be callable from several threads at once.
#pragma once

#include <qcm/result.h>

#include <QtCore/QByteArray>
#include <QtCore/QJsonObject>

namespace qcm::client {

class QCM_SDK_EXPORT Codec
{
public:
    virtual ~Codec();
    // Decodes one JSON object. The error's reason says what is wrong and where.
    virtual Result<QJsonObject> decode(const QByteArray &bytes) const = 0;
    virtual QByteArray encode(const QJsonObject &object) const = 0;

    // The codec used when none is given: QtJsonCodec.
    static const Codec *defaultCodec();
};

class QCM_SDK_EXPORT QtJsonCodec : public Codec
{
public:
    Result<QJsonObject> decode(const QByteArray &bytes) const override;
    QByteArray encode(const QJsonObject &object) const override;
};

} // namespace qcm::client
