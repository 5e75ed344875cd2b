// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/leaselock.h>

#include <QtCore/QJsonDocument>

namespace qcm::leaderelection {

using namespace qcm::client;

const GroupVersionResource LeaseLock::Leases {
    QStringLiteral("coordination.k8s.io"), QStringLiteral("v1"), QStringLiteral("leases")};

struct LeaseLock::Private
{
    QMap<QString, QString> labels;
};

LeaseLock::LeaseLock(const QString &ns, const QString &name, RestClient *client,
    ResourceLockConfig config, QObject *parent)
    : ObjectLock(Leases, QStringLiteral("lease"), ns, name, client, std::move(config), parent)
    , d(std::make_unique<Private>())
{ }

LeaseLock::~LeaseLock() = default;

void LeaseLock::setLabels(const QMap<QString, QString> &labels)
{
    d->labels = labels;
}

QMap<QString, QString> LeaseLock::labels() const
{
    return d->labels;
}

GetResult LeaseLock::recordOf(const Object &object) const
{
    ObservedRecord observed;
    observed.record = LeaderElectionRecord::fromLeaseSpec(
        object.json().value(QStringLiteral("spec")).toObject());
    // client-go marshals the record it converted from the spec; the spec form of the record
    // serves the same purpose and keeps the sub-second times.
    observed.raw = QJsonDocument(observed.record.toLeaseSpec()).toJson(QJsonDocument::Compact);
    return observed;
}

Object LeaseLock::withRecord(Object object, const LeaderElectionRecord &record) const
{
    object.json().insert(QStringLiteral("spec"), record.toLeaseSpec());
    if (!d->labels.isEmpty()) {
        QMap<QString, QString> labels = object.labels();
        labels.insert(d->labels);
        object.setLabels(labels);
    }
    return object;
}

Object LeaseLock::newObject() const
{
    Object object;
    object.setApiVersion(QStringLiteral("coordination.k8s.io/v1"));
    object.setKind(QStringLiteral("Lease"));
    return object;
}

} // namespace qcm::leaderelection
