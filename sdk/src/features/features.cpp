// SPDX-License-Identifier: Apache-2.0
#include <qcm/features/features.h>

#include <QtCore/QLoggingCategory>

#include <array>
#include <iterator>

namespace qcm::features {

Q_LOGGING_CATEGORY(lcFeatures, "qcm.features")

namespace {

struct Known
{
    Feature feature;
    const char *name;
    bool defaultValue;
};

// client-go v0.37's known_features.go, for the features the SDK has.
constexpr Known KnownFeatures[] = {
    {Feature::WatchListClient, "WatchListClient", true},
};

bool fromEnvironment(const Known &known)
{
    const QByteArray variable = QByteArray("KUBE_FEATURE_") + known.name;
    if (!qEnvironmentVariableIsSet(variable.constData()))
        return known.defaultValue;
    const QByteArray text = qgetenv(variable.constData());
    if (const std::optional<bool> value = detail::parseBool(text))
        return *value;
    qCWarning(lcFeatures, "%s=\"%s\" is not a boolean (true or false); %s stays %s",
        variable.constData(), text.left(64).constData(), known.name,
        known.defaultValue ? "on" : "off");
    return known.defaultValue;
}

} // namespace

std::optional<bool> detail::parseBool(const QByteArray &text)
{
    for (const char *yes : {"1", "t", "T", "TRUE", "true", "True"})
        if (text == yes)
            return true;
    for (const char *no : {"0", "f", "F", "FALSE", "false", "False"})
        if (text == no)
            return false;
    return std::nullopt;
}

bool enabled(Feature feature)
{
    // Read once per process (a function-local static is initialised thread-safely).
    static const auto values = [] {
        std::array<bool, std::size(KnownFeatures)> read {};
        for (size_t i = 0; i < std::size(KnownFeatures); ++i)
            read[i] = fromEnvironment(KnownFeatures[i]);
        return read;
    }();
    for (size_t i = 0; i < std::size(KnownFeatures); ++i)
        if (KnownFeatures[i].feature == feature)
            return values[i];
    return false;
}

QLatin1String name(Feature feature)
{
    for (const Known &known : KnownFeatures)
        if (known.feature == feature)
            return QLatin1String(known.name);
    return {};
}

} // namespace qcm::features
