// SPDX-License-Identifier: Apache-2.0
// goQuote: a string quoted as Go's strconv.Quote does for printable text (%#v and klog
// print strings so), for log lines that match client-go's.
//
// Thread safety: reentrant.
#pragma once

#include <QtCore/QString>

namespace qcm::record {

inline QString goQuote(const QString &s)
{
    QString out = QStringLiteral("\"");
    for (const QChar c : s) {
        switch (c.unicode()) {
        case '"':
            out += QStringLiteral("\\\"");
            break;
        case '\\':
            out += QStringLiteral("\\\\");
            break;
        case '\n':
            out += QStringLiteral("\\n");
            break;
        case '\t':
            out += QStringLiteral("\\t");
            break;
        case '\r':
            out += QStringLiteral("\\r");
            break;
        default:
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
            else
                out += c;
        }
    }
    return out + QLatin1Char('"');
}

} // namespace qcm::record
