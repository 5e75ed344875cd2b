// SPDX-License-Identifier: Apache-2.0
// ObjectClient: the reads and writes a sample controller makes against the API server, as an
// interface, so that its reconcile runs against a fake in unit tests (client-go controllers
// take kubernetes.Interface for the same reason, and their tests pass
// fake.NewSimpleClientset()). RestObjectClient forwards each call to the host's RestClient.
//
// The calls are RestClient's blocking ones, with the same arguments and results: a worker
// thread calls them from reconcile().
//
// Thread safety: implementations are safe from any thread.
#pragma once

#include <qcm/client/restclient.h>

namespace qcm::samples {

class ObjectClient
{
public:
    virtual ~ObjectClient();

    virtual client::ObjectResult get(
        const client::GroupVersionResource &gvr, const QString &ns, const QString &name)
        = 0;
    virtual client::ObjectResult create(const client::GroupVersionResource &gvr, const QString &ns,
        const client::Object &object, const client::WriteOptions &options)
        = 0;
    // Namespace and name come from the object; a resourceVersion makes it conditional.
    virtual client::ObjectResult update(const client::GroupVersionResource &gvr,
        const client::Object &object, const client::WriteOptions &options)
        = 0;
    // The status subresource.
    virtual client::ObjectResult updateStatus(const client::GroupVersionResource &gvr,
        const client::Object &object, const client::WriteOptions &options)
        = 0;
    virtual client::ObjectResult patch(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, client::PatchType type, const QByteArray &patch,
        const client::PatchOptions &options)
        = 0;
    virtual client::ObjectResult remove(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, const client::DeleteOptions &options)
        = 0;
};

// Forwards to a RestClient. A null client answers every call with an error (a context
// without a REST client, in a unit test that does not reconcile).
class RestObjectClient final : public ObjectClient
{
public:
    explicit RestObjectClient(client::RestClient *client);

    client::ObjectResult get(
        const client::GroupVersionResource &gvr, const QString &ns, const QString &name) override;
    client::ObjectResult create(const client::GroupVersionResource &gvr, const QString &ns,
        const client::Object &object, const client::WriteOptions &options) override;
    client::ObjectResult update(const client::GroupVersionResource &gvr,
        const client::Object &object, const client::WriteOptions &options) override;
    client::ObjectResult updateStatus(const client::GroupVersionResource &gvr,
        const client::Object &object, const client::WriteOptions &options) override;
    client::ObjectResult patch(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, client::PatchType type, const QByteArray &patch,
        const client::PatchOptions &options) override;
    client::ObjectResult remove(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, const client::DeleteOptions &options) override;

private:
    // call(*m_client), or an error without a client.
    template<typename Call>
    client::ObjectResult forward(Call &&call) const;

    client::RestClient *const m_client;
};

} // namespace qcm::samples
