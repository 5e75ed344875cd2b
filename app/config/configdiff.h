// SPDX-License-Identifier: Apache-2.0
// ConfigDiff: what changed between the configuration qcm runs with and a new one (a reload),
// in the terms a reload acts on:
//
//   * restartOnly: fields that only take effect when qcm starts, because everything shares
//     what they built: the API server connection (kubeconfig, master, clientConnection), the
//     plugin directories, leader election and serving. One Error each, naming the new file,
//     the field, both values and the line and column where the new file sets it (or that it
//     does not, and so has its default); a reload that has any is refused whole
//     (docs/host.md, "Changes without restart").
//   * enabled / disabled: controllers the `controllers` list turns on or off;
//   * changed: controllers enabled in both whose ControllerSpec differs (their workers,
//     shards, resyncPeriod or settings, or minResyncPeriod when they have no resyncPeriod of
//     their own): those are restarted, and no other.
//
// controllerShutdownTimeout and minResyncPeriod themselves apply to what happens next (the
// next stop, the next controller created) and need nothing restarted.
//
// Thread safety: reentrant.
#pragma once

#include "config/config.h"

#include <qcm/context.h>

#include <QtCore/QList>
#include <QtCore/QSet>

namespace qcm::host {

// What one controller is created from (ControllerManager::contextFor()).
struct ControllerSpec
{
    int workers = 1;
    std::optional<Duration> resyncPeriod; // its own; none: random in [minResyncPeriod, 2x)
    Duration minResyncPeriod {};
    QVariantMap settings;
    bool sharded = false; // isSharded()

    // Whether a Controller created with `context` is what this spec would create now. A
    // resync period drawn at random from [minResyncPeriod, 2x) still matches while it lies
    // in that range.
    bool matches(const ControllerContext &context) const;
    friend bool operator==(const ControllerSpec &a, const ControllerSpec &b);
    friend bool operator!=(const ControllerSpec &a, const ControllerSpec &b) { return !(a == b); }
};

ControllerSpec controllerSpec(const ControllerManagerConfig &config, const QString &name);
// The controller's entry says shards: auto, and there is a scale-out group.
bool isSharded(const ControllerManagerConfig &config, const QString &name);

struct ConfigDiff
{
    QList<Error> restartOnly;
    QStringList enabled;
    QStringList disabled;
    QStringList changed;

    bool isEmpty() const
    {
        return restartOnly.isEmpty() && enabled.isEmpty() && disabled.isEmpty()
            && changed.isEmpty();
    }
    // "enabled: a, b; disabled: c; changed: d" or "no change to the controllers".
    QString summary() const;
};

// `known` and `disabledByDefault` are the plugins' names (PluginHost), in which the
// `controllers` lists of both configurations are read (controllerselection.h).
ConfigDiff diffConfigs(const ControllerManagerConfig &running, const ControllerManagerConfig &next,
    const QSet<QString> &known, const QSet<QString> &disabledByDefault);

} // namespace qcm::host
