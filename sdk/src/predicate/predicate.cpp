// SPDX-License-Identifier: Apache-2.0
#include <qcm/predicate/predicate.h>

namespace qcm::predicate {

using client::Object;

Predicate generationChanged()
{
    return {
        {}, [](const Object &o, const Object &n) { return o.generation() != n.generation(); }, {}};
}

Predicate resourceVersionChanged()
{
    return {{},
        [](const Object &o, const Object &n) { return o.resourceVersion() != n.resourceVersion(); },
        {}};
}

Predicate labelChanged()
{
    return {{}, [](const Object &o, const Object &n) { return o.labels() != n.labels(); }, {}};
}

Predicate annotationChanged()
{
    return {{}, [](const Object &o, const Object &n) { return o.annotations() != n.annotations(); },
        {}};
}

Predicate labelSelector(const cache::LabelSelector &selector)
{
    auto matches = [selector](const Object &o) { return selector.matches(o.labels()); };
    return {matches, [matches](const Object &, const Object &n) { return matches(n); }, matches};
}

Predicate and_(const QList<Predicate> &predicates)
{
    return {[predicates](const Object &o) {
                return std::all_of(predicates.begin(), predicates.end(),
                    [&](const Predicate &p) { return p.passesCreate(o); });
            },
        [predicates](const Object &o, const Object &n) {
            return std::all_of(predicates.begin(), predicates.end(),
                [&](const Predicate &p) { return p.passesUpdate(o, n); });
        },
        [predicates](const Object &o) {
            return std::all_of(predicates.begin(), predicates.end(),
                [&](const Predicate &p) { return p.passesRemove(o); });
        }};
}

Predicate or_(const QList<Predicate> &predicates)
{
    return {[predicates](const Object &o) {
                return std::any_of(predicates.begin(), predicates.end(),
                    [&](const Predicate &p) { return p.passesCreate(o); });
            },
        [predicates](const Object &o, const Object &n) {
            return std::any_of(predicates.begin(), predicates.end(),
                [&](const Predicate &p) { return p.passesUpdate(o, n); });
        },
        [predicates](const Object &o) {
            return std::any_of(predicates.begin(), predicates.end(),
                [&](const Predicate &p) { return p.passesRemove(o); });
        }};
}

Predicate not_(const Predicate &predicate)
{
    return {[predicate](const Object &o) { return !predicate.passesCreate(o); },
        [predicate](const Object &o, const Object &n) { return !predicate.passesUpdate(o, n); },
        [predicate](const Object &o) { return !predicate.passesRemove(o); }};
}

} // namespace qcm::predicate
