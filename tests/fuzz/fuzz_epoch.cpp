// SPDX-License-Identifier: Apache-2.0
// Scale-out annotations (qcm/sharding/epoch.h), read from Leases anyone with write access to
// them may edit. The first byte picks the form (modulo 3). An epoch: any bytes give an epoch
// or an error with a reason; an epoch that parses is within its limits, lists incarnations
// whose terms parse, and writes back to JSON that parses to the same epoch (id and previous
// included). An ack: any text gives a number and an epoch id or an error, and one that parses
// prints back to the same text. A term id: any text gives the same text back or an error.
#include "fuzzsupport.h"

#include <qcm/sharding/epoch.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using qcm::sharding::Epoch;
    if (size == 0)
        return 0;
    const QByteArray input = qcm::fuzz::bytes(data + 1, size - 1);
    if (data[0] % 3 == 2) {
        const QString text = QString::fromUtf8(input);
        const auto term = qcm::sharding::parseTerm(text);
        if (!term) {
            FUZZ_CHECK(!term.error().reason.isEmpty(), term.error().toString());
            return 0;
        }
        FUZZ_CHECK(*term == text && text.size() <= qcm::sharding::MaxTermLength, text);
        return 0;
    }
    if (data[0] % 3 == 1) {
        const QString text = QString::fromUtf8(input);
        const auto ack = qcm::sharding::parseAck(text);
        if (!ack) {
            FUZZ_CHECK(!ack.error().reason.isEmpty(), ack.error().toString());
            return 0;
        }
        FUZZ_CHECK(ack->toString() == text && ack->number <= Epoch::MaxNumber, text);
        return 0;
    }
    const auto epoch = Epoch::fromJson(input);
    if (!epoch) {
        FUZZ_CHECK(!epoch.error().reason.isEmpty(), epoch.error().toString());
        return 0;
    }
    FUZZ_CHECK(
        epoch->number >= 1 && epoch->members.size() <= Epoch::MaxMembers, QString::fromUtf8(input));
    for (const QString &m : epoch->members) {
        const QStringView identity = qcm::sharding::identityOf(m);
        FUZZ_CHECK(!identity.isEmpty() && identity.size() <= Epoch::MaxIdentityLength
                && identity.size() < m.size()
                && qcm::sharding::parseTerm(QStringView(m).mid(identity.size() + 1)),
            m);
    }
    const auto again = Epoch::fromJson(epoch->toJson());
    FUZZ_CHECK(again && *again == *epoch, QString::fromUtf8(epoch->toJson()));
    return 0;
}
