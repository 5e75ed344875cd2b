// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/resourcelock.h>

namespace qcm::leaderelection {

ResourceLock::ResourceLock(QObject *parent) : QObject(parent) { }

ResourceLock::~ResourceLock() = default;

void ResourceLock::setWatching(bool) { }

} // namespace qcm::leaderelection
