// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/filetokensource.h>
#include <qcm/detail/readatmost.h>

#include <QtCore/QFile>
#include <QtCore/QFileInfo>

namespace qcm::client {

namespace {
// How often token() looks at the file's modification time at most.
constexpr Duration StatInterval = std::chrono::seconds(1);
} // namespace

FileTokenSource::FileTokenSource(QString path, Duration period, Clock *clock)
    : m_path(std::move(path)), m_period(period), m_clock(clock ? clock : Clock::system())
{ }

Result<QString> FileTokenSource::token()
{
    std::lock_guard lock(m_mutex);
    const TimePoint now = m_clock->now();
    bool reread = !m_haveToken || now - m_readAt >= m_period;
    if (!reread && now - m_checkedAt >= StatInterval) {
        m_checkedAt = now;
        reread = QFileInfo(m_path).lastModified() != m_modified;
    }
    if (!reread)
        return m_token;
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (m_haveToken)
            return m_token; // keep the last good token, as client-go does
        return Error {
            m_path, {}, QStringLiteral("cannot read the token file: %1").arg(file.errorString())};
    }
    const Result<QByteArray> contents
        = detail::readAtMost(file, detail::inputLimits().tokenFileBytes,
            QStringLiteral("the token file"), QStringLiteral("limits.tokenFileBytes"));
    if (!contents) {
        if (m_haveToken)
            return m_token;
        return contents.error();
    }
    const QString token = QString::fromUtf8(*contents).trimmed();
    if (token.isEmpty()) {
        if (m_haveToken)
            return m_token;
        return Error {m_path, {}, QStringLiteral("the token file is empty")};
    }
    m_token = token;
    m_haveToken = true;
    m_modified = QFileInfo(m_path).lastModified();
    m_readAt = now;
    m_checkedAt = now;
    return m_token;
}

} // namespace qcm::client
