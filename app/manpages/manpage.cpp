// SPDX-License-Identifier: Apache-2.0
#include "manpages/manpage.h"

#include "config/configschema.h"
#include "config/options.h"

namespace qcm::host {

namespace {

QString header(const QString &title, int section, const ManPageInfo &info, const char *manual)
{
    return QStringLiteral(".TH %1 %2 \"%3\" \"qcm %4\" \"%5\"\n")
        .arg(title)
        .arg(section)
        .arg(info.date, info.version, QLatin1String(manual));
}

QString flagNames(const FlagHelp &flag)
{
    QStringList names;
    for (const QString &n : flag.names)
        names << QStringLiteral("\\fB%1\\fR")
                     .arg(troffEscape(
                         (n.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + n));
    QString out = names.join(QStringLiteral(", "));
    if (!flag.valueName.isEmpty())
        out += QStringLiteral(" \\fI%1\\fR").arg(troffEscape(flag.valueName));
    return out;
}

} // namespace

QString troffEscape(const QString &text)
{
    QString out;
    out.reserve(text.size() + 8);
    for (const QChar c : text) {
        if (c == QLatin1Char('\\'))
            out += QStringLiteral("\\e");
        else if (c == QLatin1Char('-'))
            out += QStringLiteral("\\-");
        else
            out += c;
    }
    if (out.startsWith(QLatin1Char('.')) || out.startsWith(QLatin1Char('\'')))
        out.prepend(QStringLiteral("\\&"));
    return out;
}

QString qcmManPage(const ManPageInfo &info)
{
    QString page = header(QStringLiteral("QCM"), 1, info, "User Commands");
    page += QStringLiteral(
        ".SH NAME\n"
        "qcm \\- Kubernetes controller manager that runs controller plugins\n"
        ".SH SYNOPSIS\n"
        ".B qcm\n"
        "[\\fIoptions\\fR]\n"
        ".SH DESCRIPTION\n"
        "qcm runs Kubernetes controllers the way kube\\-controller\\-manager does: leader "
        "election, shared informers, rate\\-limited work queues, and /healthz, /readyz, /livez "
        "and /metrics endpoints. The controllers are plugins: shared objects (*.so) found in "
        "the plugin directories, each enabled or disabled by the \\fBcontrollers\\fR list, "
        "without a restart.\n"
        ".PP\n"
        "Flags override the fields of the configuration file given with \\fB\\-\\-config\\fR "
        "(see \\fBcontroller\\-manager.yaml\\fR(5)). Durations are Go's (300ms, 10s, 1m30s). A "
        "bool flag alone means true; list flags take commas and may be repeated.\n"
        ".SH OPTIONS\n");
    for (const FlagHelp &flag : flagTable())
        page += QStringLiteral(".TP\n%1\n%2\n").arg(flagNames(flag), troffEscape(flag.description));
    page += QStringLiteral(
        ".SH SIGNALS\n"
        ".TP\n.B SIGHUP\nReload the configuration file; the changes that need a restart are "
        "refused.\n"
        ".TP\n.BR SIGTERM \", \" SIGINT\nStop the controllers, letting them drain their queues "
        "for \\fB\\-\\-controller\\-shutdown\\-timeout\\fR, and exit.\n"
        ".SH EXIT STATUS\n"
        "0 after a clean stop; 1 for a bad flag or configuration, or when a leader in "
        "run\\-or\\-die mode loses its lease.\n"
        ".SH FILES\n"
        ".TP\n.I /etc/qcm/controller\\-manager.yaml\nThe configuration of the packaged "
        "qcm.service.\n"
        ".TP\n.I /usr/lib/qcm/plugins\nThe default plugin directory of /usr/bin/qcm.\n"
        ".SH SEE ALSO\n"
        ".BR controller\\-manager.yaml (5),\n"
        ".BR kube\\-controller\\-manager (1),\n"
        "and /usr/share/doc/qcm.\n");
    return page;
}

QString configManPage(const ManPageInfo &info)
{
    QString page = header(QStringLiteral("CONTROLLER\\-MANAGER.YAML"), 5, info, "File Formats");
    page += QStringLiteral(
        ".SH NAME\n"
        "controller\\-manager.yaml \\- the configuration file of qcm\n"
        ".SH DESCRIPTION\n"
        "\\fBqcm\\fR(1) reads one YAML document, given with \\fB\\-\\-config\\fR. Every field "
        "is optional; an empty file is every default. The file is read strictly: malformed "
        "YAML, an unknown or repeated field, or a value of the wrong type stops qcm with the "
        "file, the field, the reason, and the line and column. Flags override the fields.\n"
        ".PP\n"
        "Relative paths are relative to the file's directory. Durations are Go's (300ms, 10s, "
        "1m30s). A field marked \\(lqapplied on reload\\(rq takes effect when qcm gets SIGHUP "
        "or the file is saved; a change to any other field is refused until a restart.\n"
        ".SH FIELDS\n");
    for (const ConfigField &f : configSchema()) {
        QStringList facts {QStringLiteral("\\fI%1\\fR").arg(troffEscape(f.type))};
        if (!f.defaultValue.isEmpty())
            facts << QStringLiteral("default %1").arg(troffEscape(f.defaultValue));
        if (!f.flag.isEmpty())
            facts << QStringLiteral("flag \\fB%1\\fR").arg(troffEscape(f.flag));
        facts << (f.reloadable ? QStringLiteral("applied on reload")
                               : QStringLiteral("needs a restart"));
        page += QStringLiteral(".TP\n.B %1\n(%2.) %3\n")
                    .arg(troffEscape(f.path), facts.join(QStringLiteral("; ")),
                        troffEscape(f.description));
    }
    page += QStringLiteral(".SH EXAMPLE\n"
                           ".nf\n"
                           ".RS\n"
                           "apiVersion: qcm.io/v1alpha1\n"
                           "kind: ControllerManagerConfiguration\n"
                           "kubeconfig: /etc/qcm/kubeconfig\n"
                           "controllers: [\"*\", \"\\-sample\\-controller\"]\n"
                           "leaderElection:\n"
                           "  resourceName: qcm\n"
                           "  resourceNamespace: kube\\-system\n"
                           "serving:\n"
                           "  bindAddress: 127.0.0.1\n"
                           "controllerConfig:\n"
                           "  ttl\\-after\\-finished:\n"
                           "    workers: 2\n"
                           ".RE\n"
                           ".fi\n"
                           ".SH SEE ALSO\n"
                           ".BR qcm (1),\n"
                           "and /usr/share/doc/qcm/configuration.md.\n");
    return page;
}

} // namespace qcm::host
