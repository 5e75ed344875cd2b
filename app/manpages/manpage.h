// SPDX-License-Identifier: Apache-2.0
// The man pages, rendered in troff (man(7)) from the tables the host itself uses: qcm(1) from
// the option table --help prints (config/options.h), controller-manager.yaml(5) from the
// configuration schema the parser checks against (config/configschema.h). The build runs
// qcm-manpages (manpages/main.cpp) to write them; the qcm package installs them.
//
// Thread safety: pure functions.
#pragma once

#include <QtCore/QString>

namespace qcm::host {

struct ManPageInfo
{
    QString version; // "0.1.0"
    QString date; // the release date, "2026-11-26" (reproducible builds: not today's)
};

QString qcmManPage(const ManPageInfo &info);
QString configManPage(const ManPageInfo &info);

// Text made safe for troff: backslashes, a leading '.' or '\'', and '-' as a hyphen-minus
// ("\-", as option names need).
QString troffEscape(const QString &text);

} // namespace qcm::host
