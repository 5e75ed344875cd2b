// SPDX-License-Identifier: Apache-2.0
#include "jsonscan.h"

#include <qcm/detail/inputlimits.h>

#include <QtCore/QStringDecoder>

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qcm::detail {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isHex(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int hexValue(char c)
{
    return isDigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
}

// The first byte at or after `p` that ends a run of plain string characters: '"', '\\', a
// control character or a non-ASCII byte (UTF-8, validated by the caller).
const char *findStringSpecial(const char *p, const char *end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        // Signed: bytes >= 0x80 are negative, so "less than 0x20" catches them too.
        const __m128i special
            = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                _mm_cmplt_epi8(v, space));
        const int mask = _mm_movemask_epi8(special);
        if (mask != 0)
            return p + __builtin_ctz(unsigned(mask));
        p += 16;
    }
#endif
    for (; p < end; ++p) {
        const auto c = uchar(*p);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            return p;
    }
    return end;
}

// Names as views with their sizes known when compiled: a comparison tests the size first and
// measures no string (with a `const char *`, each one called strlen(): 60-90 calls per
// metadata of a watch event, the decoder's largest single cost in tests/bench/RESULTS.md
// run 31).
constexpr struct
{
    QByteArrayView name;
    MetaField field;
} metaFields[] = {
    {"name", MetaName},
    {"namespace", MetaNamespace},
    {"uid", MetaUid},
    {"resourceVersion", MetaResourceVersion},
    {"generation", MetaGeneration},
    {"labels", MetaLabels},
    {"annotations", MetaAnnotations},
    {"ownerReferences", MetaOwnerReferences},
    {"finalizers", MetaFinalizers},
    {"creationTimestamp", MetaCreationTimestamp},
    {"deletionTimestamp", MetaDeletionTimestamp},
};

} // namespace

int metaFieldOf(QByteArrayView key)
{
    for (const auto &f : metaFields)
        if (key == f.name)
            return f.field;
    return -1;
}

JsonScanner::JsonScanner(QByteArrayView text)
    : m_begin(text.data())
    , m_p(text.data())
    , m_end(text.data() + text.size())
    , m_maxDepth(detail::jsonDepthLimit())
{ }

bool JsonScanner::fail(const char *at, const QString &reason)
{
    if (m_error.isEmpty()) {
        m_error = reason;
        m_errorOffset = at - m_begin;
    }
    m_p = m_end; // nothing more is read after an error
    return false;
}

QString JsonScanner::errorMessage() const
{
    return QStringLiteral("invalid JSON at offset %1: %2").arg(m_errorOffset).arg(m_error);
}

void JsonScanner::skipSpace()
{
    while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
        ++m_p;
}

bool JsonScanner::expect(char c)
{
    skipSpace();
    if (m_p < m_end && *m_p == c) {
        ++m_p;
        return true;
    }
    const QString what = c == '{' ? QStringLiteral("a JSON object")
        : c == '['                ? QStringLiteral("a JSON array")
                                  : QStringLiteral("'%1'").arg(QLatin1Char(c));
    return fail(m_p,
        m_p < m_end ? QStringLiteral("expected %1").arg(what)
                    : QStringLiteral("expected %1, found the end").arg(what));
}

bool JsonScanner::atEnd()
{
    skipSpace();
    return m_p >= m_end;
}

bool JsonScanner::peek(char c)
{
    skipSpace();
    return m_p < m_end && *m_p == c;
}

bool JsonScanner::scanUtf8(const char *&p)
{
    const auto *u = reinterpret_cast<const uchar *>(p);
    const auto left = m_end - p;
    const uchar b0 = u[0];
    auto cont = [&](int i, uchar lo = 0x80, uchar hi = 0xBF) {
        return i < left && u[i] >= lo && u[i] <= hi;
    };
    int length = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF)
        length = cont(1) ? 2 : 0;
    else if (b0 == 0xE0)
        length = cont(1, 0xA0) && cont(2) ? 3 : 0;
    else if (b0 == 0xED) // no UTF-16 surrogates
        length = cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
    else if (b0 >= 0xE1 && b0 <= 0xEF)
        length = cont(1) && cont(2) ? 3 : 0;
    else if (b0 == 0xF0)
        length = cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    else if (b0 >= 0xF1 && b0 <= 0xF3)
        length = cont(1) && cont(2) && cont(3) ? 4 : 0;
    else if (b0 == 0xF4) // nothing above U+10FFFF
        length = cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
    if (length == 0)
        return false;
    p += length;
    return true;
}

bool JsonScanner::scanString()
{
    const char *p = m_p + 1;
    m_escaped = false;
    for (;;) {
        p = findStringSpecial(p, m_end);
        if (p >= m_end)
            return fail(m_p, QStringLiteral("unterminated string"));
        const auto c = uchar(*p);
        if (c == '"') {
            m_p = p + 1;
            return true;
        }
        if (c == '\\') {
            m_escaped = true;
            if (m_end - p < 2)
                return fail(m_p, QStringLiteral("unterminated string"));
            switch (p[1]) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                p += 2;
                break;
            case 'u':
                if (m_end - p < 6 || !isHex(p[2]) || !isHex(p[3]) || !isHex(p[4]) || !isHex(p[5]))
                    return fail(p, QStringLiteral("invalid \\u escape sequence"));
                p += 6;
                break;
            default:
                return fail(p, QStringLiteral("invalid escape sequence"));
            }
            continue;
        }
        if (c < 0x20)
            return fail(p, QStringLiteral("control character in a string"));
        if (!scanUtf8(p))
            return fail(p, QStringLiteral("invalid UTF-8 in a string"));
    }
}

bool JsonScanner::scanNumber()
{
    const char *start = m_p;
    const char *p = m_p;
    if (p < m_end && *p == '-')
        ++p;
    if (p < m_end && *p == '0') {
        ++p;
    } else if (p < m_end && *p >= '1' && *p <= '9') {
        while (p < m_end && isDigit(*p))
            ++p;
    } else {
        return fail(start, QStringLiteral("invalid number"));
    }
    bool check = false;
    if (p < m_end && *p == '.') {
        ++p;
        if (p >= m_end || !isDigit(*p))
            return fail(start, QStringLiteral("invalid number"));
        while (p < m_end && isDigit(*p))
            ++p;
    }
    if (p < m_end && (*p == 'e' || *p == 'E')) {
        check = true;
        ++p;
        if (p < m_end && (*p == '+' || *p == '-'))
            ++p;
        if (p >= m_end || !isDigit(*p))
            return fail(start, QStringLiteral("invalid number"));
        while (p < m_end && isDigit(*p))
            ++p;
    }
    // Qt's reader refuses numbers a double cannot hold (1e400, 1e-400); so does this.
    if (check || p - start > 20) {
        bool ok = false;
        (void)QByteArrayView(start, p - start).toDouble(&ok);
        if (!ok)
            return fail(start, QStringLiteral("number out of range"));
    }
    m_p = p;
    return true;
}

bool JsonScanner::scanLiteral(const char *word, qsizetype size)
{
    if (m_end - m_p < size || std::memcmp(m_p, word, size_t(size)) != 0)
        return fail(m_p, QStringLiteral("invalid value"));
    m_p += size;
    return true;
}

bool JsonScanner::skipValue(int depth)
{
    skipSpace();
    if (m_p >= m_end)
        return fail(m_p, QStringLiteral("expected a value, found the end"));
    switch (*m_p) {
    case '{':
        return skipObject(depth);
    case '[':
        return skipArray(depth);
    case '"':
        return scanString();
    case 't':
        return scanLiteral("true", 4);
    case 'f':
        return scanLiteral("false", 5);
    case 'n':
        return scanLiteral("null", 4);
    default:
        if (*m_p == '-' || isDigit(*m_p))
            return scanNumber();
        return fail(m_p, QStringLiteral("invalid value"));
    }
}

bool JsonScanner::skipObject(int depth)
{
    QByteArrayView key;
    QByteArray storage;
    for (bool first = true; nextMember(key, storage, first, depth); first = false)
        if (!skipValue(depth + 1))
            return false;
    return !failed();
}

bool JsonScanner::skipArray(int depth)
{
    for (bool first = true; nextElement(first, depth); first = false)
        if (!skipValue(depth + 1))
            return false;
    return !failed();
}

bool JsonScanner::enter(char opener, char closer, int depth)
{
    skipSpace();
    if (m_p >= m_end || *m_p != opener)
        return expect(opener);
    if (depth >= m_maxDepth)
        return fail(
            m_p, QStringLiteral("nested deeper than %1 (limits.jsonDepth)").arg(m_maxDepth));
    ++m_p;
    skipSpace();
    if (m_p < m_end && *m_p == closer) {
        ++m_p;
        return false;
    }
    return true;
}

bool JsonScanner::next(char closer, QLatin1StringView container)
{
    skipSpace();
    if (m_p < m_end && *m_p == ',') {
        ++m_p;
        skipSpace();
        return true;
    }
    if (m_p < m_end && *m_p == closer) {
        ++m_p;
        return false;
    }
    return fail(m_p,
        m_p < m_end ? QStringLiteral("expected ',' or '%1' in an %2")
                          .arg(QLatin1Char(closer))
                          .arg(container)
                    : QStringLiteral("unterminated %1").arg(container));
}

bool JsonScanner::nextMember(QByteArrayView &key, QByteArray &storage, bool first, int depth)
{
    if (!(first ? enter('{', '}', depth) : next('}', QLatin1StringView("object"))))
        return false;
    if (m_p >= m_end || *m_p != '"')
        return fail(m_p,
            m_p < m_end ? QStringLiteral("expected a member name")
                        : QStringLiteral("unterminated object"));
    const char *start = m_p;
    if (!scanString())
        return false;
    if (m_escaped) {
        storage = decodeJsonString(QByteArrayView(start, m_p - start)).toUtf8();
        key = storage;
    } else {
        key = QByteArrayView(start + 1, m_p - start - 2);
    }
    skipSpace();
    if (m_p >= m_end || *m_p != ':')
        return fail(m_p, QStringLiteral("expected ':' after a member name"));
    ++m_p;
    skipSpace();
    return true;
}

bool JsonScanner::nextElement(bool first, int depth)
{
    return first ? enter('[', ']', depth) : next(']', QLatin1StringView("array"));
}

bool JsonScanner::indexObject(ObjectIndex &index, int depth)
{
    skipSpace();
    const char *base = m_p;
    QByteArrayView key;
    QByteArray storage;
    for (bool first = true; nextMember(key, storage, first, depth); first = false) {
        index.hasMembers = true;
        const char *value = m_p;
        Span *span = nullptr;
        if (key == "apiVersion")
            span = &index.apiVersion;
        else if (key == "kind")
            span = &index.kind;
        else if (key == "spec")
            span = &index.spec;
        else if (key == "status")
            span = &index.status;
        else if (key == "metadata") {
            if (*m_p == '{') {
                if (!indexMetadata(index, base, depth + 1))
                    return false;
                index.metadata = {qint32(value - base), qint32(m_p - base)};
                continue;
            }
            span = &index.metadata;
            for (Span &s : index.meta) // not an object: no metadata (the last one counts)
                s = Span();
        }
        if (!skipValue(depth + 1))
            return false;
        if (span)
            *span = {qint32(value - base), qint32(m_p - base)};
    }
    return !failed();
}

bool JsonScanner::indexMetadata(ObjectIndex &index, const char *base, int depth)
{
    for (Span &s : index.meta) // a later "metadata" replaces an earlier one, as in Qt
        s = Span();
    QByteArrayView key;
    QByteArray storage;
    for (bool first = true; nextMember(key, storage, first, depth); first = false) {
        const char *value = m_p;
        if (!skipValue(depth + 1))
            return false;
        if (const int field = metaFieldOf(key); field >= 0)
            index.meta[field] = {qint32(value - base), qint32(m_p - base)};
    }
    return !failed();
}

QString decodeJsonString(QByteArrayView quoted)
{
    const QByteArrayView inner = quoted.sliced(1, quoted.size() - 2);
    if (!inner.contains('\\'))
        return QString::fromUtf8(inner);
    // Qt's reader decodes a string with escapes character by character and keeps a U+FEFF
    // anywhere in it; QString::fromUtf8() would drop one at the start of each run.
    QStringDecoder utf8(QStringConverter::Utf8,
        QStringConverter::Flag::Stateless | QStringConverter::Flag::ConvertInitialBom);
    QString out;
    out.reserve(inner.size());
    qsizetype run = 0; // start of the plain run
    for (qsizetype i = 0; i < inner.size();) {
        if (inner[i] != '\\') {
            ++i;
            continue;
        }
        out += utf8.decode(inner.sliced(run, i - run));
        const char e = inner[i + 1];
        switch (e) {
        case 'b':
            out += QChar(0x8);
            break;
        case 'f':
            out += QChar(0xc);
            break;
        case 'n':
            out += QChar(0xa);
            break;
        case 'r':
            out += QChar(0xd);
            break;
        case 't':
            out += QChar(0x9);
            break;
        case 'u': {
            char16_t unit = 0;
            for (int k = 2; k < 6; ++k)
                unit = char16_t(unit << 4 | hexValue(inner[i + k]));
            out += QChar(unit);
            i += 4;
            break;
        }
        default: // '"', '\\' and '/'
            out += QLatin1Char(e);
            break;
        }
        i += 2;
        run = i;
    }
    out += utf8.decode(inner.sliced(run));
    return out;
}

} // namespace qcm::detail
