// SPDX-License-Identifier: Apache-2.0
// Skipping through JSON that JsonScanner has already validated (internal to the SDK): no
// checks, only the structure, so a JsonNode walks an Object's bytes at memory speed. Every
// function takes a pointer into validated text that QByteArray terminates with '\0', and
// must only be given one that points where its name says.
//
// `end` is the end of the text; 16-byte loads never read past it (nor would they fault, but
// the sanitizers would rightly object).
//
// Thread safety: pure functions.
#pragma once

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qcm::detail {

inline const char *skipSpaceValidated(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        ++p;
    return p;
}

// At a string's opening quote: past its closing quote.
inline const char *skipStringValidated(const char *p, const char *end)
{
    ++p;
    for (;;) {
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"');
        const __m128i backslash = _mm_set1_epi8('\\');
        while (end - p >= 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
            const int mask = _mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
            if (mask != 0) {
                p += __builtin_ctz(unsigned(mask));
                break;
            }
            p += 16;
        }
#endif
        while (*p != '"' && *p != '\\')
            ++p;
        if (*p == '"')
            return p + 1;
        p += 2; // an escape: '\' and the character after it (\uXXXX's digits are plain)
    }
}

// At a value: past it.
inline const char *skipValueValidated(const char *p, const char *end)
{
    switch (*p) {
    case '"':
        return skipStringValidated(p, end);
    case '{':
    case '[': {
        int depth = 0;
        for (;;) {
            const char c = *p;
            if (c == '"') {
                p = skipStringValidated(p, end);
                continue;
            }
            if (c == '{' || c == '[')
                ++depth;
            else if ((c == '}' || c == ']') && --depth == 0)
                return p + 1;
            ++p;
        }
    }
    default: // a number or a literal
        while (*p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r'
            && *p != '\t' && *p != '\0')
            ++p;
        return p;
    }
}

} // namespace qcm::detail
