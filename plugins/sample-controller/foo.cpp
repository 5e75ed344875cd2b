// SPDX-License-Identifier: Apache-2.0
#include "foo.h"

#include <qcm/api/apps/v1.h>
#include <qcm/controllerutil/controllerutil.h>

namespace qcm::samples {

using namespace qcm::api;

QString messageResourceExists(const QString &deploymentName)
{
    return QStringLiteral("Resource \"%1\" already exists and is not managed by Foo")
        .arg(deploymentName);
}

client::Object newDeployment(const Foo &foo)
{
    const QMap<QString, QString> labels {{QStringLiteral("app"), QStringLiteral("nginx")},
        {QStringLiteral("controller"), foo.name()}};
    apps::v1::DeploymentSpecBuilder spec
        = apps::v1::DeploymentSpec::build()
              .selector(meta::v1::LabelSelector::build().matchLabels(labels))
              .template_(core::v1::PodTemplateSpec::build()
                             .metadata(meta::v1::ObjectMeta::build().labels(labels))
                             .spec(core::v1::PodSpec::build().containers(
                                 {core::v1::Container::build()
                                         .name(QStringLiteral("nginx"))
                                         .image(QStringLiteral("nginx:latest"))})));
    // The CRD bounds replicas to 1..10, so the int32 of the Deployment holds it.
    if (const std::optional<qint64> replicas = foo.spec().replicas())
        spec.replicas(qint32(*replicas));
    client::Object deployment = apps::v1::Deployment::build()
                                    .name(foo.spec().deploymentName().value_or(QString()))
                                    .namespaceName(foo.namespaceName())
                                    .spec(spec)
                                    .object();
    // It fails only for a Foo without uid (see the header): the Foo is namespaced, in the
    // Deployment's namespace, and a new Deployment has no other controller.
    controllerutil::setControllerReference(foo.object(), deployment);
    return deployment;
}

} // namespace qcm::samples
