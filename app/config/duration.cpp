// SPDX-License-Identifier: Apache-2.0
#include "config/duration.h"

#include <cmath>
#include <cstdint>

namespace qcm::host {

namespace {

constexpr std::uint64_t Nanosecond = 1;
constexpr std::uint64_t Microsecond = 1000 * Nanosecond;
constexpr std::uint64_t Millisecond = 1000 * Microsecond;
constexpr std::uint64_t Second = 1000 * Millisecond;
constexpr std::uint64_t Minute = 60 * Second;
constexpr std::uint64_t Hour = 60 * Minute;
constexpr std::uint64_t Limit = std::uint64_t(1) << 63;

std::uint64_t unitOf(const QString &unit)
{
    if (unit == QLatin1String("ns"))
        return Nanosecond;
    if (unit == QLatin1String("us") || unit == QStringLiteral("\u00b5s")
        || unit == QStringLiteral("\u03bcs"))
        return Microsecond;
    if (unit == QLatin1String("ms"))
        return Millisecond;
    if (unit == QLatin1String("s"))
        return Second;
    if (unit == QLatin1String("m"))
        return Minute;
    if (unit == QLatin1String("h"))
        return Hour;
    return 0;
}

bool isDigit(QChar c)
{
    return c >= QLatin1Char('0') && c <= QLatin1Char('9');
}

QString quoted(const QString &s)
{
    return QLatin1Char('"') + s + QLatin1Char('"');
}

Error invalid(const QString &why)
{
    return Error {{}, {}, why + QStringLiteral(" (durations look like 300ms, 10s, 1m30s or 2h)")};
}

// fmtFrac and fmtInt of Go's time package, writing from the end of buf.
int formatFraction(char *buf, int w, std::uint64_t &v, int precision)
{
    bool print = false;
    for (int i = 0; i < precision; ++i) {
        const int digit = int(v % 10);
        print = print || digit != 0;
        if (print) {
            buf[--w] = char('0' + digit);
        }
        v /= 10;
    }
    if (print)
        buf[--w] = '.';
    return w;
}

int formatInt(char *buf, int w, std::uint64_t v)
{
    if (v == 0) {
        buf[--w] = '0';
        return w;
    }
    while (v > 0) {
        buf[--w] = char('0' + v % 10);
        v /= 10;
    }
    return w;
}

} // namespace

Result<Duration> parseDuration(const QString &text)
{
    QString s = text;
    bool negative = false;
    if (!s.isEmpty() && (s.front() == QLatin1Char('-') || s.front() == QLatin1Char('+'))) {
        negative = s.front() == QLatin1Char('-');
        s.remove(0, 1);
    }
    if (s == QLatin1String("0"))
        return Duration::zero();
    if (s.isEmpty())
        return invalid(QStringLiteral("invalid duration ") + quoted(text));
    std::uint64_t total = 0;
    int i = 0;
    while (i < s.size()) {
        if (!(s[i] == QLatin1Char('.') || isDigit(s[i])))
            return invalid(QStringLiteral("invalid duration ") + quoted(text));
        // [0-9]*
        std::uint64_t whole = 0;
        const int wholeStart = i;
        for (; i < s.size() && isDigit(s[i]); ++i) {
            if (whole > (Limit - 1) / 10)
                return invalid(QStringLiteral("invalid duration ") + quoted(text));
            whole = whole * 10 + std::uint64_t(s[i].unicode() - '0');
            if (whole > Limit)
                return invalid(QStringLiteral("invalid duration ") + quoted(text));
        }
        const bool pre = i != wholeStart;
        // (\.[0-9]*)?
        std::uint64_t fraction = 0;
        double scale = 1;
        bool post = false;
        if (i < s.size() && s[i] == QLatin1Char('.')) {
            ++i;
            const int fractionStart = i;
            bool overflow = false;
            for (; i < s.size() && isDigit(s[i]); ++i) {
                if (overflow)
                    continue;
                if (fraction > (Limit - 1) / 10) {
                    overflow = true; // later digits cannot change the result (Go ignores them)
                    continue;
                }
                const std::uint64_t next = fraction * 10 + std::uint64_t(s[i].unicode() - '0');
                if (next > Limit) {
                    overflow = true;
                    continue;
                }
                fraction = next;
                scale *= 10;
            }
            post = i != fractionStart;
        }
        if (!pre && !post)
            return invalid(QStringLiteral("invalid duration ") + quoted(text));
        // The unit: everything up to the next '.' or digit.
        const int unitStart = i;
        for (; i < s.size() && !(s[i] == QLatin1Char('.') || isDigit(s[i])); ++i) { }
        if (i == unitStart)
            return invalid(QStringLiteral("missing unit in duration ") + quoted(text));
        const QString unitText = s.mid(unitStart, i - unitStart);
        const std::uint64_t unit = unitOf(unitText);
        if (unit == 0)
            return invalid(QStringLiteral("unknown unit %1 in duration %2")
                               .arg(quoted(unitText), quoted(text)));
        if (whole > Limit / unit)
            return invalid(QStringLiteral("invalid duration ") + quoted(text));
        std::uint64_t value = whole * unit;
        if (fraction > 0) {
            value += std::uint64_t(double(fraction) * (double(unit) / scale));
            if (value > Limit)
                return invalid(QStringLiteral("invalid duration ") + quoted(text));
        }
        total += value;
        if (total > Limit)
            return invalid(QStringLiteral("invalid duration ") + quoted(text));
    }
    if (total == 0)
        return Duration::zero();
    if (negative) // down to -2^63, one further than the positive side
        return Duration(-std::int64_t(total - 1) - 1);
    if (total > Limit - 1)
        return invalid(QStringLiteral("invalid duration ") + quoted(text));
    return Duration(std::int64_t(total));
}

QString formatDuration(Duration duration)
{
    // Go's Duration.String, digit for digit.
    char buf[32];
    int w = int(sizeof buf);
    const std::int64_t d = duration.count();
    std::uint64_t u = std::uint64_t(d);
    const bool negative = d < 0;
    if (negative)
        u = -u;
    if (u < Second) {
        int precision = 0;
        buf[--w] = 's';
        --w;
        if (u == 0)
            return QStringLiteral("0s");
        if (u < Microsecond) {
            precision = 0;
            buf[w] = 'n';
        } else if (u < Millisecond) {
            precision = 3;
            // U+00B5 'µ' in UTF-8 is C2 B5.
            --w;
            buf[w] = char(0xC2);
            buf[w + 1] = char(0xB5);
        } else {
            precision = 6;
            buf[w] = 'm';
        }
        w = formatFraction(buf, w, u, precision);
        w = formatInt(buf, w, u);
    } else {
        buf[--w] = 's';
        w = formatFraction(buf, w, u, 9);
        w = formatInt(buf, w, u % 60);
        u /= 60;
        if (u > 0) {
            buf[--w] = 'm';
            w = formatInt(buf, w, u % 60);
            u /= 60;
            if (u > 0) {
                buf[--w] = 'h';
                w = formatInt(buf, w, u);
            }
        }
    }
    if (negative)
        buf[--w] = '-';
    return QString::fromUtf8(buf + w, int(sizeof buf) - w);
}

} // namespace qcm::host
