// SPDX-License-Identifier: Apache-2.0
#include "objectclient.h"

namespace qcm::samples {

using namespace qcm::client;

ObjectClient::~ObjectClient() = default;

namespace {
Status noClient()
{
    return Status::transportError(
        QStringLiteral("NoClient"), QStringLiteral("the controller context has no REST client"));
}
} // namespace

RestObjectClient::RestObjectClient(RestClient *client) : m_client(client) { }

template<typename Call>
ObjectResult RestObjectClient::forward(Call &&call) const
{
    if (!m_client)
        return noClient();
    return call(*m_client);
}

ObjectResult RestObjectClient::get(
    const GroupVersionResource &gvr, const QString &ns, const QString &name)
{
    return forward([&](RestClient &c) { return c.get(gvr, ns, name); });
}

ObjectResult RestObjectClient::create(const GroupVersionResource &gvr, const QString &ns,
    const Object &object, const WriteOptions &options)
{
    return forward([&](RestClient &c) { return c.create(gvr, ns, object, options); });
}

ObjectResult RestObjectClient::update(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return forward([&](RestClient &c) { return c.update(gvr, object, options); });
}

ObjectResult RestObjectClient::updateStatus(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return forward([&](RestClient &c) { return c.updateStatus(gvr, object, options); });
}

ObjectResult RestObjectClient::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options)
{
    return forward([&](RestClient &c) { return c.patch(gvr, ns, name, type, patch, options); });
}

ObjectResult RestObjectClient::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    return forward([&](RestClient &c) { return c.remove(gvr, ns, name, options); });
}

} // namespace qcm::samples
