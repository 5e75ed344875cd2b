// SPDX-License-Identifier: Apache-2.0
// /configz: the effective configuration (controller-manager.yaml with the flags applied), as
// JSON under the key "controllermanager.qcm.io" (as kube-controller-manager serves its
// component config under "kubecontrollermanager.config.k8s.io"), with secrets redacted.
//
// The fields are controller-manager.yaml's, with durations as Go writes them. Nothing secret
// can come out, by three rules applied together:
//   * the kubeconfig is shown as its path only, never its contents; the API server's URL
//     loses any user and password;
//   * in each controller's free-form settings, the value of any key that names a secret
//     (password, passwd, secret, token, credential, auth, bearer, private, or ending in
//     "key", in any case) is replaced by "[redacted]", whatever it holds;
//   * every string of `secrets` (the client's token, password, client key and certificate)
//     is replaced by "[redacted]" wherever it occurs in any value.
//
// Thread safety: reentrant.
#pragma once

#include "config/config.h"

#include <QtCore/QJsonObject>

namespace qcm::client {
struct RestConfig;
}

namespace qcm::host {

inline constexpr char Redacted[] = "[redacted]";

// `quarantined`: the controllers quarantined this run, with the reason (watchdog/
// crashrecords.h), shown as "quarantined" beside the configuration's fields.
QJsonObject configzJson(const ControllerManagerConfig &config, const QStringList &secrets = {},
    const QMap<QString, QString> &quarantined = {});

// The credentials of `rest` that must never be shown: bearer token, password, client key
// and certificate (PEM and each of its base64 lines), and the exec plugin's environment values.
QStringList secretsOf(const client::RestConfig &rest);

// Whether a settings key names a secret (the rule above).
bool isSecretKey(const QString &key);

} // namespace qcm::host
