// SPDX-License-Identifier: Apache-2.0
// kubeconfig files (qcm/client/kubeconfig.h): any bytes give a KubeConfig or an error naming
// the file; a parsed one merges into an empty one unchanged. (restConfig() is left out: it
// reads the files a kubeconfig names, and the fuzzer would name any file of the machine.)
#include "fuzzsupport.h"

#include <qcm/client/kubeconfig.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using qcm::client::KubeConfig;
    const QString file = QStringLiteral("/fuzz/kubeconfig");
    const auto parsed = KubeConfig::parse(qcm::fuzz::bytes(data, size), file);
    if (!parsed) {
        FUZZ_CHECK(!parsed.error().reason.isEmpty(), parsed.error().toString());
        return 0;
    }
    KubeConfig merged;
    merged.mergeFrom(*parsed);
    FUZZ_CHECK(merged.currentContext == parsed->currentContext
            && merged.clusters.keys() == parsed->clusters.keys()
            && merged.users.keys() == parsed->users.keys()
            && merged.contexts.keys() == parsed->contexts.keys(),
        QStringLiteral("merging into an empty kubeconfig changed it"));
    return 0;
}
