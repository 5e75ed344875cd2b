// SPDX-License-Identifier: Apache-2.0
// qcm-gen's C++ writer: one header and one source per package of the Model, views over
// client::Object (typed::View, typed::TypedObject) and builders (typed::Builder).
// docs/typed-objects.md describes what a schema becomes.
//
// Thread safety: reentrant.
#pragma once

#include "schemamodel.h"

#include <QtCore/QByteArray>

namespace qcm::gen {

struct EmitOptions
{
    // Headers are <includePrefix>/<group>/<version>.h ("qcm/api" for the SDK's own; empty for
    // a plugin's, which then includes "<group>/<version>.h").
    QString includePrefix;
    QString exportMacro; // on every class, e.g. QCM_SDK_EXPORT
    QString exportInclude; // the header that defines it
};

struct GeneratedFile
{
    QString path; // relative: the header's include path, or "<group>_<version>.cpp"
    bool isHeader = false;
    QByteArray content;
};

QList<GeneratedFile> emitCpp(const Model &model, const EmitOptions &options);

} // namespace qcm::gen
