// SPDX-License-Identifier: Apache-2.0
// ExecConfig: a credential plugin named by a kubeconfig user (client-go's api.ExecConfig).
//
// Plain data; copy it freely.
#pragma once

#include <QtCore/QList>
#include <QtCore/QPair>
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace qcm::client {

struct ExecConfig
{
    QString command; // resolved against the kubeconfig's directory if it contains a '/'
    QStringList args;
    QList<QPair<QString, QString>> env;
    QString apiVersion; // must be client.authentication.k8s.io/v1 (or v1beta1)
    QString installHint;
    bool provideClusterInfo = false;
    QString interactiveMode; // Never, IfAvailable, Always: qcm never has a terminal
};

} // namespace qcm::client
