// SPDX-License-Identifier: Apache-2.0
#include "plugins/pluginerror.h"

namespace qcm::host {

QString PluginError::kindName(Kind kind)
{
    switch (kind) {
    case Kind::None:
        return QStringLiteral("none");
    case Kind::NotAPlugin:
        return QStringLiteral("not-a-plugin");
    case Kind::WrongIid:
        return QStringLiteral("wrong-iid");
    case Kind::MissingMetaData:
        return QStringLiteral("missing-metadata");
    case Kind::InvalidMetaData:
        return QStringLiteral("invalid-metadata");
    case Kind::IncompatibleSdk:
        return QStringLiteral("incompatible-sdk");
    case Kind::DuplicateName:
        return QStringLiteral("duplicate-name");
    case Kind::LoadFailed:
        return QStringLiteral("load-failed");
    case Kind::UnresolvedSymbol:
        return QStringLiteral("unresolved-symbol");
    case Kind::NotAControllerPlugin:
        return QStringLiteral("not-a-controller-plugin");
    case Kind::FactoryFailed:
        return QStringLiteral("factory-failed");
    case Kind::StartFailed:
        return QStringLiteral("start-failed");
    case Kind::StopTimedOut:
        return QStringLiteral("stop-timed-out");
    case Kind::IllegalTransition:
        return QStringLiteral("illegal-transition");
    case Kind::Untrusted:
        return QStringLiteral("untrusted");
    case Kind::Quarantined:
        return QStringLiteral("quarantined");
    }
    return QStringLiteral("unknown");
}

} // namespace qcm::host
