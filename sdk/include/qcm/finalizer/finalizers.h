// SPDX-License-Identifier: Apache-2.0
// Finalizers: a registry of cleanup steps keyed by finalizer name (controller-runtime's
// pkg/finalizer). In reconcile():
//
//     const finalizer::Outcome out = m_finalizers.finalize(object);
//     if (out.updated) client.update(gvr, object);   // a finalizer added, or one removed
//
// finalize() adds every registered finalizer an object that is not being deleted lacks; on an
// object being deleted (deletionTimestamp set) it runs the step of each registered finalizer
// the object still has, and removes the finalizer once its step succeeded. A failed step keeps
// its finalizer (the API server keeps the object) and its error is returned; the others still
// run. The caller writes the object: finalize() only changes it in memory.
//
// Thread safety: register before use; finalize() may then be called from any thread, and
// steps must be thread-safe as reconcile() is.
#pragma once

#include <qcm/client/object.h>
#include <qcm/error.h>
#include <qcm/result.h>

#include <functional>
#include <map>
#include <optional>

namespace qcm::finalizer {

// What a step changed besides removing its finalizer (controller-runtime's finalizer.Result).
struct StepResult
{
    bool updated = false; // it changed the object
    bool statusUpdated = false; // it changed the object's status
};

// A cleanup step; an Error keeps the finalizer.
using Finalizer = std::function<Result<StepResult>(client::Object &object)>;

struct QCM_SDK_EXPORT Outcome
{
    bool updated = false; // finalizers added or removed, or a step changed the object
    bool statusUpdated = false;
    QList<Error> errors; // of the steps that failed
};

class QCM_SDK_EXPORT Finalizers
{
public:
    // An error when `key` is registered already.
    std::optional<Error> registerFinalizer(const QString &key, Finalizer finalizer);
    Outcome finalize(client::Object &object) const;

private:
    std::map<QString, Finalizer> m_finalizers;
};

} // namespace qcm::finalizer
