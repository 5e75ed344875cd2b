// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/patch.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

namespace qcm::client {

QJsonValue applyMergePatch(const QJsonValue &target, const QJsonValue &patch)
{
    if (!patch.isObject())
        return patch;
    QJsonObject out = target.isObject() ? target.toObject() : QJsonObject();
    const QJsonObject p = patch.toObject();
    for (auto it = p.begin(); it != p.end(); ++it) {
        if (it.value().isNull())
            out.remove(it.key());
        else
            out.insert(it.key(), applyMergePatch(out.value(it.key()), it.value()));
    }
    return out;
}

QJsonObject createMergePatch(const QJsonObject &original, const QJsonObject &modified)
{
    QJsonObject patch;
    for (auto it = original.begin(); it != original.end(); ++it)
        if (!modified.contains(it.key()))
            patch.insert(it.key(), QJsonValue::Null);
    for (auto it = modified.begin(); it != modified.end(); ++it) {
        const QJsonValue before = original.value(it.key());
        if (before == it.value())
            continue;
        if (before.isObject() && it.value().isObject())
            patch.insert(it.key(), createMergePatch(before.toObject(), it.value().toObject()));
        else
            patch.insert(it.key(), it.value());
    }
    return patch;
}

namespace {

// RFC 6901: "/a/b~1c/0" -> {"a", "b/c", "0"}.
std::optional<QStringList> pointer(const QString &path)
{
    if (path.isEmpty())
        return QStringList();
    if (!path.startsWith(QLatin1Char('/')))
        return std::nullopt;
    QStringList tokens = path.mid(1).split(QLatin1Char('/'));
    for (QString &t : tokens)
        t.replace(QStringLiteral("~1"), QStringLiteral("/"))
            .replace(QStringLiteral("~0"), QStringLiteral("~"));
    return tokens;
}

// An array index token: digits without a leading zero, or "-" (past the end) when allowed.
std::optional<qsizetype> arrayIndex(const QString &token, qsizetype size, bool allowEnd)
{
    if (allowEnd && token == QLatin1String("-"))
        return size;
    bool ok = false;
    const qsizetype i = token.toLongLong(&ok);
    if (!ok || token.isEmpty() || (token.size() > 1 && token.front() == QLatin1Char('0'))
        || token.front() == QLatin1Char('-') || token.front() == QLatin1Char('+') || i > size
        || (!allowEnd && i == size))
        return std::nullopt;
    return i;
}

enum class Op { Get, Add, Remove, Replace };

// Walks `tokens` in `doc` and applies `op` at the end; the value found (Get, Remove,
// Replace) goes to `found`. False if the path does not resolve.
bool walk(QJsonValue &doc, const QStringList &tokens, qsizetype at, Op op, const QJsonValue &value,
    QJsonValue &found)
{
    if (at == tokens.size()) { // the whole document
        found = doc;
        if (op == Op::Add || op == Op::Replace)
            doc = value;
        return op != Op::Remove;
    }
    const QString &token = tokens.at(at);
    const bool last = at + 1 == tokens.size();
    if (doc.isObject()) {
        QJsonObject o = doc.toObject();
        if (last) {
            const bool present = o.contains(token);
            found = o.value(token);
            switch (op) {
            case Op::Get:
                return present;
            case Op::Add:
                o.insert(token, value);
                break;
            case Op::Remove:
                if (!present)
                    return false;
                o.remove(token);
                break;
            case Op::Replace:
                if (!present)
                    return false;
                o.insert(token, value);
                break;
            }
            doc = o;
            return true;
        }
        if (!o.contains(token))
            return false;
        QJsonValue child = o.value(token);
        if (!walk(child, tokens, at + 1, op, value, found))
            return false;
        if (op != Op::Get) {
            o.insert(token, child);
            doc = o;
        }
        return true;
    }
    if (doc.isArray()) {
        QJsonArray a = doc.toArray();
        const auto i = arrayIndex(token, a.size(), last && op == Op::Add);
        if (!i)
            return false;
        if (last) {
            switch (op) {
            case Op::Get:
                found = a.at(*i);
                return true;
            case Op::Add:
                a.insert(*i, value);
                break;
            case Op::Remove:
                found = a.at(*i);
                a.removeAt(*i);
                break;
            case Op::Replace:
                found = a.at(*i);
                a.replace(*i, value);
                break;
            }
            doc = a;
            return true;
        }
        QJsonValue child = a.at(*i);
        if (!walk(child, tokens, at + 1, op, value, found))
            return false;
        if (op != Op::Get) {
            a.replace(*i, child);
            doc = a;
        }
        return true;
    }
    return false;
}

} // namespace

Result<QJsonValue> applyJsonPatch(const QJsonValue &document, const QByteArray &patch)
{
    QJsonParseError parseError;
    const QJsonDocument parsed = QJsonDocument::fromJson(patch, &parseError);
    if (parseError.error != QJsonParseError::NoError || !parsed.isArray())
        return Error {{}, {}, QStringLiteral("a JSON Patch must be a JSON array of operations")};
    QJsonValue doc = document;
    const QJsonArray ops = parsed.array();
    for (qsizetype n = 0; n < ops.size(); ++n) {
        const QJsonObject op = ops.at(n).toObject();
        const QString name = op.value(QLatin1String("op")).toString();
        const QString where = QStringLiteral("operation %1 (%2)")
                                  .arg(n)
                                  .arg(name.isEmpty() ? QStringLiteral("no op") : name);
        auto fail = [&](const QString &reason) { return Error {{}, where, reason}; };
        const auto path = pointer(op.value(QLatin1String("path")).toString());
        if (!op.value(QLatin1String("path")).isString() || !path)
            return fail(QStringLiteral("path must be a JSON Pointer"));
        const QJsonValue value = op.value(QLatin1String("value"));
        QJsonValue found;
        if (name == QLatin1String("add") || name == QLatin1String("replace")
            || name == QLatin1String("test")) {
            if (value.isUndefined())
                return fail(QStringLiteral("missing value"));
        }
        if (name == QLatin1String("add")) {
            if (!walk(doc, *path, 0, Op::Add, value, found))
                return fail(QStringLiteral("path %1 does not exist")
                                .arg(op.value(QLatin1String("path")).toString()));
        } else if (name == QLatin1String("remove") || name == QLatin1String("replace")) {
            if (!walk(doc, *path, 0, name == QLatin1String("remove") ? Op::Remove : Op::Replace,
                    value, found))
                return fail(QStringLiteral("path %1 does not exist")
                                .arg(op.value(QLatin1String("path")).toString()));
        } else if (name == QLatin1String("test")) {
            if (!walk(doc, *path, 0, Op::Get, {}, found))
                return fail(QStringLiteral("path %1 does not exist")
                                .arg(op.value(QLatin1String("path")).toString()));
            if (found != value)
                return fail(QStringLiteral("the test failed: the value at %1 differs")
                                .arg(op.value(QLatin1String("path")).toString()));
        } else if (name == QLatin1String("move") || name == QLatin1String("copy")) {
            const auto from = pointer(op.value(QLatin1String("from")).toString());
            if (!op.value(QLatin1String("from")).isString() || !from)
                return fail(QStringLiteral("from must be a JSON Pointer"));
            if (name == QLatin1String("move") && path->size() > from->size()
                && path->mid(0, from->size()) == *from)
                return fail(QStringLiteral("cannot move a value into itself"));
            if (!walk(
                    doc, *from, 0, name == QLatin1String("move") ? Op::Remove : Op::Get, {}, found))
                return fail(QStringLiteral("from %1 does not exist")
                                .arg(op.value(QLatin1String("from")).toString()));
            QJsonValue unused;
            if (!walk(doc, *path, 0, Op::Add, found, unused))
                return fail(QStringLiteral("path %1 does not exist")
                                .arg(op.value(QLatin1String("path")).toString()));
        } else {
            return fail(QStringLiteral("unknown operation"));
        }
    }
    return doc;
}

} // namespace qcm::client
