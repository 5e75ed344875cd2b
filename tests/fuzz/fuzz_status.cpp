// SPDX-License-Identifier: Apache-2.0
// apiserver Status bodies (qcm/client/status.h): any body with any HTTP code gives a Status;
// the code of a Status made from a response is the response's when the body has none, and
// what a failure says is never empty. The first two bytes are the HTTP code (100-599).
#include "fuzzsupport.h"

#include <qcm/client/status.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const int code = 100 + (data[0] << 8 | data[1]) % 500;
    const qcm::client::Status status
        = qcm::client::Status::fromResponse(code, qcm::fuzz::bytes(data + 2, size - 2));
    FUZZ_CHECK(status.code != 0, QStringLiteral("a response's Status without code"));
    if (code >= 400)
        FUZZ_CHECK(!status.message.isEmpty() || !status.reason.isEmpty(),
            QStringLiteral("a failure with neither message nor reason"));
    (void)status.isNotFound();
    (void)status.isGone();
    return 0;
}
