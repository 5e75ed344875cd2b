// SPDX-License-Identifier: Apache-2.0
// In-cluster configuration: what a pod uses to reach its own API server
// (client-go's rest.InClusterConfig).
//
// Reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, and from the service-account
// directory the CA (ca.crt), the namespace (namespace) and the token (token). The token is
// handed over as a file, so the client re-reads it as the kubelet rotates it.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/restconfig.h>
#include <qcm/result.h>

namespace qcm::client {

struct InClusterOptions
{
    // Where the kubelet mounts the service-account token; tests point it elsewhere.
    QString serviceAccountDir = QStringLiteral("/var/run/secrets/kubernetes.io/serviceaccount");
};

QCM_SDK_EXPORT Result<RestConfig> inClusterConfig(const InClusterOptions &options = {});

} // namespace qcm::client
