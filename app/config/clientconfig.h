// SPDX-License-Identifier: Apache-2.0
// The REST client's configuration from --kubeconfig and --master, as kube-controller-manager
// builds it (clientcmd.BuildConfigFromFlags), with --kube-api-qps and --kube-api-burst:
//
//   neither given        the in-cluster configuration (a pod's service account; its
//                        directory is $QCM_SERVICE_ACCOUNT_DIR if set)
//   --kubeconfig only    that file's current context
//   --master only        that server, without credentials
//   both                 the file's current context, with --master as the server
//
// Thread safety: reentrant.
#pragma once

#include "config/config.h"

#include <qcm/client/restconfig.h>

namespace qcm::host {

Result<client::RestConfig> buildClientConfig(const ControllerManagerConfig &config);

// clientConnection.watchTransport: "dedicated" or "shared" (docs/client.md, "Watch transport").
Result<client::RestConfig::WatchTransport> parseWatchTransport(const QString &text);
QString watchTransportName(client::RestConfig::WatchTransport transport);

} // namespace qcm::host
