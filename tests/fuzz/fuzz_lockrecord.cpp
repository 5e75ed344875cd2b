// SPDX-License-Identifier: Apache-2.0
// Leader-election records in their annotation form (qcm/leaderelection/leaderelectionrecord.h):
// any bytes give a record or an error; a record that parses writes back an annotation that
// parses to a record with the same holder, lease duration and transitions.
#include "fuzzsupport.h"

#include <qcm/leaderelection/leaderelectionrecord.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using qcm::leaderelection::LeaderElectionRecord;
    const auto parsed = LeaderElectionRecord::fromAnnotation(qcm::fuzz::bytes(data, size));
    if (!parsed) {
        FUZZ_CHECK(!parsed.error().reason.isEmpty(), parsed.error().toString());
        return 0;
    }
    const QByteArray written = parsed->toAnnotation();
    const auto again = LeaderElectionRecord::fromAnnotation(written);
    FUZZ_CHECK(again, QString::fromUtf8(written));
    FUZZ_CHECK(again->holderIdentity == parsed->holderIdentity
            && again->leaseDurationSeconds == parsed->leaseDurationSeconds
            && again->leaderTransitions == parsed->leaderTransitions,
        QString::fromUtf8(written));
    (void)parsed->toLeaseSpec();
    return 0;
}
