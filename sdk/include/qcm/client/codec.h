// SPDX-License-Identifier: Apache-2.0
// Codec: the one place where bytes from the API server become Objects.
//
// Lists and watch events are where a controller manager spends its CPU, so decoding sits
// behind this interface to be measured and replaced. decode() and encode() are plain JSON;
// decodeObject(), decodeList() and decodeWatchEvent() make Objects, and by default build on
// decode().
//
// - QtJsonCodec builds Qt's JSON tree (QJsonDocument) for every object as it decodes.
// - LazyJsonCodec, the default, validates the bytes with its own scanner and keeps each
//   object's bytes with an index of its metadata; the tree is built when something asks for it
//   (see Object). tests/bench/RESULTS.md has the figures for both.
//
// Thread safety: implementations must be callable from several threads at once.
#pragma once

#include <qcm/client/objectlist.h>
#include <qcm/client/watchevent.h>
#include <qcm/result.h>

#include <QtCore/QByteArray>
#include <QtCore/QByteArrayView>
#include <QtCore/QJsonObject>

namespace qcm::client {

class QCM_SDK_EXPORT Codec
{
public:
    virtual ~Codec();
    // Decodes one JSON object. The error's reason says what is wrong and where.
    virtual Result<QJsonObject> decode(const QByteArray &bytes) const = 0;
    virtual QByteArray encode(const QJsonObject &object) const = 0;

    // One object (the body of a get, create, update, ...).
    virtual Result<Object> decodeObject(const QByteArray &bytes) const;
    // A list response: its items get the list's apiVersion and kind (without "List") when
    // they have none, as client-go's UnstructuredList does. An item that is not an object is
    // an error.
    virtual Result<ObjectList> decodeList(const QByteArray &bytes) const;
    // One watch frame ({"type": ..., "object": ...}): an ERROR event carries its Status. An
    // unknown or missing type or a missing object is an error.
    virtual Result<WatchEvent> decodeWatchEvent(QByteArrayView frame) const;

    // The codec used when none is given: LazyJsonCodec.
    static const Codec *defaultCodec();
};

class QCM_SDK_EXPORT QtJsonCodec : public Codec
{
public:
    Result<QJsonObject> decode(const QByteArray &bytes) const override;
    QByteArray encode(const QJsonObject &object) const override;
};

// Accepts RFC 8259 JSON only (Qt's reader is more lenient: it takes unknown escapes and raw
// control characters in strings); errors give the offset and the reason.
class QCM_SDK_EXPORT LazyJsonCodec : public QtJsonCodec
{
public:
    Result<Object> decodeObject(const QByteArray &bytes) const override;
    Result<ObjectList> decodeList(const QByteArray &bytes) const override;
    Result<WatchEvent> decodeWatchEvent(QByteArrayView frame) const override;
};

} // namespace qcm::client
