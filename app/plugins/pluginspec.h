// SPDX-License-Identifier: Apache-2.0
// PluginSpec: one plugin file and everything the host knows about it: its metadata, its state
// (pluginstate.h), whether the configuration enables it, its error, and once loaded its
// library, root object and Controller (Qt Creator's PluginSpec).
//
// read() checks the metadata without running any code of the plugin. load(), configure(),
// start(), stop() and unload() each move the plugin one step, only from the states that allow
// it; a step that goes wrong, including a plugin that throws, leaves the plugin Failed with a
// PluginError and returns false. Nothing a plugin does reaches the host as an exception.
//
// Thread safety: the host's main thread only (the thread the Controller lives in).
#pragma once

#include "plugins/pluginerror.h"
#include "plugins/pluginmetadata.h"
#include "plugins/pluginstate.h"
#include "plugins/plugintrust.h"
#include "reload/fileidentity.h"

#include <qcm/controller.h>

#include <QtCore/QObject>

#include <memory>

QT_BEGIN_NAMESPACE
class QPluginLoader;
QT_END_NAMESPACE

namespace qcm {
class ControllerPlugin;
}

namespace qcm::host {

class PluginSpec : public QObject
{
    Q_OBJECT

public:
    explicit PluginSpec(const QString &filePath, QObject *parent = nullptr);
    // Destroys the Controller and unloads the library, unless a stop timed out (the library
    // then stays loaded: its workers may still run its code).
    ~PluginSpec() override;

    QString filePath() const { return m_filePath; }
    // The controller's name from the metadata; empty when it could not be read.
    QString name() const { return m_name; }
    const PluginMetaData &metaData() const { return m_metaData; }
    PluginState state() const { return m_state; }
    const PluginError &error() const { return m_error; }
    bool hasError() const { return m_error.isError(); }
    bool isEnabled() const { return m_enabled; }
    void setEnabled(bool enabled) { m_enabled = enabled; }
    Controller *controller() const { return m_controller.get(); }
    // While its controller runs, the keys it owns (Controller::ownedKeys()); -1 when it does
    // not run, or is not sharded. For qcm_scaleout_keys_owned and /statusz.
    qsizetype ownedKeys() const
    {
        return m_controller && m_state == PluginState::Running ? m_controller->ownedKeys() : -1;
    }
    bool isLibraryLoaded() const;
    // Whether load() ever loaded the library. Its code then stays mapped until the process
    // ends, even after unload() (QLibrary::PreventUnloadHint): the informers, indexers and
    // metrics a controller registered may hold its strings and functions.
    bool hasBeenLoaded() const { return m_hasBeenLoaded; }
    // The file as read() found it.
    const FileIdentity &fileIdentity() const { return m_fileIdentity; }
    // Set by PluginHost::rescan() when the file was removed or replaced after its library was
    // loaded: a running controller runs on with the code it loaded, but nothing is loaded from
    // this record again (a new file at the same path needs a restart of qcm).
    bool isFileChanged() const { return m_fileChanged; }
    void setFileChanged(bool changed) { m_fileChanged = changed; }

    // Checks that the file may be trusted (plugintrust.h: with Strict, an untrusted file
    // fails as Untrusted before anything of it is read; with Warn, a warning), then reads and
    // validates the metadata: Discovered, or Failed. Runs no code of the plugin.
    bool read(PluginTrust trust = PluginTrust::Strict);
    // Discovered/Unloaded -> Loaded: loads the library (every symbol resolved now, so that a
    // missing one is an error here rather than a crash later) and checks the root object.
    // A successful load clears the error of an earlier failure (a retry).
    bool load();
    // Loaded/Stopped -> Configured: the plugin's factory creates the Controller.
    bool configure(const ControllerContext &context);
    // Configured -> Running: starts the Controller.
    bool start();
    // Running -> Stopped: stops the Controller, draining its queue within `timeout`. If the
    // workers are still busy then, the plugin is Failed (StopTimedOut) instead.
    bool stop(Duration timeout);
    // Loaded/Configured/Stopped/Failed -> Unloaded: destroys the Controller and the root
    // object, and releases the library (its code stays mapped: hasBeenLoaded()). Refused after
    // a stop that timed out.
    bool unload();
    // After a stop that timed out (Failed, StopTimedOut): if no worker is in reconcile() any
    // more, the stop is over after all, and the plugin is unloaded (Unloaded), ready to load
    // again; true then. False, and nothing changes, otherwise.
    bool reclaim();
    // Marks the plugin failed from outside (a duplicate name); allowed where Failed is.
    void fail(PluginError::Kind kind, const QString &message);
    // Quarantines a plugin not loaded yet (Discovered): none of its code will run.
    bool quarantine(const QString &reason);

signals:
    void stateChanged(qcm::host::PluginState state);

private:
    bool transition(PluginState to);
    // Records an illegal request without changing state; returns false.
    bool refuse(const char *step);

    const QString m_filePath;
    QString m_name;
    PluginMetaData m_metaData;
    PluginState m_state = PluginState::Discovered;
    PluginError m_error;
    bool m_enabled = false;
    FileIdentity m_fileIdentity;
    bool m_fileChanged = false;
    bool m_hasBeenLoaded = false;
    std::unique_ptr<QPluginLoader> m_loader;
    ControllerPlugin *m_plugin = nullptr; // the loader's root object
    std::unique_ptr<Controller> m_controller;
};

} // namespace qcm::host
