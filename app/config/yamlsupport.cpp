// SPDX-License-Identifier: Apache-2.0
#include "config/yamlsupport.h"

#include <QtCore/QRegularExpression>

#include <cmath>
#include <limits>

namespace qcm::host {

namespace {

QVariant resolvePlainScalar(const QString &s)
{
    static const QRegularExpression decimal(QStringLiteral("^[-+]?[0-9]+$"));
    static const QRegularExpression octal(QStringLiteral("^0o[0-7]+$"));
    static const QRegularExpression hex(QStringLiteral("^0x[0-9a-fA-F]+$"));
    static const QRegularExpression real(
        QStringLiteral("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"));
    static const QRegularExpression infinity(QStringLiteral("^[-+]?\\.(inf|Inf|INF)$"));
    static const QRegularExpression nan(QStringLiteral("^\\.(nan|NaN|NAN)$"));

    if (s.isEmpty() || s == QLatin1String("~") || s == QLatin1String("null")
        || s == QLatin1String("Null") || s == QLatin1String("NULL"))
        return QVariant();
    if (s == QLatin1String("true") || s == QLatin1String("True") || s == QLatin1String("TRUE"))
        return true;
    if (s == QLatin1String("false") || s == QLatin1String("False") || s == QLatin1String("FALSE"))
        return false;
    bool ok = false;
    if (decimal.match(s).hasMatch()) {
        const qint64 v = s.toLongLong(&ok, 10);
        if (ok)
            return v;
    } else if (octal.match(s).hasMatch()) {
        const qint64 v = s.mid(2).toLongLong(&ok, 8);
        if (ok)
            return v;
    } else if (hex.match(s).hasMatch()) {
        const qint64 v = s.mid(2).toLongLong(&ok, 16);
        if (ok)
            return v;
    }
    if (real.match(s).hasMatch()) {
        const double v = s.toDouble(&ok);
        if (ok)
            return v;
    }
    if (infinity.match(s).hasMatch())
        return s.startsWith(QLatin1Char('-')) ? -std::numeric_limits<double>::infinity()
                                              : std::numeric_limits<double>::infinity();
    if (nan.match(s).hasMatch())
        return std::numeric_limits<double>::quiet_NaN();
    return s; // includes integers too large for 64 bits, which stay exact as text
}

} // namespace

Result<QVariant> yamlToVariant(const YAML::Node &node, const QString &path)
{
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
        return QVariant();
    case YAML::NodeType::Scalar: {
        const QString text = QString::fromStdString(node.Scalar());
        const std::string &tag = node.Tag();
        if (tag == "!" || tag == "tag:yaml.org,2002:str")
            return QVariant(text);
        return resolvePlainScalar(text);
    }
    case YAML::NodeType::Sequence: {
        QVariantList list;
        for (std::size_t i = 0; i < node.size(); ++i) {
            Result<QVariant> item = yamlToVariant(node[i], path + QStringLiteral("[%1]").arg(i));
            if (!item)
                return item.error();
            list << *item;
        }
        return QVariant(list);
    }
    case YAML::NodeType::Map: {
        QVariantMap map;
        for (auto it = node.begin(); it != node.end(); ++it) {
            if (!it->first.IsScalar())
                return Error {
                    {}, path, QStringLiteral("map keys must be scalars") + yamlPosition(it->first)};
            const QString key = QString::fromStdString(it->first.Scalar());
            if (map.contains(key))
                return Error {{}, path + QLatin1Char('.') + key,
                    QStringLiteral("is repeated") + yamlPosition(it->first)};
            Result<QVariant> value = yamlToVariant(it->second, path + QLatin1Char('.') + key);
            if (!value)
                return value.error();
            map.insert(key, *value);
        }
        return QVariant(map);
    }
    }
    return QVariant();
}

} // namespace qcm::host
