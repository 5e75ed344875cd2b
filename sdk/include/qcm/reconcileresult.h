// SPDX-License-Identifier: Apache-2.0
// ReconcileResult: what one reconcile of a key decided (controller-runtime's reconcile.Result
// plus its error, kube-rs's Action).
//
//   done()             the key is in its desired state: the queue forgets its failures
//   requeueAfter(d)    look again after d (a TTL, a poll): forget, then addAfter(key, d)
//   error(message)     it failed: addRateLimited(key), so retries back off exponentially
//
// The Controller base class turns the value into queue operations, metrics and logs
// (controller.h). A value type, frozen for plugin ABI 1: its layout is part of the contract.
//
// Thread safety: a plain value.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QString>

namespace qcm {

class ReconcileResult
{
public:
    enum class Kind { Done, RequeueAfter, Error };

    static ReconcileResult done() { return ReconcileResult(Kind::Done, Duration::zero(), {}); }
    // A delay <= 0 requeues at once.
    static ReconcileResult requeueAfter(Duration delay)
    {
        return ReconcileResult(Kind::RequeueAfter, delay, {});
    }
    static ReconcileResult error(const QString &message)
    {
        return ReconcileResult(Kind::Error, Duration::zero(), message);
    }

    Kind kind() const { return m_kind; }
    bool isDone() const { return m_kind == Kind::Done; }
    bool isError() const { return m_kind == Kind::Error; }
    // The delay of requeueAfter(); zero otherwise.
    Duration delay() const { return m_delay; }
    // The message of error(); empty otherwise.
    const QString &errorMessage() const { return m_message; }

private:
    ReconcileResult(Kind kind, Duration delay, QString message)
        : m_kind(kind), m_delay(delay), m_message(std::move(message))
    { }

    Kind m_kind;
    Duration m_delay;
    QString m_message;
};

} // namespace qcm
