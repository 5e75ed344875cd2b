// SPDX-License-Identifier: Apache-2.0
// FakeLock: an in-memory ResourceLock for the elector's unit tests, standing in for client-go's
// LeaseLock over a fake clientset with reactors.
//
// The "server" keeps one record (or none: NotFound) and a resourceVersion. Like LeaseLock,
// update() needs a successful get() or create() first and fails without an operation
// otherwise, and it conflicts when someone wrote since the version it read. A reactor may
// replace the result of the n-th call; a held call stays pending until the test finishes it.
// Each call advances the fake clock by `latency`, as a real request takes time.
#pragma once

#include <qcm/fakeclock.h>
#include <qcm/leaderelection/resourcelock.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QPromise>
#include <QtCore/QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace qcm::leaderelection::testing {

using client::Status;

// A metav1.Status body, as the apiserver sends with an error.
inline QByteArray apiStatus(int code, const char *reason, const char *message)
{
    const QJsonObject status {{QStringLiteral("kind"), QStringLiteral("Status")},
        {QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("status"), QStringLiteral("Failure")},
        {QStringLiteral("reason"), QString::fromLatin1(reason)}, {QStringLiteral("code"), code},
        {QStringLiteral("message"), QString::fromLatin1(message)}};
    return QJsonDocument(status).toJson(QJsonDocument::Compact);
}

inline Status notFound()
{
    return Status::fromResponse(
        404, apiStatus(404, "NotFound", "leases.coordination.k8s.io bar not found"));
}

inline Status conflict()
{
    return Status::fromResponse(409,
        apiStatus(409, "Conflict",
            "Operation cannot be fulfilled on leases.coordination.k8s.io bar: the object has "
            "been modified"));
}

inline Status alreadyExists()
{
    return Status::fromResponse(
        409, apiStatus(409, "AlreadyExists", "leases.coordination.k8s.io bar already exists"));
}

inline Status canceled()
{
    return Status::transportError(QStringLiteral("Canceled"), QStringLiteral("context canceled"));
}

// The raw form of a record, as LeaseLock computes it.
inline QByteArray rawOf(const LeaderElectionRecord &record)
{
    return QJsonDocument(record.toLeaseSpec()).toJson(QJsonDocument::Compact);
}

inline LeaderElectionRecord holder(const QString &identity, int leaseDurationSeconds = 0)
{
    LeaderElectionRecord r;
    r.holderIdentity = identity;
    r.leaseDurationSeconds = leaseDurationSeconds;
    return r;
}

class FakeLock : public ResourceLock
{
public:
    explicit FakeLock(QString identity = QStringLiteral("baz"), FakeClock *clock = nullptr)
        : m_identity(std::move(identity)), m_clock(clock)
    { }

    // The server side.
    std::optional<LeaderElectionRecord> stored;
    int resourceVersion = 1;
    std::chrono::nanoseconds latency = std::chrono::milliseconds(1);

    // What happened.
    QStringList ops; // "get", "create", "update", as the fake clientset's actions
    QStringList events;
    int gets = 0;
    int creates = 0;
    int updates = 0;

    // Reactors: an answer for the n-th call of a kind instead of the store's.
    std::function<std::optional<GetResult>(int n)> onGet;
    std::function<std::optional<WriteResult>(int n, const LeaderElectionRecord &)> onCreate;
    std::function<std::optional<WriteResult>(int n, const LeaderElectionRecord &)> onUpdate;
    // Calls to hold: the test finishes them later with finishHeldGet() / finishHeldUpdate().
    std::function<bool(int n)> holdGet;
    std::function<bool(int n)> holdUpdate;
    std::shared_ptr<QPromise<GetResult>> heldGet;
    std::shared_ptr<QPromise<WriteResult>> heldUpdate;

    QFuture<GetResult> get() override
    {
        ops << QStringLiteral("get");
        const int n = ++gets;
        tick();
        std::optional<GetResult> result = onGet ? onGet(n) : std::nullopt;
        if (!result) {
            if (stored)
                result = GetResult(ObservedRecord {*stored, rawOf(*stored)});
            else
                result = GetResult(notFound());
        }
        // A failed get keeps the version read before, as client-go's LeaseLock (and ObjectLock)
        // keep their object, so the next update still carries it.
        if (*result)
            m_readVersion = resourceVersion;
        if (holdGet && holdGet(n))
            return hold(heldGet, *result);
        return ready(*result);
    }

    QFuture<WriteResult> create(const LeaderElectionRecord &record) override
    {
        ops << QStringLiteral("create");
        const int n = ++creates;
        tick();
        std::optional<WriteResult> result = onCreate ? onCreate(n, record) : std::nullopt;
        if (!result) {
            if (stored) {
                result = WriteResult(alreadyExists());
            } else {
                stored = record;
                m_readVersion = ++resourceVersion;
                result = WriteResult();
            }
        }
        return ready(*result);
    }

    QFuture<WriteResult> update(const LeaderElectionRecord &record) override
    {
        if (!m_readVersion) // LeaseLock: "lease not initialized, call get or create first"
            return ready(WriteResult(Status::transportError(QStringLiteral("NotInitialized"),
                QStringLiteral("lease not initialized, call get or create first"))));
        ops << QStringLiteral("update");
        const int n = ++updates;
        tick();
        std::optional<WriteResult> result = onUpdate ? onUpdate(n, record) : std::nullopt;
        if (!result) {
            if (!stored) {
                result = WriteResult(notFound());
            } else if (*m_readVersion != resourceVersion) {
                result = WriteResult(conflict());
            } else {
                stored = record;
                m_readVersion = ++resourceVersion;
                result = WriteResult();
            }
        }
        if (holdUpdate && holdUpdate(n)) {
            auto promise = std::make_shared<QPromise<WriteResult>>();
            promise->start();
            heldUpdate = promise;
            heldUpdateResult = *result;
            return promise->future();
        }
        return ready(*result);
    }

    // The API server cannot be reached (a partition): every call fails with Canceled, until
    // answerEveryCall().
    void failEveryCall()
    {
        onGet = [](int) -> std::optional<GetResult> { return GetResult(canceled()); };
        onCreate = [](int, const LeaderElectionRecord &) -> std::optional<WriteResult> {
            return WriteResult(canceled());
        };
        onUpdate = onCreate;
    }
    void answerEveryCall()
    {
        onGet = {};
        onCreate = {};
        onUpdate = {};
    }

    // What a held update will return unless the test says otherwise.
    WriteResult heldUpdateResult;

    void finishHeldUpdate(const WriteResult &result)
    {
        auto promise = std::exchange(heldUpdate, nullptr);
        promise->addResult(result);
        promise->finish();
    }
    void finishHeldGet(const GetResult &result)
    {
        auto promise = std::exchange(heldGet, nullptr);
        promise->addResult(result);
        promise->finish();
    }

    // Someone else writes the record (another candidate).
    void writeByOther(const LeaderElectionRecord &record)
    {
        stored = record;
        ++resourceVersion;
    }

    void recordEvent(const QString &message) override
    {
        events << m_identity + QLatin1Char(' ') + message;
    }
    QString identity() const override { return m_identity; }
    QString describe() const override { return QStringLiteral("foo/bar"); }

private:
    void tick()
    {
        if (m_clock && latency.count() > 0)
            m_clock->step(latency);
    }
    template<typename T>
    static QFuture<T> ready(const T &value)
    {
        QPromise<T> promise;
        promise.start();
        promise.addResult(value);
        promise.finish();
        return promise.future();
    }
    template<typename T>
    static QFuture<T> hold(std::shared_ptr<QPromise<T>> &slot, const T &)
    {
        slot = std::make_shared<QPromise<T>>();
        slot->start();
        return slot->future();
    }

    QString m_identity;
    FakeClock *m_clock;
    std::optional<int> m_readVersion; // the version the next update writes over
};

} // namespace qcm::leaderelection::testing
