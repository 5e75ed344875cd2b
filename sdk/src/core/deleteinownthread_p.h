// SPDX-License-Identifier: Apache-2.0
// deleteInOwnThread: the deleter of a shared_ptr to a QObject that lives in another thread.
//
// While the object's thread runs, deleteLater() deletes it there, after the events already
// queued for it. Once that thread has finished, no event loop is left to do so and nothing
// else can touch the object, so it is deleted at once.
#pragma once

#include <QtCore/QObject>
#include <QtCore/QThread>

namespace qcm::detail {

inline void deleteInOwnThread(QObject *object)
{
    if (object->thread() && object->thread()->isRunning())
        object->deleteLater();
    else
        delete object;
}

} // namespace qcm::detail
