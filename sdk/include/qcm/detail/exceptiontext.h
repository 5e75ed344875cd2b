// SPDX-License-Identifier: Apache-2.0
// exceptionText: what an exception caught with catch (...) says, for logs and errors: its
// what() for a std::exception, a fixed text otherwise. Used where plugin code is called (the
// Controller's workers and handlers, the host's factory calls). Not plugin API.
//
// Thread safety: reentrant.
#pragma once

#include <QtCore/QString>

#include <exception>

namespace qcm::detail {

inline QString exceptionText(const std::exception_ptr &exception)
{
    try {
        std::rethrow_exception(exception);
    } catch (const std::exception &e) {
        return QString::fromLocal8Bit(e.what());
    } catch (...) {
        return QStringLiteral("an exception that is not a std::exception");
    }
}

} // namespace qcm::detail
