// SPDX-License-Identifier: Apache-2.0
// FakeObjectClient: an ObjectClient over an in-memory store, for the sample controllers' unit
// tests (client-go's fake clientset: an ObjectTracker, the list of Actions, and reactors).
//
// Objects live by resource, namespace and name. The store behaves as the API server does for
// what the controllers rely on: create refuses an existing name (AlreadyExists) and gives a
// uid; every write bumps resourceVersion; update and merge patch with a resourceVersion are
// conditional (Conflict); an update of the main resource keeps the stored status and an
// update of the status subresource changes only the status; delete checks its UID
// precondition (Conflict); a missing object is NotFound. Only merge patches are supported.
//
// Every call is recorded as an Action, first; a reactor (prependReactor) may answer a call
// instead of the store, to inject errors. Every write through the interface is reported to
// the watcher (setWatcher), as client-go's tracker feeds the watches of the fake's informers.
//
// Thread safety: every method is safe from any thread (controllers call from workers).
#pragma once

#include "objectclient.h"

#include <qcm/client/watchevent.h>

#include <QtCore/QJsonDocument>

#include <mutex>
#include <optional>

namespace qcm::samples::testing {

using namespace qcm::client;

struct Action
{
    QString verb; // get, create, update, patch, delete
    QString resource; // e.g. "deployments"
    QString subresource; // "status" for updateStatus
    QString namespaceName;
    QString name;
    Object object; // create, update
    QByteArray patch; // patch
    WriteOptions writeOptions;
    PatchOptions patchOptions;
    DeleteOptions deleteOptions;

    // "create deployments ns/name", "update foos/status ns/name", ...
    QString toString() const
    {
        return QStringLiteral("%1 %2%3 %4/%5")
            .arg(verb, resource, subresource.isEmpty() ? QString() : QLatin1Char('/') + subresource,
                namespaceName, name);
    }
};

// RFC 7386: a JSON merge patch applied to `target`.
inline QJsonValue mergePatch(const QJsonValue &target, const QJsonValue &patch)
{
    if (!patch.isObject())
        return patch;
    QJsonObject result = target.isObject() ? target.toObject() : QJsonObject();
    const QJsonObject changes = patch.toObject();
    for (auto it = changes.begin(); it != changes.end(); ++it) {
        if (it.value().isNull())
            result.remove(it.key());
        else
            result.insert(it.key(), mergePatch(result.value(it.key()), it.value()));
    }
    return result;
}

class FakeObjectClient : public ObjectClient
{
public:
    using Reactor = std::function<std::optional<ObjectResult>(const Action &)>;
    using Watcher
        = std::function<void(const GroupVersionResource &, WatchEvent::Type, const Object &)>;

    // Hears of every write that changed the store, after it (not of add()).
    void setWatcher(Watcher watcher)
    {
        std::lock_guard lock(m_mutex);
        m_watcher = std::move(watcher);
    }

    // Puts an object in the store, as it is (client-go's NewSimpleClientset(objects...)).
    void add(const GroupVersionResource &gvr, const Object &object)
    {
        std::lock_guard lock(m_mutex);
        m_objects.insert(keyOf(gvr, object.namespaceName(), object.name()), object);
    }
    std::optional<Object> stored(
        const GroupVersionResource &gvr, const QString &ns, const QString &name) const
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_objects.find(keyOf(gvr, ns, name));
        if (it == m_objects.end())
            return std::nullopt;
        return *it;
    }
    // Answers the calls it returns a value for, before the store (client-go's
    // PrependReactor); the last prepended runs first.
    void prependReactor(Reactor reactor)
    {
        std::lock_guard lock(m_mutex);
        m_reactors.insert(m_reactors.begin(), std::move(reactor));
    }
    std::vector<Action> actions() const
    {
        std::lock_guard lock(m_mutex);
        return m_actions;
    }
    // The actions as strings, e.g. {"create deployments default/test-deployment"}.
    QStringList actionStrings() const
    {
        QStringList out;
        for (const Action &a : actions())
            out << a.toString();
        return out;
    }
    void clearActions()
    {
        std::lock_guard lock(m_mutex);
        m_actions.clear();
    }

    ObjectResult get(
        const GroupVersionResource &gvr, const QString &ns, const QString &name) override
    {
        Action a = action("get", gvr, ns, name);
        std::lock_guard lock(m_mutex);
        if (auto r = react(a))
            return *r;
        const auto it = m_objects.find(keyOf(gvr, ns, name));
        if (it == m_objects.end())
            return notFound(gvr, name);
        return *it;
    }

    ObjectResult create(const GroupVersionResource &gvr, const QString &ns, const Object &object,
        const WriteOptions &options) override
    {
        Action a = action("create", gvr, ns, object.name());
        a.object = object;
        a.writeOptions = options;
        std::unique_lock lock(m_mutex);
        if (auto r = react(a))
            return *r;
        const QString key = keyOf(gvr, ns, object.name());
        if (m_objects.contains(key))
            return status(409, QStringLiteral("AlreadyExists"),
                QStringLiteral("%1 \"%2\" already exists").arg(gvr.resource, object.name()));
        Object created = object;
        created.setNamespaceName(ns);
        created.json().insert(QStringLiteral("metadata"),
            mergePatch(created.json().value(QLatin1String("metadata")),
                QJsonObject {{QStringLiteral("uid"), QStringLiteral("uid-%1").arg(++m_version)}}));
        return notify(lock, gvr, WatchEvent::Type::Added, store(key, created));
    }

    ObjectResult update(
        const GroupVersionResource &gvr, const Object &object, const WriteOptions &options) override
    {
        return write("update", gvr, object, options, {});
    }

    ObjectResult updateStatus(
        const GroupVersionResource &gvr, const Object &object, const WriteOptions &options) override
    {
        return write("update", gvr, object, options, QStringLiteral("status"));
    }

    ObjectResult patch(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        PatchType type, const QByteArray &patch, const PatchOptions &options) override
    {
        Action a = action("patch", gvr, ns, name);
        a.patch = patch;
        a.patchOptions = options;
        std::unique_lock lock(m_mutex);
        if (auto r = react(a))
            return *r;
        if (type != PatchType::Merge)
            return status(400, QStringLiteral("BadRequest"),
                QStringLiteral("FakeObjectClient applies merge patches only"));
        const QString key = keyOf(gvr, ns, name);
        const auto it = m_objects.find(key);
        if (it == m_objects.end())
            return notFound(gvr, name);
        const QJsonObject changes = QJsonDocument::fromJson(patch).object();
        const QString precondition = changes.value(QLatin1String("metadata"))
                                         .toObject()
                                         .value(QLatin1String("resourceVersion"))
                                         .toString();
        if (!precondition.isEmpty() && precondition != it->resourceVersion())
            return conflict(gvr, name);
        return notify(lock, gvr, WatchEvent::Type::Modified,
            store(key, Object(mergePatch(it->json(), changes).toObject())));
    }

    ObjectResult remove(const GroupVersionResource &gvr, const QString &ns, const QString &name,
        const DeleteOptions &options) override
    {
        Action a = action("delete", gvr, ns, name);
        a.deleteOptions = options;
        std::unique_lock lock(m_mutex);
        if (auto r = react(a))
            return *r;
        const auto it = m_objects.find(keyOf(gvr, ns, name));
        if (it == m_objects.end())
            return notFound(gvr, name);
        if (!options.preconditionUid.isEmpty() && options.preconditionUid != it->uid())
            return status(409, QStringLiteral("Conflict"),
                QStringLiteral("Precondition failed: UID in precondition: %1, UID in object "
                               "meta: %2")
                    .arg(options.preconditionUid, it->uid()));
        const Object removed = *it;
        m_objects.erase(it);
        return notify(lock, gvr, WatchEvent::Type::Deleted, removed);
    }

private:
    static QString keyOf(const GroupVersionResource &gvr, const QString &ns, const QString &name)
    {
        return gvr.toString() + QLatin1Char('/') + ns + QLatin1Char('/') + name;
    }
    static Status status(int code, const QString &reason, const QString &message)
    {
        Status s;
        s.code = code;
        s.reason = reason;
        s.message = message;
        return s;
    }
    static Status notFound(const GroupVersionResource &gvr, const QString &name)
    {
        return status(404, QStringLiteral("NotFound"),
            QStringLiteral("%1 \"%2\" not found").arg(gvr.resource, name));
    }
    static Status conflict(const GroupVersionResource &gvr, const QString &name)
    {
        return status(409, QStringLiteral("Conflict"),
            QStringLiteral("Operation cannot be fulfilled on %1 \"%2\": the object has been "
                           "modified; please apply your changes to the latest version and try "
                           "again")
                .arg(gvr.resource, name));
    }

    Action action(
        const char *verb, const GroupVersionResource &gvr, const QString &ns, const QString &name)
    {
        Action a;
        a.verb = QLatin1String(verb);
        a.resource = gvr.resource;
        a.namespaceName = ns;
        a.name = name;
        return a;
    }

    // With m_mutex held: records the action, and asks the reactors.
    std::optional<ObjectResult> react(const Action &a)
    {
        m_actions.push_back(a);
        for (const Reactor &reactor : m_reactors) {
            if (std::optional<ObjectResult> r = reactor(a))
                return r;
        }
        return std::nullopt;
    }

    // With m_mutex held.
    Object store(const QString &key, Object object)
    {
        object.setResourceVersion(QString::number(++m_version));
        m_objects.insert(key, object);
        return object;
    }

    ObjectResult write(const char *verb, const GroupVersionResource &gvr, const Object &object,
        const WriteOptions &options, const QString &subresource)
    {
        Action a = action(verb, gvr, object.namespaceName(), object.name());
        a.subresource = subresource;
        a.object = object;
        a.writeOptions = options;
        std::unique_lock lock(m_mutex);
        if (auto r = react(a))
            return *r;
        const QString key = keyOf(gvr, object.namespaceName(), object.name());
        const auto it = m_objects.find(key);
        if (it == m_objects.end())
            return notFound(gvr, object.name());
        if (!object.resourceVersion().isEmpty()
            && object.resourceVersion() != it->resourceVersion())
            return conflict(gvr, object.name());
        Object updated = *it;
        if (subresource == QLatin1String("status")) {
            updated.json().insert(
                QStringLiteral("status"), object.json().value(QLatin1String("status")));
        } else {
            const QJsonValue status = it->json().value(QLatin1String("status"));
            updated = object;
            updated.json().insert(QStringLiteral("metadata"),
                mergePatch(object.json().value(QLatin1String("metadata")),
                    QJsonObject {{QStringLiteral("uid"), it->uid()}}));
            if (status.isUndefined())
                updated.json().remove(QStringLiteral("status"));
            else
                updated.json().insert(QStringLiteral("status"), status);
        }
        return notify(lock, gvr, WatchEvent::Type::Modified, store(key, updated));
    }

    // Unlocks, and tells the watcher.
    Object notify(std::unique_lock<std::mutex> &lock, const GroupVersionResource &gvr,
        WatchEvent::Type type, const Object &object)
    {
        const Watcher watcher = m_watcher;
        lock.unlock();
        if (watcher)
            watcher(gvr, type, object);
        return object;
    }

    mutable std::mutex m_mutex;
    QHash<QString, Object> m_objects; // guarded by m_mutex
    std::vector<Action> m_actions; // guarded by m_mutex
    std::vector<Reactor> m_reactors; // guarded by m_mutex
    Watcher m_watcher; // guarded by m_mutex
    qint64 m_version = 0; // guarded by m_mutex
};

} // namespace qcm::samples::testing
