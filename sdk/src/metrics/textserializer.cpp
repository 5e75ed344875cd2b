// SPDX-License-Identifier: Apache-2.0
#include <qcm/metrics/textserializer.h>

#include <charconv>
#include <cmath>

namespace qcm::metrics {

namespace {

void appendEscaped(QByteArray &out, const QString &text, bool quotes)
{
    for (const char c : text.toUtf8()) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (quotes && c == '"')
            out += "\\\"";
        else
            out += c;
    }
}

void appendSample(QByteArray &out, const QString &name, const char *suffix, const Labels &labels,
    const char *extraName, const QByteArray &extraValue, double value)
{
    out += name.toUtf8();
    out += suffix;
    if (!labels.empty() || extraName) {
        out += '{';
        bool first = true;
        for (const auto &[key, labelValue] : labels) {
            if (!first)
                out += ',';
            first = false;
            out += key.toUtf8();
            out += "=\"";
            appendEscaped(out, labelValue, true);
            out += '"';
        }
        if (extraName) {
            if (!first)
                out += ',';
            out += extraName;
            out += "=\"";
            out += extraValue;
            out += '"';
        }
        out += '}';
    }
    out += ' ';
    out += TextSerializer::formatValue(value);
    out += '\n';
}

} // namespace

const char *metricTypeName(MetricType type)
{
    switch (type) {
    case MetricType::Counter:
        return "counter";
    case MetricType::Gauge:
        return "gauge";
    case MetricType::Histogram:
        return "histogram";
    }
    return "untyped";
}

QByteArray TextSerializer::formatValue(double value)
{
    if (std::isnan(value))
        return QByteArrayLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QByteArrayLiteral("+Inf") : QByteArrayLiteral("-Inf");
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return QByteArray(buffer, int(result.ptr - buffer));
}

QByteArray TextSerializer::serialize(const std::vector<MetricFamily> &families)
{
    QByteArray out;
    out.reserve(4096);
    for (const MetricFamily &family : families) {
        if (family.metrics.empty())
            continue;
        out += "# HELP ";
        out += family.name.toUtf8();
        out += ' ';
        appendEscaped(out, family.help, false);
        out += "\n# TYPE ";
        out += family.name.toUtf8();
        out += ' ';
        out += metricTypeName(family.type);
        out += '\n';
        for (const ClientMetric &metric : family.metrics) {
            if (family.type != MetricType::Histogram) {
                appendSample(out, family.name, "", metric.labels, nullptr, {}, metric.value);
                continue;
            }
            for (const HistogramBucket &bucket : metric.buckets)
                appendSample(out, family.name, "_bucket", metric.labels, "le",
                    formatValue(bucket.upperBound), double(bucket.cumulativeCount));
            appendSample(out, family.name, "_sum", metric.labels, nullptr, {}, metric.sum);
            appendSample(
                out, family.name, "_count", metric.labels, nullptr, {}, double(metric.count));
        }
    }
    return out;
}

} // namespace qcm::metrics
