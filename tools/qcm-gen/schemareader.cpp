// SPDX-License-Identifier: Apache-2.0
#include "schemareader.h"

#include <qcm/detail/yaml.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRegularExpression>

#include <algorithm>

namespace qcm::gen {

namespace {

const QString MetaObjectMeta = QStringLiteral("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");

QString firstSentence(const QString &description)
{
    QString s = description.simplified();
    const qsizetype stop = s.indexOf(QStringLiteral(". "));
    if (stop >= 0)
        s.truncate(stop + 1);
    if (s.size() > 200)
        s = s.left(197) + QStringLiteral("...");
    return s;
}

// What a member's name adds to the name of the type of its value: "template" -> "Template".
QString typeNamePart(const QString &jsonName)
{
    QString s = cppIdentifier(jsonName, {});
    while (s.endsWith(QLatin1Char('_')))
        s.chop(1);
    if (!s.isEmpty())
        s[0] = s[0].toUpper();
    return s;
}

// Turns schemas into struct types and field types, for one input file.
class Resolver
{
public:
    Resolver(Model &model, QMap<QString, StructType> &types, const GeneratorLimits &limits)
        : m_model(model), m_types(types), m_limits(limits)
    { }

    QString file;
    const QJsonObject *components = nullptr; // OpenAPI: components.schemas
    QSet<QString> generated; // the packages generated from these documents

    // A struct type from an object schema with properties.
    bool addStruct(const QString &id, const QString &package, const QString &cppName,
        const QJsonObject &schema, bool isKindRoot, int depth)
    {
        if (m_types.contains(id))
            return true;
        if (m_types.size() >= m_limits.types)
            return fail(id, {}, QStringLiteral("more than %1 struct types").arg(m_limits.types));
        StructType type;
        type.id = id;
        type.package = package;
        type.cppName = cppName;
        type.doc = firstSentence(schema.value(QLatin1StringView("description")).toString());
        m_types.insert(id, type); // before its fields: a type may refer to itself
        const QJsonValue properties = schema.value(QLatin1StringView("properties"));
        if (!properties.isObject())
            return fail(id, QStringLiteral("properties"), QStringLiteral("must be an object"));
        QSet<QString> required;
        for (const QJsonValue &r : schema.value(QLatin1StringView("required")).toArray())
            required.insert(r.toString());
        const QSet<QString> &reserved = isKindRoot ? reservedKindMembers() : reservedViewMembers();
        QSet<QString> used;
        QList<Field> fields;
        const QJsonObject props = properties.toObject();
        for (auto it = props.begin(); it != props.end(); ++it) {
            if (isKindRoot
                && (it.key() == QLatin1StringView("apiVersion")
                    || it.key() == QLatin1StringView("kind")))
                continue;
            if (!it.value().isObject())
                return fail(
                    id, it.key(), QStringLiteral("the property's schema must be an object"));
            const QJsonObject prop = it.value().toObject();
            Field field;
            field.jsonName = it.key();
            field.cppName = cppIdentifier(it.key(), reserved);
            while (used.contains(field.cppName))
                field.cppName += QLatin1Char('_');
            used.insert(field.cppName);
            field.required = required.contains(it.key());
            field.doc = firstSentence(prop.value(QLatin1StringView("description")).toString());
            if (isKindRoot && it.key() == QLatin1StringView("metadata")
                && !prop.contains(QLatin1StringView("$ref"))
                && !prop.contains(QLatin1StringView("allOf"))) {
                // A CRD's metadata is always metav1.ObjectMeta, whatever its schema says.
                auto st = structRef(MetaObjectMeta, id, it.key());
                if (!st)
                    return false;
                field.type = *st;
            } else {
                auto resolved = resolve(
                    prop, id, cppName + typeNamePart(it.key()), package, it.key(), depth + 1);
                if (!resolved)
                    return false;
                field.type = *resolved;
            }
            field.defaultValue = scalarDefault(prop, field.type);
            fields.append(field);
        }
        m_types[id].fields = fields;
        return true;
    }

    std::optional<TypeRef> resolve(const QJsonObject &schema, const QString &owner,
        const QString &nameHint, const QString &package, const QString &field, int depth)
    {
        if (depth > m_limits.schemaDepth) {
            fail(owner, field,
                QStringLiteral("schemas nest deeper than %1").arg(m_limits.schemaDepth));
            return std::nullopt;
        }
        TypeRef t;
        if (schema.contains(QLatin1StringView("properties"))
            && !schema.value(QLatin1StringView("properties")).isObject()) {
            fail(owner + QLatin1Char('.') + field, QStringLiteral("properties"),
                QStringLiteral("must be an object"));
            return std::nullopt;
        }
        QString ref = schema.value(QLatin1StringView("$ref")).toString();
        const QJsonArray allOf = schema.value(QLatin1StringView("allOf")).toArray();
        if (ref.isEmpty() && allOf.size() == 1)
            ref = allOf.first().toObject().value(QLatin1StringView("$ref")).toString();
        if (!ref.isEmpty())
            return resolveRef(ref, owner, field, depth);
        if (schema.value(QLatin1StringView("x-kubernetes-int-or-string")).toBool()) {
            t.scalar = TypeRef::Scalar::IntOrString;
            return t;
        }
        const QString type = schema.value(QLatin1StringView("type")).toString();
        const QString format = schema.value(QLatin1StringView("format")).toString();
        QStringList oneOf;
        for (const QJsonValue &o : schema.value(QLatin1StringView("oneOf")).toArray())
            oneOf.append(o.toObject().value(QLatin1StringView("type")).toString());
        if (format == QLatin1StringView("int-or-string")) {
            t.scalar = TypeRef::Scalar::IntOrString;
        } else if (type.isEmpty()
            && oneOf == QStringList {QStringLiteral("string"), QStringLiteral("number")}) {
            t.scalar = TypeRef::Scalar::Quantity; // resource.Quantity
        } else if (type == QLatin1StringView("string")) {
            t.scalar = format == QLatin1StringView("date-time") ? TypeRef::Scalar::DateTime
                : format == QLatin1StringView("int-or-string")  ? TypeRef::Scalar::IntOrString
                                                                : TypeRef::Scalar::String;
        } else if (type == QLatin1StringView("integer")) {
            t.scalar = format == QLatin1StringView("int32") ? TypeRef::Scalar::Int32
                                                            : TypeRef::Scalar::Int64;
        } else if (type == QLatin1StringView("number")) {
            t.scalar = TypeRef::Scalar::Double;
        } else if (type == QLatin1StringView("boolean")) {
            t.scalar = TypeRef::Scalar::Bool;
        } else if (type == QLatin1StringView("array")) {
            const QJsonValue items = schema.value(QLatin1StringView("items"));
            if (!items.isObject())
                return t; // free-form
            // An element of "parts" is a "Part" (a plural's "s" dropped), else an "...Item".
            const bool plural
                = nameHint.endsWith(QLatin1Char('s')) && !nameHint.endsWith(QStringLiteral("ss"));
            auto element = resolve(items.toObject(), owner,
                plural ? nameHint.chopped(1) : nameHint + QStringLiteral("Item"), package, field,
                depth + 1);
            if (!element)
                return std::nullopt;
            t.shape = TypeRef::Shape::Array;
            t.element = std::make_shared<TypeRef>(elementOf(*element));
        } else if (schema.value(QLatin1StringView("properties")).toObject().size() > 0) {
            const QString id = owner + QLatin1Char('.') + field;
            if (!addStruct(id, package, uniqueName(nameHint, package), schema, false, depth))
                return std::nullopt;
            t.shape = TypeRef::Shape::Struct;
            t.structId = id;
        } else if (schema.value(QLatin1StringView("additionalProperties")).isObject()) {
            auto element
                = resolve(schema.value(QLatin1StringView("additionalProperties")).toObject(), owner,
                    nameHint + QStringLiteral("Value"), package, field, depth + 1);
            if (!element)
                return std::nullopt;
            t.shape = TypeRef::Shape::Map;
            t.element = std::make_shared<TypeRef>(elementOf(*element));
        }
        return t; // anything else is free-form JSON
    }

    std::optional<TypeRef> structRef(const QString &id, const QString &owner, const QString &field)
    {
        const QString package = packageOfSchema(id);
        if (!generated.contains(package) && !prebuiltPackages().contains(package)) {
            fail(owner, field,
                QStringLiteral("refers to %1, whose package %2 is neither generated (--package) "
                               "nor prebuilt in the SDK")
                    .arg(id, package.isEmpty() ? QStringLiteral("(none)") : package));
            return std::nullopt;
        }
        if (!generated.contains(package))
            m_model.structs.insert(id,
                StructInfo {
                    id.section(QLatin1Char('.'), -1), package, namespaceOfPackage(package), true});
        TypeRef t;
        t.shape = TypeRef::Shape::Struct;
        t.structId = id;
        return t;
    }

    bool fail(const QString &where, const QString &field, const QString &reason)
    {
        if (!m_error)
            m_error
                = Error {file, field.isEmpty() ? where : where + QLatin1Char('.') + field, reason};
        return false;
    }
    std::optional<Error> m_error;

private:
    std::optional<TypeRef> resolveRef(
        const QString &ref, const QString &owner, const QString &field, int depth)
    {
        static const QString prefix = QStringLiteral("#/components/schemas/");
        if (!components || !ref.startsWith(prefix)) {
            fail(owner, field, QStringLiteral("unsupported $ref \"%1\"").arg(ref));
            return std::nullopt;
        }
        const QString id = ref.mid(prefix.size());
        const QJsonValue target = components->value(id);
        if (!target.isObject()) {
            fail(owner, field, QStringLiteral("$ref \"%1\" names no schema").arg(ref));
            return std::nullopt;
        }
        const QJsonObject schema = target.toObject();
        if (schema.value(QLatin1StringView("properties")).toObject().isEmpty())
            return resolve(schema, id, id.section(QLatin1Char('.'), -1), {}, {}, depth + 1);
        return structRef(id, owner, field);
    }

    static TypeRef elementOf(const TypeRef &t)
    {
        // Lists of lists and maps of maps read as free-form JSON.
        if (t.shape == TypeRef::Shape::Array || t.shape == TypeRef::Shape::Map)
            return TypeRef {};
        return t;
    }

    // A name no type of `package` has yet.
    QString uniqueName(const QString &hint, const QString &package)
    {
        QString name = hint;
        for (int n = 2; std::any_of(m_types.cbegin(), m_types.cend(),
                 [&](const StructType &t) { return t.package == package && t.cppName == name; });
             ++n)
            name = hint + QString::number(n);
        return name;
    }

    static QJsonValue scalarDefault(const QJsonObject &schema, const TypeRef &type)
    {
        const QJsonValue d = schema.value(QLatin1StringView("default"));
        if (type.shape != TypeRef::Shape::Scalar)
            return QJsonValue(QJsonValue::Undefined);
        switch (type.scalar) {
        case TypeRef::Scalar::String:
            return d.isString() ? d : QJsonValue(QJsonValue::Undefined);
        case TypeRef::Scalar::Int32:
        case TypeRef::Scalar::Int64:
        case TypeRef::Scalar::Double:
            return d.isDouble() ? d : QJsonValue(QJsonValue::Undefined);
        case TypeRef::Scalar::Bool:
            return d.isBool() ? d : QJsonValue(QJsonValue::Undefined);
        default:
            return QJsonValue(QJsonValue::Undefined);
        }
    }

    Model &m_model;
    QMap<QString, StructType> &m_types;
    const GeneratorLimits &m_limits;
};

// The model's packages from the struct types read, sorted by name for a stable output.
void finish(Model &model, QMap<QString, StructType> &types, const QStringList &order,
    const QMap<QString, QString> &namespaces)
{
    for (const QString &id : order) {
        Package p;
        p.id = id;
        p.cppNamespace = namespaces.value(id, namespaceOfPackage(id));
        for (const StructType &t : types)
            if (t.package == id)
                p.types.append(t);
        std::sort(p.types.begin(), p.types.end(),
            [](const StructType &a, const StructType &b) { return a.cppName < b.cppName; });
        model.packages.append(p);
    }
    for (const Package &p : model.packages)
        for (const StructType &t : p.types)
            model.structs.insert(t.id, StructInfo {t.cppName, p.id, p.cppNamespace, false});
}

Result<QJsonObject> jsonDocument(const Input &input, const GeneratorLimits &limits)
{
    if (input.bytes.size() > limits.inputBytes)
        return Error {input.file, {},
            QStringLiteral("larger than the limit of %1 bytes").arg(limits.inputBytes)};
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(input.bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return Error {input.file, {},
            QStringLiteral("invalid JSON at offset %1: %2")
                .arg(error.offset)
                .arg(error.errorString())};
    if (!doc.isObject())
        return Error {input.file, {}, QStringLiteral("not a JSON object")};
    return doc.object();
}

} // namespace

Result<Model> readOpenApi(
    const QList<Input> &documents, const QStringList &packages, const GeneratorLimits &limits)
{
    Model model;
    QMap<QString, StructType> types;
    QMap<QString, QJsonObject> components; // every document's, merged
    QList<QPair<QString, QJsonObject>> paths;
    QMap<QString, QString> origin; // schema id -> file
    for (const Input &input : documents) {
        auto doc = jsonDocument(input, limits);
        if (!doc)
            return doc.error();
        model.sources.append(input.file);
        const QJsonObject schemas = doc->value(QLatin1StringView("components"))
                                        .toObject()
                                        .value(QLatin1StringView("schemas"))
                                        .toObject();
        if (schemas.isEmpty())
            return Error {input.file, QStringLiteral("components.schemas"),
                QStringLiteral("missing or empty: not an OpenAPI v3 document")};
        for (auto it = schemas.begin(); it != schemas.end(); ++it) {
            if (!components.contains(it.key()))
                origin.insert(it.key(), input.file);
            components.insert(it.key(), it.value().toObject());
        }
        paths.append({input.file, doc->value(QLatin1StringView("paths")).toObject()});
    }
    QJsonObject all;
    for (auto it = components.cbegin(); it != components.cend(); ++it)
        all.insert(it.key(), it.value());

    Resolver resolver(model, types, limits);
    resolver.components = &all;
    resolver.generated = QSet<QString>(packages.begin(), packages.end());
    for (const QString &package : packages) {
        bool any = false;
        for (auto it = components.cbegin(); it != components.cend(); ++it) {
            if (packageOfSchema(it.key()) != package
                || it.value().value(QLatin1StringView("properties")).toObject().isEmpty())
                continue;
            any = true;
            resolver.file = origin.value(it.key());
            const QJsonArray gvks
                = it.value().value(QLatin1StringView("x-kubernetes-group-version-kind")).toArray();
            const bool isKind = gvks.size() == 1;
            if (!resolver.addStruct(it.key(), package, it.key().section(QLatin1Char('.'), -1),
                    it.value(), isKind, 0))
                return *resolver.m_error;
            if (isKind) {
                StructType &t = types[it.key()];
                const QJsonObject gvk = gvks.first().toObject();
                t.isKind = true;
                t.group = gvk.value(QLatin1StringView("group")).toString();
                t.version = gvk.value(QLatin1StringView("version")).toString();
                t.kind = gvk.value(QLatin1StringView("kind")).toString();
            }
        }
        if (!any)
            return Error {documents.isEmpty() ? QString() : documents.first().file, package,
                QStringLiteral("no schema of this package in the documents given")};
    }
    // Resources: the path each kind is read from (action "get", .../{name}).
    for (const auto &[file, p] : paths) {
        for (auto it = p.begin(); it != p.end(); ++it) {
            const QJsonObject get
                = it.value().toObject().value(QLatin1StringView("get")).toObject();
            if (get.value(QLatin1StringView("x-kubernetes-action")).toString()
                != QLatin1StringView("get"))
                continue;
            const QStringList segments = it.key().split(QLatin1Char('/'), Qt::SkipEmptyParts);
            if (segments.size() < 2 || segments.last() != QLatin1StringView("{name}"))
                continue;
            const QJsonObject gvk
                = get.value(QLatin1StringView("x-kubernetes-group-version-kind")).toObject();
            for (StructType &t : types) {
                if (t.isKind && t.resource.isEmpty()
                    && t.kind == gvk.value(QLatin1StringView("kind")).toString()
                    && t.group == gvk.value(QLatin1StringView("group")).toString()
                    && t.version == gvk.value(QLatin1StringView("version")).toString()) {
                    t.resource = segments.at(segments.size() - 2);
                    t.namespaced = segments.contains(QLatin1StringView("{namespace}"));
                }
            }
        }
    }
    finish(model, types, packages, {});
    return model;
}

namespace {

QString str(const QJsonObject &o, const char *path)
{
    QJsonValue v(o);
    for (const QString &part : QString::fromLatin1(path).split(QLatin1Char('.')))
        v = v.toObject().value(part);
    return v.toString();
}

} // namespace

Result<Model> readCrds(
    const Input &crds, const QString &cppNamespace, const GeneratorLimits &limits)
{
    if (crds.bytes.size() > limits.inputBytes)
        return Error {crds.file, {},
            QStringLiteral("larger than the limit of %1 bytes").arg(limits.inputBytes)};
    auto loaded = detail::loadYamlDocuments(crds.bytes, crds.file);
    if (!loaded)
        return loaded.error();
    const std::vector<YAML::Node> &docs = *loaded;
    Model model;
    model.sources.append(crds.file);
    QMap<QString, StructType> types;
    QStringList order;
    QMap<QString, QString> namespaces;
    Resolver resolver(model, types, limits);
    resolver.file = crds.file;
    int index = 0;
    for (const YAML::Node &node : docs) {
        ++index;
        if (node.IsNull())
            continue;
        auto json = detail::yamlToJson(node, crds.file, limits.schemaDepth * 4);
        if (!json)
            return json.error();
        const QJsonObject crd = json->toObject();
        const QString where = QStringLiteral("document %1").arg(index);
        if (str(crd, "kind") != QLatin1StringView("CustomResourceDefinition")
            || str(crd, "apiVersion") != QLatin1StringView("apiextensions.k8s.io/v1"))
            return Error {crds.file, where,
                QStringLiteral("not an apiextensions.k8s.io/v1 CustomResourceDefinition")};
        const QString group = str(crd, "spec.group");
        const QString kind = str(crd, "spec.names.kind");
        const QString plural = str(crd, "spec.names.plural");
        static const QRegularExpression groupForm(
            QStringLiteral(R"(^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)"));
        static const QRegularExpression kindForm(QStringLiteral("^[A-Z][A-Za-z0-9]*$"));
        static const QRegularExpression pluralForm(
            QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
        if (!groupForm.match(group).hasMatch())
            return Error {crds.file, where + QStringLiteral(".spec.group"),
                QStringLiteral("\"%1\" is not a DNS subdomain").arg(group)};
        if (!kindForm.match(kind).hasMatch())
            return Error {crds.file, where + QStringLiteral(".spec.names.kind"),
                QStringLiteral(
                    "\"%1\" is not a kind (an upper-case letter, then letters and digits)")
                    .arg(kind)};
        if (!pluralForm.match(plural).hasMatch())
            return Error {crds.file, where + QStringLiteral(".spec.names.plural"),
                QStringLiteral("\"%1\" is not a DNS label").arg(plural)};
        const QJsonArray versions = crd.value(QLatin1StringView("spec"))
                                        .toObject()
                                        .value(QLatin1StringView("versions"))
                                        .toArray();
        if (versions.isEmpty())
            return Error {
                crds.file, where + QStringLiteral(".spec.versions"), QStringLiteral("no versions")};
        const QString label = cppIdentifier(group.section(QLatin1Char('.'), 0, 0).toLower(), {});
        for (const QJsonValue &v : versions) {
            const QJsonObject version = v.toObject();
            const QString name = version.value(QLatin1StringView("name")).toString();
            const QJsonObject schema = version.value(QLatin1StringView("schema"))
                                           .toObject()
                                           .value(QLatin1StringView("openAPIV3Schema"))
                                           .toObject();
            if (!pluralForm.match(name).hasMatch())
                return Error {crds.file, where + QStringLiteral(".spec.versions"),
                    QStringLiteral("version \"%1\" is not a DNS label").arg(name)};
            if (schema.value(QLatin1StringView("properties")).toObject().isEmpty())
                return Error {crds.file, where + QStringLiteral(".spec.versions"),
                    QStringLiteral("version %1 has no schema.openAPIV3Schema with properties")
                        .arg(name)};
            const QString package = label + QLatin1Char('/') + cppIdentifier(name, {});
            if (!order.contains(package)) {
                order.append(package);
                namespaces.insert(package,
                    (cppNamespace.isEmpty() ? label : cppNamespace) + QStringLiteral("::")
                        + cppIdentifier(name, {}));
            }
            const QString id = group + QLatin1Char('/') + name + QLatin1Char('.') + kind;
            // Every kind has metadata, whether its schema names it or not.
            QJsonObject root = schema;
            QJsonObject properties = root.value(QLatin1StringView("properties")).toObject();
            if (!properties.contains(QLatin1StringView("metadata")))
                properties.insert(QLatin1StringView("metadata"),
                    QJsonObject {{QLatin1StringView("type"), QLatin1StringView("object")}});
            root.insert(QLatin1StringView("properties"), properties);
            for (const StructType &t : std::as_const(types))
                if (t.package == package && t.cppName == kind && t.id != id)
                    return Error {crds.file, where + QStringLiteral(".spec.names.kind"),
                        QStringLiteral("kind %1 has the name of a type generated for another "
                                       "kind of %2; put that CRD in a file of its own with "
                                       "another namespace")
                            .arg(kind, package)};
            if (!resolver.addStruct(id, package, kind, root, true, 0))
                return *resolver.m_error;
            StructType &t = types[id];
            t.isKind = true;
            t.group = group;
            t.version = name;
            t.kind = kind;
            t.resource = plural;
            t.namespaced = str(crd, "spec.scope") != QLatin1StringView("Cluster");
        }
    }
    if (order.isEmpty())
        return Error {crds.file, {}, QStringLiteral("no CustomResourceDefinition in the file")};
    finish(model, types, order, namespaces);
    return model;
}

} // namespace qcm::gen
