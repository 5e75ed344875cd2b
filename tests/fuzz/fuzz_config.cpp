// SPDX-License-Identifier: Apache-2.0
// controller-manager.yaml (app/config/config.h) with flag overrides (app/config/options.h): any
// bytes give a configuration or an error that names the file and says why; flags parse or
// give an error naming the flag; a configuration with the flags applied renders as /configz
// and differs from itself in nothing (configdiff). The input is the YAML, then optionally a NUL
// byte and flags, one per line.
#include "config/config.h"
#include "config/configdiff.h"
#include "config/options.h"
#include "fuzzsupport.h"
#include "serving/configz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString file = QStringLiteral("fuzz.yaml");
    const QByteArray input = qcm::fuzz::bytes(data, size);
    const qsizetype nul = input.indexOf('\0');
    auto parsed = qcm::host::parseConfig(nul < 0 ? input : input.left(nul), file);
    if (!parsed) {
        FUZZ_CHECK(parsed.error().file == file && !parsed.error().reason.isEmpty(),
            parsed.error().toString());
        return 0;
    }
    if (nul >= 0) {
        QStringList arguments {QStringLiteral("qcm")};
        for (const QByteArray &line : input.mid(nul + 1).split('\n'))
            arguments << QString::fromUtf8(line);
        const auto options = qcm::host::parseOptions(arguments);
        if (!options) {
            FUZZ_CHECK(!options.error().reason.isEmpty(), options.error().toString());
            return 0;
        }
        options->applyTo(*parsed);
    }
    QSet<QString> known;
    for (auto it = parsed->controllerConfig.cbegin(); it != parsed->controllerConfig.cend(); ++it)
        known.insert(it.key());
    const auto diff = qcm::host::diffConfigs(*parsed, *parsed, known, {});
    FUZZ_CHECK(diff.isEmpty(), diff.summary());
    FUZZ_CHECK(!qcm::host::configzJson(*parsed).isEmpty(), QStringLiteral("empty /configz"));
    return 0;
}
