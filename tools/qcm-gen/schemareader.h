// SPDX-License-Identifier: Apache-2.0
// Reading schemas into qcm-gen's Model: OpenAPI v3 documents as the Kubernetes API server
// serves them (/openapi/v3/<group-version>, or api/openapi-spec/v3/ of k8s.io/kubernetes),
// and CustomResourceDefinitions (apiextensions.k8s.io/v1, one or more YAML documents).
//
// Every input is bounded (GeneratorLimits) and every error names the file, the schema or
// field, and the reason.
//
// Thread safety: reentrant.
#pragma once

#include "schemamodel.h"

#include <qcm/result.h>

#include <QtCore/QByteArray>

namespace qcm::gen {

struct GeneratorLimits
{
    qsizetype inputBytes = 64 * 1024 * 1024; // one input file
    int schemaDepth = 64; // nesting of schemas within one type
    int types = 20000; // struct types in one run
};

struct Input
{
    QString file; // for messages
    QByteArray bytes;
};

// The struct types of `packages` ("core/v1", ...) found in `documents` (OpenAPI v3 JSON).
// A type that refers to one in another package needs that package generated too, or prebuilt
// in the SDK.
Result<Model> readOpenApi(
    const QList<Input> &documents, const QStringList &packages, const GeneratorLimits &limits = {});

// The struct types of every version a CRD file (one or more YAML documents) serves. Each
// version is a package "<first label of the group>/<version>" in namespace
// `cppNamespace`::<version>, or <first label>::<version> when that is empty.
Result<Model> readCrds(
    const Input &crds, const QString &cppNamespace = {}, const GeneratorLimits &limits = {});

} // namespace qcm::gen
