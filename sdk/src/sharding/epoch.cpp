// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/epoch.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

#include <algorithm>

namespace qcm::sharding {

const QString EpochAnnotation = QStringLiteral("scale-out.qcm.io/epoch");
const QString AckAnnotation = QStringLiteral("scale-out.qcm.io/ack");

namespace {

Error invalid(const QString &annotation, const QString &field, const QString &reason)
{
    return Error {annotation, field, reason};
}

} // namespace

Epoch Epoch::make(quint64 number, QStringList members)
{
    members.removeAll(QString());
    members.sort();
    members.erase(std::unique(members.begin(), members.end()), members.end());
    return Epoch {number, members};
}

QByteArray Epoch::toJson() const
{
    return QJsonDocument(QJsonObject {{QStringLiteral("number"), double(number)},
                             {QStringLiteral("members"), QJsonArray::fromStringList(members)}})
        .toJson(QJsonDocument::Compact);
}

Result<Epoch> Epoch::fromJson(QByteArrayView json)
{
    if (json.size() > MaxJsonBytes)
        return invalid(EpochAnnotation, {},
            QStringLiteral("larger than the limit of %1 bytes").arg(MaxJsonBytes));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return invalid(EpochAnnotation, {},
            QStringLiteral("not JSON at offset %1: %2")
                .arg(parseError.offset)
                .arg(parseError.errorString()));
    if (!doc.isObject())
        return invalid(EpochAnnotation, {}, QStringLiteral("not a JSON object"));
    const QJsonObject o = doc.object();
    const QJsonValue number = o.value(QLatin1String("number"));
    const double n = number.toDouble(-1);
    if (!number.isDouble() || n < 1 || n > double(MaxNumber) || n != double(quint64(n)))
        return invalid(EpochAnnotation, QStringLiteral("number"),
            QStringLiteral("not a whole number from 1 to 2^53"));
    const QJsonValue members = o.value(QLatin1String("members"));
    if (!members.isArray())
        return invalid(EpochAnnotation, QStringLiteral("members"), QStringLiteral("not a list"));
    const QJsonArray list = members.toArray();
    if (list.size() > MaxMembers)
        return invalid(EpochAnnotation, QStringLiteral("members"),
            QStringLiteral("more than the limit of %1 members").arg(MaxMembers));
    QStringList identities;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonValue m = list.at(i);
        const QString field = QStringLiteral("members[%1]").arg(i);
        if (!m.isString() || m.toString().isEmpty())
            return invalid(EpochAnnotation, field, QStringLiteral("not a non-empty string"));
        if (m.toString().size() > MaxIdentityLength)
            return invalid(EpochAnnotation, field,
                QStringLiteral("longer than the limit of %1 characters").arg(MaxIdentityLength));
        identities.append(m.toString());
    }
    return make(quint64(n), identities);
}

Result<quint64> parseAck(QStringView value)
{
    const bool digits = !value.isEmpty() && value.size() <= 20
        && std::all_of(
            value.begin(), value.end(), [](QChar c) { return c.isDigit() && c.unicode() < 128; })
        && (value.size() == 1 || value.front() != QLatin1Char('0'));
    bool ok = false;
    const quint64 n = digits ? value.toULongLong(&ok) : 0;
    if (ok && n > Epoch::MaxNumber)
        return invalid(
            AckAnnotation, {}, QStringLiteral("%1 is more than the largest epoch, 2^53").arg(n));
    if (!ok)
        return invalid(AckAnnotation, {},
            QStringLiteral("'%1' is not a decimal number without sign or leading zeros")
                .arg(value.left(64)));
    return n;
}

} // namespace qcm::sharding
