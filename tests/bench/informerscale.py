# SPDX-License-Identifier: Apache-2.0
"""The informer scale curve of run_bench.py --informer-scale (issue 15 section 4), after the
informer benchmarks of informerbench.py, on the same cluster and with the same peers.

    scale curve   cold sync, peak RSS and the RSS 5 s later of 10k, 50k and 100k Pods
                  (--quick: 100, 200, 400), for qcm, client-go's typed informer (protobuf,
                  its default) and its typed JSON informer; per object: sync ms per 1,000
                  objects and peak RSS growth (peak - RSS at start) in KiB per object. Flat
                  means every size's cost per object is within +-15 % of the smallest
                  size's. qcm's sync runs between two reads of its floor (the JSON WatchList
                  stream as raw bytes), so each size shows the server's own cost per object
                  beside qcm's, and each size is judged on the cold-sync and memory targets
                  as the 10k and 50k cases of informerbench.py are (judge_sync).
    throughput    watch events per second: updates over the 10k ConfigMaps of the latency run
                  at rising rates (500, 1,000, 2,000, 4,000, 8,000/s for 10 s each; --quick:
                  200 and 400/s for 1 s), every side at once on the same updates (as the
                  latency run); per side the highest rate at which its p99 stayed under
                  100 ms. The sweep stops at the first rate the sender (one client-go process,
                  32 workers) could not reach within 10 %: beyond it, the apiserver and etcd on
                  this machine are the limit, not the informers. Then the same sweep through
                  the replay peer (latencyreplay.py; 1,000 to 20,000/s), which the server's
                  writes do not bound; it stops when every informer's p99 is over 100 ms.
"""
import statistics

import informerbench
from benchruns import print_table
from informerbench import (BASELINE, RAW, SETTLE_SECONDS, TYPED_JSON, judge_sync, log, median,
                           print_targets)

SCALE_COUNTS = (10000, 50000, 100000)
SCALE_COUNTS_QUICK = (100, 200, 400)
FLAT_TOLERANCE = 0.15
THROUGHPUT_RATES = (500, 1000, 2000, 4000, 8000)
THROUGHPUT_RATES_QUICK = (200, 400)
# Through the replay peer, which is not bounded by the apiserver's writes.
REPLAY_THROUGHPUT_RATES = (1000, 2000, 5000, 7000, 10000, 14000, 20000)
THROUGHPUT_SECONDS = 10
P99_LIMIT_MS = 100.0


def sides_named(*labels):
    by_label = {side[0]: side for side in informerbench.SIDES + [RAW]}
    return [by_label[label] for label in labels]


def run_scale_curve(args, gobin, kubeconfig, repetitions, quick):
    counts = SCALE_COUNTS_QUICK if quick else SCALE_COUNTS
    informerbench.load_objects(gobin, kubeconfig, [("pods", count) for count in counts], quick)
    sides = sides_named("qcm", BASELINE, TYPED_JSON)
    results = {}
    paired = {}  # count -> [(floor before, qcm sync, floor after, sync / their mean)]
    for count in counts:  # one read first, not counted (informerbench's warm-up)
        informerbench.floor_once(gobin, kubeconfig, "pods", count, f"{count} Pods (warm-up)")
    for r in range(repetitions):
        for count in counts:
            for side in (sides if r % 2 == 0 else list(reversed(sides))):
                name = f"{count} Pods"
                if side[0] == "qcm":
                    before = informerbench.floor_once(gobin, kubeconfig, "pods", count, name)
                result = informerbench.sync_once(side, args.qcm_informer, gobin, kubeconfig,
                                                 "pods", count,
                                                 settle=1 if quick else SETTLE_SECONDS)
                results.setdefault((count, side[0]), []).append(result)
                log(f"scale {count} Pods / {side[0]}: sync {result['syncMs']:.0f} ms, peak RSS "
                    f"{result['peakRssKiB'] / 1024:.0f} MiB")
                if side[0] == "qcm":
                    after = informerbench.floor_once(gobin, kubeconfig, "pods", count, name)
                    mean = (before["watchListMs"] + after["watchListMs"]) / 2
                    paired.setdefault(count, []).append(
                        (before["watchListMs"], result["syncMs"], after["watchListMs"],
                         result["syncMs"] / mean))
    rows = []
    flat = []
    for label, _, _ in sides:
        first = None
        for count in counts:
            runs = results[(count, label)]
            sync = median(runs, "syncMs")
            peak = median(runs, "peakRssKiB")
            per_sync = sync / (count / 1000)
            per_rss = (peak - median(runs, "rssStartKiB")) / count
            if first is None:
                first = (per_sync, per_rss)
            rows.append((label, count, sync, per_sync, per_sync / first[0], peak / 1024,
                         median(runs, "rssSteadyKiB") / 1024, per_rss, per_rss / first[1]))
            if count != counts[0]:
                for metric, ratio in (("sync per object", per_sync / first[0]),
                                      ("RSS per object", per_rss / first[1])):
                    flat.append((label, f"{count:,} Pods", metric, ratio,
                                 "yes" if abs(ratio - 1) <= FLAT_TOLERANCE else "NO"))
    print_table([("informer", 40, None), ("Pods", 7, "{:,}"), ("sync ms", 9, "{:,.0f}"),
                 ("ms / 1k", 8, "{:,.1f}"), ("vs first", 8, "{:.2f}x"),
                 ("peak RSS MiB", 12, "{:,.0f}"), ("RSS later MiB", 13, "{:,.0f}"),
                 ("KiB / object", 12, "{:.2f}"), ("vs first", 8, "{:.2f}x")], rows,
                args.markdown)
    print(f"(scale curve: cold sync of Pods, medians of {repetitions} run(s); RSS later = "
          f"{1 if quick else SETTLE_SECONDS} s after the sync, the informer idle; KiB / object "
          f"= (peak RSS - RSS at start) / Pods; vs first = per-object cost against the "
          f"{counts[0]:,}-Pod run)")
    print()
    # The server's share: its floor per object at each size, beside qcm's sync.
    rows = []
    first = None
    for count in counts:
        floor = statistics.median((p[0] + p[2]) / 2 for p in paired[count])
        per_floor = floor / (count / 1000)
        first = first or per_floor
        rows.append((count, floor, per_floor, per_floor / first,
                     statistics.median(p[3] for p in paired[count])))
    print_table([("Pods", 7, "{:,}"), ("floor ms", 9, "{:,.0f}"), ("ms / 1k", 8, "{:,.1f}"),
                 ("vs first", 8, "{:.2f}x"), ("qcm sync / floor", 16, "{:.2f}x")], rows,
                args.markdown)
    print("(the JSON WatchList floor read right before and after each of qcm's syncs (their "
          "mean; medians over the rounds): what the server alone needs per object at each "
          "size; qcm sync / floor = the median of the rounds' ratios)")
    print()
    informerbench.print_paired({f"{count:,} Pods": pairs for count, pairs in paired.items()},
                               args.markdown)
    targets = []
    for count in counts:
        targets += judge_sync(f"{count:,} Pods",
                              {label: results[(count, label)] for label, _, _ in sides},
                              paired[count], statistics.median(
                                  (p[0] + p[2]) / 2 for p in paired[count]))
    print_targets(targets, args.markdown, quick)
    print()
    print_table([("informer", 40, None), ("size", 12, None), ("metric", 15, None),
                 ("vs first", 8, "{:.2f}x"), ("flat (+-15 %)", 13, None)], flat, args.markdown)
    print()


def run_throughput(args, gobin, kubeconfig, quick, latency_count, replay=False):
    """The sweep through the apiserver (patches), or with replay through the replay peer
    (latencyreplay.py), whose rates go on until every informer's p99 is over the limit."""
    import latencyreplay
    rates = THROUGHPUT_RATES_QUICK if quick else (
        REPLAY_THROUGHPUT_RATES if replay else THROUGHPUT_RATES)
    seconds = 1 if quick else THROUGHPUT_SECONDS
    sides = latencyreplay.SIDES_REPLAY if replay else sides_named("qcm", BASELINE, TYPED_JSON) + [RAW]
    rows = []
    best = {label: None for label, _, _ in sides}
    for rate in rates:
        updates = int(rate * seconds)
        if replay:
            results = latencyreplay.replay_together(args, gobin, kubeconfig, latency_count, sides,
                                                    updates, rate)
        else:
            results = informerbench.latency_together(sides, args.qcm_informer, gobin, kubeconfig,
                                                     latency_count, updates, rate)
        sent = next(iter(results.values()))["sentRate"]
        for label, _, _ in sides:
            result = results[label]
            rows.append((rate, sent, label, result["p50Ms"], result["p99Ms"], result["maxMs"],
                         result["cpuSeconds"]))
            log(f"throughput {rate}/s (sent {sent:.0f}/s) / {label}: p99 {result['p99Ms']:.1f} ms")
            if result["p99Ms"] < P99_LIMIT_MS and sent >= 0.9 * rate:
                best[label] = rate if best[label] is None else max(best[label], rate)
        if sent < 0.9 * rate:
            log(f"the sender reached {sent:.0f}/s of {rate}/s: the sweep stops here")
            break
        if all(results[label]["p99Ms"] >= P99_LIMIT_MS for label, _, _ in sides if label != RAW[0]):
            log(f"every informer's p99 passed {P99_LIMIT_MS:.0f} ms at {rate}/s: the sweep stops "
                "here")
            break
    print_table([("rate /s", 7, "{:,}"), ("sent /s", 7, "{:,.0f}"), ("informer", 40, None),
                 ("p50 ms", 8, "{:.2f}"), ("p99 ms", 8, "{:.2f}"), ("max ms", 8, "{:.1f}"),
                 ("CPU s", 6, "{:.2f}")], rows, args.markdown)
    source = ("events from the replay peer (latencyreplay.py)" if replay else
              "updates through the apiserver")
    print(f"(watch throughput: {seconds} s of {source} at each rate over {latency_count:,} "
          f"ConfigMaps, every side at once; the sweep stops where the sender falls 10 % short "
          f"or every informer's p99 passed {P99_LIMIT_MS:.0f} ms)")
    print()
    print_table([("informer", 40, None), (f"highest rate with p99 < {P99_LIMIT_MS:.0f} ms", 32,
                                          None)],
                [(label, "-" if rate is None else f"{rate:,}/s")
                 for label, rate in best.items()], args.markdown)
    print()
