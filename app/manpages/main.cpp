// SPDX-License-Identifier: Apache-2.0
// qcm-manpages <out dir> <version> <date>: writes qcm.1 and controller-manager.yaml.5 into
// <out dir> (manpage.h). Run by the build; not installed.
#include "manpages/manpage.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFile>

#include <cstdio>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() != 4) {
        std::fprintf(stderr, "usage: qcm-manpages <out dir> <version> <date>\n");
        return 2;
    }
    const QDir out(args.at(1));
    const qcm::host::ManPageInfo info {args.at(2), args.at(3)};
    const QList<QPair<QString, QString>> pages {
        {QStringLiteral("qcm.1"), qcm::host::qcmManPage(info)},
        {QStringLiteral("controller-manager.yaml.5"), qcm::host::configManPage(info)},
    };
    for (const auto &[name, text] : pages) {
        QFile f(out.filePath(name));
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)
            || f.write(text.toUtf8()) != text.toUtf8().size()) {
            std::fprintf(stderr, "qcm-manpages: %s: %s\n", qPrintable(f.fileName()),
                qPrintable(f.errorString()));
            return 1;
        }
    }
    return 0;
}
