// SPDX-License-Identifier: Apache-2.0
#include "plugins/pluginhost.h"

#include "logging.h"
#include "plugins/controllerselection.h"

#include <QtCore/QDir>
#include <QtCore/QFileInfo>
#include <QtCore/QMap>

#include <algorithm>

namespace qcm::host {

PluginHost::PluginHost() = default;
PluginHost::~PluginHost() = default;

Result<QStringList> PluginHost::listDirectory(const QString &directory)
{
    const QFileInfo info(directory);
    if (!info.exists())
        return Error {directory, {}, QStringLiteral("plugin directory does not exist")};
    if (!info.isDir())
        return Error {directory, {}, QStringLiteral("not a directory")};
    if (!info.isReadable())
        return Error {directory, {}, QStringLiteral("plugin directory cannot be read")};
    const QDir dir(directory);
    QStringList files;
    for (const QString &file :
        dir.entryList({QStringLiteral("*.so")}, QDir::Files | QDir::Readable, QDir::Name))
        files << QFileInfo(dir.filePath(file)).absoluteFilePath();
    return files;
}

void PluginHost::discover(const QStringList &directories)
{
    for (const QString &directory : directories) {
        const Result<QStringList> files = listDirectory(directory);
        if (!files) {
            m_directoryErrors << files.error();
            qCWarning(lcPlugin).noquote() << files.error().toString();
            continue;
        }
        if (files->isEmpty())
            qCInfo(lcPlugin).noquote()
                << QStringLiteral("plugin directory %1 has no .so files").arg(directory);
        for (const QString &file : *files) {
            m_plugins.push_back(std::make_unique<PluginSpec>(file));
            m_plugins.back()->read(m_trust);
        }
    }
    refuseDuplicates();
}

PluginHost::RescanResult PluginHost::rescan(const QStringList &directories)
{
    RescanResult result;
    QList<Error> directoryErrors;
    QStringList onDisk; // in directory order, then name order
    for (const QString &directory : directories) {
        const Result<QStringList> files = listDirectory(directory);
        if (files) {
            onDisk << *files;
            continue;
        }
        directoryErrors << files.error();
        const bool reported = std::any_of(m_directoryErrors.cbegin(), m_directoryErrors.cend(),
            [&](const Error &e) { return e.toString() == files.error().toString(); });
        if (!reported)
            qCWarning(lcPlugin).noquote() << files.error().toString();
    }
    m_directoryErrors = directoryErrors;

    QSet<QString> kept; // files whose record stays
    for (auto it = m_plugins.begin(); it != m_plugins.end();) {
        PluginSpec &p = **it;
        const bool present = onDisk.contains(p.filePath());
        const bool sameFile = present && FileIdentity::of(p.filePath()) == p.fileIdentity();
        const bool duplicate = p.state() == PluginState::Failed
            && p.error().kind == PluginError::Kind::DuplicateName;
        if (sameFile && !duplicate) {
            p.setFileChanged(false); // the file it was read from (back again, if moved away)
            kept.insert(p.filePath());
            ++it;
            continue;
        }
        if (p.hasBeenLoaded()) {
            // Its code stays mapped (PluginSpec::hasBeenLoaded()), and dlopen() would hand out
            // that old code again for the same path: the record stays, for what runs on.
            if (!p.isFileChanged()) {
                p.setFileChanged(true);
                result.marked << p.filePath();
                qCWarning(lcPlugin).noquote()
                    << QStringLiteral("%1 (%2) was %3 after qcm loaded it: %4; restart qcm to "
                                      "load a new file at this path")
                           .arg(p.name(), p.filePath(),
                               present ? QStringLiteral("replaced") : QStringLiteral("removed"),
                               p.state() == PluginState::Running
                                   ? QStringLiteral("its controller runs on with the code it "
                                                    "loaded until it is disabled")
                                   : QStringLiteral("it is not loaded from it again"));
            }
            kept.insert(p.filePath());
            ++it;
            continue;
        }
        if (!duplicate)
            qCInfo(lcPlugin).noquote()
                << QStringLiteral("%1 (%2) was %3")
                       .arg(p.name().isEmpty() ? QStringLiteral("-") : p.name(), p.filePath(),
                           present ? QStringLiteral("replaced; reading it again")
                                   : QStringLiteral("removed"));
        result.dropped << p.filePath();
        it = m_plugins.erase(it); // destroys the record, and its loader, before a new one
    }

    for (const QString &file : std::as_const(onDisk)) {
        if (kept.contains(file))
            continue;
        m_plugins.push_back(std::make_unique<PluginSpec>(file));
        m_plugins.back()->read(m_trust);
        result.added << m_plugins.back().get();
        if (m_plugins.back()->state() == PluginState::Discovered)
            qCInfo(lcPlugin).noquote()
                << QStringLiteral("found %1 (%2), version %3")
                       .arg(m_plugins.back()->name(), file, m_plugins.back()->metaData().version);
    }
    refuseDuplicatesOf(result.added);
    return result;
}

void PluginHost::refuseDuplicates()
{
    // Only valid plugins compete for a name: a broken copy already says what is wrong with it.
    QList<PluginSpec *> valid;
    for (const auto &p : m_plugins) {
        if (p->state() == PluginState::Discovered)
            valid << p.get();
    }
    refuseAmong(valid);
}

void PluginHost::refuseAmong(const QList<PluginSpec *> &plugins)
{
    QMap<QString, QList<PluginSpec *>> byName;
    for (PluginSpec *p : plugins)
        byName[p->name()] << p;
    for (auto it = byName.cbegin(); it != byName.cend(); ++it) {
        if (it->size() < 2)
            continue;
        for (PluginSpec *p : *it) {
            QStringList others;
            for (PluginSpec *o : *it) {
                if (o != p)
                    others << o->filePath();
            }
            refuseAsDuplicate(*p, others);
        }
    }
}

void PluginHost::refuseAsDuplicate(PluginSpec &plugin, const QStringList &otherFiles)
{
    plugin.fail(PluginError::Kind::DuplicateName,
        QStringLiteral("duplicate controller name \"%1\": also provided by %2")
            .arg(plugin.name(), otherFiles.join(QStringLiteral(", "))));
}

void PluginHost::refuseDuplicatesOf(const QList<PluginSpec *> &added)
{
    // Against the plugins already there, which keep their name ...
    QList<PluginSpec *> fresh;
    for (PluginSpec *p : added) {
        if (p->state() != PluginState::Discovered)
            continue;
        const PluginSpec *other = nullptr;
        for (const auto &o : m_plugins) {
            if (o->name() == p->name() && o->state() != PluginState::Failed
                && !added.contains(o.get()))
                other = o.get();
        }
        if (other)
            refuseAsDuplicate(*p, {other->filePath()});
        else
            fresh << p;
    }
    // ... and among themselves, as at start-up: all of them are refused.
    refuseAmong(fresh);
}

PluginSpec *PluginHost::find(const QString &name) const
{
    for (const auto &p : m_plugins) {
        if (p->name() == name && p->state() != PluginState::Failed)
            return p.get();
    }
    return nullptr;
}

QSet<QString> PluginHost::knownNames() const
{
    QSet<QString> names;
    for (const auto &p : m_plugins) {
        if (!p->name().isEmpty())
            names.insert(p->name());
    }
    return names;
}

QSet<QString> PluginHost::disabledByDefaultNames() const
{
    QSet<QString> names;
    for (const auto &p : m_plugins) {
        if (!p->name().isEmpty() && p->state() != PluginState::Failed
            && !p->metaData().enabledByDefault)
            names.insert(p->name());
    }
    return names;
}

std::optional<Error> PluginHost::select(const ControllerManagerConfig &config)
{
    const QSet<QString> known = knownNames();
    QStringList knownSorted = known.values();
    std::sort(knownSorted.begin(), knownSorted.end());
    QStringList disabled = disabledByDefaultNames().values();
    std::sort(disabled.begin(), disabled.end());
    const QString knownText = knownSorted.isEmpty()
        ? QStringLiteral("no controller plugin was found (plugin directories: %1)")
              .arg(config.pluginDirs.isEmpty() ? QStringLiteral("none")
                                               : config.pluginDirs.join(QStringLiteral(", ")))
        : QStringLiteral("the known controllers are %1").arg(knownSorted.join(QStringLiteral(", ")))
            + (disabled.isEmpty() ? QString()
                                  : QStringLiteral(" (disabled by default: %1)")
                                        .arg(disabled.join(QStringLiteral(", "))));

    const QStringList unknown = unknownControllers(config.controllers, known);
    if (!unknown.isEmpty())
        return config.controllersOrigin.error(
            unknown.join(QStringLiteral("; ")) + QStringLiteral("; ") + knownText);
    for (auto it = config.controllerConfig.cbegin(); it != config.controllerConfig.cend(); ++it) {
        if (!known.contains(it.key()))
            return it->origin.error(
                QStringLiteral("\"%1\" is not in the list of known controllers; %2")
                    .arg(it.key(), knownText));
    }
    const QSet<QString> disabledSet = disabledByDefaultNames();
    for (const auto &p : m_plugins)
        p->setEnabled(!p->name().isEmpty()
            && isControllerEnabled(p->name(), disabledSet, config.controllers));
    return std::nullopt;
}

QString PluginHost::listing() const
{
    QList<QStringList> rows {
        {QStringLiteral("NAME"), QStringLiteral("VERSION"), QStringLiteral("STATE"),
            QStringLiteral("ENABLED"), QStringLiteral("FILE"), QStringLiteral("ERROR")}};
    for (const auto &p : m_plugins) {
        rows << QStringList {p->name().isEmpty() ? QStringLiteral("-") : p->name(),
            p->metaData().version.isEmpty() ? QStringLiteral("-") : p->metaData().version,
            stateName(p->state()), p->isEnabled() ? QStringLiteral("yes") : QStringLiteral("no"),
            p->filePath(), p->hasError() ? p->error().message : QString()};
    }
    QList<int> widths(rows.constFirst().size(), 0);
    for (const QStringList &row : rows)
        for (int i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], int(row[i].size()));
    QString out;
    for (const QStringList &row : rows) {
        QString line;
        for (int i = 0; i < row.size(); ++i)
            line += i + 1 < row.size() ? row[i].leftJustified(widths[i] + 2) : row[i];
        out += line.trimmed() + QLatin1Char('\n');
    }
    for (const Error &e : m_directoryErrors)
        out += QStringLiteral("error: ") + e.toString() + QLatin1Char('\n');
    return out;
}

} // namespace qcm::host
