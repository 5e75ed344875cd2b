// SPDX-License-Identifier: Apache-2.0
#include "checksumcontroller.h"

#include "checksum.h"

#include <qcm/cache/labelselector.h>
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/record/event.h>
#include <qcm/record/eventrecorder.h>

#include <QtCore/QLoggingCategory>

#include <stdexcept>

namespace checksum {

namespace {

const qcm::client::GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};

[[noreturn]] void invalid(const QString &key, const QString &reason)
{
    throw std::invalid_argument(QStringLiteral("settings.%1: %2").arg(key, reason).toStdString());
}

QString stringSetting(const QVariantMap &settings, const QString &key, const QString &fallback)
{
    const auto it = settings.find(key);
    if (it == settings.end())
        return fallback;
    if (it->userType() != QMetaType::QString)
        invalid(key, QStringLiteral("must be a string"));
    return it->toString();
}

} // namespace

Settings Settings::fromMap(const QVariantMap &settings)
{
    // A key it does not read is an error, so that a misspelt setting is not silently ignored.
    if (const std::optional<qcm::Error> unknown = qcm::unknownSetting(
            settings, {QStringLiteral("annotation"), QStringLiteral("labelSelector")}))
        throw std::invalid_argument(unknown->toString().toStdString());
    Settings s;
    s.labelSelector = stringSetting(settings, QStringLiteral("labelSelector"), s.labelSelector);
    const auto selector = qcm::cache::LabelSelector::parse(s.labelSelector);
    if (!selector)
        invalid(QStringLiteral("labelSelector"), selector.error().toString());
    s.annotation = stringSetting(settings, QStringLiteral("annotation"), s.annotation);
    if (s.annotation.isEmpty())
        invalid(QStringLiteral("annotation"), QStringLiteral("must not be empty"));
    return s;
}

ChecksumController::ChecksumController(const qcm::ControllerContext &context)
    : ChecksumController(context, std::make_unique<qcm::client::DirectClient>(context.restClient()))
{ }

ChecksumController::ChecksumController(
    const qcm::ControllerContext &context, qcm::client::Client &client)
    : ChecksumController(context, std::unique_ptr<qcm::client::Client>(), &client)
{ }

ChecksumController::ChecksumController(const qcm::ControllerContext &context,
    std::unique_ptr<qcm::client::Client> own, qcm::client::Client *client)
    : qcm::Controller(context)
    , m_settings(Settings::fromMap(context.settings()))
    , m_ownClient(std::move(own))
    , m_client(client ? *client : *m_ownClient)
{
    // One informer per resource and selector in the whole host: the factory shares it with
    // every controller that asks for the same.
    qcm::cache::SharedInformerFactory::InformerOptions options;
    options.labelSelector = m_settings.labelSelector;
    m_configMaps = context.informerFactory()->informerFor(ConfigMaps, options);
    watch(m_configMaps); // every add, update and delete enqueues the ConfigMap's key
}

ChecksumController::~ChecksumController()
{
    stop(std::chrono::seconds(10)); // no worker may call reconcile() on a destroyed object
}

qcm::ReconcileResult ChecksumController::reconcile(const QString &key)
{
    const std::optional<qcm::client::Object> configMap = m_configMaps->indexer().getByKey(key);
    if (!configMap)
        return qcm::ReconcileResult::done(); // deleted: nothing to do
    const std::optional<QByteArray> patch = checksumPatch(*configMap, m_settings.annotation);
    if (!patch)
        return qcm::ReconcileResult::done(); // up to date
    const auto patched = m_client.patch(ConfigMaps, configMap->namespaceName(), configMap->name(),
        qcm::client::PatchType::Merge, *patch);
    if (!patched) {
        if (patched.error().isNotFound())
            return qcm::ReconcileResult::done(); // deleted since the cache saw it
        return qcm::ReconcileResult::error(patched.error().toString()); // retried with backoff
    }
    const QString checksum = patched->annotations().value(m_settings.annotation);
    qCInfo(context().logCategory()).noquote() << key << "checksum" << checksum;
    if (const auto recorder = context().eventRecorder())
        recorder->event(*patched, qcm::record::EventTypeNormal, QStringLiteral("ChecksumUpdated"),
            QStringLiteral("%1 is %2").arg(m_settings.annotation, checksum));
    return qcm::ReconcileResult::done();
}

} // namespace checksum
