// SPDX-License-Identifier: Apache-2.0
// ControllerScope: one member's side of the scope `controller` (docs/scale-out.md, "Whole
// controllers"): a LeaderElector per controller, each on a Lease of its own, so that each
// controller runs on one member at a time, and the placement of the epoch's members.
//
// setMembers(members, me) gives the identities of the epoch's members and this member's.
// Every member computes the same placement from them (assignControllers(), placement.h), and
// campaigns only for the controllers placed on it: their electors run, the others' do not.
// A controller placed elsewhere that this member holds is handed back: stopping its elector
// ends its term (controllerStopped(), whose slots stop the controller and let its
// reconciles finish) and releases its Lease (releaseOnCancel), so that the member it is
// placed on takes it at once; a crashed holder's Lease is taken once it expires. A
// controller runs only while its term's token is valid (controllerStarted()), so the leader
// term's argument holds per Lease, whatever the members believe. No epoch yet, or this member
// not in it: it campaigns for none. setControllers() changes which controllers are placed (a
// controller enabled or disabled while running): a controller taken out is handed back as
// above; its elector is kept, idle, for when it comes back.
//
// Coordinated election (KEP-4355; docs/scale-out.md, "Coordinated election of controller
// Leases"), when Config::registerCandidate and withdrawCandidate are set (the electors then
// coordinated): a controller placed here has its candidate registered before its elector runs,
// and the API server's election controller writes the holder. A controller placed elsewhere
// has its candidate withdrawn first, and only once that is over is its elector stopped (its
// term ends, its Lease is released): a candidate still registered could be elected again, as
// the oldest, by the Lease its member has just released.
//
// Thread safety: the thread of its electors, with an event loop.
#pragma once

#include <qcm/leaderelection/leaderelector.h>
#include <qcm/result.h>

#include <QtCore/QObject>
#include <QtCore/QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace qcm::sharding {

class QCM_SDK_EXPORT ControllerScope : public QObject
{
    Q_OBJECT

public:
    struct Config
    {
        QStringList controllers; // names
        // One controller's elector: its own lock (a Lease "<group>-<controller>"), identity,
        // timings and name. mode (rejoin) and releaseOnCancel (true) are set here.
        std::function<leaderelection::LeaderElectionConfig(const QString &controller)> electorFor;
        // Coordinated election: both or neither. withdrawCandidate calls `done` once the
        // candidate is gone or its withdrawal failed; it may call it at once.
        std::function<void(const QString &controller)> registerCandidate;
        std::function<void(const QString &controller, std::function<void()> done)>
            withdrawCandidate;
    };

    // An error names the controller whose elector's configuration is refused.
    static Result<std::unique_ptr<ControllerScope>> create(
        Config config, QObject *parent = nullptr);
    ~ControllerScope() override;

    void setMembers(const QStringList &members, const QString &me);
    // The controllers to place from now on; an error names one whose elector's configuration
    // is refused (the others are placed).
    std::optional<Error> setControllers(const QStringList &controllers);
    QStringList controllers() const; // sorted
    // Hands every controller back (controllerStopped(), then the release of its Lease);
    // finished() once every elector has finished.
    void stop();

    QStringList placed() const; // the controllers placed on this member, sorted
    QStringList held() const; // the controllers whose term this member holds now, sorted

signals:
    void controllerStarted(
        const QString &controller, const qcm::leaderelection::LeaderToken &token);
    void controllerStopped(const QString &controller);
    void finished();

private:
    explicit ControllerScope(QObject *parent);
    void reconsider();
    std::optional<Error> addElector(const QString &controller);

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::sharding
