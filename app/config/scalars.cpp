// SPDX-License-Identifier: Apache-2.0
#include "config/scalars.h"

#include "config/duration.h"

#include <QtCore/QRegularExpression>

#include <cmath>

namespace qcm::host {

namespace {

Error expected(const QString &what, const QString &text)
{
    return Error {{}, {}, QStringLiteral("must be %1, not \"%2\"").arg(what, text)};
}

} // namespace

Result<bool> parseBool(const QString &text)
{
    static const QStringList yes {QStringLiteral("1"), QStringLiteral("t"), QStringLiteral("T"),
        QStringLiteral("TRUE"), QStringLiteral("true"), QStringLiteral("True")};
    static const QStringList no {QStringLiteral("0"), QStringLiteral("f"), QStringLiteral("F"),
        QStringLiteral("FALSE"), QStringLiteral("false"), QStringLiteral("False")};
    if (yes.contains(text))
        return true;
    if (no.contains(text))
        return false;
    return expected(QStringLiteral("true or false"), text);
}

Result<qint64> parseInteger(const QString &text, qint64 min, qint64 max)
{
    static const QRegularExpression decimal(QStringLiteral("^[-+]?[0-9]+$"));
    bool ok = decimal.match(text).hasMatch();
    const qint64 v = ok ? text.toLongLong(&ok) : 0;
    if (!ok)
        return expected(QStringLiteral("an integer"), text);
    if (v < min || v > max)
        return Error {
            {}, {}, QStringLiteral("must be between %1 and %2, not %3").arg(min).arg(max).arg(v)};
    return v;
}

Result<double> parseNumber(const QString &text)
{
    static const QRegularExpression real(
        QStringLiteral("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"));
    bool ok = real.match(text).hasMatch();
    const double v = ok ? text.toDouble(&ok) : 0;
    if (!ok || !std::isfinite(v))
        return expected(QStringLiteral("a number"), text);
    return v;
}

Result<Duration> parseNonNegativeDuration(const QString &text)
{
    Result<Duration> d = parseDuration(text);
    if (d && *d < Duration::zero())
        return Error {{}, {}, QStringLiteral("must not be negative, not \"%1\"").arg(text)};
    return d;
}

} // namespace qcm::host
