// SPDX-License-Identifier: Apache-2.0
// Replays a fuzz harness over files: each argument is a file or a directory of files (not
// recursive), fed to LLVMFuzzerTestOneInput one by one, in name order. Fails when no file was
// found, so that a lost corpus does not pass. ctest runs each harness over its corpus
// (tests/fuzz/corpus/<harness>) this way, in every build.
#include "fuzzsupport.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; ++i) {
        const QFileInfo info(QString::fromLocal8Bit(argv[i]));
        QStringList paths;
        if (info.isDir()) {
            const QDir dir(info.filePath());
            for (const QString &name : dir.entryList(QDir::Files, QDir::Name))
                paths << dir.filePath(name);
        } else {
            paths << info.filePath();
        }
        for (const QString &path : paths) {
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly)) {
                std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(f.errorString()));
                return 1;
            }
            const QByteArray data = f.readAll();
            LLVMFuzzerTestOneInput(
                reinterpret_cast<const uint8_t *>(data.constData()), size_t(data.size()));
            ++files;
        }
    }
    if (files == 0) {
        std::fprintf(stderr, "no input files\n");
        return 1;
    }
    std::printf("%d inputs replayed\n", files);
    return 0;
}
