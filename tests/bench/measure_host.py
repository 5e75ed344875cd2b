#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 6 §9: qcm's time from start to ready and its idle RSS, with the three sample plugins
(plugins/) loaded, run with the root controller-manager.yaml against a real apiserver.

Each run starts qcm as one replica with leader election (a fresh Lease, so it leads at once)
and records, on this script's monotonic clock:
    serving   the first HTTP answer on /readyz (whatever its status)
    leading   the log line "leading: ..." (the controllers are created, the informers start)
    synced    the last "caches synced; started N worker(s)" line (the slowest controller)
    ready     the first /readyz 200
Cache sync is synced - leading; the host's own share of start-to-ready is ready minus that.
Then qcm idles (no objects change) and its resident set (VmRSS of /proc/<pid>/status) is
sampled once a second; qcm's own process_resident_memory_bytes is read as a cross-check.

There is no peer to divide by: kube-controller-manager does not run these plugins, and its
start-to-ready is dominated by its ~40 built-in controllers, so no ratio is printed.

    measure_host.py --qcm BUILD/app/qcm --plugins BUILD/plugins [--runs 10] [--idle 15]
                    [--cluster-dir DIR]   (default: $QCM_E2E_DIR, or a cluster of its own)
"""
import argparse
import os
import pathlib
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests/e2e/host"))
sys.path.insert(0, str(ROOT / "tests/e2e/leaderelection"))
import qcmhost  # noqa: E402
from lecluster import Cluster  # noqa: E402

PLUGINS = ("sample-controller", "ttl-after-finished", "configmap-restarter")


def machine():
    model = "unknown CPU"
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return f"{os.cpu_count()} vCPU {model}, {platform.system()} {platform.release()}"


def loadavg():
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def one_run(args, cluster, workdir, run):
    ns = "kube-system"
    lease = f"qcm-measure-{os.getpid()}-{run}"
    config = (ROOT / "controller-manager.yaml").read_text()
    q = qcmhost.Qcm(args.qcm, workdir, f"run{run}", config,
                    args=("--kubeconfig", str(cluster.dir / "admin.kubeconfig"),
                          "--plugin-dir", args.plugins,
                          "--leader-elect-resource-name", lease))
    try:
        serving = q.wait_for("an HTTP answer", lambda: q.get("/readyz", timeout=1)[0] != 0, 30,
                             interval=0.005)
        ready = q.wait_for("/readyz 200", lambda: q.get("/readyz", timeout=1)[0] == 200, 60,
                           interval=0.005)
        leading = q.logged_at("leading: ")
        synced = [q.logged_at(f"qcm.controller.{p}: caches synced") for p in PLUGINS]
        if leading is None or None in synced:
            raise AssertionError(f"missing log lines:\n{q.log()}")
        for p in PLUGINS:
            state = q.plugin_state(p)
            if state != "running":
                raise AssertionError(f"{p} is {state}:\n{q.log()}")
        time.sleep(args.idle)
        rss = []
        for _ in range(args.samples):
            rss.append(q.rss_bytes())
            time.sleep(1)
        reported = qcmhost.metric(q.metrics(), "process_resident_memory_bytes")
        q.signal(signal.SIGTERM)
        code = q.wait(30)
        if code != 0:
            raise AssertionError(f"exit {code}:\n{q.log()}")
        t0 = q.started_at
        return {"serving": serving - t0, "leading": leading - t0, "synced": max(synced) - t0,
                "ready": ready - t0, "sync": max(synced) - leading,
                "rss": statistics.median(rss), "rss_max": max(rss), "rss_reported": reported}
    finally:
        q.stop()
        cluster.kubectl("delete", "lease", lease, "-n", ns, "--ignore-not-found", check=False)


def summary(name, values, scale=1.0, unit="ms"):
    values = sorted(v * scale for v in values)
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return (f"{name:<34} median {statistics.median(values):8.1f} {unit}  p90 {p90:8.1f} {unit}  "
            f"max {values[-1]:8.1f} {unit}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True, help="directory with the three sample .so")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--idle", type=float, default=15, help="seconds idle before sampling RSS")
    parser.add_argument("--samples", type=int, default=5, help="RSS samples, 1 s apart")
    parser.add_argument("--cluster-dir", default=os.environ.get("QCM_E2E_DIR"))
    args = parser.parse_args()
    for p in PLUGINS:
        if not (pathlib.Path(args.plugins) / f"lib{p}.so").exists():
            sys.exit(f"measure_host: no lib{p}.so in {args.plugins}")

    own_cluster = None
    if not args.cluster_dir:
        own_cluster = tempfile.mkdtemp(prefix="qcm-measure-cluster-")
        subprocess.run([sys.executable, str(ROOT / "tests/e2e/cluster/cluster.py"), "up",
                        "--dir", own_cluster], check=True)
        args.cluster_dir = own_cluster
    cluster = Cluster(args.cluster_dir)
    cluster.kubectl("apply", "-f",
                    str(ROOT / "plugins/sample-controller/artifacts/crd-status-subresource.yaml"))
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-measure-"))
    print(f"machine: {machine()}; load average before: {loadavg()}", flush=True)
    results = []
    try:
        for run in range(args.runs):
            r = one_run(args, cluster, workdir, run)
            results.append(r)
            print(f"run {run}: serving {r['serving'] * 1000:.0f} ms, leading "
                  f"{r['leading'] * 1000:.0f} ms, synced {r['synced'] * 1000:.0f} ms, ready "
                  f"{r['ready'] * 1000:.0f} ms (cache sync {r['sync'] * 1000:.0f} ms); idle RSS "
                  f"{r['rss'] / 2**20:.1f} MiB (max {r['rss_max'] / 2**20:.1f}, /metrics "
                  f"{r['rss_reported'] / 2**20:.1f})", flush=True)
    finally:
        if own_cluster:
            subprocess.run([sys.executable, str(ROOT / "tests/e2e/cluster/cluster.py"), "down",
                            "--dir", own_cluster])
    print(f"load average after: {loadavg()}")
    print(f"{args.runs} runs, 3 sample plugins, leader election on (fresh Lease):")
    print(summary("start -> first HTTP answer", [r["serving"] for r in results], 1000))
    print(summary("start -> leading", [r["leading"] for r in results], 1000))
    print(summary("cache sync (leading -> synced)", [r["sync"] for r in results], 1000))
    print(summary("start -> ready (/readyz 200)", [r["ready"] for r in results], 1000))
    print(summary("start -> ready minus cache sync", [r["ready"] - r["sync"] for r in results],
                  1000))
    print(summary("idle RSS (VmRSS)", [r["rss"] for r in results], 1 / 2**20, "MiB"))
    worst_ready = max(r["ready"] - r["sync"] for r in results)
    worst_rss = max(r["rss_max"] for r in results)
    print(f"targets: ready within 1 s plus cache sync: {'met' if worst_ready <= 1 else 'MISSED'} "
          f"(worst {worst_ready * 1000:.0f} ms); idle RSS <= 40 MB: "
          f"{'met' if worst_rss <= 40e6 else 'MISSED'} (worst {worst_rss / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
