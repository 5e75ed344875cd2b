// SPDX-License-Identifier: Apache-2.0
// What an exec credential plugin prints (qcm/client/execcredentialprovider.h): any bytes give
// a credential or an error with a reason; a credential has a token or a certificate with its
// key.
#include "fuzzsupport.h"

#include <qcm/client/execcredentialprovider.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using qcm::client::ExecCredentialProvider;
    const auto parsed = ExecCredentialProvider::parseOutput(
        qcm::fuzz::bytes(data, size), QStringLiteral("client.authentication.k8s.io/v1"));
    if (!parsed) {
        FUZZ_CHECK(!parsed.error().reason.isEmpty(), QStringLiteral("an error without reason"));
        return 0;
    }
    FUZZ_CHECK(!parsed->token.isEmpty() || !parsed->clientCertificateData.isEmpty(),
        QStringLiteral("neither token nor certificate"));
    FUZZ_CHECK(parsed->clientCertificateData.isEmpty() == parsed->clientKeyData.isEmpty(),
        QStringLiteral("a certificate without its key"));
    return 0;
}
