// SPDX-License-Identifier: Apache-2.0
// A LeaseCandidate's spec as the API server sends it (leaderelection/leasecandidate.h): any
// JSON gives an answer to "does the server ping?", and a spec without a pingTime never does;
// a pingTime one microsecond after a readable renewTime always does. Its emulationVersion and
// binaryVersion, as a member's scale-out.qcm.io/emulation-version is read too: the version
// order is antisymmetric and reflexive, and unreadable versions are unreadable both ways.
// The input's "items", as a list of candidates the server sends: the first one's twin of the
// same second (sameSecondTwin) is never itself, is one of the items, and is a twin both ways.
#include <qcm/leaderelection/leasecandidate.h>

#include "fuzzsupport.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using qcm::leaderelection::LeaseCandidate;
    const QByteArray bytes = qcm::fuzz::bytes(data, size);
    const QJsonObject document = QJsonDocument::fromJson(bytes).object();
    const QJsonObject &spec = document;
    const bool pinged = LeaseCandidate::pingPending(spec);
    if (!spec.contains(QLatin1String("pingTime")))
        FUZZ_CHECK(!pinged, QString::fromUtf8(bytes));
    const QString renew = spec.value(QLatin1String("renewTime")).toString();
    if (renew.size() == 27 && renew.endsWith(QLatin1Char('Z')) && renew[19] == QLatin1Char('.')) {
        bool digits = false;
        const qint64 micros = renew.mid(20, 6).toLongLong(&digits);
        if (digits && micros < 999999) {
            QJsonObject later = spec;
            later.insert(QStringLiteral("pingTime"),
                renew.left(20) + QStringLiteral("%1Z").arg(micros + 1, 6, 10, QLatin1Char('0')));
            if (LeaseCandidate::pingPending(QJsonObject {{QStringLiteral("pingTime"), renew}}))
                FUZZ_CHECK(LeaseCandidate::pingPending(later), QString::fromUtf8(bytes));
        }
    }
    const QString a = spec.value(QLatin1String("emulationVersion")).toString();
    const QString b = spec.value(QLatin1String("binaryVersion")).toString();
    const std::optional<int> ab = LeaseCandidate::compareVersions(a, b);
    const std::optional<int> ba = LeaseCandidate::compareVersions(b, a);
    FUZZ_CHECK(ab.has_value() == ba.has_value(), QString::fromUtf8(bytes));
    if (ab)
        FUZZ_CHECK(
            *ab == -*ba && LeaseCandidate::compareVersions(a, a) == 0, QString::fromUtf8(bytes));

    QList<qcm::client::Object> items;
    for (const QJsonValue &item : document.value(QLatin1String("items")).toArray())
        items << qcm::client::Object(item.toObject());
    if (!items.isEmpty()) {
        const qcm::client::Object &mine = items.front();
        const QString twin = LeaseCandidate::sameSecondTwin(mine, items);
        FUZZ_CHECK(twin.isEmpty() || twin != mine.name(), QString::fromUtf8(bytes));
        bool found = twin.isEmpty();
        for (const qcm::client::Object &other : items) {
            const QString one = LeaseCandidate::sameSecondTwin(mine, {other});
            if (one.isEmpty())
                continue;
            found = found || one == twin;
            FUZZ_CHECK(
                one == other.name() && LeaseCandidate::sameSecondTwin(other, {mine}) == mine.name(),
                QString::fromUtf8(bytes));
        }
        FUZZ_CHECK(found, QString::fromUtf8(bytes));
    }
    return 0;
}
