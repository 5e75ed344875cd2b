// SPDX-License-Identifier: Apache-2.0
// Client feature gates (client-go's k8s.io/client-go/features): the SDK's switchable
// behaviours, each with client-go's default, and each overridable from the environment by
// KUBE_FEATURE_<name>, the variable client-go reads, so one setting governs qcm and any Go
// peer alike. A value is read as Go's strconv.ParseBool does (1, t, T, TRUE, true, True and
// their false twins); any other value is logged once and ignored.
//
// Thread safety: enabled() may be called from any thread; the environment is read once, at
// the first call, as client-go reads it once per process.
#pragma once

#include <qcm/global.h>

#include <QtCore/QByteArray>
#include <QtCore/QLatin1String>

#include <optional>

namespace qcm::features {

enum class Feature {
    // Informers sync from one WatchList stream (sendInitialEvents=true) instead of a paged
    // list, falling back to the list when the server refuses it. On by default, as in
    // client-go since 1.35 (docs/cache.md, "The reflector's requests").
    WatchListClient,
};

QCM_SDK_EXPORT bool enabled(Feature feature);

// The feature's name, as in KUBE_FEATURE_<name>.
QCM_SDK_EXPORT QLatin1String name(Feature feature);

namespace detail {
// Go's strconv.ParseBool: the value, or nullopt when the text is not a boolean.
QCM_SDK_EXPORT std::optional<bool> parseBool(const QByteArray &text);
} // namespace detail

} // namespace qcm::features
