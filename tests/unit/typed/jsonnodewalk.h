// SPDX-License-Identifier: Apache-2.0
// Differential check of JsonNode (tst_jsonnode, fuzz_typed): walks a node and the QJsonValue
// Qt's reader made of the same JSON, and returns where they first differ ("" if nowhere).
// Reads every member and element, by iteration and by lookup, and every scalar as every type.
#pragma once

#include <qcm/typed/jsonnode.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>

#include <cmath>

namespace qcm::testing {

inline QString jsonNodeDifference(const typed::JsonNode &node, const QJsonValue &expected,
    const QString &path = QStringLiteral("$"), int depth = 0)
{
    auto differ
        = [&](const char *what) { return path + QStringLiteral(": ") + QLatin1String(what); };
    if (node.isPresent() != !expected.isUndefined())
        return differ("presence");
    if (!node.isPresent())
        return {};
    if (node.isNull() != expected.isNull() || node.isObject() != expected.isObject()
        || node.isArray() != expected.isArray() || node.isString() != expected.isString()
        || node.isNumber() != expected.isDouble() || node.isBool() != expected.isBool())
        return differ("type");
    if (node.toString()
        != (expected.isString() ? std::optional<QString>(expected.toString()) : std::nullopt))
        return differ("toString");
    if (node.toBool()
        != (expected.isBool() ? std::optional<bool>(expected.toBool()) : std::nullopt))
        return differ("toBool");
    if (expected.isDouble()) {
        const std::optional<double> d = node.toDouble();
        if (!d
            || !(*d == expected.toDouble() || (std::isnan(*d) && std::isnan(expected.toDouble()))))
            return differ("toDouble");
        const QVariant v = expected.toVariant();
        if (v.typeId() == QMetaType::LongLong && node.toInteger() != v.toLongLong())
            return differ("toInteger");
    } else if (node.toDouble() || node.toInteger()) {
        return differ("a number read from a non-number");
    }
    if (node.toJsonValue() != expected)
        return differ("toJsonValue");
    if (depth > 64) // deeper levels were compared whole by toJsonValue()
        return {};
    if (expected.isObject()) {
        const QJsonObject object = expected.toObject();
        const auto members = node.members();
        if (members.size() != object.size() || node.size() != object.size())
            return differ("member count");
        for (const auto &[key, value] : members) {
            if (!object.contains(key))
                return differ("a member Qt does not have");
            if (QString d = jsonNodeDifference(
                    value, object.value(key), path + QLatin1Char('.') + key, depth + 1);
                !d.isEmpty())
                return d;
            if (node.member(key).toJsonValue() != object.value(key))
                return differ("member(key)");
        }
        if (node.member(QStringLiteral("\x01no such key")).isPresent() || node.at(0).isPresent())
            return differ("an absent member or element is present");
    } else if (expected.isArray()) {
        const QJsonArray array = expected.toArray();
        const auto elements = node.elements();
        if (elements.size() != array.size() || node.size() != array.size())
            return differ("element count");
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString at = path + QStringLiteral("[%1]").arg(i);
            if (QString d = jsonNodeDifference(elements.at(i), array.at(i), at, depth + 1);
                !d.isEmpty())
                return d;
            if (node.at(i).toJsonValue() != array.at(i))
                return differ("at(i)");
        }
        if (node.at(array.size()).isPresent() || node.at(-1).isPresent()
            || node.member(QStringLiteral("a")).isPresent())
            return differ("an absent element or member is present");
    } else if (node.size() != 0 || !node.elements().isEmpty() || !node.members().isEmpty()) {
        return differ("a scalar has elements or members");
    }
    return {};
}

} // namespace qcm::testing
