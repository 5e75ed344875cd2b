// SPDX-License-Identifier: Apache-2.0
// Error: what went wrong, where, and why; the error half of Result<T>.
//
// Bad input must get a precise message: `file` and `field` say where (either may be empty),
// `reason` says what is wrong. toString() joins them as "file: field: reason".
//
// Plain data; thread safety as for any value.
#pragma once

#include <qcm/global.h>

#include <QtCore/QString>

namespace qcm {

struct QCM_SDK_EXPORT Error
{
    QString file;
    QString field;
    QString reason;

    QString toString() const;
};

} // namespace qcm
