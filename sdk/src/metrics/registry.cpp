// SPDX-License-Identifier: Apache-2.0
#include <qcm/metrics/registry.h>

#include <QtCore/QRegularExpression>

#include <algorithm>
#include <stdexcept>

namespace qcm::metrics {

Collectable::~Collectable() = default;

namespace detail {

void checkMetricName(const QString &name)
{
    static const QRegularExpression valid(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
    if (!valid.match(name).hasMatch())
        throw std::invalid_argument(
            QStringLiteral("invalid metric name \"%1\": it must match [a-zA-Z_:][a-zA-Z0-9_:]*")
                .arg(name)
                .toStdString());
}

void checkLabelNames(const Labels &labels, const QString &metricName)
{
    static const QRegularExpression valid(QStringLiteral("^[a-zA-Z_][a-zA-Z0-9_]*$"));
    for (const auto &[name, value] : labels) {
        Q_UNUSED(value);
        if (!valid.match(name).hasMatch() || name.startsWith(QLatin1String("__"))
            || name == QLatin1String("le") || name == QLatin1String("quantile"))
            throw std::invalid_argument(
                QStringLiteral("invalid label name \"%1\" on metric %2: it must match "
                               "[a-zA-Z_][a-zA-Z0-9_]*, not start with __, and not be "
                               "le or quantile")
                    .arg(name, metricName)
                    .toStdString());
    }
}

} // namespace detail

struct Registry::Private
{
    struct Entry
    {
        QString help;
        MetricType type;
        std::unique_ptr<Collectable> family;
    };
    mutable std::mutex mutex;
    std::map<QString, Entry> families; // guarded by mutex
    std::vector<std::shared_ptr<Collectable>> collectables; // guarded by mutex
};

Registry::Registry() : d(std::make_unique<Private>()) { }

Registry::~Registry() = default;

Collectable &Registry::addFamily(const QString &name, const QString &help, MetricType type,
    const std::function<std::unique_ptr<Collectable>()> &make)
{
    std::lock_guard lock(d->mutex);
    if (auto it = d->families.find(name); it != d->families.end()) {
        if (it->second.type == type && it->second.help == help)
            return *it->second.family;
        throw std::invalid_argument(
            QStringLiteral("metric %1 is already registered as a %2 with help \"%3\"; it "
                           "cannot be registered again as a %4 with help \"%5\"")
                .arg(name, QLatin1String(metricTypeName(it->second.type)), it->second.help,
                    QLatin1String(metricTypeName(type)), help)
                .toStdString());
    }
    auto family = make();
    Collectable &ref = *family;
    d->families.emplace(name, Private::Entry {help, type, std::move(family)});
    return ref;
}

void Registry::registerCollectable(std::shared_ptr<Collectable> collectable)
{
    std::lock_guard lock(d->mutex);
    d->collectables.push_back(std::move(collectable));
}

bool Registry::removeCollectable(const Collectable *collectable)
{
    std::lock_guard lock(d->mutex);
    auto it = std::find_if(d->collectables.begin(), d->collectables.end(),
        [&](const auto &c) { return c.get() == collectable; });
    if (it == d->collectables.end())
        return false;
    d->collectables.erase(it);
    return true;
}

std::vector<MetricFamily> Registry::collect() const
{
    std::vector<MetricFamily> out;
    std::lock_guard lock(d->mutex);
    for (const auto &[name, entry] : d->families) {
        for (auto &family : entry.family->collect())
            out.push_back(std::move(family));
    }
    for (const auto &collectable : d->collectables) {
        for (auto &family : collectable->collect())
            out.push_back(std::move(family));
    }
    std::stable_sort(out.begin(), out.end(),
        [](const MetricFamily &a, const MetricFamily &b) { return a.name < b.name; });
    return out;
}

} // namespace qcm::metrics
