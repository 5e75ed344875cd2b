// SPDX-License-Identifier: Apache-2.0
// Reflector: keeps an informer queue (Queue) in step with the server by listing and watching one
// resource (client-go's cache.Reflector and its ListAndWatch).
//
//   * With Options::useWatchList (the default) a round starts with one WatchList stream
//     instead of a list; a stream that fails, or ends within 1 s with no event, falls back to
//     the list below for that round (client-go's ListAndWatch).
//   * The first list asks for resourceVersion "0" (the apiserver's cache); later lists ask
//     for the last synced version; after 410 Expired or "too large resource version" the
//     list is retried at once with "" (a quorum read).
//   * Page size, as client-go chooses it: Options::pageSize if set; otherwise pages of 500
//     for the first list ("0") and for every list once that first list came in pages (the
//     resource has no watch cache), and no paging for a list at a given version, so that the
//     apiserver's watch cache answers it. If a continue token expires mid-list, one full list.
//   * A watch's events are stored on the thread that receives them when the stream can
//     (WatchStream::setEventSink: client::Watch, on the REST client's I/O thread), else on
//     run()'s thread.
//   * Watches resume from the last synced version with bookmarks and a random timeout in
//     [300, 600) s. Bookmarks only move the version. A watch the server ends normally is
//     simply opened again.
//   * A watch ending in 410: relist from the last version. 429 or connection refused:
//     back off and watch again, without relisting. Anything else: relist. A watch that ends
//     within 1 s with no events is an error.
//   * Between failed rounds: backoff from 800 ms doubling to 30 s, with jitter 1.0, reset
//     after 2 min without failures.
//   * Every resyncPeriod (if set) the FIFO resyncs.
// Time comes from the Clock, so tests drive it with a FakeClock.
//
// Thread safety: run() blocks its thread until stop(); stop() and the getters are safe from
// any thread.
#pragma once

#include <qcm/cache/listerwatcher.h>
#include <qcm/cache/queue.h>
#include <qcm/features/features.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <random>

namespace qcm::cache {

class QCM_SDK_EXPORT Reflector
{
public:
    struct Options
    {
        Duration resyncPeriod {0}; // 0: never
        int pageSize = 0; // client-go's WatchListPageSize: 0 lets the reflector choose
        Clock *clock = nullptr; // null: Clock::system()
        // Called with every error that ends a list-and-watch round (client-go's
        // WatchErrorHandler); the default logs it.
        std::function<void(const client::Status &)> watchErrorHandler;
        quint32 seed = 0; // for jitter and watch timeouts; 0: random
        // Asked at every resync tick; the FIFO resyncs only if it says yes (client-go's
        // ShouldResync: the informer checks which handlers are due). Null: always.
        std::function<bool()> shouldResync;
        // WatchList streaming (client-go's WatchListClient): one watch with
        // sendInitialEvents=true and resourceVersionMatch=NotOlderThan streams the current
        // objects, ends them with a bookmark annotated k8s.io/initial-events-end, and goes on
        // as the watch. On by default, as in client-go (features.h; KUBE_FEATURE_
        // WatchListClient=false turns it off), unless the ListerWatcher cannot stream. When
        // the stream fails for any reason but 410, 429 or a refused connection (which it
        // retries), that round lists instead; the next round tries the stream again.
        bool useWatchList = features::enabled(features::Feature::WatchListClient);
        // Called after every write to the store (add, update, remove, replace, resync), on the
        // thread that wrote it: run()'s, the stream's receiving thread for a watch event
        // (WatchStream::setEventSink), or the clock's for a resync. The informer drains its
        // queue here, so that an event is processed on the thread that received it.
        std::function<void()> afterStore;
    };

    Reflector(ListerWatcher *listerWatcher, Queue *store, Options options);
    ~Reflector();

    // Lists and watches until stop().
    void run();
    void stop();

    QString lastSyncResourceVersion() const;

private:
    // One list and the watches that follow it; returns the error that ended it, if any.
    std::optional<client::Status> listAndWatch();
    std::optional<client::Status> list();
    // The watches after a list; `streamed` is the watch-list stream to go on with, if any.
    std::optional<client::Status> watchLoop(std::shared_ptr<client::WatchStream> streamed);
    // client-go's watchList(): the stream of initial events up to the initial-events-end
    // bookmark, replaced into the store; the stream is returned to go on watching.
    Result<std::shared_ptr<client::WatchStream>, client::Status> watchList();
    void setWatch(std::shared_ptr<client::WatchStream> watch);
    int watchTimeoutSeconds();
    // Waits `d` on the clock; false if stopped meanwhile.
    bool sleep(Duration d);
    Duration nextBackoff();
    void setLastSync(const QString &resourceVersion);
    // A watch event's object, whose resourceVersion (if it has one) becomes the last synced
    // one when next asked for: the event path neither decodes nor copies it.
    void setLastSync(const client::Object &source);
    void stored(); // Options::afterStore, if any
    // One watch event into the store, and its version; on the thread that received it.
    void storeWatchEvent(const client::WatchEvent &event);

    ListerWatcher *const m_listerWatcher;
    Queue *const m_store;
    Options m_options;
    Clock *m_clock;
    std::mt19937_64 m_random;

    std::atomic<bool> m_stopped {false};
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    mutable QString m_lastSyncResourceVersion; // guarded by m_mutex
    // The newest watch event's object, its version not yet read (then the string above is
    // the one before it); guarded by m_mutex.
    mutable client::Object m_lastSyncSource;
    bool m_lastSyncUnavailable = false; // only the run() thread
    bool m_listedOnce = false; // only the run() thread
    bool m_paginatedResult = false; // only the run() thread
    std::shared_ptr<client::WatchStream> m_watch; // guarded by m_mutex
    Duration m_backoff {0}; // only the run() thread
    TimePoint m_lastBackoffStart {}; // only the run() thread
};

} // namespace qcm::cache
