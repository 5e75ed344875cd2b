// SPDX-License-Identifier: Apache-2.0
#include "settings.h"

#include <stdexcept>

namespace qcm::samples {

std::optional<Error> unknownSetting(const QVariantMap &settings, const QStringList &known)
{
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        if (known.contains(it.key()))
            continue;
        return Error {QString(), QStringLiteral("settings.") + it.key(),
            known.isEmpty() ? QStringLiteral("unknown setting; this controller has no settings")
                            : QStringLiteral("unknown setting; the settings here are %1")
                                  .arg(known.join(QStringLiteral(", ")))};
    }
    return std::nullopt;
}

void requireKnownSettings(const ControllerContext &context, const QStringList &known)
{
    if (const std::optional<Error> error = unknownSetting(context.settings(), known))
        throw std::invalid_argument(error->toString().toStdString());
}

} // namespace qcm::samples
