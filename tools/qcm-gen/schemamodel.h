// SPDX-License-Identifier: Apache-2.0
// The model qcm-gen emits C++ from: packages of struct types with typed fields, read from
// OpenAPI v3 documents (the Kubernetes spec's components.schemas and paths) or from
// CustomResourceDefinitions (openAPIV3Schema). docs/typed-objects.md has the mapping.
//
// Thread safety: plain values.
#pragma once

#include <QtCore/QJsonValue>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QSet>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <memory>

namespace qcm::gen {

// What a field's value is, as C++ reads it.
struct TypeRef
{
    enum class Shape { Scalar, Struct, Array, Map };
    enum class Scalar { String, Int32, Int64, Double, Bool, DateTime, IntOrString, Quantity, Json };
    Shape shape = Shape::Scalar;
    Scalar scalar = Scalar::Json;
    QString structId; // Struct: the StructType's id
    std::shared_ptr<TypeRef> element; // Array, Map: a Scalar or a Struct
};

struct Field
{
    QString jsonName;
    QString cppName; // an identifier that is no keyword and no reserved member
    TypeRef type;
    bool required = false;
    QJsonValue defaultValue; // a scalar of the field's type, or undefined
    QString doc; // the first sentence of the description
};

struct StructType
{
    QString id; // the schema's name, or a path for a CRD's nested object
    QString package; // "core/v1"
    QString cppName;
    QString doc;
    QList<Field> fields;
    // A kind (x-kubernetes-group-version-kind, or a CRD's root).
    bool isKind = false;
    QString group, version, kind;
    QString resource; // the plural, when the spec serves it; empty otherwise
    bool namespaced = false;
};

struct Package
{
    QString id; // "core/v1"
    QString cppNamespace; // "qcm::api::core::v1"
    QList<StructType> types; // in the order they are emitted
};

// Where a struct type a field refers to is declared.
struct StructInfo
{
    QString cppName;
    QString package; // "core/v1"
    QString cppNamespace;
    bool prebuilt = false; // in the SDK, not generated in this run
};

// Everything one run generates, and the struct types it may refer to.
struct Model
{
    QList<Package> packages; // to generate
    // The struct types fields refer to, by id: generated here, or prebuilt in the SDK.
    QMap<QString, StructInfo> structs;
    QStringList sources; // the input files, for the header comment

    const Package *package(const QString &id) const;
};

// The package and C++ namespace of a Kubernetes schema name:
// io.k8s.api.core.v1.Pod -> "core/v1"; io.k8s.apimachinery.pkg.apis.meta.v1.Time -> "meta/v1".
// Empty for names outside io.k8s.api and meta.
QString packageOfSchema(const QString &schemaId);
// "qcm::api::core::v1" for "core/v1".
QString namespaceOfPackage(const QString &package);

// A C++ identifier for a JSON member name: camelCase kept, other characters dropped with the
// next letter capitalised, a keyword or one of `reserved` suffixed with '_'.
QString cppIdentifier(const QString &jsonName, const QSet<QString> &reserved);
// What a kind's view, and any view, already has as members (generated fields must differ).
const QSet<QString> &reservedViewMembers();
const QSet<QString> &reservedKindMembers();

// The SDK's prebuilt packages (the ids of their struct types are known by their prefix).
const QStringList &prebuiltPackages();

} // namespace qcm::gen
