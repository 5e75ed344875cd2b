// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/controllerscope.h>
#include <qcm/sharding/placement.h>

#include <QtCore/QLoggingCategory>
#include <QtCore/QPointer>

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
        enum class Candidate { None, Registered, Withdrawing } candidate = Candidate::None;
    };
    std::function<LeaderElectionConfig(const QString &controller)> electorFor;
    std::function<void(const QString &)> registerCandidate;
    std::function<void(const QString &, std::function<void()>)> withdrawCandidate;
    std::map<QString, Entry> entries; // by controller, sorted; one per name ever placed
    QStringList controllers; // the ones placed now, sorted
    QStringList members;
    QString me;
    QStringList placed;
    bool stopping = false;
    bool finishedEmitted = false;
    bool reconsidering = false;
    bool again = false; // an elector's signal asked for reconsider() while it ran
};

Result<std::unique_ptr<ControllerScope>> ControllerScope::create(Config config, QObject *parent)
{
    std::unique_ptr<ControllerScope> scope(new ControllerScope(parent));
    scope->d->electorFor = std::move(config.electorFor);
    if (bool(config.registerCandidate) != bool(config.withdrawCandidate))
        return Error {QStringLiteral("controller scope"), QStringLiteral("candidates"),
            QStringLiteral("registerCandidate and withdrawCandidate go together")};
    scope->d->registerCandidate = std::move(config.registerCandidate);
    scope->d->withdrawCandidate = std::move(config.withdrawCandidate);
    if (std::optional<Error> error = scope->setControllers(config.controllers))
        return *error;
    return scope;
}

std::optional<Error> ControllerScope::addElector(const QString &controller)
{
    LeaderElectionConfig electorConfig = d->electorFor(controller);
    electorConfig.mode = LeaderElectionConfig::Mode::Rejoin;
    electorConfig.releaseOnCancel = true;
    electorConfig.coordinated = bool(d->registerCandidate);
    auto elector = LeaderElector::create(std::move(electorConfig));
    if (!elector)
        return Error {QStringLiteral("controller scope"), controller, elector.error().reason};
    LeaderElector *e = elector->get();
    connect(e, &LeaderElector::startedLeading, this, [this, controller](const LeaderToken &token) {
        d->entries[controller].leading = true;
        emit controllerStarted(controller, token);
    });
    connect(e, &LeaderElector::stoppedLeading, this, [this, controller] {
        Private::Entry &entry = d->entries[controller];
        if (!entry.leading)
            return; // a candidate that stopped (client-go calls it even then)
        entry.leading = false;
        emit controllerStopped(controller);
    });
    // A release that finished: the elector may run again (a run() during it is refused).
    connect(e, &LeaderElector::finished, this, [this] { reconsider(); });
    d->entries[controller].elector = std::move(*elector);
    return std::nullopt;
}

ControllerScope::ControllerScope(QObject *parent) : QObject(parent), d(std::make_unique<Private>())
{ }

ControllerScope::~ControllerScope()
{
    for (auto &[controller, entry] : d->entries)
        entry.elector->disconnect(this);
}

std::optional<Error> ControllerScope::setControllers(const QStringList &controllers)
{
    std::optional<Error> refused;
    d->controllers.clear();
    for (const QString &controller : controllers) {
        if (d->entries.find(controller) == d->entries.end())
            if (std::optional<Error> error = addElector(controller)) {
                refused = refused ? refused : error;
                continue;
            }
        d->controllers << controller;
    }
    d->controllers.sort();
    d->controllers.removeDuplicates();
    setMembers(d->members, d->me);
    return refused;
}

QStringList ControllerScope::controllers() const
{
    return d->controllers;
}

void ControllerScope::setMembers(const QStringList &members, const QString &me)
{
    d->members = members;
    d->me = me;
    const QStringList placed = members.contains(me)
        ? assignControllers(members, d->controllers).value(me)
        : QStringList();
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
    d->controllers.clear();
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
    using Candidate = Private::Entry::Candidate;
    bool running = false;
    for (auto &[controller, entry] : d->entries) {
        LeaderElector &elector = *entry.elector;
        const bool wanted = !d->stopping && d->placed.contains(controller);
        if (d->registerCandidate) {
            if (entry.candidate == Candidate::Withdrawing) {
                running = true; // its `done` brings us back
                continue;
            }
            if (wanted && entry.candidate == Candidate::None) {
                entry.candidate = Candidate::Registered;
                d->registerCandidate(controller);
            } else if (!wanted && entry.candidate == Candidate::Registered) {
                entry.candidate = Candidate::Withdrawing;
                running = true;
                QPointer<ControllerScope> self(this);
                // A copy: C++17 lambdas cannot capture a structured binding (GCC allows it,
                // clang does not).
                d->withdrawCandidate(controller, [self, controller = QString(controller)] {
                    if (!self)
                        return;
                    self->d->entries[controller].candidate = Candidate::None;
                    self->reconsider();
                });
                continue; // the elector stops once the candidate is gone
            }
        }
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
