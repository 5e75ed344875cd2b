// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/leasecandidate.h>

#include "logging_p.h"
#include "mailbox_p.h"
#include "objectwatch_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QRandomGenerator>
#include <QtCore/QRegularExpression>
#include <QtCore/QTimer>

namespace qcm::leaderelection {

using namespace qcm::client;

namespace {

constexpr auto BaseDelay = std::chrono::milliseconds(5); // client-go's default controller
constexpr auto MaxDelay = std::chrono::seconds(1000); // rate limiter, exponential part

// metav1.MicroTime as the API server writes it: UTC, six fractional digits.
QString microTime(const QDateTime &t)
{
    return t.toUTC().toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'000Z'"));
}

// A MicroTime in microseconds since the epoch; nullopt when absent or unreadable.
std::optional<qint64> micros(const QJsonValue &value)
{
    static const QRegularExpression format(
        QStringLiteral(R"(^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$)"));
    const QRegularExpressionMatch m = format.match(value.toString());
    if (!m.hasMatch())
        return std::nullopt;
    const QDateTime seconds = QDateTime::fromString(m.captured(1), Qt::ISODate);
    if (!seconds.isValid())
        return std::nullopt;
    const QString fraction = (m.captured(2) + QStringLiteral("000000")).left(6);
    QDateTime utc = seconds;
    utc.setTimeSpec(Qt::UTC);
    return utc.toSecsSinceEpoch() * 1000000 + fraction.toLongLong();
}

const QRegularExpression &semver()
{
    static const QRegularExpression pattern(QStringLiteral(
        R"(^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$)"));
    return pattern;
}

std::optional<QString> checkVersion(const QString &field, const QString &version)
{
    if (!semver().match(version).hasMatch())
        return QStringLiteral("%1: \"%2\" is not a semantic version without a leading v "
                              "(\"1.36.0\")")
            .arg(field, version);
    return std::nullopt;
}

} // namespace

struct LeaseCandidate::Private
{
    Config config;
    std::shared_ptr<detail::Mailbox> mailbox;
    bool running = false;
    bool inFlight = false;
    bool pending = false; // a ping or the timer came while a write was in flight
    bool withdrawing = false; // withdraw(): the delete follows the write in flight
    int failures = 0;
    int recreations = 0; // in a row, for a twin of the same second (sameSecondTwin)
    bool recreating = false; // deleted for a twin; the timer creates it again
    QDateTime renewTime;
    QTimer timer; // the next renewal, or the retry of a failed write
    std::unique_ptr<detail::ObjectWatch> watch; // while running

    QString path() const
    {
        return LeaseCandidates.collectionPath(config.namespaceName) + QLatin1Char('/')
            + config.name;
    }
};

Result<std::unique_ptr<LeaseCandidate>> LeaseCandidate::create(Config config, QObject *parent)
{
    const auto fail = [](const QString &field, const QString &why) {
        return Error {QStringLiteral("leasecandidate"), field, why};
    };
    if (!config.client)
        return fail(QStringLiteral("client"), QStringLiteral("a RestClient is needed"));
    static const QRegularExpression name(QStringLiteral(R"(^[-._a-zA-Z0-9]{1,253}$)"));
    if (!name.match(config.name).hasMatch())
        return fail(QStringLiteral("name"),
            QStringLiteral("\"%1\" is not 1 to 253 letters, digits, '-', '_' or '.' (the "
                           "API server's rule for LeaseCandidate names)")
                .arg(config.name));
    if (config.namespaceName.isEmpty() || config.leaseName.isEmpty())
        return fail(QStringLiteral("namespaceName, leaseName"), QStringLiteral("both are needed"));
    for (const auto &[field, version] :
        {std::pair {QStringLiteral("binaryVersion"), config.binaryVersion},
            std::pair {QStringLiteral("emulationVersion"), config.emulationVersion}}) {
        if (const std::optional<QString> error = checkVersion(field, version))
            return fail(field, *error);
    }
    const auto numbers = [](const QString &version) {
        QList<int> parts;
        for (const QString &part : version.section(QLatin1Char('-'), 0, 0)
                                       .section(QLatin1Char('+'), 0, 0)
                                       .split(QLatin1Char('.')))
            parts << part.toInt();
        return parts;
    };
    if (numbers(config.emulationVersion) > numbers(config.binaryVersion))
        return fail(QStringLiteral("emulationVersion"),
            QStringLiteral("%1 is newer than the binary version %2 (the API server refuses it)")
                .arg(config.emulationVersion, config.binaryVersion));
    if (config.renewInterval < std::chrono::seconds(1))
        return fail(QStringLiteral("renewInterval"), QStringLiteral("at least 1 s"));
    return std::unique_ptr<LeaseCandidate>(new LeaseCandidate(std::move(config), parent));
}

LeaseCandidate::LeaseCandidate(Config config, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>())
{
    d->config = std::move(config);
    d->mailbox = detail::Mailbox::create(this);
    d->timer.setSingleShot(true);
    connect(&d->timer, &QTimer::timeout, this, &LeaseCandidate::ensure);
}

LeaseCandidate::~LeaseCandidate()
{
    d->mailbox->close();
}

void LeaseCandidate::start()
{
    if (d->running)
        return;
    d->running = true;
    d->recreations = 0;
    d->watch = std::make_unique<detail::ObjectWatch>(
        d->config.client, LeaseCandidates, d->config.namespaceName, d->config.name,
        [this](const WatchEvent &event) {
            if ((event.type == WatchEvent::Type::Added || event.type == WatchEvent::Type::Modified)
                && pingPending(event.object.json().value(QLatin1String("spec")).toObject()))
                ensure(); // the server asks: answer at once
        },
        this);
    ensure();
}

void LeaseCandidate::stop()
{
    d->running = false;
    d->timer.stop();
    d->watch.reset();
}

void LeaseCandidate::withdraw()
{
    stop();
    d->withdrawing = true;
    if (!d->inFlight)
        sendDelete(); // else once the write in flight is over
}

void LeaseCandidate::sendDelete()
{
    d->inFlight = true;
    detail::whenFinished(d->config.client->requestAsync("DELETE", d->path()), d->mailbox,
        [this](const Response &response) {
            d->inFlight = false;
            d->withdrawing = false;
            QString error;
            if (response.code != 404)
                if (const ObjectResult result = RestClient::decodeObject(response); !result)
                    error = result.error().toString();
            if (!error.isEmpty())
                qCWarning(lcLeaderElection).noquote()
                    << QStringLiteral("cannot delete lease candidate %1/%2 (%3): the server "
                                      "collects it once it is 30 min old")
                           .arg(d->config.namespaceName, d->config.name, error);
            emit withdrawn(error);
        });
}

void LeaseCandidate::setRenewInterval(Duration interval)
{
    const Duration before = std::exchange(d->config.renewInterval, interval);
    if (d->running && !d->inFlight && d->failures == 0 && interval < before && d->timer.isActive())
        ensure(); // the timer waits for the longer interval
}

QDateTime LeaseCandidate::renewTime() const
{
    return d->renewTime;
}

bool LeaseCandidate::pingPending(const QJsonObject &spec)
{
    const std::optional<qint64> ping = micros(spec.value(QLatin1String("pingTime")));
    const std::optional<qint64> renew = micros(spec.value(QLatin1String("renewTime")));
    return ping && (!renew || *ping > *renew);
}

std::optional<int> LeaseCandidate::compareVersions(const QString &a, const QString &b)
{
    const QRegularExpressionMatch x = semver().match(a);
    const QRegularExpressionMatch y = semver().match(b);
    if (!x.hasMatch() || !y.hasMatch())
        return std::nullopt;
    for (int i = 1; i <= 3; ++i)
        if (const int c = x.captured(i).toInt() - y.captured(i).toInt(); c != 0)
            return c < 0 ? -1 : 1;
    const QStringList p = x.captured(4).split(QLatin1Char('.'), Qt::SkipEmptyParts);
    const QStringList q = y.captured(4).split(QLatin1Char('.'), Qt::SkipEmptyParts);
    if (p.isEmpty() || q.isEmpty()) // a pre-release is older than its release
        return p.isEmpty() == q.isEmpty() ? 0 : (p.isEmpty() ? 1 : -1);
    for (qsizetype i = 0; i < std::min(p.size(), q.size()); ++i) {
        bool pn = false, qn = false;
        const qulonglong pv = p[i].toULongLong(&pn), qv = q[i].toULongLong(&qn);
        int c = 0;
        if (pn && qn)
            c = pv < qv ? -1 : (pv > qv ? 1 : 0);
        else if (pn != qn) // numeric identifiers are older than alphanumeric ones
            c = pn ? -1 : 1;
        else
            c = p[i].compare(q[i]);
        if (c != 0)
            return c < 0 ? -1 : 1;
    }
    return p.size() == q.size() ? 0 : (p.size() < q.size() ? -1 : 1);
}

// client-go's ensureLease: create the candidate when it is missing, else renew it.
void LeaseCandidate::ensure()
{
    if (!d->running)
        return;
    if (d->inFlight) {
        d->pending = true;
        return;
    }
    // Deleted for a twin: only the timer creates it again, not a ping of the deleted object or
    // a shorter renewal interval, which could land in the twin's second once more.
    if (d->recreating && d->timer.isActive())
        return;
    d->recreating = false;
    d->inFlight = true;
    d->pending = false;
    detail::whenFinished(d->config.client->requestAsync("GET", d->path()), d->mailbox,
        [this](const Response &response) {
            if (!d->running) { // stopped meanwhile: write nothing
                written(false, {});
                return;
            }
            const QDateTime now = QDateTime::currentDateTimeUtc();
            ObjectResult read = RestClient::decodeObject(response);
            QByteArray verb = "PUT";
            QString path = d->path();
            Object candidate;
            if (read) {
                candidate = *read;
                QJsonObject spec = candidate.json().value(QLatin1String("spec")).toObject();
                spec.insert(QStringLiteral("renewTime"), microTime(now));
                candidate.json().insert(QStringLiteral("spec"), spec);
            } else if (read.error().isNotFound()) {
                verb = "POST";
                path = LeaseCandidates.collectionPath(d->config.namespaceName);
                candidate.setApiVersion(QStringLiteral("coordination.k8s.io/v1beta1"));
                candidate.setKind(QStringLiteral("LeaseCandidate"));
                candidate.setNamespaceName(d->config.namespaceName);
                candidate.setName(d->config.name);
                candidate.json().insert(QStringLiteral("spec"),
                    QJsonObject {
                        {QStringLiteral("leaseName"), d->config.leaseName},
                        {QStringLiteral("binaryVersion"), d->config.binaryVersion},
                        {QStringLiteral("emulationVersion"), d->config.emulationVersion},
                        {QStringLiteral("strategy"), d->config.strategy},
                        {QStringLiteral("renewTime"), microTime(now)},
                    });
            } else {
                written(false, QStringLiteral("get: ") + read.error().toString());
                return;
            }
            const QByteArray body = QJsonDocument(candidate.json()).toJson(QJsonDocument::Compact);
            detail::whenFinished(
                d->config.client->requestAsync(verb, path, {}, body, "application/json"),
                d->mailbox, [this, verb, now](const Response &reply) {
                    const ObjectResult result = RestClient::decodeObject(reply);
                    if (!result) {
                        written(false,
                            QString::fromLatin1(verb.toLower()) + QStringLiteral(": ")
                                + result.error().toString());
                        return;
                    }
                    if (verb == "POST") {
                        checkForTwin(*result, now);
                        return;
                    }
                    d->renewTime = now;
                    written(true, {});
                });
        });
}

QString LeaseCandidate::sameSecondTwin(const Object &mine, const QList<Object> &others)
{
    const auto spec
        = [](const Object &o) { return o.json().value(QLatin1String("spec")).toObject(); };
    const auto field
        = [](const QJsonObject &s, QLatin1String name) { return s.value(name).toString(); };
    const QJsonObject my = spec(mine);
    const QDateTime created = mine.creationTimestamp();
    if (!created.isValid())
        return {};
    for (const Object &other : others) {
        const QJsonObject their = spec(other);
        if (other.name() == mine.name()
            || field(their, QLatin1String("leaseName")) != field(my, QLatin1String("leaseName"))
            || compareVersions(field(their, QLatin1String("emulationVersion")),
                   field(my, QLatin1String("emulationVersion")))
                != 0
            || compareVersions(field(their, QLatin1String("binaryVersion")),
                   field(my, QLatin1String("binaryVersion")))
                != 0)
            continue;
        const QDateTime theirs = other.creationTimestamp();
        if (theirs.isValid() && theirs.toSecsSinceEpoch() == created.toSecsSinceEpoch())
            return other.name();
    }
    return {};
}

// After a create: lists the namespace's candidates, and creates this one again in a later
// second when the list holds a twin of the same second (the header says why).
void LeaseCandidate::checkForTwin(const Object &created, const QDateTime &renewTime)
{
    detail::whenFinished(d->config.client->listAsync(LeaseCandidates, d->config.namespaceName),
        d->mailbox, [this, created, renewTime](const ListResult &list) {
            d->renewTime = renewTime; // the object stands, at least until a delete below
            if (!list)
                qCWarning(lcLeaderElection).noquote()
                    << QStringLiteral("cannot list lease candidates in %1 to check %2 for a twin "
                                      "of the same second (%3)")
                           .arg(d->config.namespaceName, d->config.name, list.error().toString());
            const QString twin = list ? sameSecondTwin(created, list->items) : QString();
            if (!d->running || d->withdrawing) {
                written(true, {}); // which deletes it when withdrawing
                return;
            }
            if (twin.isEmpty() || d->recreations >= MaxRecreations) {
                if (!twin.isEmpty())
                    qCWarning(lcLeaderElection).noquote()
                        << QStringLiteral("lease candidate %1/%2 was created in the same second "
                                          "as %3 with the same versions %4 times in a row; the "
                                          "election controller may move the Lease between them")
                               .arg(d->config.namespaceName, d->config.name, twin)
                               .arg(d->recreations + 1);
                else if (list)
                    d->recreations = 0;
                written(true, {});
                return;
            }
            ++d->recreations;
            const auto delay
                = std::chrono::milliseconds(QRandomGenerator::global()->bounded(1100, 4100));
            qCInfo(lcLeaderElection).noquote()
                << QStringLiteral("lease candidate %1/%2 was created in the same second as %3 "
                                  "with the same versions, which the election controller "
                                  "cannot order; creating it again in %4 ms")
                       .arg(d->config.namespaceName, d->config.name, twin)
                       .arg(delay.count());
            detail::whenFinished(d->config.client->requestAsync("DELETE", d->path()), d->mailbox,
                [this, delay](const Response &response) {
                    if (!requestOver())
                        return;
                    if (response.code != 404)
                        if (const ObjectResult deleted = RestClient::decodeObject(response);
                            !deleted) {
                            // The retry then renews the object as it is, twin and all.
                            written(false,
                                QStringLiteral("delete to create again, so the twin stays: ")
                                    + deleted.error().toString());
                            return;
                        }
                    // A ping meanwhile was for the object deleted; the new one is not pinged.
                    d->pending = false;
                    d->recreating = true;
                    d->timer.start(delay); // ensure() then creates it
                });
        });
}

bool LeaseCandidate::requestOver()
{
    d->inFlight = false;
    if (d->withdrawing) {
        sendDelete();
        return false;
    }
    return d->running;
}

void LeaseCandidate::written(bool ok, const QString &error)
{
    if (!requestOver())
        return;
    if (ok) {
        d->failures = 0;
        emit renewed(d->renewTime);
        d->timer.start(
            std::chrono::duration_cast<std::chrono::milliseconds>(d->config.renewInterval));
    } else {
        const auto delay = std::min<std::chrono::milliseconds>(
            BaseDelay * (qint64(1) << std::min(d->failures, 20)), MaxDelay);
        ++d->failures;
        qCWarning(lcLeaderElection).noquote()
            << QStringLiteral("cannot renew lease candidate %1/%2 (%3); trying again in %4 ms")
                   .arg(d->config.namespaceName, d->config.name, error)
                   .arg(delay.count());
        d->timer.start(delay);
    }
    if (d->pending)
        ensure();
}

} // namespace qcm::leaderelection
