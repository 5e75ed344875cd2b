// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/labelselector.h>

#include <QtCore/QRegularExpression>

namespace qcm::cache {

namespace {

bool isSpecial(QChar c)
{
    return c.isSpace() || c == QLatin1Char(',') || c == QLatin1Char('(') || c == QLatin1Char(')')
        || c == QLatin1Char('=') || c == QLatin1Char('!') || c == QLatin1Char('<')
        || c == QLatin1Char('>');
}

struct Token
{
    enum Kind {
        End,
        Identifier,
        Comma,
        Open,
        Close,
        Not,
        Equals,
        DoubleEquals,
        NotEquals,
        Greater,
        Less
    };
    Kind kind = End;
    QString text;
    qsizetype position = 0;
};

class Lexer
{
public:
    explicit Lexer(const QString &text) : m_text(text) { }

    Token next()
    {
        while (m_at < m_text.size() && m_text[m_at].isSpace())
            ++m_at;
        Token t;
        t.position = m_at;
        if (m_at >= m_text.size())
            return t;
        const QChar c = m_text[m_at];
        auto single = [&](Token::Kind kind) {
            t.kind = kind;
            t.text = QString(c);
            ++m_at;
            return t;
        };
        switch (c.unicode()) {
        case ',':
            return single(Token::Comma);
        case '(':
            return single(Token::Open);
        case ')':
            return single(Token::Close);
        case '>':
            return single(Token::Greater);
        case '<':
            return single(Token::Less);
        case '!':
            if (m_at + 1 < m_text.size() && m_text[m_at + 1] == QLatin1Char('=')) {
                m_at += 2;
                return {Token::NotEquals, QStringLiteral("!="), t.position};
            }
            return single(Token::Not);
        case '=':
            if (m_at + 1 < m_text.size() && m_text[m_at + 1] == QLatin1Char('=')) {
                m_at += 2;
                return {Token::DoubleEquals, QStringLiteral("=="), t.position};
            }
            return single(Token::Equals);
        default:
            break;
        }
        const qsizetype start = m_at;
        while (m_at < m_text.size() && !isSpecial(m_text[m_at]))
            ++m_at;
        return {Token::Identifier, m_text.mid(start, m_at - start), start};
    }

private:
    const QString &m_text;
    qsizetype m_at = 0;
};

const QRegularExpression &nameRegex()
{
    static const QRegularExpression re(
        QStringLiteral("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$"));
    return re;
}

std::optional<QString> checkValue(const QString &value)
{
    if (value.size() > 63)
        return QStringLiteral("value \"%1\" is longer than 63 characters").arg(value);
    if (!nameRegex().match(value).hasMatch())
        return QStringLiteral(
            "value \"%1\" must be alphanumeric, '-', '_' or '.', and start and end "
            "alphanumeric")
            .arg(value);
    return std::nullopt;
}

std::optional<QString> checkKey(const QString &key)
{
    QString name = key;
    if (const qsizetype slash = key.indexOf(QLatin1Char('/')); slash >= 0) {
        const QString prefix = key.left(slash);
        name = key.mid(slash + 1);
        static const QRegularExpression dns(
            QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
        if (prefix.isEmpty() || prefix.size() > 253 || !dns.match(prefix).hasMatch())
            return QStringLiteral("key \"%1\": the prefix must be a DNS subdomain").arg(key);
    }
    if (name.isEmpty() || name.size() > 63 || !nameRegex().match(name).hasMatch())
        return QStringLiteral("key \"%1\" must be a qualified name: at most 63 characters, "
                              "alphanumeric, '-', '_' or '.', starting and ending alphanumeric")
            .arg(key);
    return std::nullopt;
}

} // namespace

Result<LabelSelector> LabelSelector::parse(const QString &text)
{
    LabelSelector selector;
    if (text.trimmed().isEmpty())
        return selector;
    Lexer lexer(text);
    auto fail = [&](const Token &at, const QString &reason) {
        return Error {{}, {},
            QStringLiteral("invalid label selector \"%1\" at character %2: %3")
                .arg(text)
                .arg(at.position + 1)
                .arg(reason)};
    };
    Token t = lexer.next();
    for (;;) {
        Requirement r;
        if (t.kind == Token::Not) {
            t = lexer.next();
            if (t.kind != Token::Identifier)
                return fail(t, QStringLiteral("expected a key after '!'"));
            r.key = t.text;
            r.op = Operator::DoesNotExist;
            t = lexer.next();
        } else {
            if (t.kind != Token::Identifier)
                return fail(t, QStringLiteral("expected a key"));
            r.key = t.text;
            t = lexer.next();
            switch (t.kind) {
            case Token::End:
            case Token::Comma:
                r.op = Operator::Exists;
                break;
            case Token::Equals:
            case Token::DoubleEquals:
            case Token::NotEquals:
            case Token::Greater:
            case Token::Less: {
                r.op = t.kind == Token::NotEquals ? Operator::NotEquals
                    : t.kind == Token::Greater    ? Operator::GreaterThan
                    : t.kind == Token::Less       ? Operator::LessThan
                                                  : Operator::Equals;
                const Token value = lexer.next();
                if (value.kind == Token::Identifier) {
                    r.values << value.text;
                    t = lexer.next();
                } else if (value.kind == Token::End || value.kind == Token::Comma) {
                    if (r.op == Operator::GreaterThan || r.op == Operator::LessThan)
                        return fail(value, QStringLiteral("expected a number"));
                    r.values << QString(); // key= means an empty value
                    t = value;
                } else {
                    return fail(value, QStringLiteral("expected a value"));
                }
                if (r.op == Operator::GreaterThan || r.op == Operator::LessThan) {
                    bool ok = false;
                    r.values[0].toLongLong(&ok);
                    if (!ok)
                        return fail(
                            value, QStringLiteral("\"%1\" is not an integer").arg(r.values[0]));
                }
                break;
            }
            case Token::Identifier:
                if (t.text == QLatin1String("in") || t.text == QLatin1String("notin")) {
                    r.op = t.text == QLatin1String("in") ? Operator::In : Operator::NotIn;
                    Token open = lexer.next();
                    if (open.kind != Token::Open)
                        return fail(open, QStringLiteral("expected '(' after %1").arg(t.text));
                    for (;;) {
                        Token value = lexer.next();
                        if (value.kind == Token::Identifier) {
                            r.values << value.text;
                            value = lexer.next();
                        } else if (value.kind == Token::Comma || value.kind == Token::Close) {
                            if (!(value.kind == Token::Close && r.values.isEmpty()))
                                r.values << QString();
                        } else {
                            return fail(value, QStringLiteral("expected a value or ')'"));
                        }
                        if (value.kind == Token::Close)
                            break;
                        if (value.kind != Token::Comma)
                            return fail(value, QStringLiteral("expected ',' or ')'"));
                    }
                    if (r.values.isEmpty())
                        return fail(open,
                            QStringLiteral("the set of values of '%1' cannot be empty")
                                .arg(r.op == Operator::In ? QStringLiteral("in")
                                                          : QStringLiteral("notin")));
                    t = lexer.next();
                    break;
                }
                return fail(t,
                    QStringLiteral(
                        "expected an operator (=, ==, !=, in, notin, >, <) after key \"%1\"")
                        .arg(r.key));
            default:
                return fail(t,
                    QStringLiteral(
                        "expected an operator (=, ==, !=, in, notin, >, <) after key \"%1\"")
                        .arg(r.key));
            }
        }
        if (auto problem = checkKey(r.key))
            return fail(t, *problem);
        if (r.op != Operator::GreaterThan && r.op != Operator::LessThan)
            for (const QString &value : std::as_const(r.values))
                if (auto problem = checkValue(value))
                    return fail(t, *problem);
        selector.m_requirements << r;
        if (t.kind == Token::End)
            return selector;
        if (t.kind != Token::Comma)
            return fail(t, QStringLiteral("expected ',' between requirements"));
        t = lexer.next();
    }
}

bool LabelSelector::matches(const QMap<QString, QString> &labels) const
{
    for (const Requirement &r : m_requirements) {
        const auto it = labels.constFind(r.key);
        const bool has = it != labels.constEnd();
        switch (r.op) {
        case Operator::Exists:
            if (!has)
                return false;
            break;
        case Operator::DoesNotExist:
            if (has)
                return false;
            break;
        case Operator::Equals:
        case Operator::In:
            if (!has || !r.values.contains(*it))
                return false;
            break;
        case Operator::NotEquals:
        case Operator::NotIn:
            if (has && r.values.contains(*it))
                return false;
            break;
        case Operator::GreaterThan:
        case Operator::LessThan: {
            bool ok = false;
            const qint64 value = has ? it->toLongLong(&ok) : 0;
            const qint64 bound = r.values.value(0).toLongLong();
            if (!ok || (r.op == Operator::GreaterThan ? value <= bound : value >= bound))
                return false;
            break;
        }
        }
    }
    return true;
}

} // namespace qcm::cache
