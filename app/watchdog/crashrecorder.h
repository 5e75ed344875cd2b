// SPDX-License-Identifier: Apache-2.0
// CrashRecorder: when the process dies of a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT) while a controller's plugin code runs on the crashing thread
// (qcm/detail/activitytracker.h), writes a crash record naming that controller into
// <stateDir>/crashes/, then lets the signal take its default course (the process dies as it
// would have, with its core dump if any). crashrecords.h reads the records at the next start.
//
// The handler uses async-signal-safe calls only: time(), getpid(), open(), write(), fsync(),
// close(), raise(); the directory's path and the controller's name are plain char arrays,
// prepared beforehand. A record is one file, <controller>.<unix seconds>.<pid>, mode 0600,
// holding "controller <name>\nsignal <n>\ntime <unix seconds>\npid <pid>\n". A crash while no
// plugin code runs writes nothing: it is the host's, not a plugin's.
//
// Known limits: a stack overflow on a worker thread has no alternate stack to run the handler
// on, and dies without a record (the main thread has one).
//
// Thread safety: install() once, on the main thread, before plugin code runs.
#pragma once

#include <qcm/result.h>

namespace qcm::host {

namespace CrashRecorder {

// Creates <stateDir>/crashes (0700) and installs the handlers. An Error names --state-dir.
std::optional<Error> install(const QString &stateDir);

// The directory of the records under `stateDir`.
QString recordsDir(const QString &stateDir);

} // namespace CrashRecorder

} // namespace qcm::host
