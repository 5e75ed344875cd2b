// SPDX-License-Identifier: Apache-2.0
// awaitFuture: runs this thread's event loop until a QFuture is finished (its continuations
// run here), for at most 10 s; the result, or `fallback` if it never came.
#pragma once

#include <QtCore/QEventLoop>
#include <QtCore/QFuture>
#include <QtCore/QFutureWatcher>
#include <QtCore/QTimer>

namespace qcm::host::testing {

template<typename T>
T awaitFuture(QFuture<T> future, T fallback = T {})
{
    if (!future.isFinished()) {
        QEventLoop loop;
        QFutureWatcher<T> watcher;
        QObject::connect(&watcher, &QFutureWatcher<T>::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(10000, &loop, &QEventLoop::quit);
        watcher.setFuture(future);
        if (!future.isFinished())
            loop.exec();
    }
    if (!future.isFinished() || future.isCanceled() || future.resultCount() == 0)
        return fallback;
    return future.result();
}

} // namespace qcm::host::testing
