// SPDX-License-Identifier: Apache-2.0
#include <qcm/builder/controllerbuilder.h>

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/ownerkey.h>

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
        // The keys an owned or mapped object's event enqueues; a For watch enqueues the object
        // itself (Controller::enqueue(Object), which warns about an object without a key).
        std::function<QStringList(const Object &)> keysOf;
        switch (w.kind) {
        case Watch::Kind::For:
            m_controller.setPrimaryInformer(factory->informerFor(w.gvr));
            break;
        case Watch::Kind::Owns:
            keysOf = [group = m_forGroup, kind = m_forKind, scope = m_forScope](const Object &o) {
                const std::optional<QString> key = controllerOwnerKey(o, group, kind, scope);
                return key ? QStringList {*key} : QStringList();
            };
            break;
        case Watch::Kind::Map:
            keysOf = w.map;
            break;
        }
        auto enqueueKeys = [c](const QStringList &keys) {
            for (const QString &key : keys)
                c->enqueue(key);
        };
        auto enqueue = [c, keysOf, enqueueKeys](const Object &o) {
            if (keysOf)
                enqueueKeys(keysOf(o));
            else
                c->enqueue(o);
        };
        // An update may change an object's owner or mapping: the keys of the old and the new
        // object, each once (controller-runtime's handlers collect them in a set). Enqueued
        // one by one, a key both give could be picked by a worker in between and reconciled
        // twice, the second time against a cache that has not seen the first one's write.
        m_controller.addEventHandler(factory->informerFor(w.gvr),
            {[filter, enqueue](const Object &o, bool) {
                 if (filter.passesCreate(o))
                     enqueue(o);
             },
                [filter, keysOf, enqueue, enqueueKeys](const Object &old, const Object &now) {
                    if (!filter.passesUpdate(old, now))
                        return;
                    if (!keysOf)
                        return enqueue(now);
                    QStringList keys = keysOf(old) + keysOf(now);
                    keys.removeDuplicates();
                    enqueueKeys(keys);
                },
                [filter, enqueue](const Object &o, bool) {
                    if (filter.passesRemove(o))
                        enqueue(o);
                }});
    }
    return std::nullopt;
}

} // namespace qcm::builder
