// SPDX-License-Identifier: Apache-2.0
// FieldOwnerClient: a Client that writes with a field manager (controller-runtime's
// client.WithFieldOwner). Every create, update, updateStatus and patch (server-side apply
// included) through it carries `owner` as its fieldManager unless the call names one, so that
// helpers which take a Client and pass no options (controllerutil::createOrUpdate) still write
// as the controller: `kubectl get -o yaml --show-managed-fields` names it, and server-side
// apply sees its fields as its own. Reads and deletes pass through unchanged.
//
//     client::FieldOwnerClient writer(*client, QStringLiteral("sample-controller"));
//     controllerutil::createOrUpdate(writer, gvr, object, mutate);
//
// Thread safety: as the wrapped client (every implementation is safe from any thread); the
// wrapped client must outlive this.
#pragma once

#include <qcm/client/client.h>

namespace qcm::client {

class QCM_SDK_EXPORT FieldOwnerClient final : public Client
{
public:
    FieldOwnerClient(Client &client, const QString &owner);

    using Client::apply;
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
    ObjectResult apply(const GroupVersionResource &gvr, const Object &configuration,
        const PatchOptions &options) override;

private:
    template<typename Options>
    Options owned(Options options) const
    {
        if (options.fieldManager.isEmpty())
            options.fieldManager = m_owner;
        return options;
    }

    Client &m_client;
    const QString m_owner;
};

} // namespace qcm::client
