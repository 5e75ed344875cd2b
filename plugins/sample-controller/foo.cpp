// SPDX-License-Identifier: Apache-2.0
#include "foo.h"

#include <QtCore/QJsonArray>

namespace qcm::samples {

using namespace qcm::client;

QString messageResourceExists(const QString &deploymentName)
{
    return QStringLiteral("Resource \"%1\" already exists and is not managed by Foo")
        .arg(deploymentName);
}

QString fooDeploymentName(const Object &foo)
{
    return foo.json()
        .value(QLatin1String("spec"))
        .toObject()
        .value(QLatin1String("deploymentName"))
        .toString();
}

namespace {
std::optional<qint64> integerAt(const Object &object, const char *section, const char *field)
{
    const QJsonValue value
        = object.json().value(QLatin1String(section)).toObject().value(QLatin1String(field));
    if (!value.isDouble())
        return std::nullopt;
    return value.toInteger();
}
} // namespace

std::optional<qint64> fooReplicas(const Object &foo)
{
    return integerAt(foo, "spec", "replicas");
}

qint64 deploymentReplicas(const Object &deployment)
{
    return integerAt(deployment, "spec", "replicas").value_or(1);
}

qint64 deploymentAvailableReplicas(const Object &deployment)
{
    return integerAt(deployment, "status", "availableReplicas").value_or(0);
}

OwnerReference newControllerRef(const Object &owner, const QString &apiVersion, const QString &kind)
{
    OwnerReference ref;
    ref.apiVersion = apiVersion;
    ref.kind = kind;
    ref.name = owner.name();
    ref.uid = owner.uid();
    ref.controller = true;
    ref.blockOwnerDeletion = true;
    return ref;
}

bool isControlledBy(const Object &object, const Object &owner)
{
    const std::optional<OwnerReference> ref = object.controllerRef();
    return ref && ref->uid == owner.uid();
}

Object newDeployment(const Object &foo)
{
    const QJsonObject labels {{QStringLiteral("app"), QStringLiteral("nginx")},
        {QStringLiteral("controller"), foo.name()}};
    Object deployment;
    deployment.setApiVersion(QStringLiteral("apps/v1"));
    deployment.setKind(QStringLiteral("Deployment"));
    deployment.setName(fooDeploymentName(foo));
    deployment.setNamespaceName(foo.namespaceName());
    deployment.setOwnerReferences(
        {newControllerRef(foo, FooGroup + QLatin1Char('/') + FooVersion, FooKind)});
    QJsonObject spec {
        {QStringLiteral("selector"), QJsonObject {{QStringLiteral("matchLabels"), labels}}},
        {QStringLiteral("template"),
            QJsonObject {
                {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("labels"), labels}}},
                {QStringLiteral("spec"),
                    QJsonObject {{QStringLiteral("containers"),
                        QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("nginx")},
                            {QStringLiteral("image"), QStringLiteral("nginx:latest")}}}}}},
            }},
    };
    if (const std::optional<qint64> replicas = fooReplicas(foo))
        spec.insert(QStringLiteral("replicas"), *replicas);
    deployment.json().insert(QStringLiteral("spec"), spec);
    return deployment;
}

Object fooWithAvailableReplicas(const Object &foo, qint64 availableReplicas)
{
    Object copy = foo; // implicitly shared: the cache's object is never modified
    QJsonObject status = copy.json().value(QLatin1String("status")).toObject();
    status.insert(QStringLiteral("availableReplicas"), availableReplicas);
    copy.json().insert(QStringLiteral("status"), status);
    return copy;
}

} // namespace qcm::samples
