// SPDX-License-Identifier: Apache-2.0
// newResourceLock(): a lock chosen by name, as client-go's resourcelock.New and the seed's
// --leader-elect-resource-lock:
//
//   leases             LeaseLock (the default)
//   configmaps         ConfigMapLock
//   endpoints          EndpointsLock
//   endpointsleases    MultiLock(EndpointsLock, LeaseLock)
//   configmapsleases   MultiLock(ConfigMapLock, LeaseLock)
//
// An unknown name is an Error that lists the valid ones. An empty identity in `config`
// becomes defaultIdentity().
//
// Thread safety: newResourceLock() and defaultIdentity() are safe from any thread; the lock
// belongs to the calling thread.
#pragma once

#include <qcm/leaderelection/resourcelock.h>

#include <memory>

namespace qcm::client {
class RestClient;
}

namespace qcm::leaderelection {

inline constexpr char LeasesResourceLock[] = "leases";
inline constexpr char ConfigMapsResourceLock[] = "configmaps";
inline constexpr char EndpointsResourceLock[] = "endpoints";
inline constexpr char EndpointsLeasesResourceLock[] = "endpointsleases";
inline constexpr char ConfigMapsLeasesResourceLock[] = "configmapsleases";

QCM_SDK_EXPORT Result<std::unique_ptr<ResourceLock>> newResourceLock(const QString &lockType,
    const QString &ns, const QString &name, client::RestClient *client, ResourceLockConfig config);

// "<hostname>_<uuid>", as kube-controller-manager's identity: unique per process.
QCM_SDK_EXPORT QString defaultIdentity();

} // namespace qcm::leaderelection
