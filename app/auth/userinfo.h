// SPDX-License-Identifier: Apache-2.0
// UserInfo: who a request was authenticated as, as k8s.io/apiserver's user.Info: the name, the
// UID, the groups and the extra attributes, as TokenReview returns them and as
// SubjectAccessReview takes them.
//
// Plain value.
#pragma once

#include <QtCore/QMap>
#include <QtCore/QStringList>

namespace qcm::host {

struct UserInfo
{
    QString name;
    QString uid;
    QStringList groups;
    QMap<QString, QStringList> extra;
};

} // namespace qcm::host
