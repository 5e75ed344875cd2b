// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/discovery.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

namespace qcm::client {

namespace {

const QByteArray AggregatedAccept = QByteArrayLiteral(
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json");

QStringList strings(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &v : value.toArray())
        out << v.toString();
    return out;
}

} // namespace

Discovery::Discovery(RestClient *client) : m_client(client) { }

void Discovery::invalidate()
{
    std::lock_guard lock(m_mutex);
    m_loaded = false;
}

Result<QList<ApiResource>, Status> Discovery::resources()
{
    std::lock_guard lock(m_mutex);
    if (!m_loaded)
        if (auto error = refreshLocked())
            return *error;
    return m_resources;
}

Result<ApiResource, Status> Discovery::findLocked(
    const std::function<bool(const ApiResource &)> &matches, const QString &notFoundMessage)
{
    // Look in the cache; on a miss refresh it once (CRDs come later) and look again.
    for (int pass = 0; pass < 2; ++pass) {
        if (!m_loaded || pass == 1)
            if (auto error = refreshLocked())
                return *error;
        for (const ApiResource &r : std::as_const(m_resources))
            if (matches(r))
                return r;
    }
    Status notFound;
    notFound.code = 404;
    notFound.reason = QStringLiteral("NotFound");
    notFound.message = notFoundMessage;
    return notFound;
}

Result<ApiResource, Status> Discovery::resourceFor(const GroupVersionKind &gvk)
{
    std::lock_guard lock(m_mutex);
    return findLocked(
        [&](const ApiResource &r) {
            if (r.gvk.group != gvk.group || r.gvk.kind != gvk.kind)
                return false;
            return !gvk.version.isEmpty() ? r.gvk.version == gvk.version
                                          : m_preferred.contains(r.gvr.groupVersion());
        },
        QStringLiteral("no resource serves kind %1").arg(gvk.toString()));
}

Result<ApiResource, Status> Discovery::kindFor(const GroupVersionResource &gvr)
{
    std::lock_guard lock(m_mutex);
    return findLocked([&](const ApiResource &r) { return r.gvr == gvr; },
        QStringLiteral("the server does not serve %1").arg(gvr.toString()));
}

void Discovery::addResourceList(
    const QString &group, const QString &version, const QJsonObject &list, bool preferred)
{
    if (preferred)
        m_preferred.insert(group.isEmpty() ? version : group + QLatin1Char('/') + version);
    QHash<QString, QStringList> subresources;
    const QJsonArray items = list.value(QStringLiteral("resources")).toArray();
    for (const QJsonValue &v : items) {
        const QString name = v.toObject().value(QStringLiteral("name")).toString();
        if (const qsizetype slash = name.indexOf(QLatin1Char('/')); slash > 0)
            subresources[name.left(slash)] << name.mid(slash + 1);
    }
    for (const QJsonValue &v : items) {
        const QJsonObject r = v.toObject();
        const QString name = r.value(QStringLiteral("name")).toString();
        if (name.contains(QLatin1Char('/')))
            continue;
        ApiResource resource;
        resource.gvr = {group, version, name};
        resource.gvk = {r.value(QStringLiteral("group")).toString(group),
            r.value(QStringLiteral("version")).toString(version),
            r.value(QStringLiteral("kind")).toString()};
        resource.namespaced = r.value(QStringLiteral("namespaced")).toBool();
        resource.verbs = strings(r.value(QStringLiteral("verbs")));
        resource.singularName = r.value(QStringLiteral("singularName")).toString();
        resource.shortNames = strings(r.value(QStringLiteral("shortNames")));
        resource.subresources = subresources.value(name);
        m_resources << resource;
    }
}

std::optional<Status> Discovery::refreshLocked()
{
    m_resources.clear();
    m_preferred.clear();
    m_loaded = false;
    for (const auto &path : {QStringLiteral("/api"), QStringLiteral("/apis")}) {
        const Response response = m_client->request("GET", path, {}, {}, {}, AggregatedAccept);
        if (!response.isSuccess())
            return response.status();
        const QJsonObject body = QJsonDocument::fromJson(response.body).object();
        if (body.value(QStringLiteral("kind")).toString() != QLatin1String("APIGroupDiscoveryList"))
            return legacyRefreshLocked(); // a server without aggregated discovery
        for (const QJsonValue &g : body.value(QStringLiteral("items")).toArray()) {
            const QJsonObject group = g.toObject();
            const QString groupName = group.value(QStringLiteral("metadata"))
                                          .toObject()
                                          .value(QStringLiteral("name"))
                                          .toString();
            const QJsonArray versions = group.value(QStringLiteral("versions")).toArray();
            for (qsizetype i = 0; i < versions.size(); ++i) {
                const QJsonObject version = versions[i].toObject();
                const QString versionName = version.value(QStringLiteral("version")).toString();
                if (i == 0) // versions are listed in preference order
                    m_preferred.insert(groupName.isEmpty()
                            ? versionName
                            : groupName + QLatin1Char('/') + versionName);
                for (const QJsonValue &rv : version.value(QStringLiteral("resources")).toArray()) {
                    const QJsonObject r = rv.toObject();
                    const QJsonObject kind = r.value(QStringLiteral("responseKind")).toObject();
                    ApiResource resource;
                    resource.gvr
                        = {groupName, versionName, r.value(QStringLiteral("resource")).toString()};
                    // An empty group or version in responseKind means the resource's own.
                    const QString kindGroup = kind.value(QStringLiteral("group")).toString();
                    const QString kindVersion = kind.value(QStringLiteral("version")).toString();
                    resource.gvk = {kindGroup.isEmpty() ? groupName : kindGroup,
                        kindVersion.isEmpty() ? versionName : kindVersion,
                        kind.value(QStringLiteral("kind")).toString()};
                    resource.namespaced = r.value(QStringLiteral("scope")).toString()
                        == QLatin1String("Namespaced");
                    resource.verbs = strings(r.value(QStringLiteral("verbs")));
                    resource.singularName = r.value(QStringLiteral("singularResource")).toString();
                    resource.shortNames = strings(r.value(QStringLiteral("shortNames")));
                    for (const QJsonValue &s : r.value(QStringLiteral("subresources")).toArray())
                        resource.subresources
                            << s.toObject().value(QStringLiteral("subresource")).toString();
                    m_resources << resource;
                }
            }
        }
    }
    m_loaded = true;
    return std::nullopt;
}

std::optional<Status> Discovery::legacyRefreshLocked()
{
    m_resources.clear();
    m_preferred.clear();
    const Response core = m_client->request("GET", QStringLiteral("/api/v1"));
    if (!core.isSuccess())
        return core.status();
    addResourceList(
        QString(), QStringLiteral("v1"), QJsonDocument::fromJson(core.body).object(), true);
    const Response groups = m_client->request("GET", QStringLiteral("/apis"));
    if (!groups.isSuccess())
        return groups.status();
    for (const QJsonValue &g :
        QJsonDocument::fromJson(groups.body).object().value(QStringLiteral("groups")).toArray()) {
        const QJsonObject group = g.toObject();
        const QString name = group.value(QStringLiteral("name")).toString();
        const QString preferred = group.value(QStringLiteral("preferredVersion"))
                                      .toObject()
                                      .value(QStringLiteral("version"))
                                      .toString();
        for (const QJsonValue &v : group.value(QStringLiteral("versions")).toArray()) {
            const QString version = v.toObject().value(QStringLiteral("version")).toString();
            const Response list
                = m_client->request("GET", QStringLiteral("/apis/%1/%2").arg(name, version));
            if (!list.isSuccess())
                return list.status();
            addResourceList(
                name, version, QJsonDocument::fromJson(list.body).object(), version == preferred);
        }
    }
    m_loaded = true;
    return std::nullopt;
}

} // namespace qcm::client
