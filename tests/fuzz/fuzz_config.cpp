// SPDX-License-Identifier: Apache-2.0
// controller-manager.yaml (app/config/config.h): any bytes give a configuration or an error
// that names the file and says why; a configuration that parses renders as /configz and
// differs from itself in nothing (configdiff).
#include "config/config.h"
#include "config/configdiff.h"
#include "fuzzsupport.h"
#include "serving/configz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString file = QStringLiteral("fuzz.yaml");
    const auto parsed = qcm::host::parseConfig(qcm::fuzz::bytes(data, size), file);
    if (!parsed) {
        FUZZ_CHECK(parsed.error().file == file && !parsed.error().reason.isEmpty(),
            parsed.error().toString());
        return 0;
    }
    QSet<QString> known;
    for (auto it = parsed->controllerConfig.cbegin(); it != parsed->controllerConfig.cend(); ++it)
        known.insert(it.key());
    const auto diff = qcm::host::diffConfigs(*parsed, *parsed, known, {});
    FUZZ_CHECK(diff.isEmpty(), diff.summary());
    FUZZ_CHECK(!qcm::host::configzJson(*parsed).isEmpty(), QStringLiteral("empty /configz"));
    return 0;
}
