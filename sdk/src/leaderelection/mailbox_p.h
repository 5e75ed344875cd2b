// SPDX-License-Identifier: Apache-2.0
// Mailbox: hands work to one QObject's thread, from any thread, and drops it once the object
// is gone.
//
// QFuture::then(context, …) in Qt 6.4 may run the continuation synchronously (when the future
// is already finished on the context's thread) and does not survive the context's
// destruction. The elector wants neither: every result and every timer reaches it as a queued
// call through its event loop, never inside the call that started the work, and never after
// it was destroyed. The owner closes the mailbox first thing in its destructor; posted calls
// still queued die with the object (~QObject removes its posted events).
//
// Thread safety: post() from any thread; close() from the owner's thread.
#pragma once

#include <QtCore/QFuture>
#include <QtCore/QObject>
#include <QtCore/QPromise>

#include <functional>
#include <memory>
#include <mutex>

namespace qcm::leaderelection::detail {

class Mailbox
{
public:
    static std::shared_ptr<Mailbox> create(QObject *owner)
    {
        return std::shared_ptr<Mailbox>(new Mailbox(owner));
    }

    void post(std::function<void()> call)
    {
        std::lock_guard lock(m_mutex);
        if (m_owner)
            QMetaObject::invokeMethod(m_owner, std::move(call), Qt::QueuedConnection);
    }

    void close()
    {
        std::lock_guard lock(m_mutex);
        m_owner = nullptr;
    }

private:
    explicit Mailbox(QObject *owner) : m_owner(owner) { }

    std::mutex m_mutex;
    QObject *m_owner; // guarded by m_mutex; null once closed
};

// Calls `handler(result)` on the mailbox owner's thread once `future` has finished.
template<typename T, typename Handler>
void whenFinished(QFuture<T> future, const std::shared_ptr<Mailbox> &mailbox, Handler handler)
{
    future.then(
        QtFuture::Launch::Sync, [mailbox, handler = std::move(handler)](const T &result) mutable {
            mailbox->post([handler, result]() mutable { handler(result); });
        });
}

// A promise already started, shared by the continuations that will fulfil it.
template<typename T>
std::shared_ptr<QPromise<T>> startedPromise()
{
    auto promise = std::make_shared<QPromise<T>>();
    promise->start();
    return promise;
}

template<typename T>
QFuture<T> fulfil(const std::shared_ptr<QPromise<T>> &promise, T value)
{
    promise->addResult(std::move(value));
    promise->finish();
    return promise->future();
}

} // namespace qcm::leaderelection::detail
