// SPDX-License-Identifier: Apache-2.0
// Result<T, E>: a value or an error (KDE's KPluginFactory::Result, std::expected before
// C++23). E is qcm::Error by default; the REST client uses qcm::client::Status.
//
//     qcm::Result<RestConfig> config = KubeConfig::fromEnvironment();
//     if (!config)
//         qFatal("%s", qPrintable(config.error().toString()));
//     use(*config);
//
// Plain value; thread safety as for any value.
#pragma once

#include <qcm/error.h>

#include <utility>
#include <variant>

namespace qcm {

template<typename T, typename E = Error>
class Result
{
public:
    Result(T value) : m_data(std::in_place_index<0>, std::move(value)) { }
    Result(E error) : m_data(std::in_place_index<1>, std::move(error)) { }

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    // On a temporary Result these return the value itself, not a reference into the
    // temporary, so `for (auto &x : *f())` is safe.
    T &value() & { return std::get<0>(m_data); }
    const T &value() const & { return std::get<0>(m_data); }
    T value() && { return std::get<0>(std::move(m_data)); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T operator*() && { return std::get<0>(std::move(m_data)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const E &error() const { return std::get<1>(m_data); }

private:
    std::variant<T, E> m_data;
};

} // namespace qcm
