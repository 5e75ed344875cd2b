// SPDX-License-Identifier: Apache-2.0
// The building blocks of generated typed views (qcm-gen): View, the base of every generated
// struct type; ArrayView and MapView for lists and maps; IntOrString; and the conversions
// from a JsonNode to the scalar types fields read as.
//
// How a field reads (docs/typed-objects.md):
// - a scalar the schema marks required, or gives a default, reads as its type (the default,
//   or the type's zero value, when absent); any other scalar reads as std::optional;
// - a struct reads as its View, which isPresent() or not; its fields read as absent then;
// - a list reads as an ArrayView, a map as a MapView, empty when absent;
// - strings with format date-time (metav1.Time) read as QDateTime, integer-or-string fields
//   as IntOrString, quantities as their string, free-form JSON as a JsonNode.
//
// Thread safety: views are values; the const members may be called from several threads.
#pragma once

#include <qcm/typed/jsonnode.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QMap>

#include <limits>
#include <optional>
#include <type_traits>

namespace qcm::typed {

// The base of generated struct views: a JsonNode and what reads it.
class View
{
public:
    View() = default;
    explicit View(JsonNode node) : m_node(std::move(node)) { }
    bool isPresent() const { return m_node.isPresent() && !m_node.isNull(); }
    const JsonNode &node() const { return m_node; }
    QJsonValue toJsonValue() const { return m_node.toJsonValue(); }

protected:
    JsonNode m_node;
};

// apimachinery's intstr.IntOrString.
struct IntOrString
{
    std::optional<qint64> intValue; // set when the JSON is a number
    QString stringValue; // the string otherwise
    bool isInt() const { return intValue.has_value(); }
    QJsonValue toJsonValue() const
    {
        return intValue ? QJsonValue(*intValue) : QJsonValue(stringValue);
    }
    bool operator==(const IntOrString &o) const
    {
        return intValue == o.intValue && stringValue == o.stringValue;
    }
};

// apimachinery's resource.Quantity, as the text the API server writes ("500m", "128Mi"). A
// number in the JSON reads as its text too. (Parsing quantities is not done here.)
struct Quantity : QString
{
    using QString::QString;
    Quantity() = default;
    Quantity(const QString &s) : QString(s) { }
};

// A field's value from its node, for the scalar types: std::nullopt when absent or of
// another JSON type (a 32-bit field outside its range counts as another type).
template<typename T>
std::optional<T> read(const JsonNode &node);

template<>
inline std::optional<QString> read<QString>(const JsonNode &node)
{
    return node.toString();
}
template<>
inline std::optional<qint64> read<qint64>(const JsonNode &node)
{
    return node.toInteger();
}
template<>
inline std::optional<qint32> read<qint32>(const JsonNode &node)
{
    const std::optional<qint64> v = node.toInteger();
    if (!v || *v < std::numeric_limits<qint32>::min() || *v > std::numeric_limits<qint32>::max())
        return std::nullopt;
    return qint32(*v);
}
template<>
inline std::optional<double> read<double>(const JsonNode &node)
{
    return node.toDouble();
}
template<>
inline std::optional<bool> read<bool>(const JsonNode &node)
{
    return node.toBool();
}
template<>
inline std::optional<QDateTime> read<QDateTime>(const JsonNode &node)
{
    const std::optional<QString> s = node.toString();
    if (!s)
        return std::nullopt;
    QDateTime t = QDateTime::fromString(*s, Qt::ISODateWithMs);
    return t.isValid() ? std::optional<QDateTime>(t) : std::nullopt;
}
template<>
inline std::optional<IntOrString> read<IntOrString>(const JsonNode &node)
{
    if (node.isNumber()) {
        if (const auto i = node.toInteger())
            return IntOrString {i, {}};
        return std::nullopt;
    }
    if (const auto s = node.toString())
        return IntOrString {std::nullopt, *s};
    return std::nullopt;
}
template<>
inline std::optional<Quantity> read<Quantity>(const JsonNode &node)
{
    if (const auto s = node.toString())
        return Quantity(*s);
    if (node.isNumber())
        return Quantity(QString::fromUtf8(
            QJsonDocument(QJsonArray {node.toJsonValue()}).toJson(QJsonDocument::Compact))
                            .mid(1)
                            .chopped(1));
    return std::nullopt;
}
template<>
inline std::optional<JsonNode> read<JsonNode>(const JsonNode &node)
{
    return node.isPresent() ? std::optional<JsonNode>(node) : std::nullopt;
}

// What an element of a list or a value of a map reads as: a view for views, the value (or
// its zero value) for scalars.
template<typename T>
T element(const JsonNode &node)
{
    if constexpr (std::is_base_of_v<View, T>)
        return T(node);
    else
        return read<T>(node).value_or(T());
}

// A list field. Its elements are found once, when it is made.
template<typename T>
class ArrayView
{
public:
    ArrayView() = default;
    explicit ArrayView(const JsonNode &node) : m_node(node), m_elements(node.elements()) { }

    bool isPresent() const { return m_node.isPresent() && !m_node.isNull(); }
    qsizetype size() const { return m_elements.size(); }
    bool isEmpty() const { return m_elements.isEmpty(); }
    // Element `index`; an absent view, or the zero value, past the end.
    T at(qsizetype index) const
    {
        return element<T>(
            index >= 0 && index < m_elements.size() ? m_elements.at(index) : JsonNode());
    }
    QList<T> toList() const
    {
        QList<T> out;
        out.reserve(m_elements.size());
        for (const JsonNode &n : m_elements)
            out.append(element<T>(n));
        return out;
    }
    const JsonNode &node() const { return m_node; }

    class const_iterator
    {
    public:
        using value_type = T;
        using difference_type = qsizetype;
        using iterator_category = std::forward_iterator_tag;
        const_iterator(QList<JsonNode>::const_iterator it) : m_it(it) { }
        T operator*() const { return element<T>(*m_it); }
        const_iterator &operator++()
        {
            ++m_it;
            return *this;
        }
        bool operator==(const const_iterator &o) const { return m_it == o.m_it; }
        bool operator!=(const const_iterator &o) const { return m_it != o.m_it; }

    private:
        QList<JsonNode>::const_iterator m_it;
    };
    const_iterator begin() const { return m_elements.cbegin(); }
    const_iterator end() const { return m_elements.cend(); }

private:
    JsonNode m_node;
    QList<JsonNode> m_elements;
};

// A map field (an object with additionalProperties). Looks keys up in place.
template<typename T>
class MapView
{
public:
    MapView() = default;
    explicit MapView(JsonNode node) : m_node(std::move(node)) { }

    bool isPresent() const { return m_node.isPresent() && !m_node.isNull(); }
    bool contains(const QString &key) const { return m_node.member(key).isPresent(); }
    // The value of `key`: std::nullopt if absent (or of another type, for scalars).
    std::optional<T> value(const QString &key) const { return valueOf(m_node.member(key)); }
    std::optional<T> value(QLatin1StringView key) const { return valueOf(m_node.member(key)); }
    qsizetype size() const { return m_node.size(); }
    bool isEmpty() const { return size() == 0; }
    QStringList keys() const
    {
        QStringList out;
        for (const auto &m : m_node.members())
            out.append(m.first);
        return out;
    }
    QMap<QString, T> toMap() const
    {
        QMap<QString, T> out;
        for (const auto &m : m_node.members())
            out.insert(m.first, element<T>(m.second));
        return out;
    }
    const JsonNode &node() const { return m_node; }

private:
    static std::optional<T> valueOf(const JsonNode &n)
    {
        if constexpr (std::is_base_of_v<View, T>)
            return n.isPresent() ? std::optional<T>(T(n)) : std::nullopt;
        else
            return read<T>(n);
    }

    JsonNode m_node;
};

} // namespace qcm::typed
