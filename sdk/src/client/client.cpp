// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/client.h>

#include <QtCore/QJsonDocument>

namespace qcm::client {

Client::~Client() = default;

ObjectResult Client::apply(
    const GroupVersionResource &gvr, const Object &configuration, const PatchOptions &options)
{
    if (options.fieldManager.isEmpty())
        return Status::transportError(QStringLiteral("FieldManagerRequired"),
            QStringLiteral("server-side apply needs PatchOptions::fieldManager"));
    // application/apply-patch+yaml takes JSON, YAML's subset.
    return patch(gvr, configuration.namespaceName(), configuration.name(), PatchType::Apply,
        QJsonDocument(configuration.json()).toJson(QJsonDocument::Compact), options);
}

Status notFoundStatus(const GroupVersionResource &gvr, const QString &name)
{
    Status s;
    s.code = 404;
    s.reason = QStringLiteral("NotFound");
    s.message
        = QStringLiteral("%1 \"%2\" not found")
              .arg(gvr.group.isEmpty() ? gvr.resource : gvr.resource + QLatin1Char('.') + gvr.group,
                  name);
    s.detailsName = name;
    s.detailsGroup = gvr.group;
    s.detailsKind = gvr.resource;
    return s;
}

namespace {

Status noClient()
{
    return Status::transportError(
        QStringLiteral("NoClient"), QStringLiteral("the controller context has no REST client"));
}

} // namespace

DirectClient::DirectClient(RestClient *client) : m_client(client) { }

ObjectResult DirectClient::get(
    const GroupVersionResource &gvr, const QString &ns, const QString &name)
{
    return m_client ? m_client->get(gvr, ns, name) : ObjectResult(noClient());
}

ListResult DirectClient::list(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options)
{
    return m_client ? m_client->list(gvr, ns, options) : ListResult(noClient());
}

ObjectResult DirectClient::create(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_client ? m_client->create(gvr, object.namespaceName(), object, options)
                    : ObjectResult(noClient());
}

ObjectResult DirectClient::update(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_client ? m_client->update(gvr, object, options) : ObjectResult(noClient());
}

ObjectResult DirectClient::updateStatus(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return m_client ? m_client->updateStatus(gvr, object, options) : ObjectResult(noClient());
}

ObjectResult DirectClient::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options)
{
    return m_client ? m_client->patch(gvr, ns, name, type, patch, options)
                    : ObjectResult(noClient());
}

ObjectResult DirectClient::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    return m_client ? m_client->remove(gvr, ns, name, options) : ObjectResult(noClient());
}

} // namespace qcm::client
