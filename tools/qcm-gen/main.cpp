// SPDX-License-Identifier: Apache-2.0
// qcm-gen: typed views and builders from OpenAPI v3 schemas or CRDs (docs/typed-objects.md).
//
//   qcm-gen --openapi FILE... --package core/v1... --out DIR [--include-prefix P]
//           [--export-macro M --export-include H]
//   qcm-gen --crd FILE --out DIR [--namespace NS]
//
// Writes DIR/<include path>.h and DIR/<group>_<version>.cpp per package (with
// --sources-into FILE, the sources go into FILE, one translation unit, as
// qcm_generate_types() wants a name known before the schemas are read), and leaves a file
// whose content would not change untouched (so that a rebuild compiles nothing).
#include "emitter.h"
#include "schemareader.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>

#include <cstdio>

using namespace qcm::gen;

namespace {

int failWith(const QString &message)
{
    std::fprintf(stderr, "qcm-gen: %s\n", qPrintable(message));
    return 1;
}

std::optional<Input> readInput(const QString &path, const GeneratorLimits &limits)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        failWith(QStringLiteral("%1: %2").arg(path, f.errorString()));
        return std::nullopt;
    }
    Input in {path, f.read(limits.inputBytes + 1)};
    return in;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qcm-gen"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Generates C++ typed views and builders over qcm::client::Object from OpenAPI v3 "
        "schemas (--openapi, --package) or CustomResourceDefinitions (--crd)."));
    parser.addHelpOption();
    const QCommandLineOption openapi(QStringLiteral("openapi"),
        QStringLiteral("An OpenAPI v3 document (JSON)."), QStringLiteral("file"));
    const QCommandLineOption package(QStringLiteral("package"),
        QStringLiteral("A package to generate from --openapi, as core/v1."),
        QStringLiteral("group/version"));
    const QCommandLineOption crd(QStringLiteral("crd"),
        QStringLiteral("A YAML file of CustomResourceDefinitions."), QStringLiteral("file"));
    const QCommandLineOption out(
        QStringLiteral("out"), QStringLiteral("The output directory."), QStringLiteral("dir"));
    const QCommandLineOption prefix(QStringLiteral("include-prefix"),
        QStringLiteral("The headers' include path prefix."), QStringLiteral("path"));
    const QCommandLineOption ns(QStringLiteral("namespace"),
        QStringLiteral(
            "A CRD's C++ namespace (default: the group's first label); ::<version> is added."),
        QStringLiteral("ns"));
    const QCommandLineOption exportMacro(QStringLiteral("export-macro"),
        QStringLiteral("A macro put on every class."), QStringLiteral("macro"));
    const QCommandLineOption exportInclude(QStringLiteral("export-include"),
        QStringLiteral("The header defining --export-macro."), QStringLiteral("header"));
    const QCommandLineOption sourcesInto(QStringLiteral("sources-into"),
        QStringLiteral("Write all sources into this one file."), QStringLiteral("file"));
    parser.addOptions(
        {openapi, package, crd, out, prefix, ns, exportMacro, exportInclude, sourcesInto});
    parser.process(app);

    const GeneratorLimits limits;
    if (!parser.isSet(out))
        return failWith(QStringLiteral("--out is required"));
    if (parser.isSet(openapi) == parser.isSet(crd))
        return failWith(QStringLiteral("give either --openapi (with --package) or --crd"));
    const QString cppNamespace = parser.value(ns);
    static const QRegularExpression nsForm(
        QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$"));
    if (!cppNamespace.isEmpty() && !nsForm.match(cppNamespace).hasMatch())
        return failWith(
            QStringLiteral("--namespace \"%1\" is not a C++ namespace").arg(cppNamespace));

    qcm::Result<Model> model = qcm::Error {};
    if (parser.isSet(openapi)) {
        QList<Input> documents;
        for (const QString &path : parser.values(openapi)) {
            auto in = readInput(path, limits);
            if (!in)
                return 1;
            documents.append(*in);
        }
        if (parser.values(package).isEmpty())
            return failWith(QStringLiteral("--openapi needs at least one --package"));
        model = readOpenApi(documents, parser.values(package), limits);
    } else {
        auto in = readInput(parser.value(crd), limits);
        if (!in)
            return 1;
        model = readCrds(*in, cppNamespace, limits);
    }
    if (!model)
        return failWith(model.error().toString());

    const EmitOptions options {
        parser.value(prefix), parser.value(exportMacro), parser.value(exportInclude)};
    const QDir dir(parser.value(out));
    QList<GeneratedFile> files = emitCpp(*model, options);
    if (parser.isSet(sourcesInto)) {
        GeneratedFile all {QFileInfo(parser.value(sourcesInto)).absoluteFilePath(), false, {}};
        for (const GeneratedFile &file : std::as_const(files))
            if (!file.isHeader)
                all.content += file.content;
        files.removeIf([](const GeneratedFile &file) { return !file.isHeader; });
        files.append(all);
    }
    for (const GeneratedFile &file : std::as_const(files)) {
        const QString path = dir.filePath(file.path);
        QFile existing(path);
        // A header that would not change keeps its time; the sources-into file is always
        // written, being the build's record that this ran.
        if ((file.isHeader || !parser.isSet(sourcesInto)) && existing.open(QIODevice::ReadOnly)
            && existing.readAll() == file.content)
            continue;
        existing.close();
        if (!QDir().mkpath(QFileInfo(path).absolutePath()))
            return failWith(QStringLiteral("%1: cannot create its directory").arg(path));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)
            || f.write(file.content) != file.content.size())
            return failWith(QStringLiteral("%1: %2").arg(path, f.errorString()));
    }
    return 0;
}
