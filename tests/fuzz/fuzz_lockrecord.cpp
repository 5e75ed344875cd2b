// SPDX-License-Identifier: Apache-2.0
// Leader-election records (qcm/leaderelection/leaderelectionrecord.h) in both encodings. The
// annotation form (ConfigMap and Endpoints locks): any bytes give a record or an error; a
// record that parses writes back an annotation that parses to a record with the same holder,
// lease duration and transitions. The Lease spec form: any JSON object gives a record that
// writes back to a spec giving the same record. The first byte picks the encoding.
#include "fuzzsupport.h"

#include <qcm/leaderelection/leaderelectionrecord.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using qcm::leaderelection::LeaderElectionRecord;
    if (size == 0)
        return 0;
    const QByteArray input = qcm::fuzz::bytes(data + 1, size - 1);
    if (data[0] & 1) {
        const QJsonDocument doc = QJsonDocument::fromJson(input);
        if (!doc.isObject())
            return 0;
        const LeaderElectionRecord record = LeaderElectionRecord::fromLeaseSpec(doc.object());
        const LeaderElectionRecord again
            = LeaderElectionRecord::fromLeaseSpec(record.toLeaseSpec());
        FUZZ_CHECK(again == record,
            QString::fromUtf8(QJsonDocument(record.toLeaseSpec()).toJson(QJsonDocument::Compact)));
        return 0;
    }
    const auto parsed = LeaderElectionRecord::fromAnnotation(input);
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
