// SPDX-License-Identifier: Apache-2.0
#include <qcm/finalizer/finalizers.h>

#include <qcm/controllerutil/controllerutil.h>

namespace qcm::finalizer {

std::optional<Error> Finalizers::registerFinalizer(const QString &key, Finalizer finalizer)
{
    if (m_finalizers.count(key))
        return Error {
            {}, key, QStringLiteral("finalizer for key \"%1\" already registered").arg(key)};
    m_finalizers.emplace(key, std::move(finalizer));
    return std::nullopt;
}

Outcome Finalizers::finalize(client::Object &object) const
{
    Outcome out;
    const bool deleting = object.deletionTimestamp().has_value();
    for (const auto &[key, step] : m_finalizers) {
        const bool present = controllerutil::containsFinalizer(object, key);
        if (!deleting && !present) {
            controllerutil::addFinalizer(object, key);
            out.updated = true;
        } else if (deleting && present) {
            const Result<StepResult> result = step(object);
            if (!result) {
                Error e = result.error();
                if (e.field.isEmpty())
                    e.field = key;
                out.errors.append(e);
                continue;
            }
            out.updated = out.updated || result->updated;
            out.statusUpdated = out.statusUpdated || result->statusUpdated;
            controllerutil::removeFinalizer(object, key);
            out.updated = true;
        }
    }
    return out;
}

} // namespace qcm::finalizer
