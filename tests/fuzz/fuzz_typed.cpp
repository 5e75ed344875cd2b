// SPDX-License-Identifier: Apache-2.0
// Typed reads (qcm/typed/jsonnode.h), differentially against Qt's tree: for any object
// LazyJsonCodec accepts, a JsonNode walking its bytes reads exactly what the QJsonValue of
// the same JSON holds, every member, element and scalar, by iteration and by lookup
// (tests/unit/typed/jsonnodewalk.h); so does a JsonNode over the Object's tree. The bytes
// walker trusts the scanner's validation, so an input where they differ, or where the walk
// reads past the text (ASan), is a bug in one of the two.
#include "fuzzsupport.h"

#include "../unit/typed/jsonnodewalk.h"

#include <qcm/client/codec.h>

#include <QtCore/QJsonDocument>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json = qcm::fuzz::bytes(data, size);
    const auto decoded = qcm::client::LazyJsonCodec().decodeObject(json);
    if (!decoded)
        return 0;
    const QJsonValue expected = QJsonDocument::fromJson(json).object();
    const QString bytes
        = qcm::testing::jsonNodeDifference(qcm::typed::JsonNode::of(*decoded), expected);
    FUZZ_CHECK(bytes.isEmpty(), QStringLiteral("the bytes read differently at ") + bytes);
    const QString tree = qcm::testing::jsonNodeDifference(
        qcm::typed::JsonNode::of(qcm::client::Object(expected.toObject())), expected);
    FUZZ_CHECK(tree.isEmpty(), QStringLiteral("the tree reads differently at ") + tree);
    return 0;
}
