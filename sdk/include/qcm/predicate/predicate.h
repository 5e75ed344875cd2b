// SPDX-License-Identifier: Apache-2.0
// Predicates: which events reach a controller's queue (controller-runtime's pkg/predicate).
// A Predicate answers, for each kind of event, whether it passes; a missing function passes
// everything of its kind (predicate.Funcs).
//
//     builder.forResource(foos, predicate::generationChanged())
//            .withEventFilter(predicate::not_(predicate::labelSelector(*selector)));
//
// The updates of a periodic resync carry the same resourceVersion; generationChanged and
// resourceVersionChanged drop them, as controller-runtime's do.
//
// Thread safety: predicates are values; their functions run on the controller's thread.
#pragma once

#include <qcm/cache/labelselector.h>
#include <qcm/client/object.h>

#include <functional>

namespace qcm::predicate {

struct QCM_SDK_EXPORT Predicate
{
    std::function<bool(const client::Object &object)> create;
    std::function<bool(const client::Object &oldObject, const client::Object &newObject)> update;
    std::function<bool(const client::Object &object)> remove;

    bool passesCreate(const client::Object &o) const { return !create || create(o); }
    bool passesUpdate(const client::Object &o, const client::Object &n) const
    {
        return !update || update(o, n);
    }
    bool passesRemove(const client::Object &o) const { return !remove || remove(o); }
};

// Updates where metadata.generation changed (spec changes of kinds that count them);
// creates and deletes pass.
QCM_SDK_EXPORT Predicate generationChanged();
// Updates where metadata.resourceVersion changed (everything but resyncs).
QCM_SDK_EXPORT Predicate resourceVersionChanged();
// Updates where the labels changed.
QCM_SDK_EXPORT Predicate labelChanged();
// Updates where the annotations changed.
QCM_SDK_EXPORT Predicate annotationChanged();
// Events of objects whose labels match; an update passes if the new object matches.
QCM_SDK_EXPORT Predicate labelSelector(const cache::LabelSelector &selector);
// controller-runtime's And, Or and Not ('and', 'or' and 'not' are C++ keywords).
QCM_SDK_EXPORT Predicate and_(const QList<Predicate> &predicates);
QCM_SDK_EXPORT Predicate or_(const QList<Predicate> &predicates);
QCM_SDK_EXPORT Predicate not_(const Predicate &predicate);

} // namespace qcm::predicate
