// SPDX-License-Identifier: Apache-2.0
// The scalar values of flags and of controller-manager.yaml, parsed one way for both: the
// Error's reason says what was expected and what was found ("must be an integer, not
// \"abc\""); the caller adds the file, field and position.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/clock.h>
#include <qcm/result.h>

namespace qcm::host {

// strconv.ParseBool, as pflag reads bool flags: 1, t, T, TRUE, true, True, and the zeros.
Result<bool> parseBool(const QString &text);
// A decimal integer within [min, max].
Result<qint64> parseInteger(const QString &text, qint64 min, qint64 max);
// A finite decimal number (an integer, a fraction, an exponent).
Result<double> parseNumber(const QString &text);
// A Go duration (duration.h) that is not negative.
Result<Duration> parseNonNegativeDuration(const QString &text);

} // namespace qcm::host
