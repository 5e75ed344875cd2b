// SPDX-License-Identifier: Apache-2.0
#include "serving/statusz.h"

#include "leadership/leadership.h"
#include "leadership/scaleout.h"
#include "plugins/pluginhost.h"

#include <QtCore/QJsonArray>

namespace qcm::host {

namespace {

QJsonValue leaderElectionJson(const ControllerManagerConfig &config, const Leadership *leadership)
{
    if (!leadership)
        return QJsonValue::Null;
    const leaderelection::LeaderElector &elector = *leadership->elector();
    return QJsonObject {
        {QStringLiteral("lease"),
            config.leaderElection.resourceNamespace + QLatin1Char('/')
                + config.leaderElection.resourceName},
        {QStringLiteral("holder"), elector.leader()},
        {QStringLiteral("leading"), elector.isLeader()},
    };
}

QJsonArray controllersJson(const PluginHost &plugins)
{
    QJsonArray controllers;
    for (const auto &plugin : plugins.plugins()) {
        QJsonObject controller {
            {QStringLiteral("name"), plugin->name()},
            {QStringLiteral("state"), stateName(plugin->state())},
        };
        if (const qsizetype keys = plugin->ownedKeys(); keys >= 0)
            controller.insert(QStringLiteral("keysOwned"), double(keys));
        controllers.append(controller);
    }
    return controllers;
}

QJsonValue controllerScopeJson(const sharding::ControllerScope *scope)
{
    if (!scope)
        return QJsonValue::Null;
    return QJsonObject {
        {QStringLiteral("controllers"), QJsonArray::fromStringList(scope->controllers())},
        {QStringLiteral("placed"), QJsonArray::fromStringList(scope->placed())},
        {QStringLiteral("held"), QJsonArray::fromStringList(scope->held())},
    };
}

QJsonValue scaleOutJson(const ScaleOut *scaleOut)
{
    if (!scaleOut)
        return QJsonValue::Null;
    sharding::ShardGroup &group = *scaleOut->group();
    const sharding::Membership &membership = group.membership();
    const sharding::Epoch ring = group.ring().epoch();
    const QHash<QString, sharding::Ack> acks = membership.acks();
    QJsonArray members;
    for (const QString &member : membership.aliveMembers()) {
        const auto ack = acks.constFind(member);
        members.append(QJsonObject {
            {QStringLiteral("incarnation"), member},
            {QStringLiteral("ack"), ack == acks.cend() ? QJsonValue() : ack->toString()},
        });
    }
    return QJsonObject {
        {QStringLiteral("group"), scaleOut->name()},
        {QStringLiteral("incarnation"), membership.incarnation()},
        {QStringLiteral("ring"),
            QJsonObject {
                {QStringLiteral("epoch"), double(ring.number)},
                {QStringLiteral("id"), ring.id},
                {QStringLiteral("members"), QJsonArray::fromStringList(ring.members)},
            }},
        {QStringLiteral("servingEpoch"), double(group.servingEpoch())},
        {QStringLiteral("baseEpoch"), double(group.baseEpoch())},
        {QStringLiteral("members"), members},
        {QStringLiteral("membersGone"), double(membership.goneMembers().size())},
        {QStringLiteral("controllerScope"), controllerScopeJson(scaleOut->controllerScope())},
    };
}

} // namespace

QJsonObject statuszJson(const ControllerManagerConfig &config, const PluginHost &plugins,
    const Leadership *leadership, const ScaleOut *scaleOut)
{
    QJsonObject status {
        {QStringLiteral("leaderElection"), leaderElectionJson(config, leadership)},
        {QStringLiteral("controllers"), controllersJson(plugins)},
        {QStringLiteral("scaleOut"), scaleOutJson(scaleOut)},
    };
    if (leadership)
        status.insert(QStringLiteral("identity"), leadership->identity());
    return status;
}

} // namespace qcm::host
