// SPDX-License-Identifier: Apache-2.0
// Label selectors (qcm/cache/labelselector.h, apimachinery's labels.Parse): any text parses
// or gives an error; a parsed selector matches label sets without failing, and an empty one
// matches everything.
#include "fuzzsupport.h"

#include <qcm/cache/labelselector.h>

#include <QtCore/QRegularExpression>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using qcm::cache::LabelSelector;
    const QString text = QString::fromUtf8(qcm::fuzz::bytes(data, size));
    const auto parsed = LabelSelector::parse(text);
    if (!parsed) {
        FUZZ_CHECK(!parsed.error().reason.isEmpty(), text);
        return 0;
    }
    // Labels made of the selector's own words, so that requirements can match.
    QMap<QString, QString> labels;
    const QStringList words
        = text.split(QRegularExpression(QStringLiteral("[^A-Za-z0-9._/-]+")), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i + 1 < words.size(); i += 2)
        labels.insert(words.at(i), words.at(i + 1));
    const bool matchesEmpty = parsed->matches({});
    parsed->matches(labels);
    if (parsed->isEmpty())
        FUZZ_CHECK(matchesEmpty && parsed->matches(labels), text);
    return 0;
}
