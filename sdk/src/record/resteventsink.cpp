// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/restclient.h>
#include <qcm/record/resteventsink.h>

#include <optional>

namespace qcm::record {

namespace {

const client::GroupVersionResource Events {
    QString(), QStringLiteral("v1"), QStringLiteral("events")};

SinkResult toEvent(const client::ObjectResult &result)
{
    if (!result)
        return result.error();
    return Event::fromJson(result->json());
}

// A sink bound to a namespace refuses Events of another with a plain error, which client-go's
// recordToSink retries like a transport failure; so does this one (code 0).
std::optional<client::Status> namespaceMismatch(
    const QString &sinkNamespace, const QString &verb, const Event &event)
{
    if (sinkNamespace.isEmpty() || event.namespaceName == sinkNamespace)
        return std::nullopt;
    return client::Status::transportError(QStringLiteral("NamespaceMismatch"),
        QStringLiteral("can't %1 an event with namespace '%2' in namespace '%3'")
            .arg(verb, event.namespaceName, sinkNamespace));
}

} // namespace

RestEventSink::RestEventSink(client::RestClient *client, const QString &ns)
    : m_client(client), m_namespace(ns)
{ }

RestEventSink::~RestEventSink() = default;

SinkResult RestEventSink::create(const Event &event)
{
    if (auto error = namespaceMismatch(m_namespace, QStringLiteral("create"), event))
        return *error;
    return toEvent(m_client->create(Events, event.namespaceName, client::Object(event.toJson())));
}

SinkResult RestEventSink::update(const Event &event)
{
    if (auto error = namespaceMismatch(m_namespace, QStringLiteral("update"), event))
        return *error;
    return toEvent(m_client->update(Events, client::Object(event.toJson())));
}

SinkResult RestEventSink::patch(const Event &oldEvent, const QByteArray &data)
{
    if (auto error = namespaceMismatch(m_namespace, QStringLiteral("patch"), oldEvent))
        return *error;
    return toEvent(m_client->patch(
        Events, oldEvent.namespaceName, oldEvent.name, client::PatchType::StrategicMerge, data));
}

} // namespace qcm::record
