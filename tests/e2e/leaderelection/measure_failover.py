#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Failover time distributions of qcm's LeaderElector on a real kube-apiserver.

    measure_failover.py --binary path/to/le_candidate [--cluster DIR] [--runs 20]
                        [--settings 15/10/2 --settings 3/2/1] [--no-watch-too]

For each setting (leaseDuration/renewDeadline/retryPeriod, seconds) and each kind:
  crash     SIGKILL the leader; failover = its signal -> the next candidate's startedLeading
  graceful  SIGTERM with releaseOnCancel; same measure
Three candidates run throughout (a replacement starts after each signal); the signal comes at
a random moment 0.5 s + [0, retryPeriod) after the leader started, so that it falls anywhere
between two renewals. Prints min, p50 and max per row. --no-watch-too adds the crash rows
with watchLock off (candidates only poll, as client-go's do).

Without --cluster it starts a cluster with tests/e2e/cluster/cluster.py in a temporary
directory and stops it at the end.
"""
import argparse
import pathlib
import random
import signal
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from lecluster import Candidate, Cluster, overlaps, percentile, wait_for_leader  # noqa: E402


def measure(binary, cluster, lease, renew, retry, kind, runs, watch):
    ns = cluster.create_namespace("measure-le")
    count = 0

    def spawn():
        nonlocal count
        count += 1
        return Candidate(binary, cluster, ns, "measure", f"m{count}", lease=lease, renew=renew,
                         retry=retry, release=(kind == "graceful"), watch=watch)

    everyone = [spawn() for _ in range(3)]
    alive = list(everyone)
    took = []
    try:
        leader, started = wait_for_leader(alive, lease * 3 + 10)
        for run in range(runs):
            if not leader:
                raise SystemExit(f"run {run}: nobody leads")
            time.sleep(max(0.0, started + 0.5 + random.uniform(0, retry) - time.monotonic()))
            at = leader.signal(signal.SIGKILL if kind == "crash" else signal.SIGTERM)
            alive.remove(leader)
            new, new_started = wait_for_leader(alive, lease * 2 + retry * 3 + 10, exclude=[leader])
            if not new:
                raise SystemExit(f"run {run}: no new leader")
            took.append(new_started - at)
            fresh = spawn()
            everyone.append(fresh)
            alive.append(fresh)
            leader, started = new, new_started
        bad = overlaps(everyone)
        if bad:
            raise SystemExit(f"overlapping terms: {bad}")
    finally:
        for c in everyone:
            c.stop()
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
    return took


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--cluster")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--settings", action="append")
    parser.add_argument("--no-watch-too", action="store_true")
    args = parser.parse_args()
    settings = [tuple(float(x) for x in s.split("/")) for s in (args.settings or ["15/10/2", "3/2/1"])]

    tmp = None
    if not args.cluster:
        tmp = tempfile.mkdtemp(prefix="qcm-le-measure-")
        subprocess.run([sys.executable, str(HERE.parent / "cluster" / "cluster.py"), "up", "--dir", tmp],
                       check=True)
        args.cluster = tmp
    cluster = Cluster(args.cluster)
    rows = []
    try:
        for lease, renew, retry in settings:
            kinds = [("crash", True), ("graceful", True)]
            if args.no_watch_too:
                kinds.append(("crash", False))
            for kind, watch in kinds:
                took = measure(args.binary, cluster, int(lease), renew, retry, kind, args.runs,
                               watch)
                row = (f"{int(lease)}/{renew:g}/{retry:g} s", kind + ("" if watch else " (poll only)"),
                       len(took), min(took), percentile(took, 50), max(took))
                rows.append(row)
                print("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} |".format(*row), flush=True)
    finally:
        if tmp:
            subprocess.run([sys.executable, str(HERE.parent / "cluster" / "cluster.py"), "down", "--dir", tmp])
    print()
    print("| lease/renew/retry | failover | runs | min s | p50 s | max s |")
    print("|---|---|---:|---:|---:|---:|")
    for row in rows:
        print("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} |".format(*row))


if __name__ == "__main__":
    main()
