// SPDX-License-Identifier: Apache-2.0
// RestClient: talks to one API server (client-go's rest.RESTClient and dynamic client).
//
// One I/O thread owns the QNetworkAccessManager: every request and every watch goes through
// it, over HTTP/2 when the server speaks it (kube-apiserver does, over TLS), so many watches
// and requests share one connection. Two forms of every call:
//   * async, returning a QFuture that is fulfilled on the I/O thread;
//   * blocking, safe from any thread except the I/O thread (it returns an error there
//     rather than deadlock). Workers reconcile with the blocking form.
// Client-side limits, as in client-go: a token bucket of config.qps and config.burst for
// every request except watches; up to 10 retries of a 429 or 5xx response that carries
// Retry-After, after the time it asks for; one retry of a GET whose connection was reset;
// a per-request timeout (config.timeout); User-Agent qcm/<version>.
// Authentication: client certificate, bearer token (re-read from a token file as it rotates),
// exec credential plugin (run off the I/O thread, re-run after a 401), or basic auth.
//
// Needs a QCoreApplication (its I/O thread runs a Qt event loop). Destroy a RestClient only
// once no other thread is using it; requests still queued then fail with reason ShutDown.
// Thread safety: every public method is safe from any thread.
#pragma once

#include <qcm/client/codec.h>
#include <qcm/client/objectlist.h>
#include <qcm/client/requestoptions.h>
#include <qcm/client/resource.h>
#include <qcm/client/response.h>
#include <qcm/client/restconfig.h>
#include <qcm/client/watch.h>
#include <qcm/result.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>
#include <QtCore/QUrlQuery>

#include <memory>

QT_BEGIN_NAMESPACE
class QThread;
QT_END_NAMESPACE

namespace qcm::client {

using ObjectResult = Result<Object, Status>;
using ListResult = Result<ObjectList, Status>;

class QCM_SDK_EXPORT RestClient : public QObject
{
    Q_OBJECT

public:
    explicit RestClient(RestConfig config, QObject *parent = nullptr);
    ~RestClient() override;

    const RestConfig &config() const;
    QThread *ioThread() const;
    void setCodec(const Codec *codec); // before the first request

    // Any request. `path` is relative to the server URL (/api/v1/...).
    // `accept` defaults to application/json.
    QFuture<Response> requestAsync(const QByteArray &verb, const QString &path,
        const QUrlQuery &query = {}, const QByteArray &body = {},
        const QByteArray &contentType = {}, const QByteArray &accept = {});
    Response request(const QByteArray &verb, const QString &path, const QUrlQuery &query = {},
        const QByteArray &body = {}, const QByteArray &contentType = {},
        const QByteArray &accept = {});

    // Typed verbs; `ns` is empty for cluster-scoped resources. `subresource` is e.g. "status"
    // or "scale".
    ObjectResult get(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        const QString &subresource = {});
    // `accept` overrides application/json, e.g. metadataOnlyListAccept.
    ListResult list(const GroupVersionResource &gvr, const QString &ns,
        const ListOptions &options = {}, const QByteArray &accept = {});
    ObjectResult create(const GroupVersionResource &gvr, const QString &ns, const Object &object,
        const WriteOptions &options = {});
    // Namespace and name come from the object; resourceVersion makes it conditional.
    ObjectResult update(const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options = {}, const QString &subresource = {});
    ObjectResult updateStatus(
        const GroupVersionResource &gvr, const Object &object, const WriteOptions &options = {});
    ObjectResult patch(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        PatchType type, const QByteArray &patch, const PatchOptions &options = {},
        const QString &subresource = {});
    // client-go's Delete. The result is the object as deleted, or a Success Status object.
    ObjectResult remove(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        const DeleteOptions &options = {});
    ObjectResult removeCollection(const GroupVersionResource &gvr, const QString &ns,
        const ListOptions &listOptions = {}, const DeleteOptions &options = {});

    QFuture<ObjectResult> getAsync(const GroupVersionResource &gvr, const QString &ns,
        const QString &name, const QString &subresource = {});
    QFuture<ListResult> listAsync(
        const GroupVersionResource &gvr, const QString &ns, const ListOptions &options = {});

    // A streaming watch; see watch.h. Watches are exempt from the client-side rate limit.
    std::shared_ptr<Watch> watch(const GroupVersionResource &gvr, const QString &ns,
        const ListOptions &options = {}, const QByteArray &accept = {});

    // Accept headers that make the server send metadata only (PartialObjectMetadata and
    // PartialObjectMetadataList, meta.k8s.io/v1), for lists and for watches.
    static const QByteArray metadataOnlyListAccept;
    static const QByteArray metadataOnlyWatchAccept;

    // Decodes a response as an object or a list, with `codec` (null: the default codec).
    static ObjectResult decodeObject(const Response &response, const Codec *codec = nullptr);
    static ListResult decodeList(const Response &response, const Codec *codec = nullptr);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::client
