// SPDX-License-Identifier: Apache-2.0
// Durations as Go writes them ("1m30s", "500ms", "12h0m0s"): how kube-controller-manager's
// flags and configuration files spell them (time.ParseDuration and Duration.String).
//
// Thread safety: reentrant.
#pragma once

#include <qcm/clock.h>
#include <qcm/result.h>

namespace qcm::host {

// time.ParseDuration: a possibly signed sequence of decimal numbers, each with an optional
// fraction and a unit (ns, us, µs, ms, s, m, h), or "0". The error reason is Go's message
// ("missing unit in duration \"10\"") plus an example of the right form.
Result<Duration> parseDuration(const QString &text);

// time.Duration.String: "0s", "1.5ms", "2s", "1m30s", "12h0m0s".
QString formatDuration(Duration duration);

} // namespace qcm::host
