// SPDX-License-Identifier: Apache-2.0
// Collectable: anything a Registry can collect metric families from.
//
// Families are Collectables; so are custom collectors such as process metrics, which compute
// their values at scrape time.
//
// Thread safety: collect() is called from the scraping thread, concurrently with updates.
#pragma once

#include <qcm/metrics/metricfamily.h>

namespace qcm::metrics {

class QCM_SDK_EXPORT Collectable
{
public:
    virtual ~Collectable();
    virtual std::vector<MetricFamily> collect() const = 0;
};

} // namespace qcm::metrics
