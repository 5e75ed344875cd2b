// SPDX-License-Identifier: Apache-2.0
// FileTokenSource: a bearer token kept in a file that something else rotates (a kubeconfig's
// tokenFile, or the kubelet's projected service-account token).
//
// token() re-reads the file when it has changed on disk or when `period` has passed since
// the last read (client-go re-reads such files every minute). If a re-read fails after a
// good read, the last token is kept and the error is returned only while there is none.
//
// Thread safety: token() is safe from any thread.
#pragma once

#include <qcm/clock.h>
#include <qcm/result.h>

#include <QtCore/QDateTime>

#include <mutex>

namespace qcm::client {

class QCM_SDK_EXPORT FileTokenSource
{
public:
    explicit FileTokenSource(
        QString path, Duration period = std::chrono::minutes(1), Clock *clock = nullptr);

    Result<QString> token();
    const QString &path() const { return m_path; }

private:
    const QString m_path;
    const Duration m_period;
    Clock *const m_clock;
    std::mutex m_mutex;
    QString m_token; // guarded by m_mutex
    QDateTime m_modified; // guarded by m_mutex
    TimePoint m_readAt {}; // guarded by m_mutex
    TimePoint m_checkedAt {}; // guarded by m_mutex
    bool m_haveToken = false; // guarded by m_mutex
};

} // namespace qcm::client
