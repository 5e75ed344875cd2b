// SPDX-License-Identifier: Apache-2.0
#include "plugins/pluginspec.h"

#include "logging.h"

#include <qcm/detail/activitytracker.h>
#include <qcm/detail/exceptiontext.h>
#include <qcm/plugin.h>

#include <QtCore/QFileInfo>
#include <QtCore/QPluginLoader>

#include <unistd.h>

namespace qcm::host {

PluginSpec::PluginSpec(const QString &filePath, QObject *parent)
    : QObject(parent), m_filePath(QFileInfo(filePath).absoluteFilePath())
{ }

PluginSpec::~PluginSpec()
{
    if (m_error.kind == PluginError::Kind::StopTimedOut) {
        // Its workers may still be running its code: keep the Controller and the library.
        (void)m_controller.release();
        return;
    }
    m_controller.reset();
    if (m_loader && m_loader->isLoaded())
        m_loader->unload();
}

bool PluginSpec::isLibraryLoaded() const
{
    return m_loader && m_loader->isLoaded();
}

bool PluginSpec::transition(PluginState to)
{
    if (!isTransitionAllowed(m_state, to)) {
        m_error = PluginError {PluginError::Kind::IllegalTransition,
            QStringLiteral("internal error: %1 -> %2 is not allowed")
                .arg(stateName(m_state), stateName(to))};
        qCCritical(lcPlugin).noquote() << m_filePath << m_error.message;
        return false;
    }
    qCInfo(lcPlugin).noquote() << QStringLiteral("%1 (%2): %3 -> %4")
                                      .arg(m_name.isEmpty() ? QStringLiteral("-") : m_name,
                                          m_filePath, stateName(m_state), stateName(to));
    m_state = to;
    emit stateChanged(to);
    return true;
}

bool PluginSpec::refuse(const char *step)
{
    const QString message = QStringLiteral("internal error: cannot %1 a plugin that is %2")
                                .arg(QLatin1String(step), stateName(m_state));
    qCCritical(lcPlugin).noquote() << m_filePath << message;
    if (m_state != PluginState::Failed) // a failed plugin keeps the reason it failed
        m_error = PluginError {PluginError::Kind::IllegalTransition, message};
    return false;
}

void PluginSpec::fail(PluginError::Kind kind, const QString &message)
{
    if (!isTransitionAllowed(m_state, PluginState::Failed)) {
        refuse("fail");
        return;
    }
    m_error = PluginError {kind, message};
    qCWarning(lcPlugin).noquote() << QStringLiteral("%1 (%2) failed: %3")
                                         .arg(m_name.isEmpty() ? QStringLiteral("-") : m_name,
                                             m_filePath, message);
    transition(PluginState::Failed);
}

bool PluginSpec::quarantine(const QString &reason)
{
    if (!isTransitionAllowed(m_state, PluginState::Quarantined))
        return refuse("quarantine");
    m_error = PluginError {PluginError::Kind::Quarantined, reason};
    qCWarning(lcPlugin).noquote()
        << QStringLiteral("%1 (%2) is quarantined: %3").arg(m_name, m_filePath, reason);
    return transition(PluginState::Quarantined);
}

bool PluginSpec::read(PluginTrust trust)
{
    if (m_state != PluginState::Discovered || m_loader)
        return refuse("read");
    m_fileIdentity = FileIdentity::of(m_filePath); // before reading: a later change shows
    if (const std::optional<QString> why = untrustedReason(m_filePath, ::geteuid())) {
        if (trust == PluginTrust::Strict) {
            fail(PluginError::Kind::Untrusted,
                QStringLiteral("untrusted: %1; whoever can write it can run code with qcm's "
                               "credentials (--plugin-trust=warn loads it anyway)")
                    .arg(*why));
            return false;
        }
        qCWarning(lcPlugin).noquote()
            << QStringLiteral("%1: loading an untrusted plugin (--plugin-trust=warn): %2")
                   .arg(m_filePath, *why);
    }
    m_loader = std::make_unique<QPluginLoader>(m_filePath);
    // Resolve every symbol at load time: a plugin that needs a symbol nothing provides then
    // fails to load, with dlopen's message, instead of crashing when it first calls it. And
    // never unmap it while qcm runs (RTLD_NODELETE): shared informers, indexers and metrics
    // may keep its QStringLiterals and functions after its controller is gone, as a reload
    // that disables it leaves them.
    m_loader->setLoadHints(QLibrary::ResolveAllSymbolsHint | QLibrary::PreventUnloadHint);
    const QJsonObject raw = m_loader->metaData(); // reads the file; runs no plugin code
    if (raw.isEmpty()) {
        fail(PluginError::Kind::NotAPlugin,
            QStringLiteral("not a Qt plugin: %1").arg(m_loader->errorString()));
        return false;
    }
    // The name, when a qcm plugin gives one, even if the rest is wrong: it lets the listing
    // and the configuration refer to this plugin.
    const QString name
        = raw.value(QLatin1String("MetaData")).toObject().value(QLatin1String("name")).toString();
    Result<PluginMetaData, PluginError> metaData = readPluginMetaData(raw);
    if (!metaData) {
        const PluginError::Kind kind = metaData.error().kind;
        if (kind != PluginError::Kind::NotAPlugin && kind != PluginError::Kind::WrongIid
            && isControllerName(name))
            m_name = name; // a qcm plugin's own name, even if something else is wrong
        fail(metaData.error().kind, metaData.error().message);
        return false;
    }
    m_metaData = *metaData;
    m_name = m_metaData.name;
    qCDebug(lcPlugin).noquote() << QStringLiteral("%1 (%2): discovered, version %3, SDK %4")
                                       .arg(m_name, m_filePath, m_metaData.version,
                                           m_metaData.sdkVersion);
    return true;
}

bool PluginSpec::load()
{
    if (!m_loader || (m_state != PluginState::Discovered && m_state != PluginState::Unloaded))
        return refuse("load");
    const bool loaded = m_loader->load();
    m_hasBeenLoaded |= loaded;
    if (!loaded) {
        const QString why = m_loader->errorString();
        fail(why.contains(QLatin1String("undefined symbol")) ? PluginError::Kind::UnresolvedSymbol
                                                             : PluginError::Kind::LoadFailed,
            QStringLiteral("cannot load the library: %1").arg(why));
        return false;
    }
    QObject *root = nullptr;
    try {
        root = m_loader->instance(); // constructs the plugin's root object
    } catch (...) {
        fail(PluginError::Kind::LoadFailed,
            QStringLiteral("its root object threw: %1")
                .arg(detail::exceptionText(std::current_exception())));
        return false;
    }
    if (!root) {
        fail(PluginError::Kind::LoadFailed,
            QStringLiteral("no root object: %1").arg(m_loader->errorString()));
        return false;
    }
    m_plugin = qobject_cast<ControllerPlugin *>(root);
    if (!m_plugin) {
        fail(PluginError::Kind::NotAControllerPlugin,
            QStringLiteral("its root object (%1) does not implement qcm::ControllerPlugin "
                           "(Q_INTERFACES(qcm::ControllerPlugin) is missing)")
                .arg(QLatin1String(root->metaObject()->className())));
        return false;
    }
    m_error = {};
    return transition(PluginState::Loaded);
}

bool PluginSpec::configure(const ControllerContext &context)
{
    if (!m_plugin || (m_state != PluginState::Loaded && m_state != PluginState::Stopped))
        return refuse("configure");
    m_controller.reset();
    try {
        const detail::ActivityTracker::Scope scope(
            m_name, detail::ActivityTracker::Kind::Create, {});
        m_controller = m_plugin->create(context);
    } catch (...) {
        fail(PluginError::Kind::FactoryFailed,
            QStringLiteral("its factory threw: %1")
                .arg(detail::exceptionText(std::current_exception())));
        return false;
    }
    if (!m_controller) {
        fail(
            PluginError::Kind::FactoryFailed, QStringLiteral("its factory returned no controller"));
        return false;
    }
    return transition(PluginState::Configured);
}

bool PluginSpec::start()
{
    if (!m_controller || m_state != PluginState::Configured)
        return refuse("start");
    try {
        m_controller->start();
    } catch (...) {
        fail(PluginError::Kind::StartFailed,
            QStringLiteral("starting its controller threw: %1")
                .arg(detail::exceptionText(std::current_exception())));
        return false;
    }
    return transition(PluginState::Running);
}

bool PluginSpec::stop(Duration timeout)
{
    if (!m_controller || m_state != PluginState::Running)
        return refuse("stop");
    if (!m_controller->stop(timeout)) {
        fail(PluginError::Kind::StopTimedOut,
            QStringLiteral("%1 worker(s) were still in reconcile() when the shutdown timeout "
                           "passed")
                .arg(m_controller->activeWorkers()));
        return false;
    }
    return transition(PluginState::Stopped);
}

bool PluginSpec::reclaim()
{
    if (m_state != PluginState::Failed || m_error.kind != PluginError::Kind::StopTimedOut
        || !m_controller || m_controller->activeWorkers() > 0
        || !m_controller->stop(Duration::zero()))
        return false;
    qCInfo(lcPlugin).noquote() << QStringLiteral(
        "%1 (%2): its workers have left reconcile(): the stop that timed out "
        "is over")
                                      .arg(m_name, m_filePath);
    m_error = {};
    return unload();
}

bool PluginSpec::unload()
{
    const bool allowed = m_state == PluginState::Loaded || m_state == PluginState::Configured
        || m_state == PluginState::Stopped || m_state == PluginState::Failed;
    if (!allowed || m_error.kind == PluginError::Kind::StopTimedOut)
        return refuse("unload");
    // A Configured controller was never started; stopping it only shuts its queue down.
    if (m_controller)
        m_controller->stop(Duration::zero());
    m_controller.reset();
    m_plugin = nullptr;
    if (m_loader && m_loader->isLoaded() && !m_loader->unload())
        qCWarning(lcPlugin).noquote() << QStringLiteral("%1 (%2): the library stays loaded: %3")
                                             .arg(m_name, m_filePath, m_loader->errorString());
    return transition(PluginState::Unloaded);
}

} // namespace qcm::host
