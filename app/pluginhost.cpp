#include "pluginhost.h"

#include "controllerselection.h"
#include "logging.h"

#include <QtCore/QDir>
#include <QtCore/QFileInfo>
#include <QtCore/QMap>

#include <algorithm>

namespace qcm::host {

PluginHost::PluginHost() = default;
PluginHost::~PluginHost() = default;

void PluginHost::discover(const QStringList &directories)
{
    for (const QString &directory : directories) {
        const QFileInfo info(directory);
        if (!info.exists()) {
            m_directoryErrors << Error {
                directory, {}, QStringLiteral("plugin directory does not exist")};
        } else if (!info.isDir()) {
            m_directoryErrors << Error {directory, {}, QStringLiteral("not a directory")};
        } else if (!info.isReadable()) {
            m_directoryErrors << Error {
                directory, {}, QStringLiteral("plugin directory cannot be read")};
        } else {
            const QDir dir(directory);
            const QStringList files
                = dir.entryList({QStringLiteral("*.so")}, QDir::Files | QDir::Readable, QDir::Name);
            if (files.isEmpty())
                qCInfo(lcPlugin).noquote()
                    << QStringLiteral("plugin directory %1 has no .so files").arg(directory);
            for (const QString &file : files) {
                m_plugins.push_back(std::make_unique<PluginSpec>(dir.filePath(file)));
                m_plugins.back()->read();
            }
            continue;
        }
        qCWarning(lcPlugin).noquote() << m_directoryErrors.constLast().toString();
    }
    refuseDuplicates();
}

void PluginHost::refuseDuplicates()
{
    // Only valid plugins compete for a name: a broken copy already says what is wrong with it.
    QMap<QString, QList<PluginSpec *>> byName;
    for (const auto &p : m_plugins) {
        if (p->state() == PluginState::Discovered)
            byName[p->name()] << p.get();
    }
    for (auto it = byName.cbegin(); it != byName.cend(); ++it) {
        if (it->size() < 2)
            continue;
        for (PluginSpec *p : *it) {
            QStringList others;
            for (PluginSpec *o : *it) {
                if (o != p)
                    others << o->filePath();
            }
            p->fail(PluginError::Kind::DuplicateName,
                QStringLiteral("duplicate controller name \"%1\": also provided by %2")
                    .arg(it.key(), others.join(QStringLiteral(", "))));
        }
    }
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
