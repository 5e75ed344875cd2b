// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/epoch.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRandomGenerator>

#include <algorithm>

namespace qcm::sharding {

const QString EpochAnnotation = QStringLiteral("scale-out.qcm.io/epoch");
const QString AckAnnotation = QStringLiteral("scale-out.qcm.io/ack");
const QString TermAnnotation = QStringLiteral("scale-out.qcm.io/term");

namespace {

Error invalid(const QString &annotation, const QString &field, const QString &reason)
{
    return Error {annotation, field, reason};
}

} // namespace

Epoch Epoch::make(quint64 number, QStringList members, QString id, QString previous)
{
    members.removeAll(QString());
    members.sort();
    members.erase(std::unique(members.begin(), members.end()), members.end());
    return Epoch {number, members, std::move(id), std::move(previous)};
}

QByteArray Epoch::toJson() const
{
    QJsonObject o {{QStringLiteral("number"), double(number)},
        {QStringLiteral("members"), QJsonArray::fromStringList(members)}};
    if (!id.isEmpty())
        o.insert(QStringLiteral("id"), id);
    if (!previous.isEmpty())
        o.insert(QStringLiteral("previous"), previous);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QString Ack::toString() const
{
    return QString::number(number) + QLatin1Char('/') + epoch;
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
    const QJsonValue id = o.value(QLatin1String("id"));
    const auto parsedId = parseTerm(id.toString());
    if (!id.isString() || !parsedId)
        return invalid(EpochAnnotation, QStringLiteral("id"),
            QStringLiteral("not an id of 1 to %1 lowercase hexadecimal digits").arg(MaxTermLength));
    const QJsonValue previous = o.value(QLatin1String("previous"));
    if (!previous.isUndefined() && (!previous.isString() || !parseTerm(previous.toString())))
        return invalid(EpochAnnotation, QStringLiteral("previous"),
            QStringLiteral("not an id of 1 to %1 lowercase hexadecimal digits").arg(MaxTermLength));
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
        const QString member = m.toString();
        const qsizetype slash = member.lastIndexOf(QLatin1Char('/'));
        if (slash <= 0)
            return invalid(
                EpochAnnotation, field, QStringLiteral("not an incarnation, identity/term"));
        if (slash > MaxIdentityLength)
            return invalid(EpochAnnotation, field,
                QStringLiteral("an identity longer than the limit of %1 characters")
                    .arg(MaxIdentityLength));
        if (const auto term = parseTerm(QStringView(member).mid(slash + 1)); !term)
            return invalid(EpochAnnotation, field, term.error().reason);
        identities.append(member);
    }
    return make(quint64(n), identities, *parsedId, previous.toString());
}

Result<QString> parseTerm(QStringView value)
{
    const bool hex = !value.isEmpty() && value.size() <= MaxTermLength
        && std::all_of(value.begin(), value.end(), [](QChar c) {
               return (c >= QLatin1Char('0') && c <= QLatin1Char('9'))
                   || (c >= QLatin1Char('a') && c <= QLatin1Char('f'));
           });
    if (!hex)
        return invalid(TermAnnotation, {},
            QStringLiteral("'%1' is not a term id of 1 to %2 lowercase hexadecimal digits")
                .arg(value.left(64))
                .arg(MaxTermLength));
    return value.toString();
}

QString newTerm()
{
    return QStringLiteral("%1").arg(
        QRandomGenerator::system()->generate64(), 16, 16, QLatin1Char('0'));
}

QString incarnation(QStringView identity, QStringView term)
{
    return identity.toString() + QLatin1Char('/') + term.toString();
}

QStringView identityOf(QStringView incarnation)
{
    const qsizetype slash = incarnation.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? incarnation : incarnation.left(slash);
}

Result<Ack> parseAck(QStringView whole)
{
    const qsizetype slash = whole.indexOf(QLatin1Char('/'));
    const QStringView value = slash < 0 ? whole : whole.left(slash);
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
    const auto id = parseTerm(slash < 0 ? QStringView() : whole.mid(slash + 1));
    if (slash < 0 || !id)
        return invalid(AckAnnotation, {},
            QStringLiteral("'%1' is not <number>/<epoch id> (an id of 1 to %2 lowercase "
                           "hexadecimal digits)")
                .arg(whole.left(64))
                .arg(MaxTermLength));
    return Ack {n, *id};
}

} // namespace qcm::sharding
