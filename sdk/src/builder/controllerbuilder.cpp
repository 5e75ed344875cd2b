// SPDX-License-Identifier: Apache-2.0
#include <qcm/builder/controllerbuilder.h>

#include <qcm/cache/sharedinformerfactory.h>

namespace qcm::builder {

using client::Object;

ControllerBuilder::ControllerBuilder(Controller &controller) : m_controller(controller) { }

ControllerBuilder &ControllerBuilder::forResource(const client::GroupVersionResource &gvr,
    const QString &kind, OwnerScope scope, const predicate::Predicate &filter)
{
    ++m_fors;
    m_forGroup = gvr.group;
    m_forKind = kind;
    m_forScope = scope;
    m_watches.append({Watch::Kind::For, gvr, filter, {}});
    return *this;
}

ControllerBuilder &ControllerBuilder::owns(
    const client::GroupVersionResource &gvr, const predicate::Predicate &filter)
{
    m_watches.append({Watch::Kind::Owns, gvr, filter, {}});
    return *this;
}

ControllerBuilder &ControllerBuilder::watches(
    const client::GroupVersionResource &gvr, MapFunction map, const predicate::Predicate &filter)
{
    m_watches.append({Watch::Kind::Map, gvr, filter, std::move(map)});
    return *this;
}

ControllerBuilder &ControllerBuilder::withEventFilter(const predicate::Predicate &filter)
{
    m_filters.append(filter);
    return *this;
}

ControllerBuilder &ControllerBuilder::withMaxConcurrentReconciles(int workers)
{
    m_workers = workers;
    return *this;
}

std::optional<Error> ControllerBuilder::complete()
{
    if (m_fors != 1)
        return Error {m_controller.name(), QStringLiteral("forKind"),
            QStringLiteral(
                "a controller reconciles exactly one kind; forKind/forResource was called %1 times")
                .arg(m_fors)};
    cache::SharedInformerFactory *factory = m_controller.context().informerFactory();
    if (!factory)
        return Error {m_controller.name(), QStringLiteral("informerFactory"),
            QStringLiteral("the controller's context has no informer factory")};
    if (m_workers > 0)
        m_controller.setMaxConcurrentReconciles(m_workers);
    Controller *c = &m_controller;
    for (const Watch &w : std::as_const(m_watches)) {
        const predicate::Predicate filter
            = predicate::and_(QList<predicate::Predicate> {w.filter} + m_filters);
        // What one object's event enqueues.
        std::function<void(const Object &)> enqueue;
        switch (w.kind) {
        case Watch::Kind::For:
            enqueue = [c](const Object &o) { c->enqueue(o); };
            break;
        case Watch::Kind::Owns:
            enqueue = [c, group = m_forGroup, kind = m_forKind, scope = m_forScope](
                          const Object &o) { c->enqueueOwner(o, group, kind, scope); };
            break;
        case Watch::Kind::Map:
            enqueue = [c, map = w.map](const Object &o) {
                for (const QString &key : map(o))
                    c->enqueue(key);
            };
            break;
        }
        const bool both = w.kind != Watch::Kind::For; // an update may change owner or mapping
        m_controller.addEventHandler(factory->informerFor(w.gvr),
            {[filter, enqueue](const Object &o, bool) {
                 if (filter.passesCreate(o))
                     enqueue(o);
             },
                [filter, enqueue, both](const Object &old, const Object &now) {
                    if (!filter.passesUpdate(old, now))
                        return;
                    if (both)
                        enqueue(old);
                    enqueue(now);
                },
                [filter, enqueue](const Object &o, bool) {
                    if (filter.passesRemove(o))
                        enqueue(o);
                }});
    }
    return std::nullopt;
}

} // namespace qcm::builder
