// SPDX-License-Identifier: Apache-2.0
// ConfigSchema: every field of controller-manager.yaml, once. The parser (config.cpp) takes its
// lists of known fields from here, the controller-manager.yaml(5) man page is generated from
// it (manpages/manpage.h), and a test holds docs/configuration.md's field table to it, so the
// three cannot drift.
//
// Paths are dotted; `<name>` stands for a controller's name under controllerConfig.
//
// Thread safety: the table is built once and immutable; safe from any thread.
#pragma once

#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace qcm::host {

struct ConfigField
{
    QString path; // "leaderElection.leaseDuration"
    QString type; // "duration", "list of paths", ...
    QString defaultValue; // as the docs write it; empty: none
    QString flag; // the flag that overrides it ("--leader-elect"); empty: none
    bool reloadable; // applied while qcm runs (SIGHUP or the file saved)
    QString description;
};

const QList<ConfigField> &configSchema();

// The names of the fields directly under `parent` ("" for the top level), in table order.
QStringList configFieldsUnder(const QString &parent);

} // namespace qcm::host
