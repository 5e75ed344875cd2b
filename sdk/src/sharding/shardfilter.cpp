// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/shardfilter.h>

namespace qcm::sharding {

ShardFilter::~ShardFilter() = default;

} // namespace qcm::sharding
