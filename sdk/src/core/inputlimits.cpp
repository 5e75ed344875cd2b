// SPDX-License-Identifier: Apache-2.0
#include <qcm/detail/inputlimits.h>

#include <atomic>

namespace qcm::detail {

namespace {

const InputLimits Defaults;
std::atomic<qint64> g_kubeconfigBytes {Defaults.kubeconfigBytes};
std::atomic<qint64> g_configBytes {Defaults.configBytes};
std::atomic<qint64> g_tokenFileBytes {Defaults.tokenFileBytes};
std::atomic<qint64> g_certificateBytes {Defaults.certificateBytes};
std::atomic<qint64> g_execCredentialBytes {Defaults.execCredentialBytes};
std::atomic<qint64> g_pluginMetadataBytes {Defaults.pluginMetadataBytes};
std::atomic<int> g_jsonDepth {Defaults.jsonDepth};

} // namespace

int jsonDepthLimit()
{
    return g_jsonDepth.load(std::memory_order_relaxed);
}

InputLimits inputLimits()
{
    InputLimits l;
    l.kubeconfigBytes = g_kubeconfigBytes.load(std::memory_order_relaxed);
    l.configBytes = g_configBytes.load(std::memory_order_relaxed);
    l.tokenFileBytes = g_tokenFileBytes.load(std::memory_order_relaxed);
    l.certificateBytes = g_certificateBytes.load(std::memory_order_relaxed);
    l.execCredentialBytes = g_execCredentialBytes.load(std::memory_order_relaxed);
    l.pluginMetadataBytes = g_pluginMetadataBytes.load(std::memory_order_relaxed);
    l.jsonDepth = g_jsonDepth.load(std::memory_order_relaxed);
    return l;
}

void setInputLimits(const InputLimits &l)
{
    g_kubeconfigBytes.store(l.kubeconfigBytes, std::memory_order_relaxed);
    g_configBytes.store(l.configBytes, std::memory_order_relaxed);
    g_tokenFileBytes.store(l.tokenFileBytes, std::memory_order_relaxed);
    g_certificateBytes.store(l.certificateBytes, std::memory_order_relaxed);
    g_execCredentialBytes.store(l.execCredentialBytes, std::memory_order_relaxed);
    g_pluginMetadataBytes.store(l.pluginMetadataBytes, std::memory_order_relaxed);
    g_jsonDepth.store(l.jsonDepth, std::memory_order_relaxed);
}

} // namespace qcm::detail
