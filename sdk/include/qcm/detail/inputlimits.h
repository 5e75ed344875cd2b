// SPDX-License-Identifier: Apache-2.0
// InputLimits: how much of a file or a document from outside qcm will hold, process-wide. The
// defaults are docs/security.md's ("Limits on inputs"); the host sets them once at start from
// controller-manager.yaml's `limits` (and --max-config-bytes), before anything is read. Not
// plugin API. The REST client's own limits (response body, watch event) are per client, in
// RestConfig.
//
// Thread safety: every function is safe from any thread (each value is an atomic).
#pragma once

#include <qcm/global.h>

#include <QtCore/QtGlobal>

namespace qcm::detail {

struct InputLimits
{
    qint64 kubeconfigBytes
        = 16 * 1024 * 1024; // a kubeconfig, every file it names, the in-cluster CA
    qint64 configBytes = 4 * 1024 * 1024; // controller-manager.yaml
    qint64 tokenFileBytes = 1024 * 1024; // a bearer token file
    qint64 certificateBytes = 16 * 1024 * 1024; // a serving certificate or key, a client CA
    qint64 execCredentialBytes = 1024 * 1024; // an exec credential plugin's output
    qint64 pluginMetadataBytes = 64 * 1024; // a plugin's metadata, as JSON
    int jsonDepth = 512; // nesting in any JSON from the API server (Qt's reader allows 1024)
};

// The limits in force.
QCM_SDK_EXPORT InputLimits inputLimits();
// inputLimits().jsonDepth alone (every JSON document scanned reads it: one load, not seven).
QCM_SDK_EXPORT int jsonDepthLimit();
// Replaces them (the host, at start).
QCM_SDK_EXPORT void setInputLimits(const InputLimits &limits);

} // namespace qcm::detail
