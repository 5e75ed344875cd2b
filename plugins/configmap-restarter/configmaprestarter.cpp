// SPDX-License-Identifier: Apache-2.0
#include "configmaprestarter.h"

#include "configmapreferences.h"
#include "resources.h"

#include <qcm/cache/sharedinformerfactory.h>

#include <QtCore/QLoggingCategory>

#include <stdexcept>

namespace qcm::samples {

using namespace qcm::client;

namespace {
// Adds ConfigMapIndex to the Deployments' shared informer, unless an earlier incarnation of this
// controller did (the host may create it again after a reload; the host never unloads a
// plugin's code, so that index function is this one).
void addConfigMapIndex(cache::SharedIndexInformer *informer)
{
    if (informer->indexer().indexers().contains(ConfigMapRestarter::ConfigMapIndex))
        return;
    if (const std::optional<Error> error
        = informer->addIndexers({{ConfigMapRestarter::ConfigMapIndex, configMapIndexKeys}}))
        throw std::runtime_error(error->toString().toStdString());
}
} // namespace

ConfigMapRestarter::ConfigMapRestarter(
    const ControllerContext &context, std::shared_ptr<ObjectClient> client, RecordEvent recordEvent)
    : Controller(context), m_client(std::move(client)), m_recordEvent(std::move(recordEvent))
{
    m_deployments = context.informerFactory()->informerFor(Deployments);
    addConfigMapIndex(m_deployments);
    watch(m_deployments);

    m_configMaps = context.informerFactory()->informerFor(ConfigMaps);
    cache::ResourceEventHandler onConfigMap;
    // Added: a Deployment may be waiting for it.
    onConfigMap.onAdd = [this](const Object &configMap, bool) { enqueueReferencing(configMap); };
    onConfigMap.onUpdate = [this](const Object &before, const Object &after) {
        if (configMapDataDiffers(before, after))
            enqueueReferencing(after);
    };
    addEventHandler(m_configMaps, onConfigMap);
}

ConfigMapRestarter::ConfigMapRestarter(const ControllerContext &context)
    : ConfigMapRestarter(context, std::make_shared<RestObjectClient>(context.restClient()),
        eventRecorderFor(context))
{ }

ConfigMapRestarter::~ConfigMapRestarter()
{
    // See FooController's destructor.
    stop(std::chrono::hours(24));
}

void ConfigMapRestarter::enqueueReferencing(const Object &configMap)
{
    const Result<QStringList> keys = m_deployments->indexer().indexKeys(
        ConfigMapIndex, configMap.namespaceName() + QLatin1Char('/') + configMap.name());
    if (!keys) {
        qCWarning(context().logCategory()).noquote() << keys.error().toString();
        return;
    }
    for (const QString &key : *keys)
        enqueue(key);
}

ReconcileResult ConfigMapRestarter::syncDeployment(const QString &key)
{
    const Result<cache::NamespacedName> name = cache::splitMetaNamespaceKey(key);
    if (!name) {
        qCWarning(context().logCategory()).noquote()
            << QStringLiteral("invalid resource key: %1").arg(key);
        return ReconcileResult::done();
    }
    const std::optional<Object> deployment
        = m_deployments->lister().get(name->namespaceName, name->name);
    if (!deployment)
        return ReconcileResult::done(); // deleted

    const cache::Lister configMaps = m_configMaps->lister();
    const RestartDecision decision = decideRestart(*deployment,
        [&](const QString &configMap) { return configMaps.get(name->namespaceName, configMap); });
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

    PatchOptions options;
    options.fieldManager = context().controllerName();
    const ObjectResult patched = m_client->patch(Deployments, deployment->namespaceName(),
        deployment->name(), PatchType::Merge, restartPatch(*deployment, decision), options);
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
    m_recordEvent(*patched, EventTypeNormal, EventReason, message);
    return ReconcileResult::done();
}

} // namespace qcm::samples
