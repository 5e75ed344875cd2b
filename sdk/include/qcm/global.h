// SPDX-License-Identifier: Apache-2.0
// Export macros for the qcm SDK shared library.
#pragma once

#include <QtCore/qglobal.h>

#if defined(QCM_SDK_BUILD)
#define QCM_SDK_EXPORT Q_DECL_EXPORT
#else
#define QCM_SDK_EXPORT Q_DECL_IMPORT
#endif
