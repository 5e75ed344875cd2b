// SPDX-License-Identifier: Apache-2.0
#include "plugins/controllerselection.h"

namespace qcm::host {

bool isControllerEnabled(
    const QString &name, const QSet<QString> &disabledByDefault, const QStringList &controllers)
{
    bool hasStar = false;
    for (const QString &controller : controllers) {
        if (controller == name)
            return true;
        if (controller == QLatin1Char('-') + name)
            return false;
        if (controller == QLatin1String("*"))
            hasStar = true;
    }
    // No explicit choice: nothing is on without "*".
    if (!hasStar)
        return false;
    return !disabledByDefault.contains(name);
}

QStringList unknownControllers(const QStringList &controllers, const QSet<QString> &known)
{
    QStringList reasons;
    for (const QString &controller : controllers) {
        if (controller == QLatin1String("*"))
            continue;
        const QString name
            = controller.startsWith(QLatin1Char('-')) ? controller.mid(1) : controller;
        if (!known.contains(name))
            reasons << QStringLiteral("\"%1\" is not in the list of known controllers").arg(name);
    }
    return reasons;
}

} // namespace qcm::host
