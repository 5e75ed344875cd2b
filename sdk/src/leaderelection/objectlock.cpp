// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/restclient.h>
#include <qcm/leaderelection/objectlock.h>
#include <qcm/record/eventrecorder.h>

#include "logging_p.h"
#include "mailbox_p.h"
#include "objectwatch_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QTimer>

#include <deque>

namespace qcm::leaderelection {

using namespace qcm::client;

struct ObjectLock::Private
{
    GroupVersionResource gvr;
    QString kind;
    QString ns;
    QString name;
    RestClient *client = nullptr;
    ResourceLockConfig config;
    std::shared_ptr<detail::Mailbox> mailbox;
    std::optional<Object> object; // the last object read or written: its resourceVersion
    // Counts the calls made. Only the reply to the latest call updates `object`: calls may
    // overlap (resourcelock.h), and a late reply of an older one must not bring back an older
    // object and resourceVersion over what a newer call learned.
    quint64 calls = 0;
    std::unique_ptr<detail::ObjectWatch> watch; // while setWatching(true)
    // update() and patch() take turns (objectlock.h): the updates and the patch in flight, and
    // the calls waiting for their turn, in the order they were asked for.
    int updatesInFlight = 0;
    bool patching = false;
    struct Waiting
    {
        bool patch;
        std::function<void()> send;
    };
    std::deque<Waiting> waiting;

    bool mayStart(bool patch) const { return !patching && (!patch || updatesInFlight == 0); }
    // Sends now when its turn has come, or once the calls before it have been answered.
    void inTurn(bool patch, std::function<void()> send)
    {
        if (waiting.empty() && mayStart(patch))
            send();
        else
            waiting.push_back({patch, std::move(send)});
    }
    // Called with each answer: sends what waited for it.
    void sendWaiting()
    {
        while (!waiting.empty() && mayStart(waiting.front().patch)) {
            const std::function<void()> send = std::move(waiting.front().send);
            waiting.pop_front();
            send();
        }
    }

    QString objectPath() const
    {
        return gvr.collectionPath(ns) + QLatin1Char('/')
            + QString::fromUtf8(QUrl::toPercentEncoding(name));
    }
};

namespace {

QByteArray encode(const Object &object)
{
    return QJsonDocument(object.json()).toJson(QJsonDocument::Compact);
}

} // namespace

ObjectLock::ObjectLock(GroupVersionResource gvr, QString kind, QString ns, QString name,
    RestClient *client, ResourceLockConfig config, QObject *parent)
    : ResourceLock(parent), d(std::make_unique<Private>())
{
    d->gvr = std::move(gvr);
    d->kind = std::move(kind);
    d->ns = std::move(ns);
    d->name = std::move(name);
    d->client = client;
    d->config = std::move(config);
    d->mailbox = detail::Mailbox::create(this);
}

ObjectLock::~ObjectLock()
{
    d->mailbox->close();
}

QFuture<GetResult> ObjectLock::get()
{
    auto promise = detail::startedPromise<GetResult>();
    const quint64 call = ++d->calls;
    detail::whenFinished(d->client->requestAsync("GET", d->objectPath()), d->mailbox,
        [this, promise, call](const Response &response) {
            ObjectResult object = RestClient::decodeObject(response);
            if (!object) {
                // client-go's locks keep the object they had when a get fails (LeaseLock
                // today, and the ConfigMap and Endpoints locks of v0.26, after
                // kubernetes/client-go#966), so a leader's next optimistic update still
                // writes over the version it last knew.
                detail::fulfil(promise, GetResult(object.error()));
                return;
            }
            // The object is remembered even when its record cannot be read, as client-go's
            // configMapLock and endpointsLock do (the Unmarshal error comes after
            // `cml.cm = cm`): a leader's next update may then write a good record over it.
            if (call == d->calls)
                d->object = *object;
            detail::fulfil(promise, recordOf(*object));
        });
    return promise->future();
}

QFuture<WriteResult> ObjectLock::create(const LeaderElectionRecord &record)
{
    Object object = newObject();
    object.setNamespaceName(d->ns);
    object.setName(d->name);
    object = withRecord(std::move(object), record);
    auto promise = detail::startedPromise<WriteResult>();
    const quint64 call = ++d->calls;
    detail::whenFinished(d->client->requestAsync("POST", d->gvr.collectionPath(d->ns), {},
                             encode(object), "application/json"),
        d->mailbox, [this, promise, call](const Response &response) {
            ObjectResult created = RestClient::decodeObject(response);
            if (call == d->calls) {
                // client-go assigns what its client's Create returns, an empty object on
                // error ("ll.lease, err = Create(...)"), with which no update can be made:
                // after a failed create, update() needs a get() first.
                if (created)
                    d->object = *created;
                else
                    d->object.reset();
            }
            if (!created) {
                detail::fulfil(promise, WriteResult(created.error()));
                return;
            }
            detail::fulfil(promise, WriteResult());
        });
    return promise->future();
}

QFuture<WriteResult> ObjectLock::update(const LeaderElectionRecord &record)
{
    auto promise = detail::startedPromise<WriteResult>();
    d->inTurn(false, [this, record, promise] {
        if (!d->object) {
            detail::fulfil(promise,
                WriteResult(Status::transportError(QStringLiteral("NotInitialized"),
                    QStringLiteral("%1 not initialized, call get or create first").arg(d->kind))));
            return;
        }
        // As client-go, the remembered object carries the new record from now on, at the
        // resourceVersion it was read with.
        d->object = withRecord(*d->object, record);
        const quint64 call = ++d->calls;
        ++d->updatesInFlight;
        detail::whenFinished(d->client->requestAsync("PUT", d->objectPath(), {}, encode(*d->object),
                                 "application/json"),
            d->mailbox, [this, promise, call](const Response &response) {
                --d->updatesInFlight;
                ObjectResult updated = RestClient::decodeObject(response);
                if (updated && call == d->calls)
                    d->object = *updated;
                detail::fulfil(promise, updated ? WriteResult() : WriteResult(updated.error()));
                d->sendWaiting();
            });
    });
    return promise->future();
}

QFuture<ObjectResult> ObjectLock::patch(QByteArray body, QByteArray contentType)
{
    auto promise = detail::startedPromise<ObjectResult>();
    d->inTurn(true, [this, body = std::move(body), contentType = std::move(contentType), promise] {
        d->patching = true;
        detail::whenFinished(
            d->client->requestAsync("PATCH", d->objectPath(), {}, body, contentType), d->mailbox,
            [this, promise](const Response &response) {
                d->patching = false;
                ObjectResult patched = RestClient::decodeObject(response);
                if (patched) {
                    ++d->calls; // a reply to an earlier call no longer replaces it
                    d->object = *patched;
                }
                detail::fulfil(promise, std::move(patched));
                d->sendWaiting();
            });
    });
    return promise->future();
}

void ObjectLock::recordEvent(const QString &message)
{
    const QString event = d->config.identity + QLatin1Char(' ') + message;
    if (!d->config.eventRecorder) {
        qCInfo(lcLeaderElection).noquote() << describe() << event;
        return;
    }
    // client-go's subject: the lock's object with the metadata last read or written (uid,
    // resourceVersion, ...), and the type meta filled in. Before any read succeeded (where
    // client-go would dereference nil), its namespace and name.
    Object subject = newObject();
    if (d->object) {
        subject.json().insert(
            QStringLiteral("metadata"), d->object->json().value(QLatin1String("metadata")));
    } else {
        subject.setNamespaceName(d->ns);
        subject.setName(d->name);
    }
    d->config.eventRecorder->event(
        subject, record::EventTypeNormal, QStringLiteral("LeaderElection"), event);
}

QString ObjectLock::identity() const
{
    return d->config.identity;
}

QString ObjectLock::describe() const
{
    return d->ns + QLatin1Char('/') + d->name;
}

QString ObjectLock::namespaceName() const
{
    return d->ns;
}

QString ObjectLock::name() const
{
    return d->name;
}

const GroupVersionResource &ObjectLock::resource() const
{
    return d->gvr;
}

void ObjectLock::setWatching(bool on)
{
    if (on == bool(d->watch))
        return;
    if (!on) {
        d->watch.reset();
        return;
    }
    d->watch = std::make_unique<detail::ObjectWatch>(
        d->client, d->gvr, d->ns, d->name,
        [this](const WatchEvent &event) {
            if (event.type != WatchEvent::Type::Bookmark && event.type != WatchEvent::Type::Error)
                emit changed();
        },
        this);
}

} // namespace qcm::leaderelection
