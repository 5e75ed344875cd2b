// SPDX-License-Identifier: Apache-2.0
#include "emitter.h"

#include <QtCore/QFileInfo>
#include <QtCore/QSet>

namespace qcm::gen {

namespace {

// The body of a C string literal with `text`'s UTF-8 bytes (octal escapes outside printable
// ASCII), and whether it needed any.
QString cString(const QString &text, bool *ascii = nullptr)
{
    QString out;
    bool plain = true;
    for (const char c : text.toUtf8()) {
        const auto u = uchar(c);
        if (c == '"' || c == '\\' || c == '?') {
            out += QLatin1Char('\\');
            out += QLatin1Char(c);
        } else if (u >= 0x20 && u < 0x7f) {
            out += QLatin1Char(c);
        } else {
            plain = plain && u < 0x80;
            out += QStringLiteral("\\%1").arg(u, 3, 8, QLatin1Char('0'));
        }
    }
    if (ascii)
        *ascii = plain;
    return out;
}

// A JSON member name as an argument of JsonNode::member() and Builder::set().
QString keyLiteral(const QString &name)
{
    bool ascii = true;
    const QString body = cString(name, &ascii);
    return ascii ? QStringLiteral("QLatin1StringView(\"%1\")").arg(body)
                 : QStringLiteral("QString::fromUtf8(\"%1\")").arg(body);
}

QString headerPath(const QString &package, const QString &prefix)
{
    return (prefix.isEmpty() ? QString() : prefix + QLatin1Char('/')) + package
        + QStringLiteral(".h");
}

class Writer
{
public:
    Writer(const Model &model, const Package &package, const EmitOptions &options)
        : m_model(model), m_package(package), m_options(options)
    { }

    GeneratedFile header() const;
    GeneratedFile source() const;

private:
    // The C++ name of a struct type, qualified when it lives in another namespace.
    QString structName(const QString &id, const QString &suffix = {}) const
    {
        const StructInfo info = m_model.structs.value(id);
        const QString name = info.cppName + suffix;
        return info.cppNamespace == m_package.cppNamespace
            ? name
            : QStringLiteral("::") + info.cppNamespace + QStringLiteral("::") + name;
    }
    static QString scalarType(TypeRef::Scalar s)
    {
        switch (s) {
        case TypeRef::Scalar::String:
            return QStringLiteral("QString");
        case TypeRef::Scalar::Int32:
            return QStringLiteral("qint32");
        case TypeRef::Scalar::Int64:
            return QStringLiteral("qint64");
        case TypeRef::Scalar::Double:
            return QStringLiteral("double");
        case TypeRef::Scalar::Bool:
            return QStringLiteral("bool");
        case TypeRef::Scalar::DateTime:
            return QStringLiteral("QDateTime");
        case TypeRef::Scalar::IntOrString:
            return QStringLiteral("::qcm::typed::IntOrString");
        case TypeRef::Scalar::Quantity:
            return QStringLiteral("::qcm::typed::Quantity");
        case TypeRef::Scalar::Json:
            return QStringLiteral("::qcm::typed::JsonNode");
        }
        return {};
    }
    QString elementType(const TypeRef &e) const
    {
        return e.shape == TypeRef::Shape::Struct ? structName(e.structId) : scalarType(e.scalar);
    }
    // What a builder takes for one element.
    QString elementParam(const TypeRef &e) const
    {
        if (e.shape == TypeRef::Shape::Struct)
            return structName(e.structId, QStringLiteral("Builder"));
        if (e.scalar == TypeRef::Scalar::Quantity)
            return QStringLiteral("QString");
        return e.scalar == TypeRef::Scalar::Json ? QStringLiteral("QJsonValue")
                                                 : scalarType(e.scalar);
    }
    static bool plainScalar(const Field &f) { return f.required || !f.defaultValue.isUndefined(); }
    QString returnType(const Field &f) const
    {
        const TypeRef &t = f.type;
        switch (t.shape) {
        case TypeRef::Shape::Struct:
            return structName(t.structId);
        case TypeRef::Shape::Array:
            return QStringLiteral("::qcm::typed::ArrayView<%1>").arg(elementType(*t.element));
        case TypeRef::Shape::Map:
            return QStringLiteral("::qcm::typed::MapView<%1>").arg(elementType(*t.element));
        case TypeRef::Shape::Scalar:
            break;
        }
        if (t.scalar == TypeRef::Scalar::Json || plainScalar(f))
            return scalarType(t.scalar);
        return QStringLiteral("std::optional<%1>").arg(scalarType(t.scalar));
    }
    QString paramType(const Field &f) const
    {
        const TypeRef &t = f.type;
        switch (t.shape) {
        case TypeRef::Shape::Struct:
            return QStringLiteral("const %1 &")
                .arg(structName(t.structId, QStringLiteral("Builder")));
        case TypeRef::Shape::Array:
            return QStringLiteral("const QList<%1> &").arg(elementParam(*t.element));
        case TypeRef::Shape::Map:
            return QStringLiteral("const QMap<QString, %1> &").arg(elementParam(*t.element));
        case TypeRef::Shape::Scalar:
            break;
        }
        switch (t.scalar) {
        case TypeRef::Scalar::Int32:
        case TypeRef::Scalar::Int64:
        case TypeRef::Scalar::Double:
        case TypeRef::Scalar::Bool:
            return scalarType(t.scalar) + QLatin1Char(' ');
        case TypeRef::Scalar::Json:
            return QStringLiteral("const QJsonValue &");
        case TypeRef::Scalar::Quantity:
            return QStringLiteral("const QString &");
        default:
            return QStringLiteral("const %1 &").arg(scalarType(t.scalar));
        }
    }
    static QString literal(const QJsonValue &v, TypeRef::Scalar s)
    {
        if (v.isString()) {
            bool ascii = true;
            const QString out = cString(v.toString(), &ascii);
            return ascii ? QStringLiteral("QStringLiteral(\"%1\")").arg(out)
                         : QStringLiteral("QString::fromUtf8(\"%1\")").arg(out);
        }
        if (v.isBool())
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        if (s == TypeRef::Scalar::Double)
            return QString::number(v.toDouble(), 'g', 17);
        const qint64 i = v.toInteger();
        if (s == TypeRef::Scalar::Int32 && (i < INT32_MIN || i > INT32_MAX))
            return QStringLiteral("0");
        return s == TypeRef::Scalar::Int64 ? QStringLiteral("Q_INT64_C(%1)").arg(i)
                                           : QString::number(i);
    }
    QString body(const Field &f) const
    {
        const QString member = QStringLiteral("m_node.member(%1)").arg(keyLiteral(f.jsonName));
        const TypeRef &t = f.type;
        if (t.shape != TypeRef::Shape::Scalar)
            return QStringLiteral("return %1(%2);").arg(returnType(f), member);
        if (t.scalar == TypeRef::Scalar::Json)
            return QStringLiteral("return %1;").arg(member);
        const QString read
            = QStringLiteral("::qcm::typed::read<%1>(%2)").arg(scalarType(t.scalar), member);
        if (!plainScalar(f))
            return QStringLiteral("return %1;").arg(read);
        const QString fallback = f.defaultValue.isUndefined()
            ? scalarType(t.scalar) + QStringLiteral("()")
            : literal(f.defaultValue, t.scalar);
        return QStringLiteral("return %1.value_or(%2);").arg(read, fallback);
    }

    const Model &m_model;
    const Package &m_package;
    const EmitOptions &m_options;
};

QString comment(QString doc, const char *indent)
{
    while (doc.endsWith(QLatin1Char('\\'))) // would continue the comment onto the next line
        doc.chop(1);
    return doc.isEmpty()
        ? QString()
        : QString::fromLatin1(indent) + QStringLiteral("// ") + doc + QLatin1Char('\n');
}

GeneratedFile Writer::header() const
{
    QString h;
    h += QStringLiteral("// SPDX-License-Identifier: Apache-2.0\n");
    QStringList sources;
    for (const QString &file : m_model.sources)
        sources.append(QFileInfo(file).fileName());
    h += QStringLiteral(
        "// Typed views and builders of %1, generated by qcm-gen. Do not edit.\n// From: %2\n")
             .arg(m_package.id, sources.join(QStringLiteral(", ")));
    h += QStringLiteral(
        "// What each schema type became: docs/typed-objects.md. Thread safety: values; the\n"
        "// const members of a view may be called from several threads at once.\n");
    h += QStringLiteral("// clang-format off\n#pragma once\n\n");
    QSet<QString> includes;
    for (const StructType &t : m_package.types)
        for (const Field &f : t.fields) {
            const TypeRef &r = f.type.element ? *f.type.element : f.type;
            if (r.shape == TypeRef::Shape::Struct) {
                const StructInfo info = m_model.structs.value(r.structId);
                if (info.package != m_package.id)
                    includes.insert(info.prebuilt
                            ? headerPath(info.package, QStringLiteral("qcm/api"))
                            : headerPath(info.package, m_options.includePrefix));
            }
        }
    if (!m_options.exportInclude.isEmpty())
        h += QStringLiteral("#include <%1>\n").arg(m_options.exportInclude);
    QStringList sorted(includes.begin(), includes.end());
    sorted.sort();
    for (const QString &i : sorted)
        h += QStringLiteral("#include <%1>\n").arg(i);
    h += QStringLiteral("#include <qcm/client/resource.h>\n#include <qcm/typed/builder.h>\n"
                        "#include <qcm/typed/typedobject.h>\n\n");
    h += QStringLiteral("namespace %1 {\n\n").arg(m_package.cppNamespace);
    for (const StructType &t : m_package.types)
        h += QStringLiteral("class %1;\nclass %1Builder;\n").arg(t.cppName);
    const QString exp
        = m_options.exportMacro.isEmpty() ? QString() : m_options.exportMacro + QLatin1Char(' ');
    for (const StructType &t : m_package.types) {
        const QString base = t.isKind ? QStringLiteral("TypedObject") : QStringLiteral("View");
        h += QLatin1Char('\n') + comment(t.doc, "");
        h += QStringLiteral("class %1%2 : public ::qcm::typed::%3\n{\npublic:\n")
                 .arg(exp, t.cppName, base);
        h += QStringLiteral("    using %1::%1;\n    using Builder = %2Builder;\n")
                 .arg(base, t.cppName);
        h += QStringLiteral("    static %1Builder build();\n").arg(t.cppName);
        if (t.isKind) {
            h += QStringLiteral("    static ::qcm::client::GroupVersionKind groupVersionKind();\n");
            if (!t.resource.isEmpty()) {
                h += QStringLiteral(
                    "    static ::qcm::client::GroupVersionResource groupVersionResource();\n");
                h += QStringLiteral("    static constexpr bool Namespaced = %1;\n")
                         .arg(t.namespaced ? QStringLiteral("true") : QStringLiteral("false"));
            }
        }
        for (const Field &f : t.fields)
            h += comment(f.doc, "    ")
                + QStringLiteral("    %1 %2() const;\n").arg(returnType(f), f.cppName);
        h += QStringLiteral("};\n\n");
        const QString bbase
            = t.isKind ? QStringLiteral("ObjectBuilder") : QStringLiteral("Builder");
        h += QStringLiteral("class %1%2Builder : public ::qcm::typed::%3\n{\npublic:\n")
                 .arg(exp, t.cppName, bbase);
        if (t.isKind) {
            const QString gv
                = t.group.isEmpty() ? t.version : t.group + QLatin1Char('/') + t.version;
            h += QStringLiteral("    %1Builder() : ObjectBuilder(QLatin1StringView(\"%2\"), "
                                "QLatin1StringView(\"%3\")) { }\n")
                     .arg(t.cppName, cString(gv), cString(t.kind));
            h += QStringLiteral(
                "    %1Builder &name(const QString &value);\n"
                "    %1Builder &namespaceName(const QString &value);\n"
                "    %1Builder &labels(const QMap<QString, QString> &value);\n"
                "    %1Builder &annotations(const QMap<QString, QString> &value);\n")
                     .arg(t.cppName);
        }
        for (const Field &f : t.fields)
            h += QStringLiteral("    %1Builder &%2(%3value);\n")
                     .arg(t.cppName, f.cppName, paramType(f));
        h += QStringLiteral("};\n");
    }
    h += QStringLiteral("\n} // namespace %1\n").arg(m_package.cppNamespace);
    return {headerPath(m_package.id, m_options.includePrefix), true, h.toUtf8()};
}

GeneratedFile Writer::source() const
{
    QString s;
    s += QStringLiteral("// SPDX-License-Identifier: Apache-2.0\n// Generated by qcm-gen. Do not "
                        "edit.\n// clang-format off\n");
    s += QStringLiteral("#include <%1>\n\n").arg(headerPath(m_package.id, m_options.includePrefix));
    s += QStringLiteral("namespace %1 {\n").arg(m_package.cppNamespace);
    for (const StructType &t : m_package.types) {
        const QString &c = t.cppName;
        s += QStringLiteral("\n%1Builder %1::build()\n{\n    return %1Builder();\n}\n").arg(c);
        if (t.isKind) {
            s += QStringLiteral("\n::qcm::client::GroupVersionKind %1::groupVersionKind()\n{\n"
                                "    return {QStringLiteral(\"%2\"), QStringLiteral(\"%3\"), "
                                "QStringLiteral(\"%4\")};\n}\n")
                     .arg(c, cString(t.group), cString(t.version), cString(t.kind));
            if (!t.resource.isEmpty())
                s += QStringLiteral(
                    "\n::qcm::client::GroupVersionResource %1::groupVersionResource()\n{\n"
                    "    return {QStringLiteral(\"%2\"), QStringLiteral(\"%3\"), "
                    "QStringLiteral(\"%4\")};\n}\n")
                         .arg(c, cString(t.group), cString(t.version), cString(t.resource));
            const char *shortcuts[][3] = {{"name", "const QString &", "name"},
                {"namespaceName", "const QString &", "namespace"},
                {"labels", "const QMap<QString, QString> &", "labels"},
                {"annotations", "const QMap<QString, QString> &", "annotations"}};
            for (const auto &sc : shortcuts)
                s += QStringLiteral("\n%1Builder &%1Builder::%2(%3value)\n{\n"
                                    "    setMetadata(QLatin1StringView(\"%4\"), "
                                    "::qcm::typed::toJsonValue(value));\n"
                                    "    return *this;\n}\n")
                         .arg(c, QLatin1String(sc[0]), QLatin1String(sc[1]), QLatin1String(sc[2]));
        }
        for (const Field &f : t.fields) {
            s += QStringLiteral("\n%1 %2::%3() const\n{\n    %4\n}\n")
                     .arg(returnType(f), c, f.cppName, body(f));
            s += QStringLiteral("\n%1Builder &%1Builder::%2(%3value)\n{\n"
                                "    set(%4, value);\n    return *this;\n}\n")
                     .arg(c, f.cppName, paramType(f), keyLiteral(f.jsonName));
        }
    }
    s += QStringLiteral("\n} // namespace %1\n").arg(m_package.cppNamespace);
    return {
        QString(m_package.id).replace(QLatin1Char('/'), QLatin1Char('_')) + QStringLiteral(".cpp"),
        false, s.toUtf8()};
}

} // namespace

QList<GeneratedFile> emitCpp(const Model &model, const EmitOptions &options)
{
    QList<GeneratedFile> out;
    for (const Package &p : model.packages) {
        const Writer w(model, p, options);
        out.append(w.header());
        out.append(w.source());
    }
    return out;
}

} // namespace qcm::gen
