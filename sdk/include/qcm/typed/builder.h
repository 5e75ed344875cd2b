// SPDX-License-Identifier: Apache-2.0
// The base of generated builders (qcm-gen): each setter writes one field into a JSON object,
// and a builder holds exactly the fields that were set. So a kind's builder is also what
// server-side apply wants as an apply configuration: the fields this manager owns, no more
// (client-go's applyconfigurations).
//
//     const client::Object deployment = apps::v1::Deployment::build()
//         .name(QStringLiteral("web")).namespaceName(QStringLiteral("default"))
//         .spec(apps::v1::DeploymentSpec::build().replicas(3))
//         .object();
//
// Thread safety: builders are values; one builder is not for concurrent use.
#pragma once

#include <qcm/client/object.h>
#include <qcm/typed/view.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>

#include <type_traits>

namespace qcm::typed {

class Builder;

// What a setter's argument becomes in JSON.
inline QJsonValue toJsonValue(const QString &v)
{
    return v;
}
inline QJsonValue toJsonValue(qint32 v)
{
    return v;
}
inline QJsonValue toJsonValue(qint64 v)
{
    return v;
}
inline QJsonValue toJsonValue(double v)
{
    return v;
}
inline QJsonValue toJsonValue(bool v)
{
    return v;
}
// RFC 3339 in UTC, as metav1.Time writes it (whole seconds unless it has milliseconds).
inline QJsonValue toJsonValue(const QDateTime &v)
{
    return v.toUTC().toString(v.time().msec() ? Qt::ISODateWithMs : Qt::ISODate);
}
inline QJsonValue toJsonValue(const IntOrString &v)
{
    return v.toJsonValue();
}
inline QJsonValue toJsonValue(const Quantity &v)
{
    return QString(v);
}
inline QJsonValue toJsonValue(const QJsonValue &v)
{
    return v;
}
QJsonValue toJsonValue(const Builder &v);
template<typename T>
QJsonValue toJsonValue(const QList<T> &list)
{
    QJsonArray out;
    for (const T &v : list)
        out.append(toJsonValue(v));
    return out;
}
template<typename T>
QJsonValue toJsonValue(const QMap<QString, T> &map)
{
    QJsonObject out;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        out.insert(it.key(), toJsonValue(it.value()));
    return out;
}

class Builder
{
public:
    Builder() = default; // public: generated builders are aggregates, made with {}
    // The fields set so far.
    const QJsonObject &toJson() const { return m_json; }

protected:
    explicit Builder(QJsonObject json) : m_json(std::move(json)) { }
    template<typename T>
    void set(QLatin1StringView key, const T &value)
    {
        m_json.insert(key, toJsonValue(value));
    }
    template<typename T>
    void set(const QString &key, const T &value)
    {
        m_json.insert(key, toJsonValue(value));
    }
    // metadata.<key> (the kinds' shortcuts: name, namespace, labels, annotations).
    void setMetadata(QLatin1StringView key, const QJsonValue &value)
    {
        QJsonObject metadata = m_json.value(QLatin1StringView("metadata")).toObject();
        metadata.insert(key, value);
        m_json.insert(QLatin1StringView("metadata"), metadata);
    }

    QJsonObject m_json;
};

inline QJsonValue toJsonValue(const Builder &v)
{
    return v.toJson();
}

// The base of a kind's builder: apiVersion and kind set from the start.
class ObjectBuilder : public Builder
{
public:
    client::Object object() const { return client::Object(m_json); }

protected:
    ObjectBuilder(QLatin1StringView apiVersion, QLatin1StringView kind)
        : Builder(QJsonObject {
            {QLatin1StringView("apiVersion"), apiVersion}, {QLatin1StringView("kind"), kind}})
    { }
};

} // namespace qcm::typed
