// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/fieldownerclient.h>

namespace qcm::client {

FieldOwnerClient::FieldOwnerClient(Client &client, const QString &owner)
    : m_client(client), m_owner(owner)
{ }

ObjectResult FieldOwnerClient::get(
    const GroupVersionResource &gvr, const QString &ns, const QString &name)
{
    return m_client.get(gvr, ns, name);
}

ListResult FieldOwnerClient::list(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options)
{
    return m_client.list(gvr, ns, options);
}

ObjectResult FieldOwnerClient::create(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_client.create(gvr, object, owned(options));
}

ObjectResult FieldOwnerClient::update(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_client.update(gvr, object, owned(options));
}

ObjectResult FieldOwnerClient::updateStatus(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_client.updateStatus(gvr, object, owned(options));
}

ObjectResult FieldOwnerClient::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options)
{
    return m_client.patch(gvr, ns, name, type, patch, owned(options));
}

ObjectResult FieldOwnerClient::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    return m_client.remove(gvr, ns, name, options);
}

ObjectResult FieldOwnerClient::apply(
    const GroupVersionResource &gvr, const Object &configuration, const PatchOptions &options)
{
    return m_client.apply(gvr, configuration, owned(options));
}

} // namespace qcm::client
