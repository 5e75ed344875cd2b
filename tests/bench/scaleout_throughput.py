#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Scale-out throughput (issue 14, section 6): reconciles per second with 1, 2 and 3 replicas
of one group, on the real qcm and kube-apiserver.

Each replica runs fixture-recorder with shards: auto, `--workers` workers, and a reconcile
that waits `--sleep-ms` (20 ms: a simulated external call) and reads its cache, writing
nothing. For each replica count the script:

  1. creates `--keys` labelled ConfigMaps in a namespace of its own;
  2. starts the replicas, waits until every one has entered and passed the barrier of an
     epoch listing all of them, and until the first reconcile of every key has ended;
  3. SIGSTOPs every replica, labels every ConfigMap anew (one update event per key, queued in
     the API server's watch), and SIGCONTs them all at once: the clock starts;
  4. stops the clock at the end of the last reconcile that started after it, once every key
     has one.

throughput = keys / that time. The ideal is workers * replicas / sleep; the target is at
least 0.8 x N times the one-replica figure. With --idle-seconds, the settled group's Lease
requests per second are counted afterwards from the API server's metrics (writes: PUT, PATCH,
POST, DELETE; reads: GET, LIST), beside the cluster's own over as long before the first run. The timings are long (lease 30 s, renew 20 s,
retry 2 s) so that the pause while labelling costs no replica its membership.

    scaleout_throughput.py --qcm BINARY --plugins FIXTURE_DIR [--replicas 1,2,3]
                           [--keys 400] [--workers 4] [--sleep-ms 20] [--repeat 3]
                           [--idle-seconds S] [--check-split]

CI runs its short form (CTest bench_scaleout_shard_throughput_short: 1 and 2 replicas, 120 keys,
one run each, --check-split). It checks that the replicas split the keys and reconcile every
one, not the speed: timing belongs here and in RESULTS.md.

It uses the cluster QCM_E2E_DIR names, or starts one of its own (tests/e2e/cluster/cluster.py).
"""
import argparse
import collections
import json
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e" / "host"))
sys.path.insert(0, str(ROOT / "tests" / "e2e" / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check, wait  # noqa: E402
from lecluster import Cluster  # noqa: E402

RECORDER = "fixture-recorder"
TIMINGS = (30, 20, 2)


def records(path):
    """[(kind, key, t_ns)] of one replica's record file; none before it exists."""
    if not path.exists():
        return []
    return [(kind, key, t) for kind, key, _, t in qcmhost.recorder_records(path)]


LEASE_WRITES = ("PUT", "PATCH", "POST", "DELETE")


def lease_requests(cluster):
    """{verb: count} of the API server's Lease requests so far (apiserver_request_total)."""
    counts = collections.Counter()
    for line in cluster.kubectl("get", "--raw", "/metrics").splitlines():
        if line.startswith("apiserver_request_total{") and 'resource="leases"' in line:
            verb = line.split('verb="', 1)[1].split('"', 1)[0]
            counts[verb] += float(line.rsplit(" ", 1)[1])
    return counts


def lease_rates(cluster, seconds):
    """Lease writes and reads per second over the next `seconds`: (writes, reads)."""
    before = lease_requests(cluster)
    time.sleep(seconds)
    after = lease_requests(cluster)
    delta = {v: after[v] - before[v] for v in after}
    writes = sum(delta.get(v, 0) for v in LEASE_WRITES)
    reads = sum(delta.get(v, 0) for v in ("GET", "LIST"))
    return writes / seconds, reads / seconds


def cpu_seconds(pid):
    """User and system CPU time of a process so far, from /proc/<pid>/stat."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(args, cluster, workdir, n, run):
    ns = cluster.create_namespace(f"bench-scaleout-{n}")
    group = f"t{int(time.time() * 1000) % 10000000}"
    items = [{"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": f"cm-{i}", "namespace": ns, "labels": {"qcm-bench": ns}},
              "data": {"value": "0"}} for i in range(args.keys)]
    listing = workdir / f"{ns}.json"
    listing.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    cluster.kubectl("apply", "-f", str(listing))
    replicas = {}
    try:
        for r in range(n):
            name = f"r{r + 1}"
            settings = (f"  {RECORDER}:\n    shards: auto\n    workers: {args.workers}\n"
                        f"    settings: {{labelSelector: \"qcm-bench={ns}\", replica: {name}, "
                        f"sleepMs: {args.sleep_ms}, recordFile: {workdir}/{ns}-{name}}}\n")
            config = qcmhost.config(cluster.dir, lock_namespace=ns, mode="rejoin",
                                    controller_config=settings, timings=TIMINGS,
                                    scale_out_group=group)
            replicas[name] = qcmhost.Qcm(args.qcm, workdir, f"{ns}-{name}", config)

        def settled():
            epoch = qcmhost.ring_epoch(cluster, ns, group)
            if len(epoch["members"]) != n:
                return False
            for q in replicas.values():
                samples = q.metrics()
                if qcmhost.metric(samples, "qcm_scaleout_base_epoch", group=group) != \
                        epoch["number"]:
                    return False
            return True

        wait(f"an epoch of {n} replicas, passed by all", settled, 120)
        paths = [workdir / f"{ns}-{name}" for name in replicas]

        def ended_keys(after=0):
            return {key for p in paths for kind, key, t in records(p) if kind == "E" and t > after}

        wait("the first reconcile of every key", lambda: len(ended_keys()) == args.keys, 120)
        time.sleep(1)  # quiet: nothing left in the queues
        for q in replicas.values():
            q.signal(signal.SIGSTOP)
        try:
            cluster.kubectl("label", "configmaps", "-n", ns, "--all", f"round={run}",
                            "--overwrite")
        finally:
            start = time.monotonic_ns()
            for q in replicas.values():
                q.signal(signal.SIGCONT)

        def all_done():
            by_key = collections.defaultdict(list)
            for p in paths:
                for kind, key, t in records(p):
                    by_key[key].append((kind, t))
            starts = {k for k, rs in by_key.items() if any(kd == "S" and t > start for kd, t in rs)}
            if len(starts) < args.keys:
                return None
            ends = [t for rs in by_key.values() for kd, t in rs if kd == "E" and t > start]
            return len(ends) >= args.keys and max(ends)

        end = wait("a reconcile of every key after the pause", all_done, 120)
        per_replica = [sum(1 for kind, _, t in records(p) if kind == "S" and t > start)
                       for p in paths]
        seconds = (end - start) / 1e9
        # What each replica pays for watching every key, whatever it owns: its RSS now, and
        # the CPU it used since it started (all of it: start, sync, both rounds).
        costs = [(q.rss_bytes() / 2**20, cpu_seconds(q.process.pid)) for q in replicas.values()]
        # The steady Lease traffic of the settled group (renewals; no epoch changes).
        leases = lease_rates(cluster, args.idle_seconds) if args.idle_seconds else None
        for q in replicas.values():
            q.signal(signal.SIGTERM)
        for q in replicas.values():
            check(q.wait(60) == 0, f"{q.name} did not exit 0")
        return seconds, per_replica, costs, leases
    finally:
        for q in replicas.values():
            q.stop()
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--replicas", default="1,2,3")
    parser.add_argument("--keys", type=int, default=400)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--sleep-ms", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--idle-seconds", type=float, default=0,
                        help="after each run, count the settled group's Lease requests for "
                             "this long (the API server's apiserver_request_total)")
    parser.add_argument("--check-split", action="store_true",
                        help="fail unless, with several replicas, each reconciled a part of the "
                             "keys (none above 85%%) and every key was reconciled")
    args = parser.parse_args()
    own_cluster = None
    if "QCM_E2E_DIR" not in os.environ:
        own_cluster = tempfile.mkdtemp(prefix="qcm-bench-cluster-")
        subprocess.run([sys.executable, str(ROOT / "tests/e2e/cluster/cluster.py"), "up", "--dir",
                        own_cluster], check=True, stdout=subprocess.DEVNULL)
        os.environ["QCM_E2E_DIR"] = own_cluster
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-bench-scaleout-"))
    (workdir / "plugins").mkdir()
    shutil.copy(pathlib.Path(args.plugins) / f"lib{RECORDER}.so", workdir / "plugins")
    try:
        cluster = Cluster(os.environ["QCM_E2E_DIR"])
        ideal = args.workers * 1000 / args.sleep_ms
        print(f"{args.keys} keys, {args.workers} workers per replica, {args.sleep_ms} ms per "
              f"reconcile (ideal {ideal:.0f}/s per replica), {args.repeat} runs each", flush=True)
        medians = {}
        # The Lease traffic of the cluster alone (kube-apiserver's identity Lease), for scale.
        baseline = lease_rates(cluster, args.idle_seconds) if args.idle_seconds else None
        for n in (int(x) for x in args.replicas.split(",")):
            rates = []
            for run in range(args.repeat):
                seconds, per_replica, costs, leases = one_run(args, cluster, workdir, n, run)
                rates.append(args.keys / seconds)
                if args.check_split and n > 1:
                    check(sum(per_replica) >= args.keys
                          and max(per_replica) <= 0.85 * args.keys and min(per_replica) > 0,
                          f"{n} replicas did not split {args.keys} keys: {per_replica}")
                print(f"  {n} replica(s), run {run + 1}: {seconds:.3f} s, "
                      f"{rates[-1]:.0f} reconciles/s, per replica {per_replica}; RSS "
                      f"{', '.join(f'{r:.1f}' for r, _ in costs)} MiB, CPU "
                      f"{', '.join(f'{c:.2f}' for _, c in costs)} s"
                      + (f"; Lease writes {leases[0]:.2f}/s, reads {leases[1]:.2f}/s "
                         f"(the cluster's own: {baseline[0]:.2f}/s, {baseline[1]:.2f}/s)"
                         if leases else ""), flush=True)
            medians[n] = statistics.median(rates)
        base = medians.get(1)
        for n, rate in medians.items():
            ratio = f", {rate / base:.2f}x one replica (target {0.8 * n:.1f}x)" if base else ""
            print(f"{n} replica(s): median {rate:.0f} reconciles/s "
                  f"({rate / (ideal * n):.0%} of ideal){ratio}", flush=True)

    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if own_cluster:
            subprocess.run([sys.executable, str(ROOT / "tests/e2e/cluster/cluster.py"), "down",
                            "--dir", own_cluster], stdout=subprocess.DEVNULL)
            shutil.rmtree(own_cluster, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
