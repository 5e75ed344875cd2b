// SPDX-License-Identifier: Apache-2.0
// The JSON scanner behind LazyJsonCodec (sdk/src/client/jsonscan.h), differentially against
// Qt's reader (QtJsonCodec):
//   * what LazyJsonCodec accepts as an object or a list, Qt's reader accepts too;
//   * what Qt's reader accepts and LazyJsonCodec refuses breaks RFC 8259 in one of the ways
//     Qt's reader is known to be lenient (LenientReasons), or nests deeper than
//     LazyJsonCodec's limit;
//   * the metadata LazyJsonCodec reads from its index of the bytes (name, namespace, uid,
//     resourceVersion, generation, labels, annotations, finalizers, owners, key) equals what
//     the Qt tree of the same bytes holds; for lists, item by item.
// The first byte picks object or list; the rest is the document.
#include "fuzzsupport.h"

#include <qcm/client/codec.h>

#include <QtCore/QRegularExpression>

namespace {

using qcm::client::Object;

// What Qt's reader takes and RFC 8259 (LazyJsonCodec) refuses (docs/fuzzing.md): the reason
// LazyJsonCodec gives, or, for a value it cannot start, a number in a form only Qt reads
// (".5", "-.00": found by this harness) at the offset it names.
bool lenientInQt(const QString &lazyReason, const QByteArray &document)
{
    static const char *const reasons[] = {
        "invalid escape sequence", // Qt keeps an unknown escape's character
        "invalid \\u escape sequence", // lone surrogates
        "control character in a string", // Qt takes raw control characters
        "invalid UTF-8 in a string", // Qt substitutes U+FFFD
        "nested deeper than", // LazyJsonCodec stops at 512, Qt at 1024
        "invalid number", // Qt takes numbers such as -.00
    };
    for (const char *reason : reasons)
        if (lazyReason.contains(QLatin1String(reason)))
            return true;
    static const QRegularExpression at(QStringLiteral("at offset (\\d+): invalid value"));
    const QRegularExpressionMatch m = at.match(lazyReason);
    if (!m.hasMatch())
        return false;
    const QByteArray rest = document.mid(m.captured(1).toLongLong(), 3);
    return rest.startsWith('.') || rest.startsWith("-.");
}

void compare(const Object &lazy, const Object &tree, const QString &what)
{
    FUZZ_CHECK(lazy.apiVersion() == tree.apiVersion(), what + QLatin1String(" apiVersion"));
    FUZZ_CHECK(lazy.kind() == tree.kind(), what + QLatin1String(" kind"));
    FUZZ_CHECK(lazy.name() == tree.name(), what + QLatin1String(" name"));
    FUZZ_CHECK(lazy.namespaceName() == tree.namespaceName(), what + QLatin1String(" namespace"));
    FUZZ_CHECK(lazy.uid() == tree.uid(), what + QLatin1String(" uid"));
    FUZZ_CHECK(
        lazy.resourceVersion() == tree.resourceVersion(), what + QLatin1String(" resourceVersion"));
    FUZZ_CHECK(lazy.generation() == tree.generation(), what + QLatin1String(" generation"));
    FUZZ_CHECK(lazy.labels() == tree.labels(), what + QLatin1String(" labels"));
    FUZZ_CHECK(lazy.annotations() == tree.annotations(), what + QLatin1String(" annotations"));
    FUZZ_CHECK(lazy.finalizers() == tree.finalizers(), what + QLatin1String(" finalizers"));
    FUZZ_CHECK(lazy.ownerReferences().size() == tree.ownerReferences().size(),
        what + QLatin1String(" ownerReferences"));
    FUZZ_CHECK(
        lazy.key() == tree.key() && lazy.hasName() == tree.hasName(), what + QLatin1String(" key"));
    FUZZ_CHECK(lazy.json() == tree.json(), what + QLatin1String(" tree"));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const QByteArray document = qcm::fuzz::bytes(data + 1, size - 1);
    const qcm::client::LazyJsonCodec lazyCodec;
    const qcm::client::QtJsonCodec qtCodec;
    // Whether both readers took the document: a refusal by LazyJsonCodec alone must be one of
    // Qt's known leniencies, an acceptance by LazyJsonCodec alone is a bug.
    auto bothTook = [&](const auto &lazy, const auto &tree, const char *what) {
        if (!lazy) {
            FUZZ_CHECK(!lazy.error().reason.isEmpty(), QStringLiteral("no reason"));
            FUZZ_CHECK(!tree || lenientInQt(lazy.error().reason, document),
                QStringLiteral("Qt's reader takes %1 LazyJsonCodec refuses: %2")
                    .arg(QLatin1String(what), lazy.error().reason));
            return false;
        }
        FUZZ_CHECK(tree,
            QStringLiteral("Qt's reader refuses %1 LazyJsonCodec takes: %2")
                .arg(QLatin1String(what), tree.error().reason));
        return true;
    };
    if (data[0] & 1) {
        const auto lazy = lazyCodec.decodeList(document);
        const auto tree = qtCodec.decodeList(document);
        if (!bothTook(lazy, tree, "a list"))
            return 0;
        FUZZ_CHECK(lazy->items.size() == tree->items.size(), QStringLiteral("item count"));
        FUZZ_CHECK(
            lazy->resourceVersion == tree->resourceVersion, QStringLiteral("list resourceVersion"));
        for (qsizetype i = 0; i < lazy->items.size(); ++i)
            compare(lazy->items.at(i), tree->items.at(i), QStringLiteral("item %1").arg(i));
    } else {
        const auto lazy = lazyCodec.decodeObject(document);
        const auto tree = qtCodec.decodeObject(document);
        if (bothTook(lazy, tree, "an object"))
            compare(*lazy, *tree, QStringLiteral("object"));
    }
    return 0;
}
