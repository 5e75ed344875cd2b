// SPDX-License-Identifier: Apache-2.0
#include "serving/healthchecks.h"

#include <QtCore/QLoggingCategory>
#include <QtCore/QSet>

namespace qcm::host {

namespace {

Q_LOGGING_CATEGORY(lcHealth, "qcm.health")

QString quotedList(const QStringList &names)
{
    QStringList quoted;
    for (const QString &n : names)
        quoted << QLatin1Char('"') + n + QLatin1Char('"');
    return quoted.join(QLatin1Char(','));
}

} // namespace

HealthChecks::HealthChecks(QString endpoint, std::function<QList<HealthCheck>()> checks)
    : m_endpoint(std::move(endpoint)), m_checks(std::move(checks))
{ }

HealthResponse HealthChecks::respond(const QString &subpath, const QUrlQuery &query) const
{
    if (subpath.isEmpty())
        return root(query);
    for (const HealthCheck &c : m_checks()) {
        if (c.name != subpath)
            continue;
        if (const std::optional<QString> failure = c.check())
            return {500, QStringLiteral("internal server error: %1\n").arg(*failure).toUtf8()};
        return {200, QByteArrayLiteral("ok")};
    }
    return {404, QByteArrayLiteral("404 page not found\n")};
}

HealthResponse HealthChecks::root(const QUrlQuery &query) const
{
    QStringList excludedList = query.allQueryItemValues(QStringLiteral("exclude"));
    QSet<QString> excluded(excludedList.begin(), excludedList.end());
    QString lines;
    QString failedDetail;
    QStringList failed;
    for (const HealthCheck &c : m_checks()) {
        if (excluded.remove(c.name)) {
            lines += QStringLiteral("[+]%1 excluded: ok\n").arg(c.name);
            continue;
        }
        if (const std::optional<QString> failure = c.check()) {
            // The root is public: the reason goes to the log, not to the caller.
            lines += QStringLiteral("[-]%1 failed: reason withheld\n").arg(c.name);
            failedDetail += QStringLiteral("[-]%1 failed: %2\n").arg(c.name, *failure);
            failed << c.name;
        } else {
            lines += QStringLiteral("[+]%1 ok\n").arg(c.name);
        }
    }
    if (!excluded.isEmpty()) {
        QStringList unknown(excluded.begin(), excluded.end());
        unknown.sort();
        lines += QStringLiteral("warn: some health checks cannot be excluded: no matches for %1\n")
                     .arg(quotedList(unknown));
    }
    if (!failed.isEmpty()) {
        qCDebug(lcHealth).noquote()
            << QStringLiteral("%1 check failed: %2\n%3")
                   .arg(failed.join(QLatin1Char(',')), m_endpoint, failedDetail);
        return {500, (lines + m_endpoint + QStringLiteral(" check failed\n")).toUtf8()};
    }
    if (!query.hasQueryItem(QStringLiteral("verbose")))
        return {200, QByteArrayLiteral("ok")};
    return {200, (lines + m_endpoint + QStringLiteral(" check passed\n")).toUtf8()};
}

HealthCheck pingCheck()
{
    return {QStringLiteral("ping"), [] { return std::optional<QString>(); }};
}

} // namespace qcm::host
