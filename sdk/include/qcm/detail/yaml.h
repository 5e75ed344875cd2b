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
#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>
#include <QtCore/QJsonValue>
#include <QtCore/QString>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <sstream>
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

// Malformed YAML as an Error of `file`: "malformed YAML at line L, column C: <yaml-cpp's
// reason>".
inline Error malformedYaml(const YAML::Exception &e, const QString &file)
{
    return Error {file, {},
        QStringLiteral("malformed YAML at line %1, column %2: %3")
            .arg(e.mark.line + 1)
            .arg(e.mark.column + 1)
            .arg(QString::fromStdString(e.msg))};
}

// Where each document of a stream starts, and nothing else: no nodes are built.
class YamlDocumentStarts final : public YAML::EventHandler
{
public:
    YAML::Mark start;
    void OnDocumentStart(const YAML::Mark &mark) override { start = mark; }
    void OnDocumentEnd() override { }
    void OnNull(const YAML::Mark &, YAML::anchor_t) override { }
    void OnAlias(const YAML::Mark &, YAML::anchor_t) override { }
    void OnScalar(
        const YAML::Mark &, const std::string &, YAML::anchor_t, const std::string &) override
    { }
    void OnSequenceStart(
        const YAML::Mark &, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    { }
    void OnSequenceEnd() override { }
    void OnMapStart(
        const YAML::Mark &, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    { }
    void OnMapEnd() override { }
};

// yaml-cpp 0.7 does not always advance on malformed input: on a lone "," every call of its
// parser yields another document that starts where the last one did, so LoadAll never returns
// (its list grows until memory runs out: 24 GB for one byte; found by fuzz_crds) and Load
// reads a null document. So a stream is walked first without building nodes, and a document
// that does not start after the previous one is malformed YAML, "no document can start here".
// Throws what the parser throws.
inline std::optional<Error> yamlWithoutProgress(const std::string &text, const QString &file)
{
    std::istringstream in(text);
    YAML::Parser parser(in);
    YamlDocumentStarts starts;
    for (int previous = -1; parser.HandleNextDocument(starts); previous = starts.start.pos) {
        if (starts.start.pos <= previous)
            return malformedYaml(
                YAML::ParserException(starts.start, "no document can start here"), file);
    }
    return std::nullopt;
}

// The one document `yaml` holds, with malformed YAML as an Error of `file`.
inline Result<YAML::Node> loadYamlDocument(const QByteArray &yaml, const QString &file)
{
    const std::string text = yaml.toStdString();
    try {
        if (std::optional<Error> error = yamlWithoutProgress(text, file))
            return *error;
        return YAML::Load(text);
    } catch (const YAML::Exception &e) {
        return malformedYaml(e, file);
    }
}

// Every document of a multi-document stream ("---"), with the same errors.
inline Result<std::vector<YAML::Node>> loadYamlDocuments(
    const QByteArray &yaml, const QString &file)
{
    const std::string text = yaml.toStdString();
    try {
        if (std::optional<Error> error = yamlWithoutProgress(text, file))
            return *error;
        return YAML::LoadAll(text);
    } catch (const YAML::Exception &e) {
        return malformedYaml(e, file);
    }
}

// A YAML node as JSON (qcm-gen's CRDs, TestEnvironment's): quoted scalars are strings, plain
// ones null, booleans, numbers or strings as YAML 1.2's core schema reads them; nesting past
// `maxDepth` is an Error of `file` that says where.
inline Result<QJsonValue> yamlToJson(
    const YAML::Node &node, const QString &file, int maxDepth, int depth = 0)
{
    if (depth > maxDepth)
        return Error {file, {},
            QStringLiteral("YAML nests deeper than %1%2").arg(maxDepth).arg(yamlPosition(node))};
    switch (node.Type()) {
    case YAML::NodeType::Map: {
        QJsonObject out;
        for (const auto &kv : node) {
            if (!kv.first.IsScalar())
                return Error {file, {},
                    QStringLiteral("a mapping key must be a scalar%1").arg(yamlPosition(kv.first))};
            auto v = yamlToJson(kv.second, file, maxDepth, depth + 1);
            if (!v)
                return v.error();
            out.insert(QString::fromStdString(kv.first.Scalar()), *v);
        }
        return QJsonValue(out);
    }
    case YAML::NodeType::Sequence: {
        QJsonArray out;
        for (const auto &e : node) {
            auto v = yamlToJson(e, file, maxDepth, depth + 1);
            if (!v)
                return v.error();
            out.append(*v);
        }
        return QJsonValue(out);
    }
    case YAML::NodeType::Scalar: {
        const QString s = QString::fromStdString(node.Scalar());
        if (node.Tag() == "!")
            return QJsonValue(s);
        if (s == QLatin1StringView("null") || s == QLatin1StringView("~") || s.isEmpty())
            return QJsonValue(QJsonValue::Null);
        if (s == QLatin1StringView("true") || s == QLatin1StringView("false"))
            return QJsonValue(s == QLatin1StringView("true"));
        bool ok = false;
        if (const qint64 i = s.toLongLong(&ok); ok)
            return QJsonValue(i);
        if (const double d = s.toDouble(&ok); ok)
            return QJsonValue(d);
        return QJsonValue(s);
    }
    default:
        return QJsonValue(QJsonValue::Null);
    }
}

} // namespace qcm::detail
