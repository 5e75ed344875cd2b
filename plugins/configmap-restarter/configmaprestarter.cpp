// SPDX-License-Identifier: Apache-2.0
#include "configmaprestarter.h"

#include "configmapreferences.h"

#include <qcm/api/apps/v1.h>
#include <qcm/api/core/v1.h>
#include <qcm/builder/controllerbuilder.h>
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/record/event.h>

#include <QtCore/QLoggingCategory>

#include <stdexcept>

namespace qcm::samples {

using namespace qcm::api;
using client::Object;

ConfigMapRestarter::ConfigMapRestarter(const ControllerContext &context,
    std::shared_ptr<client::Client> client, std::shared_ptr<record::EventRecorder> recorder)
    : Controller(context), m_client(std::move(client)), m_recorder(std::move(recorder))
{
    // Every change of a Deployment queues it. A new ConfigMap may be what a Deployment waits
    // for, and new data restarts the Deployments that reference it; other updates of a
    // ConfigMap (labels, annotations, resyncs) and its deletion restart nothing.
    const predicate::Predicate dataChanged {[](const Object &) { return true; },
        [](const Object &before, const Object &after) {
            return configMapDataDiffers(before, after);
        },
        [](const Object &) { return false; }};
    if (const std::optional<Error> error
        = builder::ControllerBuilder(*this)
              .forKind<apps::v1::Deployment>()
              .watches<core::v1::ConfigMap>(
                  [this](const Object &configMap) { return referencing(configMap); }, dataChanged)
              .complete())
        throw std::runtime_error(error->toString().toStdString());
    // The builder took the informers from the context's factory (one per resource in the
    // host): the index goes on the Deployments'. It may be there already, from an earlier
    // incarnation of this controller (the host may create it again after a reload; the host
    // never unloads a plugin's code, so that index function is this one). No event reaches
    // referencing() before the informers start, after this constructor.
    cache::SharedInformerFactory *informers = context.informerFactory();
    m_deployments = informers->informerFor(apps::v1::Deployment::groupVersionResource());
    if (!m_deployments->indexer().indexers().contains(ConfigMapIndex)) {
        if (const std::optional<Error> error
            = m_deployments->addIndexers({{ConfigMapIndex, configMapIndexKeys}}))
            throw std::runtime_error(error->toString().toStdString());
    }
    m_configMaps = informers->informerFor(core::v1::ConfigMap::groupVersionResource());
}

ConfigMapRestarter::ConfigMapRestarter(const ControllerContext &context)
    : ConfigMapRestarter(context, std::make_shared<client::DirectClient>(context.restClient()),
        context.requireEventRecorder())
{ }

ConfigMapRestarter::~ConfigMapRestarter()
{
    // Controller's destructor would stop the workers only once this part of the object is
    // gone, and a worker still running would call reconcile() on it: stop them here.
    stop(std::chrono::hours(24));
}

QStringList ConfigMapRestarter::referencing(const Object &configMap) const
{
    // "namespace/name", as configMapIndexKeys() makes them.
    const Result<QStringList> keys
        = m_deployments->indexer().indexKeys(ConfigMapIndex, configMap.key());
    if (!keys) {
        qCWarning(context().logCategory()).noquote() << keys.error().toString();
        return {};
    }
    return *keys;
}

ReconcileResult ConfigMapRestarter::syncDeployment(const QString &key)
{
    const std::optional<Object> deployment = m_deployments->indexer().getByKey(key);
    if (!deployment)
        return ReconcileResult::done(); // deleted
    const QString ns = deployment->namespaceName();
    const cache::Lister configMaps = m_configMaps->lister();
    const RestartDecision decision = decideRestart(
        *deployment, [&](const QString &configMap) { return configMaps.get(ns, configMap); });
    switch (decision.action) {
    case RestartDecision::Action::None:
        return ReconcileResult::done();
    case RestartDecision::Action::WaitForConfigMaps:
        // Queued again when one of them is created.
        qCDebug(context().logCategory()).noquote()
            << QStringLiteral("%1: waiting for ConfigMap(s) %2")
                   .arg(key, decision.missing.join(QStringLiteral(", ")));
        return ReconcileResult::done();
    case RestartDecision::Action::Adopt:
    case RestartDecision::Action::Restart:
        break;
    }

    client::PatchOptions options;
    options.fieldManager = context().controllerName();
    const client::ObjectResult patched
        = m_client->patch(apps::v1::Deployment::groupVersionResource(), ns, deployment->name(),
            client::PatchType::Merge, restartPatch(*deployment, decision), options);
    if (!patched)
        return ReconcileResult::error(patched.error().toString());
    if (decision.action == RestartDecision::Action::Adopt) {
        qCDebug(context().logCategory()).noquote()
            << QStringLiteral("%1: recorded the data of ConfigMap(s) %2")
                   .arg(key, decision.configMaps.join(QStringLiteral(", ")));
        return ReconcileResult::done();
    }
    const QString message
        = QStringLiteral("Restarting: the data of ConfigMap(s) %1 changed (hash %2 -> %3)")
              .arg(decision.configMaps.join(QStringLiteral(", ")),
                  decision.previousDataHash.left(12), decision.dataHash.left(12));
    qCInfo(context().logCategory()).noquote() << key << message;
    m_recorder->event(*patched, record::EventTypeNormal, EventReason, message);
    return ReconcileResult::done();
}

} // namespace qcm::samples
