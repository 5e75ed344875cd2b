// SPDX-License-Identifier: Apache-2.0
// Client: what a controller reads and writes (controller-runtime's client.Client): get and
// list; create, update, updateStatus, patch, remove and server-side apply; in untyped
// (client::Object) and typed (generated kinds, docs/typed-objects.md) forms.
//
// One interface, three implementations, so that a reconcile written against it runs
// unchanged against each:
// - DirectClient: every call goes to the API server (controller-runtime's APIReader for reads);
// - CachedClient: reads from the shared informers' caches, writes to the API server (the
//   manager's default client);
// - testing::FakeClient: an in-memory object tracker with the API server's semantics
//   (qcm/testing/fakeclient.h), checked against the real one by one shared test suite.
//
// Errors are the API server's Status (isNotFound(), isConflict(), ...). Calls block; make
// them from a worker thread (reconcile()), never from the event loop.
//
// Thread safety: implementations are safe from any thread.
#pragma once

#include <qcm/client/requestoptions.h>
#include <qcm/client/resource.h>
#include <qcm/client/restclient.h>
#include <qcm/typed/builder.h>

namespace qcm::client {

class QCM_SDK_EXPORT Client
{
public:
    virtual ~Client();

    virtual ObjectResult get(
        const GroupVersionResource &gvr, const QString &ns, const QString &name)
        = 0;
    // In namespace `ns`, or in every namespace when it is empty; options.labelSelector and
    // options.fieldSelector select (a CachedClient takes label selectors only).
    virtual ListResult list(
        const GroupVersionResource &gvr, const QString &ns, const ListOptions &options = {})
        = 0;
    // The namespace and name (or generateName) come from the object.
    virtual ObjectResult create(
        const GroupVersionResource &gvr, const Object &object, const WriteOptions &options = {})
        = 0;
    // A resourceVersion in the object makes it conditional: a stale one is a Conflict.
    virtual ObjectResult update(
        const GroupVersionResource &gvr, const Object &object, const WriteOptions &options = {})
        = 0;
    // The status subresource: only the status changes.
    virtual ObjectResult updateStatus(
        const GroupVersionResource &gvr, const Object &object, const WriteOptions &options = {})
        = 0;
    virtual ObjectResult patch(const GroupVersionResource &gvr, const QString &ns,
        const QString &name, PatchType type, const QByteArray &patch,
        const PatchOptions &options = {})
        = 0;
    // An object with finalizers is only marked (deletionTimestamp) until they are removed.
    virtual ObjectResult remove(const GroupVersionResource &gvr, const QString &ns,
        const QString &name, const DeleteOptions &options = {})
        = 0;

    // Server-side apply: `configuration` holds the fields this manager owns (a kind's builder
    // makes one); options.fieldManager is required, options.force takes fields other managers
    // own. Creates the object if it does not exist.
    virtual ObjectResult apply(
        const GroupVersionResource &gvr, const Object &configuration, const PatchOptions &options);

    // Typed forms: Kind is a generated kind (core::v1::Pod, a CRD's kind).
    template<typename Kind>
    Result<Kind, Status> get(const QString &ns, const QString &name)
    {
        return typed(
            get(Kind::groupVersionResource(), ns, name), [](const Object &o) { return Kind(o); });
    }
    template<typename Kind>
    Result<QList<Kind>, Status> list(const QString &ns, const ListOptions &options = {})
    {
        ListResult r = list(Kind::groupVersionResource(), ns, options);
        if (!r)
            return r.error();
        QList<Kind> out;
        out.reserve(r->items.size());
        for (const Object &o : r->items)
            out.append(Kind(o));
        return out;
    }
    template<typename Kind>
    Result<Kind, Status> create(
        const typed::ObjectBuilder &object, const WriteOptions &options = {})
    {
        return typed(create(Kind::groupVersionResource(), object.object(), options),
            [](const Object &o) { return Kind(o); });
    }
    template<typename Kind>
    Result<Kind, Status> apply(
        const typed::ObjectBuilder &configuration, const PatchOptions &options)
    {
        return typed(apply(Kind::groupVersionResource(), configuration.object(), options),
            [](const Object &o) { return Kind(o); });
    }

private:
    template<typename F>
    static auto typed(ObjectResult r, F make) -> Result<decltype(make(Object())), Status>
    {
        if (!r)
            return r.error();
        return make(*r);
    }
};

// apimachinery's errors.NewNotFound: 404, reason NotFound, `<resource>[.<group>] "<name>" not
// found`, as the API server says it (CachedClient and testing::FakeClient answer with it).
QCM_SDK_EXPORT Status notFoundStatus(const GroupVersionResource &gvr, const QString &name);

// Every call to the API server through a RestClient (controller-runtime's client.New, and the
// manager's APIReader). A null RestClient answers every call with an error, for a context
// without one (a unit test that does not reconcile).
class QCM_SDK_EXPORT DirectClient final : public Client
{
public:
    explicit DirectClient(RestClient *client);

    // The typed forms, which the overrides below would hide.
    using Client::create;
    using Client::get;
    using Client::list;

    ObjectResult get(
        const GroupVersionResource &gvr, const QString &ns, const QString &name) override;
    ListResult list(const GroupVersionResource &gvr, const QString &ns,
        const ListOptions &options = {}) override;
    ObjectResult create(const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options = {}) override;
    ObjectResult update(const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options = {}) override;
    ObjectResult updateStatus(const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options = {}) override;
    ObjectResult patch(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        PatchType type, const QByteArray &patch, const PatchOptions &options = {}) override;
    ObjectResult remove(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        const DeleteOptions &options = {}) override;

private:
    RestClient *const m_client;
};

} // namespace qcm::client
