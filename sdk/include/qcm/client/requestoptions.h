// SPDX-License-Identifier: Apache-2.0
// Options of list, watch, write, patch and delete requests (metav1.ListOptions and friends).
//
// Plain values; copy them freely.
#pragma once

#include <QtCore/QString>

#include <optional>

namespace qcm::client {

struct ListOptions
{
    QString labelSelector;
    QString fieldSelector;
    int limit = 0; // page size; 0: everything at once
    QString continueToken; // from the previous page's ObjectList::continueToken
    QString resourceVersion; // "" (most recent), "0" (any, from the cache), or a version
    QString resourceVersionMatch; // NotOlderThan or Exact
    std::optional<int> timeoutSeconds;
    bool allowWatchBookmarks = false;
    bool sendInitialEvents = false; // WatchList streaming
};

struct WriteOptions
{
    QString fieldManager;
    bool dryRun = false;
};

enum class PatchType {
    Json, // application/json-patch+json (RFC 6902)
    Merge, // application/merge-patch+json (RFC 7386)
    StrategicMerge, // application/strategic-merge-patch+json (built-in types only)
    Apply, // application/apply-patch+yaml: server-side apply
};

struct PatchOptions
{
    QString fieldManager; // required for Apply
    bool force = false; // Apply: take ownership of conflicting fields
    bool dryRun = false;
};

struct DeleteOptions
{
    QString preconditionUid; // delete only this incarnation
    QString preconditionResourceVersion; // delete only this version
    QString propagationPolicy; // Orphan, Background or Foreground
    std::optional<qint64> gracePeriodSeconds;
    bool dryRun = false;
};

} // namespace qcm::client
