// SPDX-License-Identifier: Apache-2.0
// Durations (app/config/duration.h), as flags and controller-manager.yaml spell them: any
// text parses or gives an error; what parses prints back (Go's Duration.String) to text that
// parses to the same duration.
#include "config/duration.h"
#include "fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(qcm::fuzz::bytes(data, size));
    const auto parsed = qcm::host::parseDuration(text);
    if (!parsed) {
        FUZZ_CHECK(!parsed.error().reason.isEmpty(), text);
        return 0;
    }
    const QString printed = qcm::host::formatDuration(*parsed);
    const auto again = qcm::host::parseDuration(printed);
    FUZZ_CHECK(again && *again == *parsed, text + QLatin1String(" -> ") + printed);
    return 0;
}
