// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/restclient.h>

#include "../core/deleteinownthread_p.h"
#include "restclientworker_p.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QThread>

namespace qcm::client {

namespace {

QByteArray patchContentType(PatchType type)
{
    switch (type) {
    case PatchType::Json:
        return QByteArrayLiteral("application/json-patch+json");
    case PatchType::Merge:
        return QByteArrayLiteral("application/merge-patch+json");
    case PatchType::StrategicMerge:
        return QByteArrayLiteral("application/strategic-merge-patch+json");
    case PatchType::Apply:
        return QByteArrayLiteral("application/apply-patch+yaml");
    }
    return {};
}

QUrlQuery listQuery(const ListOptions &o)
{
    QUrlQuery q;
    if (!o.labelSelector.isEmpty())
        q.addQueryItem(QStringLiteral("labelSelector"), o.labelSelector);
    if (!o.fieldSelector.isEmpty())
        q.addQueryItem(QStringLiteral("fieldSelector"), o.fieldSelector);
    if (o.limit > 0)
        q.addQueryItem(QStringLiteral("limit"), QString::number(o.limit));
    if (!o.continueToken.isEmpty())
        q.addQueryItem(QStringLiteral("continue"), o.continueToken);
    if (!o.resourceVersion.isEmpty())
        q.addQueryItem(QStringLiteral("resourceVersion"), o.resourceVersion);
    if (!o.resourceVersionMatch.isEmpty())
        q.addQueryItem(QStringLiteral("resourceVersionMatch"), o.resourceVersionMatch);
    if (o.timeoutSeconds)
        q.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(*o.timeoutSeconds));
    if (o.allowWatchBookmarks)
        q.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
    if (o.sendInitialEvents)
        q.addQueryItem(QStringLiteral("sendInitialEvents"), QStringLiteral("true"));
    return q;
}

QString objectPath(const GroupVersionResource &gvr, const QString &ns, const QString &name,
    const QString &subresource)
{
    QString path = gvr.collectionPath(ns) + QLatin1Char('/')
        + QString::fromUtf8(QUrl::toPercentEncoding(name));
    if (!subresource.isEmpty())
        path += QLatin1Char('/') + subresource;
    return path;
}

Response wrongThread()
{
    Response r;
    r.transportError = Status::transportError(QStringLiteral("WrongThread"),
        QStringLiteral("a blocking RestClient call on the client's own I/O thread would "
                       "deadlock; use the async form there"));
    return r;
}

} // namespace

// --- RestClient --------------------------------------------------------------------------

struct RestClient::Private
{
    RestConfig config;
    QThread thread;
    RestClientWorker *worker = nullptr;
    const Codec *codec = Codec::defaultCodec();

    Response wait(QFuture<Response> future) const
    {
        if (QThread::currentThread() == &thread)
            return wrongThread();
        future.waitForFinished();
        return future.result();
    }
};

RestClient::RestClient(RestConfig config, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>())
{
    qRegisterMetaType<WatchEvent>();
    d->config = std::move(config);
    d->thread.setObjectName(QStringLiteral("qcm-rest-io"));
    d->worker = new RestClientWorker(d->config);
    d->worker->moveToThread(&d->thread);
    d->thread.start();
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker] { w->init(); }, Qt::BlockingQueuedConnection);
}

RestClient::~RestClient()
{
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker] { w->shutdown(); }, Qt::BlockingQueuedConnection);
    d->thread.quit();
    d->thread.wait();
    delete d->worker;
}

const RestConfig &RestClient::config() const
{
    return d->config;
}

QThread *RestClient::ioThread() const
{
    return &d->thread;
}

void RestClient::setCodec(const Codec *codec)
{
    d->codec = codec ? codec : Codec::defaultCodec();
}

QFuture<Response> RestClient::requestAsync(const QByteArray &verb, const QString &path,
    const QUrlQuery &query, const QByteArray &body, const QByteArray &contentType,
    const QByteArray &accept)
{
    Pending p;
    p.spec = {verb, path, query, body, contentType, accept};
    p.promise = std::make_shared<QPromise<Response>>();
    p.promise->start();
    QFuture<Response> future = p.promise->future();
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker, p = std::move(p)]() mutable { w->dispatch(std::move(p)); });
    return future;
}

Response RestClient::request(const QByteArray &verb, const QString &path, const QUrlQuery &query,
    const QByteArray &body, const QByteArray &contentType, const QByteArray &accept)
{
    return d->wait(requestAsync(verb, path, query, body, contentType, accept));
}

ObjectResult RestClient::decodeObject(const Response &response, const Codec *codec)
{
    if (!response.isSuccess())
        return response.status();
    auto object = (codec ? codec : Codec::defaultCodec())->decodeObject(response.body);
    if (!object)
        return Status::transportError(QStringLiteral("DecodeError"), object.error().reason);
    return std::move(object).value();
}

ListResult RestClient::decodeList(const Response &response, const Codec *codec)
{
    if (!response.isSuccess())
        return response.status();
    auto list = (codec ? codec : Codec::defaultCodec())->decodeList(response.body);
    if (!list)
        return Status::transportError(QStringLiteral("DecodeError"), list.error().reason);
    return std::move(list).value();
}

ObjectResult RestClient::get(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const QString &subresource)
{
    return decodeObject(request("GET", objectPath(gvr, ns, name, subresource)), d->codec);
}

const QByteArray RestClient::metadataOnlyListAccept = QByteArrayLiteral(
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json");
const QByteArray RestClient::metadataOnlyWatchAccept = QByteArrayLiteral(
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json");

ListResult RestClient::list(const GroupVersionResource &gvr, const QString &ns,
    const ListOptions &options, const QByteArray &accept)
{
    return decodeList(
        request("GET", gvr.collectionPath(ns), listQuery(options), {}, {}, accept), d->codec);
}

namespace {
QUrlQuery writeQuery(const QString &fieldManager, bool dryRun)
{
    QUrlQuery q;
    if (!fieldManager.isEmpty())
        q.addQueryItem(QStringLiteral("fieldManager"), fieldManager);
    if (dryRun)
        q.addQueryItem(QStringLiteral("dryRun"), QStringLiteral("All"));
    return q;
}
} // namespace

ObjectResult RestClient::create(const GroupVersionResource &gvr, const QString &ns,
    const Object &object, const WriteOptions &options)
{
    return decodeObject(
        request("POST", gvr.collectionPath(ns), writeQuery(options.fieldManager, options.dryRun),
            d->codec->encode(object.json()), "application/json"),
        d->codec);
}

ObjectResult RestClient::update(const GroupVersionResource &gvr, const Object &object,
    const WriteOptions &options, const QString &subresource)
{
    return decodeObject(
        request("PUT", objectPath(gvr, object.namespaceName(), object.name(), subresource),
            writeQuery(options.fieldManager, options.dryRun), d->codec->encode(object.json()),
            "application/json"),
        d->codec);
}

ObjectResult RestClient::updateStatus(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return update(gvr, object, options, QStringLiteral("status"));
}

ObjectResult RestClient::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options,
    const QString &subresource)
{
    QUrlQuery q = writeQuery(options.fieldManager, options.dryRun);
    if (options.force && type == PatchType::Apply)
        q.addQueryItem(QStringLiteral("force"), QStringLiteral("true"));
    return decodeObject(
        request("PATCH", objectPath(gvr, ns, name, subresource), q, patch, patchContentType(type)),
        d->codec);
}

namespace {
QByteArray deleteBody(const DeleteOptions &o)
{
    QJsonObject body {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("DeleteOptions")}};
    if (!o.propagationPolicy.isEmpty())
        body.insert(QStringLiteral("propagationPolicy"), o.propagationPolicy);
    if (o.gracePeriodSeconds)
        body.insert(QStringLiteral("gracePeriodSeconds"), double(*o.gracePeriodSeconds));
    QJsonObject preconditions;
    if (!o.preconditionUid.isEmpty())
        preconditions.insert(QStringLiteral("uid"), o.preconditionUid);
    if (!o.preconditionResourceVersion.isEmpty())
        preconditions.insert(QStringLiteral("resourceVersion"), o.preconditionResourceVersion);
    if (!preconditions.isEmpty())
        body.insert(QStringLiteral("preconditions"), preconditions);
    if (o.dryRun)
        body.insert(QStringLiteral("dryRun"), QJsonArray {QStringLiteral("All")});
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}
} // namespace

ObjectResult RestClient::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    return decodeObject(request("DELETE", objectPath(gvr, ns, name, {}), {}, deleteBody(options),
                            "application/json"),
        d->codec);
}

ObjectResult RestClient::removeCollection(const GroupVersionResource &gvr, const QString &ns,
    const ListOptions &listOptions, const DeleteOptions &options)
{
    return decodeObject(request("DELETE", gvr.collectionPath(ns), listQuery(listOptions),
                            deleteBody(options), "application/json"),
        d->codec);
}

QFuture<ObjectResult> RestClient::getAsync(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const QString &subresource)
{
    return requestAsync("GET", objectPath(gvr, ns, name, subresource))
        .then([codec = d->codec](const Response &r) { return decodeObject(r, codec); });
}

QFuture<ListResult> RestClient::listAsync(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options)
{
    return requestAsync("GET", gvr.collectionPath(ns), listQuery(options))
        .then([codec = d->codec](const Response &r) { return decodeList(r, codec); });
}

std::shared_ptr<Watch> RestClient::watch(const GroupVersionResource &gvr, const QString &ns,
    const ListOptions &options, const QByteArray &accept)
{
    auto *raw = new Watch(d->codec, d->config.maxWatchEventBytes);
    raw->moveToThread(&d->thread);
    std::shared_ptr<Watch> watch(raw, [](Watch *w) {
        w->stop();
        detail::deleteInOwnThread(w);
    });
    QUrlQuery query = listQuery(options);
    query.addQueryItem(QStringLiteral("watch"), QStringLiteral("true"));
    RequestSpec spec {"GET", gvr.collectionPath(ns), query, {}, {}, accept};
    QPointer<Watch> target(raw);
    QMetaObject::invokeMethod(d->worker,
        [w = d->worker, spec, target]() mutable { w->startWatch(std::move(spec), target); });
    return watch;
}

} // namespace qcm::client
