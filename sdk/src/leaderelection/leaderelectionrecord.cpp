// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/leaderelectionrecord.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRegularExpression>

namespace qcm::leaderelection {

namespace {

const QString HolderIdentity = QStringLiteral("holderIdentity");
const QString LeaseDurationSeconds = QStringLiteral("leaseDurationSeconds");
const QString AcquireTime = QStringLiteral("acquireTime");
const QString RenewTime = QStringLiteral("renewTime");
const QString LeaderTransitions = QStringLiteral("leaderTransitions");
const QString LeaseTransitions = QStringLiteral("leaseTransitions");
const QString Strategy = QStringLiteral("strategy");
const QString PreferredHolder = QStringLiteral("preferredHolder");

// metav1.Time: RFC 3339 in seconds; metav1.MicroTime: six fractional digits. Unset is null.
QJsonValue timeValue(const QDateTime &t, bool micro)
{
    if (!t.isValid())
        return QJsonValue::Null;
    return t.toUTC().toString(micro ? QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'000Z'")
                                    : QStringLiteral("yyyy-MM-dd'T'HH:mm:ss'Z'"));
}

// What metav1.Time's UnmarshalJSON accepts: Go's time.Parse(time.RFC3339, …), which takes a
// one- or two-digit hour, any number of fractional digits after '.' or ',', and "Z" or an
// offset ±hh:mm (up to 24:60), and checks the ranges of the date and the time. Anything else
// (no zone, a space for 'T', a lower-case 'z') is invalid. QDateTime keeps milliseconds.
QDateTime parseTime(const QString &text)
{
    static const QRegularExpression rfc3339(QStringLiteral(
        R"(^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?(?:Z|([+-])([0-9]{2}):([0-9]{2}))$)"));
    const QRegularExpressionMatch m = rfc3339.match(text);
    if (!m.hasMatch())
        return QDateTime();
    auto number = [&m](int group) { return m.captured(group).toInt(); };
    const QDate date(number(1), number(2), number(3));
    const int ms = (m.captured(7) + QStringLiteral("00")).left(3).toInt();
    if (!date.isValid() || number(4) > 23 || number(5) > 59 || number(6) > 59)
        return QDateTime();
    int offset = 0;
    if (m.hasCaptured(8)) {
        if (number(9) > 24 || number(10) > 60)
            return QDateTime();
        offset
            = (number(9) * 60 + number(10)) * 60 * (m.captured(8) == QLatin1String("-") ? -1 : 1);
    }
    return QDateTime(date, QTime(number(4), number(5), number(6), ms), Qt::UTC).addSecs(-offset);
}

// A JSON string as Go's json.Marshal writes it: it also escapes <, > and & (HTML-safe) and
// U+2028, U+2029.
QByteArray jsonString(const QString &s)
{
    const QByteArray array = QJsonDocument(QJsonArray {s}).toJson(QJsonDocument::Compact);
    return array
        .mid(1, array.size() - 2) // strip [ ]
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\xe2\x80\xa8", "\\u2028")
        .replace("\xe2\x80\xa9", "\\u2029");
}

QByteArray jsonValue(const QJsonValue &v)
{
    return v.isNull() ? QByteArrayLiteral("null") : jsonString(v.toString());
}

Error fieldError(const QString &field, const QString &reason)
{
    return Error {QString(),
        QString::fromLatin1(LeaderElectionRecordAnnotationKey) + QLatin1Char('.') + field, reason};
}

} // namespace

QByteArray LeaderElectionRecord::toAnnotation() const
{
    // Field order and spelling as client-go's json.Marshal of the record.
    return QByteArrayLiteral("{\"holderIdentity\":") + jsonString(holderIdentity)
        + QByteArrayLiteral(",\"leaseDurationSeconds\":") + QByteArray::number(leaseDurationSeconds)
        + QByteArrayLiteral(",\"acquireTime\":") + jsonValue(timeValue(acquireTime, false))
        + QByteArrayLiteral(",\"renewTime\":") + jsonValue(timeValue(renewTime, false))
        + QByteArrayLiteral(",\"leaderTransitions\":") + QByteArray::number(leaderTransitions)
        + QByteArrayLiteral("}");
}

Result<LeaderElectionRecord> LeaderElectionRecord::fromAnnotation(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return Error {QString(), QString::fromLatin1(LeaderElectionRecordAnnotationKey),
            QStringLiteral("not a JSON object: %1")
                .arg(parseError.error != QJsonParseError::NoError
                        ? parseError.errorString()
                        : QStringLiteral("not an object"))};
    const QJsonObject o = doc.object();
    LeaderElectionRecord r;
    // As Go's json.Unmarshal: null leaves a field at its zero value.
    const QJsonValue holder = o.value(HolderIdentity);
    if (!holder.isUndefined() && !holder.isNull() && !holder.isString())
        return fieldError(HolderIdentity, QStringLiteral("must be a string"));
    r.holderIdentity = holder.toString();
    for (const auto &[name, target] : {std::pair {LeaseDurationSeconds, &r.leaseDurationSeconds},
             std::pair {LeaderTransitions, &r.leaderTransitions}}) {
        const QJsonValue v = o.value(name);
        if (v.isUndefined() || v.isNull())
            continue;
        if (!v.isDouble() || v.toDouble() != double(v.toInt()))
            return fieldError(name, QStringLiteral("must be an integer"));
        *target = v.toInt();
    }
    for (const auto &[name, target] :
        {std::pair {AcquireTime, &r.acquireTime}, std::pair {RenewTime, &r.renewTime}}) {
        const QJsonValue v = o.value(name);
        if (v.isUndefined() || v.isNull())
            continue;
        *target = v.isString() ? parseTime(v.toString()) : QDateTime();
        if (!target->isValid())
            return fieldError(name, QStringLiteral("must be an RFC 3339 time"));
    }
    return r;
}

QJsonObject LeaderElectionRecord::toLeaseSpec() const
{
    QJsonObject spec {{HolderIdentity, holderIdentity},
        {LeaseDurationSeconds, leaseDurationSeconds}, {AcquireTime, timeValue(acquireTime, true)},
        {RenewTime, timeValue(renewTime, true)}, {LeaseTransitions, leaderTransitions}};
    if (!strategy.isEmpty())
        spec.insert(Strategy, strategy);
    if (!preferredHolder.isEmpty())
        spec.insert(PreferredHolder, preferredHolder);
    return spec;
}

LeaderElectionRecord LeaderElectionRecord::fromLeaseSpec(const QJsonObject &spec)
{
    LeaderElectionRecord r;
    r.holderIdentity = spec.value(HolderIdentity).toString();
    r.leaseDurationSeconds = spec.value(LeaseDurationSeconds).toInt();
    r.leaderTransitions = spec.value(LeaseTransitions).toInt();
    r.acquireTime = parseTime(spec.value(AcquireTime).toString());
    r.renewTime = parseTime(spec.value(RenewTime).toString());
    r.strategy = spec.value(Strategy).toString();
    r.preferredHolder = spec.value(PreferredHolder).toString();
    return r;
}

bool LeaderElectionRecord::operator==(const LeaderElectionRecord &o) const
{
    return holderIdentity == o.holderIdentity && leaseDurationSeconds == o.leaseDurationSeconds
        && acquireTime == o.acquireTime && renewTime == o.renewTime
        && leaderTransitions == o.leaderTransitions && strategy == o.strategy
        && preferredHolder == o.preferredHolder;
}

} // namespace qcm::leaderelection
