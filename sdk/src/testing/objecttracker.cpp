// SPDX-License-Identifier: Apache-2.0
#include <qcm/testing/objecttracker.h>

#include <qcm/cache/labelselector.h>
#include <qcm/client/client.h>
#include <qcm/client/patch.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRandomGenerator>
#include <QtCore/QSet>
#include <QtCore/QUuid>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

namespace qcm::testing {

using namespace qcm::client;

namespace {

// A watch on the tracker: events pushed under the tracker's lock, taken by the consumer.
class TrackerWatch final : public WatchStream
{
public:
    TrackerWatch(QString resource, QString namespaceName, cache::LabelSelector labels)
        : gvr(std::move(resource)), ns(std::move(namespaceName)), selector(std::move(labels))
    { }
    void push(const WatchEvent &e)
    {
        std::lock_guard lock(m_mutex);
        if (!m_stopped)
            m_events.push_back(e);
        m_changed.notify_all();
    }
    std::optional<WatchEvent> next(Duration timeout) override
    {
        std::unique_lock lock(m_mutex);
        auto ready = [&] { return !m_events.empty() || m_stopped; };
        if (timeout == Duration::max())
            m_changed.wait(lock, ready);
        else
            m_changed.wait_for(lock, timeout, ready);
        if (m_events.empty())
            return std::nullopt;
        WatchEvent e = m_events.front();
        m_events.pop_front();
        return e;
    }
    void stop() override
    {
        std::lock_guard lock(m_mutex);
        m_stopped = true;
        m_events.clear();
        m_changed.notify_all();
    }
    bool stopped()
    {
        std::lock_guard lock(m_mutex);
        return m_stopped;
    }
    bool wants(const QString &g, const Object &o) const
    {
        return g == gvr && (ns.isEmpty() || o.namespaceName() == ns)
            && selector.matches(o.labels());
    }

    const QString gvr;
    const QString ns;
    const cache::LabelSelector selector;

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<WatchEvent> m_events;
    bool m_stopped = false;
};

struct LoggedEvent
{
    QString gvr;
    quint64 resourceVersion;
    WatchEvent event;
};

QString qualified(const GroupVersionResource &gvr)
{
    return gvr.group.isEmpty() ? gvr.resource : gvr.resource + QLatin1Char('.') + gvr.group;
}

Status status(int code, const QString &reason, const QString &message,
    const GroupVersionResource &gvr, const QString &name)
{
    Status s;
    s.code = code;
    s.reason = reason;
    s.message = message;
    s.detailsName = name;
    s.detailsGroup = gvr.group;
    s.detailsKind = gvr.resource;
    return s;
}

Status notFound(const GroupVersionResource &gvr, const QString &name)
{
    return notFoundStatus(gvr, name);
}

Status conflict(const GroupVersionResource &gvr, const QString &name, const QString &why)
{
    return status(409, QStringLiteral("Conflict"),
        QStringLiteral("Operation cannot be fulfilled on %1 \"%2\": %3")
            .arg(qualified(gvr), name, why),
        gvr, name);
}

const QString Stale = QStringLiteral(
    "the object has been modified; please apply your changes to the latest version and try again");

QJsonObject metadataOf(const QJsonObject &o)
{
    return o.value(QLatin1String("metadata")).toObject();
}

QString metaString(const QJsonObject &o, const char *field)
{
    return metadataOf(o).value(QLatin1String(field)).toString();
}

void setMeta(QJsonObject &o, const char *field, const QJsonValue &value)
{
    QJsonObject m = metadataOf(o);
    if (value.isUndefined())
        m.remove(QLatin1String(field));
    else
        m.insert(QLatin1String(field), value);
    o.insert(QLatin1String("metadata"), m);
}

// What generation counts: everything but metadata and status.
QJsonObject specPart(QJsonObject o)
{
    o.remove(QLatin1String("metadata"));
    o.remove(QLatin1String("status"));
    return o;
}

bool fieldSelectorMatches(const QString &selector, const Object &o)
{
    for (const QString &term : selector.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const bool negate = term.contains(QStringLiteral("!="));
        const QStringList kv = term.split(negate      ? QStringLiteral("!=")
                : term.contains(QStringLiteral("==")) ? QStringLiteral("==")
                                                      : QStringLiteral("="));
        if (kv.size() != 2)
            return false;
        const QString actual = kv[0] == QLatin1String("metadata.name") ? o.name()
            : kv[0] == QLatin1String("metadata.namespace")             ? o.namespaceName()
                                                                       : QString();
        if ((actual == kv[1]) == negate)
            return false;
    }
    return true;
}

} // namespace

struct ObjectTracker::Private
{
    mutable std::mutex mutex;
    quint64 resourceVersion = 1000;
    std::map<QString, QJsonObject> objects; // "<gvr>|<ns>|<name>"
    QSet<QString> statusSubresources;
    QList<LoggedEvent> log;
    QList<std::weak_ptr<TrackerWatch>> watches;

    static QString key(const GroupVersionResource &gvr, const QString &ns, const QString &name)
    {
        return gvr.toString() + QLatin1Char('|') + ns + QLatin1Char('|') + name;
    }
    bool hasStatus(const GroupVersionResource &gvr) const
    {
        return statusSubresources.contains(gvr.toString());
    }

    // Stamps the next resourceVersion, stores or drops the object, and tells the watches.
    Object commit(const GroupVersionResource &gvr, const QString &key, QJsonObject object,
        WatchEvent::Type type)
    {
        setMeta(object, "resourceVersion", QString::number(++resourceVersion));
        if (type == WatchEvent::Type::Deleted)
            objects.erase(key);
        else
            objects[key] = object;
        WatchEvent e;
        e.type = type;
        e.object = Object(object);
        log.append({gvr.toString(), resourceVersion, e});
        for (qsizetype i = watches.size() - 1; i >= 0; --i) {
            const auto w = watches.at(i).lock();
            if (!w || w->stopped())
                watches.removeAt(i);
            else if (w->wants(gvr.toString(), e.object))
                w->push(e);
        }
        return e.object;
    }

    // `seed`: an object as it exists on a server (add()), which keeps the uid,
    // creationTimestamp and deletionTimestamp it was given.
    ObjectResult create(const GroupVersionResource &gvr, QJsonObject object, bool seed = false)
    {
        QString name = metaString(object, "name");
        const QString ns = metaString(object, "namespace");
        if (!metaString(object, "resourceVersion").isEmpty())
            return status(400, QStringLiteral("BadRequest"),
                QStringLiteral("resourceVersion should not be set on objects to be created"), gvr,
                name);
        if (name.isEmpty()) {
            const QString generate = metaString(object, "generateName");
            if (generate.isEmpty())
                return status(422, QStringLiteral("Invalid"),
                    QStringLiteral("%1 \"\" is invalid: metadata.name: Required value: name or "
                                   "generateName is required")
                        .arg(object.value(QLatin1String("kind")).toString()),
                    gvr, name);
            // The API server's names.SimpleNameGenerator: five of these.
            static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
            do {
                name = generate;
                for (int i = 0; i < 5; ++i)
                    name += QLatin1Char(
                        alphabet[QRandomGenerator::global()->bounded(int(sizeof alphabet - 1))]);
            } while (objects.count(key(gvr, ns, name)));
            setMeta(object, "name", name);
        }
        const QString k = key(gvr, ns, name);
        if (objects.count(k))
            return status(409, QStringLiteral("AlreadyExists"),
                QStringLiteral("%1 \"%2\" already exists").arg(qualified(gvr), name), gvr, name);
        if (!seed || metaString(object, "uid").isEmpty())
            setMeta(object, "uid", QUuid::createUuid().toString(QUuid::WithoutBraces));
        if (!seed || metaString(object, "creationTimestamp").isEmpty())
            setMeta(
                object, "creationTimestamp", QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
        if (!seed)
            setMeta(object, "deletionTimestamp", QJsonValue::Undefined);
        if (hasStatus(gvr)) {
            object.remove(QLatin1String("status")); // status is written through its subresource
            setMeta(object, "generation", 1);
        }
        return commit(gvr, k, object, WatchEvent::Type::Added);
    }

    // An update of the object at `k` to `incoming` (status: only its status).
    ObjectResult update(const GroupVersionResource &gvr, const QString &k,
        const QJsonObject &incoming, bool statusOnly)
    {
        const auto it = objects.find(k);
        const QString name = metaString(incoming, "name");
        if (it == objects.end())
            return notFound(gvr, name);
        const QJsonObject stored = it->second;
        const QString rv = metaString(incoming, "resourceVersion");
        if (!rv.isEmpty() && rv != metaString(stored, "resourceVersion"))
            return conflict(gvr, name, Stale);
        QJsonObject result;
        if (statusOnly) {
            result = stored;
            if (incoming.contains(QLatin1String("status")))
                result.insert(QLatin1String("status"), incoming.value(QLatin1String("status")));
            else
                result.remove(QLatin1String("status"));
        } else {
            result = incoming;
            if (hasStatus(gvr)) {
                if (stored.contains(QLatin1String("status")))
                    result.insert(QLatin1String("status"), stored.value(QLatin1String("status")));
                else
                    result.remove(QLatin1String("status"));
            }
            for (const char *system : {"uid", "creationTimestamp", "deletionTimestamp",
                     "deletionGracePeriodSeconds", "generation", "namespace", "name"})
                setMeta(result, system, metadataOf(stored).value(QLatin1String(system)));
            if (hasStatus(gvr) && specPart(result) != specPart(stored))
                setMeta(result, "generation",
                    metadataOf(stored).value(QLatin1String("generation")).toInteger() + 1);
        }
        setMeta(result, "resourceVersion", metaString(stored, "resourceVersion"));
        if (result == stored)
            return Object(stored); // the API server writes nothing for a no-op update
        if (metadataOf(result).contains(QLatin1String("deletionTimestamp"))
            && metadataOf(result).value(QLatin1String("finalizers")).toArray().isEmpty())
            return commit(gvr, k, result, WatchEvent::Type::Deleted);
        return commit(gvr, k, result, WatchEvent::Type::Modified);
    }
};

ObjectTracker::ObjectTracker() : d(std::make_unique<Private>()) { }
ObjectTracker::~ObjectTracker() = default;

void ObjectTracker::addStatusSubresource(const GroupVersionResource &gvr)
{
    std::lock_guard lock(d->mutex);
    d->statusSubresources.insert(gvr.toString());
}

ObjectResult ObjectTracker::add(const GroupVersionResource &gvr, const Object &object)
{
    std::lock_guard lock(d->mutex);
    QJsonObject json = object.json();
    const QJsonValue status = json.value(QLatin1String("status"));
    setMeta(json, "resourceVersion", QJsonValue::Undefined);
    auto created = d->create(gvr, json, true);
    if (!created || status.isUndefined() || !d->hasStatus(gvr))
        return created;
    // A seeded object keeps the status it was given.
    json = created->json();
    json.insert(QLatin1String("status"), status);
    return d->update(gvr, Private::key(gvr, created->namespaceName(), created->name()), json, true);
}

ObjectResult ObjectTracker::get(
    const GroupVersionResource &gvr, const QString &ns, const QString &name) const
{
    std::lock_guard lock(d->mutex);
    const auto it = d->objects.find(Private::key(gvr, ns, name));
    if (it == d->objects.end())
        return notFound(gvr, name);
    return Object(it->second);
}

ListResult ObjectTracker::list(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options) const
{
    auto selector = cache::LabelSelector::parse(options.labelSelector);
    if (!selector)
        return status(400, QStringLiteral("BadRequest"),
            QStringLiteral("unable to parse requirement: %1").arg(selector.error().reason), gvr,
            {});
    std::lock_guard lock(d->mutex);
    ObjectList out;
    const QString prefix
        = gvr.toString() + QLatin1Char('|') + (ns.isEmpty() ? QString() : ns + QLatin1Char('|'));
    for (auto it = d->objects.lower_bound(prefix);
         it != d->objects.end() && it->first.startsWith(prefix); ++it) {
        const Object o(it->second);
        if (selector->matches(o.labels()) && fieldSelectorMatches(options.fieldSelector, o))
            out.items.append(o);
    }
    out.resourceVersion = QString::number(d->resourceVersion);
    return out;
}

ObjectResult ObjectTracker::create(const GroupVersionResource &gvr, const Object &object)
{
    std::lock_guard lock(d->mutex);
    return d->create(gvr, object.json());
}

ObjectResult ObjectTracker::update(
    const GroupVersionResource &gvr, const Object &object, bool status)
{
    std::lock_guard lock(d->mutex);
    if (status && !d->hasStatus(gvr))
        return notFound(gvr, object.name());
    return d->update(
        gvr, Private::key(gvr, object.namespaceName(), object.name()), object.json(), status);
}

ObjectResult ObjectTracker::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options)
{
    Q_UNUSED(options);
    std::lock_guard lock(d->mutex);
    const QString k = Private::key(gvr, ns, name);
    const auto it = d->objects.find(k);
    auto invalid = [&](const QString &message) {
        return status(422, QStringLiteral("Invalid"), message, gvr, name);
    };
    QJsonObject patched;
    switch (type) {
    case PatchType::StrategicMerge:
        return status(415, QStringLiteral("UnsupportedMediaType"),
            QStringLiteral(
                "the fake client does not apply strategic merge patches; use a merge patch"),
            gvr, name);
    case PatchType::Merge:
    case PatchType::Apply: {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(patch, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject())
            return status(400, QStringLiteral("BadRequest"),
                QStringLiteral("the patch is not a JSON object"), gvr, name);
        if (it == d->objects.end()) {
            if (type != PatchType::Apply)
                return notFound(gvr, name);
            QJsonObject object = doc.object();
            setMeta(object, "namespace",
                ns.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(ns));
            setMeta(object, "name", name);
            return d->create(gvr, object);
        }
        patched = applyMergePatch(it->second, doc.object()).toObject();
        break;
    }
    case PatchType::Json: {
        if (it == d->objects.end())
            return notFound(gvr, name);
        auto result = applyJsonPatch(it->second, patch);
        if (!result)
            return invalid(result.error().field + QStringLiteral(": ") + result.error().reason);
        if (!result->isObject())
            return invalid(QStringLiteral("the patched document is not an object"));
        patched = result->toObject();
        break;
    }
    }
    // A patch that does not name a resourceVersion is unconditional.
    if (metaString(patched, "resourceVersion").isEmpty())
        setMeta(patched, "resourceVersion", metaString(it->second, "resourceVersion"));
    return d->update(gvr, k, patched, false);
}

ObjectResult ObjectTracker::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    std::lock_guard lock(d->mutex);
    const QString k = Private::key(gvr, ns, name);
    const auto it = d->objects.find(k);
    if (it == d->objects.end())
        return notFound(gvr, name);
    QJsonObject object = it->second;
    if (!options.preconditionUid.isEmpty() && options.preconditionUid != metaString(object, "uid"))
        return conflict(gvr, name,
            QStringLiteral("Precondition failed: UID in precondition: %1, UID in object meta: %2")
                .arg(options.preconditionUid, metaString(object, "uid")));
    if (!options.preconditionResourceVersion.isEmpty()
        && options.preconditionResourceVersion != metaString(object, "resourceVersion"))
        return conflict(gvr, name,
            QStringLiteral("Precondition failed: ResourceVersion in precondition: %1, "
                           "ResourceVersion in object meta: %2")
                .arg(options.preconditionResourceVersion, metaString(object, "resourceVersion")));
    if (!metadataOf(object).value(QLatin1String("finalizers")).toArray().isEmpty()) {
        if (metadataOf(object).contains(QLatin1String("deletionTimestamp")))
            return Object(object); // already being deleted
        setMeta(object, "deletionTimestamp", QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
        setMeta(object, "deletionGracePeriodSeconds", 0);
        return d->commit(gvr, k, object, WatchEvent::Type::Modified);
    }
    return d->commit(gvr, k, object, WatchEvent::Type::Deleted);
}

Result<std::shared_ptr<WatchStream>, Status> ObjectTracker::watch(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options)
{
    auto selector = cache::LabelSelector::parse(options.labelSelector);
    if (!selector)
        return status(400, QStringLiteral("BadRequest"), selector.error().reason, gvr, {});
    auto w = std::make_shared<TrackerWatch>(gvr.toString(), ns, *selector);
    std::lock_guard lock(d->mutex);
    bool ok = false;
    const quint64 from = options.resourceVersion.toULongLong(&ok);
    if (ok && from > 0)
        for (const LoggedEvent &e : std::as_const(d->log))
            if (e.resourceVersion > from && w->wants(e.gvr, e.event.object))
                w->push(e.event);
    d->watches.append(w);
    return std::shared_ptr<WatchStream>(w);
}

} // namespace qcm::testing
