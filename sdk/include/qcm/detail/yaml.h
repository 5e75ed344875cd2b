// SPDX-License-Identifier: Apache-2.0
// What the SDK's kubeconfig reader and the host's controller-manager.yaml reader share about
// yaml-cpp: loading a document, with malformed YAML as an Error that says where, and a node's
// position for messages. Header-only and not plugin API: include it only where yaml-cpp is
// linked (the SDK's sources, the host); the public API never exposes yaml-cpp.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/result.h>

#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <yaml-cpp/yaml.h>

#include <vector>

namespace qcm::detail {

// " (line L, column C)", 1-based, or empty when the node has no position.
inline QString yamlPosition(const YAML::Node &node)
{
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0)
        return {};
    return QStringLiteral(" (line %1, column %2)").arg(mark.line + 1).arg(mark.column + 1);
}

// The document `yaml` holds; malformed YAML is an Error of `file`: "malformed YAML at line L,
// column C: <yaml-cpp's reason>".
inline Error malformedYaml(const YAML::Exception &e, const QString &file)
{
    return Error {file, {},
        QStringLiteral("malformed YAML at line %1, column %2: %3")
            .arg(e.mark.line + 1)
            .arg(e.mark.column + 1)
            .arg(QString::fromStdString(e.msg))};
}

inline Result<YAML::Node> loadYamlDocument(const QByteArray &yaml, const QString &file)
{
    try {
        return YAML::Load(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        return malformedYaml(e, file);
    }
}

// Every document of a multi-document stream ("---"), with the same errors.
inline Result<std::vector<YAML::Node>> loadYamlDocuments(
    const QByteArray &yaml, const QString &file)
{
    try {
        return YAML::LoadAll(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        return malformedYaml(e, file);
    }
}

} // namespace qcm::detail
