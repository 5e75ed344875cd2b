// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/controllerscope.h>
#include <qcm/sharding/placement.h>

#include <QtCore/QLoggingCategory>

#include <map>

namespace qcm::sharding {

using namespace qcm::leaderelection;

namespace {
Q_LOGGING_CATEGORY(lcControllerScope, "qcm.sharding.controllerscope")
} // namespace

struct ControllerScope::Private
{
    struct Entry
    {
        std::unique_ptr<LeaderElector> elector;
        bool leading = false;
    };
    std::map<QString, Entry> entries; // by controller, sorted
    QStringList placed;
    bool stopping = false;
    bool finishedEmitted = false;
    bool reconsidering = false;
    bool again = false; // an elector's signal asked for reconsider() while it ran
};

Result<std::unique_ptr<ControllerScope>> ControllerScope::create(Config config, QObject *parent)
{
    std::unique_ptr<ControllerScope> scope(new ControllerScope(parent));
    ControllerScope *self = scope.get();
    for (const QString &controller : config.controllers) {
        LeaderElectionConfig electorConfig = config.electorFor(controller);
        electorConfig.mode = LeaderElectionConfig::Mode::Rejoin;
        electorConfig.releaseOnCancel = true;
        auto elector = LeaderElector::create(std::move(electorConfig));
        if (!elector)
            return Error {QStringLiteral("controller scope"), controller, elector.error().reason};
        LeaderElector *e = elector->get();
        connect(
            e, &LeaderElector::startedLeading, self, [self, controller](const LeaderToken &token) {
                self->d->entries[controller].leading = true;
                emit self->controllerStarted(controller, token);
            });
        connect(e, &LeaderElector::stoppedLeading, self, [self, controller] {
            Private::Entry &entry = self->d->entries[controller];
            if (!entry.leading)
                return; // a candidate that stopped (client-go calls it even then)
            entry.leading = false;
            emit self->controllerStopped(controller);
        });
        // A release that finished: the elector may run again (a run() during it is refused).
        connect(e, &LeaderElector::finished, self, [self] { self->reconsider(); });
        self->d->entries[controller].elector = std::move(*elector);
    }
    return scope;
}

ControllerScope::ControllerScope(QObject *parent) : QObject(parent), d(std::make_unique<Private>())
{ }

ControllerScope::~ControllerScope()
{
    for (auto &[controller, entry] : d->entries)
        entry.elector->disconnect(this);
}

void ControllerScope::setMembers(const QStringList &members, const QString &me)
{
    QStringList controllers;
    for (const auto &[controller, entry] : d->entries)
        controllers << controller;
    const QStringList placed
        = members.contains(me) ? assignControllers(members, controllers).value(me) : QStringList();
    if (placed != d->placed)
        qCInfo(lcControllerScope).noquote()
            << QStringLiteral("%1 of %2 members: placed here %3")
                   .arg(me)
                   .arg(members.size())
                   .arg(placed.isEmpty() ? QStringLiteral("none") : placed.join(u", "));
    d->placed = placed;
    reconsider();
}

QStringList ControllerScope::placed() const
{
    return d->placed;
}

QStringList ControllerScope::held() const
{
    QStringList out;
    for (const auto &[controller, entry] : d->entries)
        if (entry.leading)
            out << controller;
    return out;
}

void ControllerScope::stop()
{
    d->stopping = true;
    d->placed.clear();
    reconsider();
}

void ControllerScope::reconsider()
{
    if (d->reconsidering) {
        d->again = true;
        return;
    }
    d->reconsidering = true;
    d->again = false;
    bool running = false;
    for (auto &[controller, entry] : d->entries) {
        LeaderElector &elector = *entry.elector;
        const bool wanted = !d->stopping && d->placed.contains(controller);
        if (wanted && !elector.isRunning())
            elector.run(); // refused while a release is finishing: finished() brings us back
        else if (!wanted && elector.isRunning())
            elector.stop();
        running = running || elector.isRunning();
    }
    d->reconsidering = false;
    if (d->again) {
        reconsider();
        return;
    }
    if (d->stopping && !running && !d->finishedEmitted) {
        d->finishedEmitted = true;
        emit finished();
    }
}

} // namespace qcm::sharding
