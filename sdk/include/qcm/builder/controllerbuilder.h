// SPDX-License-Identifier: Apache-2.0
// ControllerBuilder: wires a Controller's watches the way controller-runtime's builder does
// (builder.ControllerManagedBy(mgr).For(...).Owns(...).Watches(...).WithEventFilter(...)),
// in the Controller's constructor:
//
//     ControllerBuilder(*this)
//         .forKind<samplecontroller::v1alpha1::Foo>(predicate::generationChanged())
//         .owns<apps::v1::Deployment>()
//         .watches<core::v1::ConfigMap>([](const client::Object &cm) { return keysUsing(cm); })
//         .withMaxConcurrentReconciles(4)
//         .complete();
//
// - forKind / forResource: the reconciled kind; every create, update and delete of one of its
//   objects enqueues its key. Exactly one.
// - owns: objects the reconciled kind controls; an event enqueues the key of the object's
//   controller owner of the reconciled kind (its old and new owner on an update).
// - watches: any other resource; the map function turns an object into the keys to enqueue.
// - withEventFilter: a predicate every event of every watch must also pass.
// Informers come from the controller's context (informerFactory(), all namespaces), and
// handlers are registered through the Controller, so events still arrive through the Qt event
// loop and the workers start once every informer has synced.
//
// Thread safety: use from the Controller's thread, before it starts.
#pragma once

#include <qcm/controller.h>
#include <qcm/predicate/predicate.h>

#include <functional>

namespace qcm::builder {

class QCM_SDK_EXPORT ControllerBuilder
{
public:
    using MapFunction = std::function<QStringList(const client::Object &object)>;

    explicit ControllerBuilder(Controller &controller);

    ControllerBuilder &forResource(const client::GroupVersionResource &gvr, const QString &kind,
        OwnerScope scope = OwnerScope::Namespaced, const predicate::Predicate &filter = {});
    template<typename Kind>
    ControllerBuilder &forKind(const predicate::Predicate &filter = {})
    {
        return forResource(Kind::groupVersionResource(), Kind::groupVersionKind().kind,
            Kind::Namespaced ? OwnerScope::Namespaced : OwnerScope::Cluster, filter);
    }
    ControllerBuilder &owns(
        const client::GroupVersionResource &gvr, const predicate::Predicate &filter = {});
    template<typename Kind>
    ControllerBuilder &owns(const predicate::Predicate &filter = {})
    {
        return owns(Kind::groupVersionResource(), filter);
    }
    ControllerBuilder &watches(const client::GroupVersionResource &gvr, MapFunction map,
        const predicate::Predicate &filter = {});
    template<typename Kind>
    ControllerBuilder &watches(MapFunction map, const predicate::Predicate &filter = {})
    {
        return watches(Kind::groupVersionResource(), std::move(map), filter);
    }
    ControllerBuilder &withEventFilter(const predicate::Predicate &filter);
    // controller-runtime's MaxConcurrentReconciles (default: the context's workers).
    ControllerBuilder &withMaxConcurrentReconciles(int workers);

    // Registers the watches. An error, and nothing registered, when forKind/forResource was
    // not called exactly once, or the context has no informer factory.
    std::optional<Error> complete();

private:
    struct Watch
    {
        enum class Kind { For, Owns, Map } kind;
        client::GroupVersionResource gvr;
        predicate::Predicate filter;
        MapFunction map;
    };
    Controller &m_controller;
    QList<Watch> m_watches;
    QList<predicate::Predicate> m_filters;
    QString m_forGroup;
    QString m_forKind;
    OwnerScope m_forScope = OwnerScope::Namespaced;
    int m_fors = 0;
    int m_workers = 0;
};

} // namespace qcm::builder
