// SPDX-License-Identifier: Apache-2.0
// PluginHost: the plugins of the configured plugin directories. It finds the .so files, reads
// and validates their metadata (no plugin code runs), refuses duplicate controller names, and
// applies the configuration's choice of controllers (controllerselection.h).
//
// A problem with one plugin (or one directory) is kept on that plugin's record, or in
// directoryErrors(), and the others go on. A configuration that names a controller nobody
// provides is an error for the whole configuration: select() returns it.
//
// Thread safety: the host's main thread only.
#pragma once

#include "config/config.h"
#include "plugins/pluginspec.h"

#include <QtCore/QList>
#include <QtCore/QSet>

#include <memory>
#include <vector>

namespace qcm::host {

class PluginHost
{
public:
    PluginHost();
    ~PluginHost();
    Q_DISABLE_COPY_MOVE(PluginHost)

    // Finds every *.so file of each directory (not recursive; in name order) and reads it.
    // A directory that does not exist or cannot be read is an entry of directoryErrors().
    void discover(const QStringList &directories);
    // How discover() and rescan() judge a plugin's file and directories (plugintrust.h).
    void setTrust(PluginTrust trust) { m_trust = trust; }

    struct RescanResult
    {
        QList<PluginSpec *> added; // read now: new files, and changed files read again
        QStringList dropped; // files whose records are gone (removed, or read again)
        QStringList marked; // files removed or replaced after their library was loaded
    };
    // Looks at the directories again while qcm runs (docs/host.md, "Changes without
    // restart"). A file that is new, or whose FileIdentity changed, is read (metadata only,
    // as at start-up). The record of a file removed or replaced is dropped if its library was
    // never loaded; otherwise it stays, marked fileChanged: a running controller runs on with
    // the code it loaded, and nothing is loaded from the record again. A new file whose
    // controller name a valid plugin already has is refused (DuplicateName, naming that file)
    // and the plugin already there is untouched; files refused as duplicates are read again,
    // since the other may be gone. directoryErrors() becomes this look's.
    RescanResult rescan(const QStringList &directories);
    const std::vector<std::unique_ptr<PluginSpec>> &plugins() const { return m_plugins; }
    const QList<Error> &directoryErrors() const { return m_directoryErrors; }
    // The valid plugin of that name, or null.
    PluginSpec *find(const QString &name) const;

    // Every name a plugin's metadata gave, failed plugins included: the names the
    // configuration may use.
    QSet<QString> knownNames() const;
    QSet<QString> disabledByDefaultNames() const;

    // Checks config.controllers and the names under controllerConfig against knownNames(),
    // then marks each plugin enabled or not. The error lists every unknown name and the
    // known ones; nothing is marked then.
    std::optional<Error> select(const ControllerManagerConfig &config);

    // The --list-plugins table: name, version, state, enabled, file and error of every plugin,
    // then the directory errors.
    QString listing() const;

private:
    PluginTrust m_trust = PluginTrust::Strict;
    // The *.so files of one directory, in name order; or the reason it cannot be read.
    static Result<QStringList> listDirectory(const QString &directory);
    void refuseDuplicates();
    // Refuses each of `added` whose name another valid plugin has.
    void refuseDuplicatesOf(const QList<PluginSpec *> &added);
    // Refuses every plugin of `plugins` whose name another of them has.
    static void refuseAmong(const QList<PluginSpec *> &plugins);
    static void refuseAsDuplicate(PluginSpec &plugin, const QStringList &otherFiles);

    std::vector<std::unique_ptr<PluginSpec>> m_plugins;
    QList<Error> m_directoryErrors;
};

} // namespace qcm::host
