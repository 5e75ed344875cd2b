// SPDX-License-Identifier: Apache-2.0
// The conformance drivers' trace reading: one line split into words, and the errors that
// end a run (exit status 2, "error: line N: ..." on stderr). README.md describes the format.
//
// Thread safety: none needed; the drivers are single-threaded.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QString>
#include <QtCore/QStringList>

#include <cstdio>
#include <cstdlib>
#include <istream>
#include <optional>
#include <string>
#include <utility>

namespace qcm::conformance {

[[noreturn]] inline void fail(int lineNumber, const QString &message)
{
    std::fprintf(stderr, "error: line %d: %s\n", lineNumber, qPrintable(message));
    std::exit(2);
}

struct TraceParser
{
    QString line; // trimmed
    QStringList tokens;
    int position = 0;
    int lineNumber = 0;

    QString next()
    {
        if (position >= tokens.size())
            fail(lineNumber, QStringLiteral("missing argument"));
        return tokens[position++];
    }

    qint64 integer()
    {
        const QString token = next();
        bool ok = false;
        const qint64 value = token.toLongLong(&ok);
        if (!ok)
            fail(lineNumber, QStringLiteral("not an integer: %1").arg(token));
        return value;
    }

    double number()
    {
        const QString token = next();
        bool ok = false;
        const double value = token.toDouble(&ok);
        if (!ok)
            fail(lineNumber, QStringLiteral("not a number: %1").arg(token));
        return value;
    }

    Duration duration()
    {
        const QString token = next();
        static const std::pair<const char *, qint64> units[] = {{"ns", 1}, {"us", 1000},
            {"ms", 1000000}, {"s", 1000000000}, {"m", 60000000000}, {"h", 3600000000000}};
        for (const auto &[suffix, scale] : units) {
            if (token.endsWith(QLatin1String(suffix))) {
                const QString digits = token.chopped(int(qstrlen(suffix)));
                bool ok = false;
                const qint64 value = digits.toLongLong(&ok);
                if (ok && !digits.isEmpty() && digits[digits.size() - 1].isDigit())
                    return Duration(value * scale);
            }
        }
        fail(lineNumber, QStringLiteral("not a duration: %1").arg(token));
    }

    void end()
    {
        if (position != tokens.size())
            fail(lineNumber, QStringLiteral("unexpected argument: %1").arg(tokens[position]));
    }
};

// The trace's next operation on `in`, blank lines and comments skipped; nullopt at the end.
inline std::optional<TraceParser> nextTraceLine(std::istream &in, int &lineNumber)
{
    std::string raw;
    while (std::getline(in, raw)) {
        ++lineNumber;
        const QString line = QString::fromStdString(raw).trimmed();
        if (!line.isEmpty() && !line.startsWith(QLatin1Char('#')))
            return TraceParser {
                line, line.split(QLatin1Char(' '), Qt::SkipEmptyParts), 0, lineNumber};
    }
    return std::nullopt;
}

} // namespace qcm::conformance
