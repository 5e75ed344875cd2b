// SPDX-License-Identifier: Apache-2.0
#include "schemamodel.h"

#include <QtCore/QRegularExpression>

namespace qcm::gen {

const Package *Model::package(const QString &id) const
{
    for (const Package &p : packages)
        if (p.id == id)
            return &p;
    return nullptr;
}

QString packageOfSchema(const QString &schemaId)
{
    static const QRegularExpression api(
        QStringLiteral(R"(^io\.k8s\.api\.([a-z0-9]+)\.(v[a-z0-9]+)\.[A-Za-z0-9]+$)"));
    static const QRegularExpression meta(
        QStringLiteral(R"(^io\.k8s\.apimachinery\.pkg\.apis\.meta\.(v1)\.[A-Za-z0-9]+$)"));
    if (const auto m = api.match(schemaId); m.hasMatch())
        return m.captured(1) + QLatin1Char('/') + m.captured(2);
    if (const auto m = meta.match(schemaId); m.hasMatch())
        return QStringLiteral("meta/") + m.captured(1);
    return {};
}

QString namespaceOfPackage(const QString &package)
{
    return QStringLiteral("qcm::api::")
        + QString(package).replace(QLatin1Char('/'), QStringLiteral("::"));
}

namespace {

const QSet<QString> &keywords()
{
    static const QSet<QString> words {QStringLiteral("alignas"), QStringLiteral("alignof"),
        QStringLiteral("and"), QStringLiteral("and_eq"), QStringLiteral("asm"),
        QStringLiteral("auto"), QStringLiteral("bitand"), QStringLiteral("bitor"),
        QStringLiteral("bool"), QStringLiteral("break"), QStringLiteral("case"),
        QStringLiteral("catch"), QStringLiteral("char"), QStringLiteral("class"),
        QStringLiteral("compl"), QStringLiteral("concept"), QStringLiteral("const"),
        QStringLiteral("constexpr"), QStringLiteral("const_cast"), QStringLiteral("continue"),
        QStringLiteral("decltype"), QStringLiteral("default"), QStringLiteral("delete"),
        QStringLiteral("do"), QStringLiteral("double"), QStringLiteral("dynamic_cast"),
        QStringLiteral("else"), QStringLiteral("enum"), QStringLiteral("explicit"),
        QStringLiteral("export"), QStringLiteral("extern"), QStringLiteral("false"),
        QStringLiteral("float"), QStringLiteral("for"), QStringLiteral("friend"),
        QStringLiteral("goto"), QStringLiteral("if"), QStringLiteral("inline"),
        QStringLiteral("int"), QStringLiteral("long"), QStringLiteral("mutable"),
        QStringLiteral("namespace"), QStringLiteral("new"), QStringLiteral("noexcept"),
        QStringLiteral("not"), QStringLiteral("not_eq"), QStringLiteral("nullptr"),
        QStringLiteral("operator"), QStringLiteral("or"), QStringLiteral("or_eq"),
        QStringLiteral("private"), QStringLiteral("protected"), QStringLiteral("public"),
        QStringLiteral("register"), QStringLiteral("reinterpret_cast"), QStringLiteral("requires"),
        QStringLiteral("return"), QStringLiteral("short"), QStringLiteral("signed"),
        QStringLiteral("sizeof"), QStringLiteral("static"), QStringLiteral("static_assert"),
        QStringLiteral("static_cast"), QStringLiteral("struct"), QStringLiteral("switch"),
        QStringLiteral("template"), QStringLiteral("this"), QStringLiteral("thread_local"),
        QStringLiteral("throw"), QStringLiteral("true"), QStringLiteral("try"),
        QStringLiteral("typedef"), QStringLiteral("typeid"), QStringLiteral("typename"),
        QStringLiteral("union"), QStringLiteral("unsigned"), QStringLiteral("using"),
        QStringLiteral("virtual"), QStringLiteral("void"), QStringLiteral("volatile"),
        QStringLiteral("wchar_t"), QStringLiteral("while"), QStringLiteral("xor"),
        QStringLiteral("xor_eq"),
        // Macros GCC and clang predefine in their GNU modes (-std=gnu++17, CMake's default).
        QStringLiteral("linux"), QStringLiteral("unix"), QStringLiteral("i386"),
        // Qt's macros and what would shadow a type in generated code.
        QStringLiteral("signals"), QStringLiteral("slots"), QStringLiteral("emit"),
        QStringLiteral("foreach"), QStringLiteral("forever"), QStringLiteral("qcm"),
        QStringLiteral("std")};
    return words;
}

} // namespace

QString cppIdentifier(const QString &jsonName, const QSet<QString> &reserved)
{
    QString out;
    bool upper = false;
    for (const QChar c : jsonName) {
        if (c.isLetterOrNumber() && c.unicode() < 0x80) {
            out += upper ? c.toUpper() : c;
            upper = false;
        } else {
            upper = !out.isEmpty();
        }
    }
    if (out.isEmpty() || out.front().isDigit())
        out.prepend(QLatin1Char('f'));
    if (keywords().contains(out) || reserved.contains(out))
        out += QLatin1Char('_');
    return out;
}

const QSet<QString> &reservedViewMembers()
{
    // View's members, the builders' (toJson, set, setMetadata), and build().
    static const QSet<QString> names {QStringLiteral("node"), QStringLiteral("isPresent"),
        QStringLiteral("toJsonValue"), QStringLiteral("build"), QStringLiteral("toJson"),
        QStringLiteral("set"), QStringLiteral("setMetadata"), QStringLiteral("View"),
        QStringLiteral("Builder")};
    return names;
}

const QSet<QString> &reservedKindMembers()
{
    // TypedObject's members, ObjectBuilder's object(), the kinds' static members and builder
    // shortcuts, and apiVersion and kind, which the Object and the builder own.
    static const QSet<QString> names = reservedViewMembers()
        + QSet<QString> {QStringLiteral("object"), QStringLiteral("name"),
            QStringLiteral("namespaceName"), QStringLiteral("key"), QStringLiteral("uid"),
            QStringLiteral("resourceVersion"), QStringLiteral("generation"),
            QStringLiteral("labels"), QStringLiteral("annotations"),
            QStringLiteral("groupVersionKind"), QStringLiteral("groupVersionResource"),
            QStringLiteral("apiVersion"), QStringLiteral("kind"), QStringLiteral("Namespaced")};
    return names;
}

const QStringList &prebuiltPackages()
{
    static const QStringList packages {QStringLiteral("meta/v1"), QStringLiteral("core/v1"),
        QStringLiteral("apps/v1"), QStringLiteral("batch/v1")};
    return packages;
}

} // namespace qcm::gen
