// SPDX-License-Identifier: Apache-2.0
// PluginError: why one plugin was refused or failed, as a value kept on its PluginSpec
// (Qt Creator's PluginSpec::errorString, KDE's Result reasons). The kind is for programs
// (tests, metrics, /healthz); the message is for people and names what was expected and found.
//
// Thread safety: a plain value.
#pragma once

#include <QtCore/QString>

namespace qcm::host {

struct PluginError
{
    enum class Kind {
        None,
        NotAPlugin, // not a Qt plugin: no metadata could be read from the file
        WrongIid, // a Qt plugin, but not a qcm controller plugin
        MissingMetaData, // no MetaData object: Q_PLUGIN_METADATA without FILE
        InvalidMetaData, // a required field missing or of the wrong type or form
        IncompatibleSdk, // built against another plugin ABI, or a newer SDK
        DuplicateName, // another file provides the same controller name
        LoadFailed, // the library would not load (dlopen's error)
        UnresolvedSymbol, // the library needs a symbol nothing provides
        NotAControllerPlugin, // its root object does not implement qcm::ControllerPlugin
        FactoryFailed, // create() threw or returned null
        StartFailed, // Controller::start() threw
        StopTimedOut, // workers were still busy when the shutdown timeout passed
        IllegalTransition, // the host asked for a transition its state does not allow
        Untrusted, // the file or a directory above it may be written by others (plugintrust.h)
        Quarantined, // its code crashed the host too often (watchdog/crashrecords.h)
    };

    Kind kind = Kind::None;
    QString message;

    bool isError() const { return kind != Kind::None; }
    // "not-a-plugin", "wrong-iid", ...: stable names for logs and metrics.
    static QString kindName(Kind kind);
};

} // namespace qcm::host
