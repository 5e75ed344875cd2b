// SPDX-License-Identifier: Apache-2.0
// ActivityTracker: which controller's plugin code each thread is running right now, and since
// when, for the host's watchdog (app/watchdog/) and its crash record. The Controller base
// class opens a Scope around every event handler and every reconcile(); the host opens one
// around a plugin's factory. Not for plugins.
//
// Each thread that runs plugin code has one slot, registered on first use and released when
// the thread ends; a Scope writes its slot (the controller, what it does, the key, the start
// on the steady clock) and clears it at the end. A slot's controller name is also kept as a
// fixed, NUL-terminated char array, so that a fatal-signal handler can read it with
// async-signal-safe means only (currentControllerForSignal()).
//
// Thread safety: a Scope is opened and closed on one thread; snapshot() is safe from any
// thread (a mutex per slot, held for a copy); currentControllerForSignal() reads the calling
// thread's slot without locks.
#pragma once

#include <qcm/clock.h>
#include <qcm/global.h>

#include <QtCore/QList>
#include <QtCore/QString>

namespace qcm::detail {

class QCM_SDK_EXPORT ActivityTracker
{
public:
    enum class Kind { Create, Handler, Reconcile };

    struct Activity
    {
        QString controller;
        Kind kind = Kind::Handler;
        QString what; // the handler ("add", "update", "delete") or the reconciled key
        TimePoint since;
        bool onMainThread = false; // the thread of the QCoreApplication
    };

    class QCM_SDK_EXPORT Scope
    {
    public:
        Scope(const QString &controller, Kind kind, const QString &what);
        ~Scope();
        Scope(const Scope &) = delete;
        Scope &operator=(const Scope &) = delete;

    private:
        bool m_nested = false;
    };

    // Every activity in progress, on every thread.
    static QList<Activity> snapshot();

    // The controller whose code the calling thread runs, or nullptr; async-signal-safe.
    static const char *currentControllerForSignal();

    static QString kindName(Kind kind);
};

} // namespace qcm::detail
