// SPDX-License-Identifier: Apache-2.0
// The built-in resources the sample controllers read and write.
//
// Plain values.
#pragma once

#include <qcm/client/resource.h>

namespace qcm::samples {

inline const client::GroupVersionResource Deployments {
    QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")};
inline const client::GroupVersionResource Jobs {
    QStringLiteral("batch"), QStringLiteral("v1"), QStringLiteral("jobs")};
inline const client::GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};

} // namespace qcm::samples
