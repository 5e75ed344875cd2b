// SPDX-License-Identifier: Apache-2.0
#include <qcm/testing/fakeclient.h>

namespace qcm::testing {

using namespace qcm::client;

namespace {

// Lists and watches one resource of a tracker, as RestListerWatcher does of a server.
class TrackerListerWatcher final : public cache::ListerWatcher
{
public:
    TrackerListerWatcher(ObjectTracker &tracker, GroupVersionResource gvr,
        cache::SharedInformerFactory::InformerOptions options)
        : m_tracker(tracker), m_gvr(std::move(gvr)), m_options(std::move(options))
    { }
    Result<ObjectList, Status> list(const ListOptions &options) override
    {
        return m_tracker.list(m_gvr, m_options.namespaceName, withSelectors(options));
    }
    Result<std::shared_ptr<WatchStream>, Status> watch(const ListOptions &options) override
    {
        return m_tracker.watch(m_gvr, m_options.namespaceName, withSelectors(options));
    }
    // The tracker's watches do not stream the initial state: informers list (as client-go's
    // fake clientset does).
    bool isWatchListSemanticsUnsupported() const override { return true; }

private:
    ListOptions withSelectors(ListOptions options) const
    {
        options.labelSelector = m_options.labelSelector;
        options.fieldSelector = m_options.fieldSelector;
        return options;
    }

    ObjectTracker &m_tracker;
    const GroupVersionResource m_gvr;
    const cache::SharedInformerFactory::InformerOptions m_options;
};

} // namespace

FakeClient::FakeClient()
{
    const QString v1 = QStringLiteral("v1");
    const QString apps = QStringLiteral("apps");
    const QString batch = QStringLiteral("batch");
    for (const GroupVersionResource &gvr : {GroupVersionResource {{}, v1, QStringLiteral("pods")},
             GroupVersionResource {{}, v1, QStringLiteral("services")},
             GroupVersionResource {{}, v1, QStringLiteral("nodes")},
             GroupVersionResource {{}, v1, QStringLiteral("namespaces")},
             GroupVersionResource {{}, v1, QStringLiteral("persistentvolumes")},
             GroupVersionResource {{}, v1, QStringLiteral("persistentvolumeclaims")},
             GroupVersionResource {apps, v1, QStringLiteral("deployments")},
             GroupVersionResource {apps, v1, QStringLiteral("statefulsets")},
             GroupVersionResource {apps, v1, QStringLiteral("replicasets")},
             GroupVersionResource {apps, v1, QStringLiteral("daemonsets")},
             GroupVersionResource {batch, v1, QStringLiteral("jobs")},
             GroupVersionResource {batch, v1, QStringLiteral("cronjobs")}})
        m_tracker.addStatusSubresource(gvr);
}

FakeClient::~FakeClient() = default;

FakeClient &FakeClient::withStatusSubresource(const GroupVersionResource &gvr)
{
    m_tracker.addStatusSubresource(gvr);
    return *this;
}

ObjectResult FakeClient::add(const GroupVersionResource &gvr, const Object &object)
{
    return m_tracker.add(gvr, object);
}

namespace {

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

// A write of `object` (create, update, update of status): where it goes and what it carries.
Action writeAction(const char *verb, const GroupVersionResource &gvr, const Object &object,
    const WriteOptions &options, const QString &subresource = {})
{
    Action a = action(verb, gvr, object.namespaceName(), object.name());
    a.subresource = subresource;
    a.object = object;
    a.writeOptions = options;
    return a;
}

} // namespace

QString Action::toString() const
{
    return QStringLiteral("%1 %2%3 %4/%5")
        .arg(verb, resource, subresource.isEmpty() ? QString() : QLatin1Char('/') + subresource,
            namespaceName, name);
}

QList<Action> FakeClient::actions() const
{
    std::lock_guard lock(m_mutex);
    return m_actions;
}

QStringList FakeClient::actionStrings() const
{
    QStringList out;
    for (const Action &a : actions())
        out.append(a.toString());
    return out;
}

void FakeClient::clearActions()
{
    std::lock_guard lock(m_mutex);
    m_actions.clear();
}

void FakeClient::prependReactor(Reactor reactor)
{
    std::lock_guard lock(m_mutex);
    m_reactors.prepend(std::move(reactor));
}

std::optional<ObjectResult> FakeClient::record(const Action &action)
{
    QList<Reactor> reactors;
    {
        std::lock_guard lock(m_mutex);
        m_actions.append(action);
        reactors = m_reactors;
    }
    for (const Reactor &reactor : std::as_const(reactors))
        if (auto answer = reactor(action))
            return answer;
    return std::nullopt;
}

ObjectResult FakeClient::get(
    const GroupVersionResource &gvr, const QString &ns, const QString &name)
{
    if (auto answer = record(action("get", gvr, ns, name)))
        return *answer;
    return m_tracker.get(gvr, ns, name);
}

ListResult FakeClient::list(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options)
{
    Action a = action("list", gvr, ns, {});
    a.listOptions = options;
    record(a);
    return m_tracker.list(gvr, ns, options);
}

ObjectResult FakeClient::create(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    if (auto answer = record(writeAction("create", gvr, object, options)))
        return *answer;
    if (options.dryRun)
        return object;
    return m_tracker.create(gvr, object);
}

ObjectResult FakeClient::update(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    if (auto answer = record(writeAction("update", gvr, object, options)))
        return *answer;
    return m_tracker.update(gvr, object, false);
}

ObjectResult FakeClient::updateStatus(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    if (auto answer = record(writeAction("update", gvr, object, options, QStringLiteral("status"))))
        return *answer;
    return m_tracker.update(gvr, object, true);
}

ObjectResult FakeClient::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options)
{
    Action a = action("patch", gvr, ns, name);
    a.patch = patch;
    a.patchType = type;
    a.patchOptions = options;
    if (auto answer = record(a))
        return *answer;
    return m_tracker.patch(gvr, ns, name, type, patch, options);
}

ObjectResult FakeClient::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    Action a = action("delete", gvr, ns, name);
    a.deleteOptions = options;
    if (auto answer = record(a))
        return *answer;
    return m_tracker.remove(gvr, ns, name, options);
}

cache::SharedInformerFactory::ListerWatcherFactory FakeClient::listerWatcherFactory()
{
    return [this](const GroupVersionResource &gvr,
               const cache::SharedInformerFactory::InformerOptions &options) {
        return std::make_unique<TrackerListerWatcher>(m_tracker, gvr, options);
    };
}

cache::SharedInformerFactory *FakeClient::informerFactory(QObject *parent, Duration resync)
{
    return new cache::SharedInformerFactory(listerWatcherFactory(), resync, nullptr, parent);
}

} // namespace qcm::testing
