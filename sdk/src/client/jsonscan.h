// SPDX-License-Identifier: Apache-2.0
// JsonScanner: a validating JSON scanner that records where things are instead of building a
// tree (internal to the SDK; LazyJsonCodec is its user).
//
// It accepts RFC 8259 JSON, which is a subset of what Qt's reader accepts, so anything it
// accepts QJsonDocument::fromJson() decodes too (a raw Object relies on that when it
// materialises its tree). Stricter than Qt: control characters in strings, escapes other than
// RFC 8259's, numbers outside the grammar, and nesting deeper than the limit
// (InputLimits::jsonDepth, 512 by default; Qt's reader allows 1024) are errors.
//
// Thread safety: none; one scanner per buffer.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QByteArrayView>
#include <QtCore/QString>

namespace qcm::detail {

// A value's bytes, as offsets into the text of the object that holds it; unset if absent.
struct Span
{
    qint32 begin = -1;
    qint32 end = -1;
    bool isSet() const { return begin >= 0; }
};

// The metadata fields an Object reads without materialising its tree.
enum MetaField {
    MetaName,
    MetaNamespace,
    MetaUid,
    MetaResourceVersion,
    MetaGeneration,
    MetaLabels,
    MetaAnnotations,
    MetaOwnerReferences,
    MetaFinalizers,
    MetaCreationTimestamp,
    MetaDeletionTimestamp,
    MetaFieldCount
};

// Where apiVersion, kind and the metadata fields of one object are (duplicate keys: the last
// one, as in Qt's reader).
struct ObjectIndex
{
    Span apiVersion;
    Span kind;
    Span metadata; // the whole of metadata, spec and status, for typed reads (JsonNode)
    Span spec;
    Span status;
    Span meta[MetaFieldCount];
    bool hasMembers = false;
};

class JsonScanner
{
public:
    explicit JsonScanner(QByteArrayView text);

    // Validates the object at the cursor (after white space) and records its index, with
    // offsets relative to the object's '{'. On success the cursor is past its '}'.
    bool indexObject(ObjectIndex &index, int depth = 0);
    // Validates and skips any value at the cursor (after white space).
    bool skipValue(int depth = 0);

    // Building blocks for documents with a known shape (a list, a watch event).
    void skipSpace();
    bool expect(char c); // after white space; an error names what was expected
    bool atEnd(); // only white space is left
    bool peek(char c); // after white space
    // The next member's key, unescaped as UTF-8; the cursor is then at its value. Call with
    // `first` at '{', then after each value; false when the object ends (past its '}') or on
    // an error (failed()).
    // An escaped key is decoded into `storage`, which `key` then views.
    bool nextMember(QByteArrayView &key, QByteArray &storage, bool first, int depth = 0);
    // Whether another element follows (the cursor is then at it). Call with `first` at '[',
    // then after each element; false when the array ends or on an error (failed()).
    bool nextElement(bool first, int depth = 0);
    bool scanString(); // at '"', validated, the cursor past the closing quote

    const char *cursor() const { return m_p; }
    bool failed() const { return !m_error.isEmpty(); }
    // "invalid JSON at offset N: reason", as QtJsonCodec reports it.
    QString errorMessage() const;
    bool fail(const char *at, const QString &reason);

private:
    bool scanNumber();
    bool scanLiteral(const char *word, qsizetype size);
    bool scanUtf8(const char *&p);
    bool skipObject(int depth);
    bool skipArray(int depth);
    // At `opener`: enters an object or array; false if it is empty (past `closer`) or on an
    // error.
    bool enter(char opener, char closer, int depth);
    // After a member or element: true past a ',', false past `closer` or on an error.
    bool next(char closer, QLatin1StringView container);
    bool indexMetadata(ObjectIndex &index, const char *base, int depth);

    const char *m_begin;
    const char *m_p;
    const char *m_end;
    const int m_maxDepth; // InputLimits::jsonDepth when the scanner was made
    QString m_error;
    qsizetype m_errorOffset = 0;
    bool m_escaped = false; // the last string scanned had an escape sequence
};

// The MetaField of a metadata member's name; -1 for one not indexed.
int metaFieldOf(QByteArrayView key);

// The value of a JSON string given with its quotes (validated by JsonScanner).
QString decodeJsonString(QByteArrayView quoted);

} // namespace qcm::detail
