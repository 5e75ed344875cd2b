# SPDX-License-Identifier: Apache-2.0
"""The exit loop of RESULTS.md (issue 15, run 18): how often a qcm process aborts as it exits.

Runs `qcm_bench_informer sync` (100 and 200 Pods, --settle 0-2 s) in a loop, several at once,
while `kubectl annotate` rewrites every Pod, with glibc's per-thread cache off
(GLIBC_TUNABLES=glibc.malloc.tcache_count=0, MALLOC_PERTURB_=165) so that a block freed twice
by two threads is always seen, and cores kept (core_pattern `core`: written into each
worker's directory, moved to --out). Prints exits and aborts; a run that fails is kept with
its output. Not in CI: run 18 needed ~2,000 exits per build to see the race it found
(OpenSSL's atexit cleanup against the REST client's ending threads).

    tests/bench/exitloop.py --qcm-informer build/tests/bench/qcm_bench_informer \
        --go /usr/local/go/bin/go --cluster-dir /tmp/exitloop-cluster --minutes 10
"""
import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import threading
import time

from benchruns import HERE
from informerbench import Cluster, build_go, load_objects, namespace_of

sys.path.insert(0, str(HERE.parent / "e2e" / "leaderelection"))
import lecluster  # noqa: E402  (its Cluster reads kubectl from the cluster's state)


def annotate(cluster, counts, stop):
    i = 0
    while not stop.is_set():
        i += 1
        for count in counts:
            cluster.kubectl("-n", namespace_of("pods", count), "annotate", "pods", "--all",
                            "--overwrite", f"exitloop={i}", check=False)


def worker(index, args, kubeconfig, counts, deadline, out, results, lock):
    directory = out / f"w{index}"
    directory.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.tcache_count=0", MALLOC_PERTURB_="165")
    run = 0
    while time.monotonic() < deadline:
        run += 1
        count = counts[run % len(counts)]
        proc = subprocess.run(
            [args.qcm_informer, "sync", "--kubeconfig", kubeconfig, "--namespace",
             namespace_of("pods", count), "--resource", "pods", "--expect", str(count),
             "--settle", str(run % 3)], cwd=directory, env=env, capture_output=True, text=True,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE,
                                                  (resource.RLIM_INFINITY, resource.RLIM_INFINITY)))
        core = directory / "core"
        with lock:
            results["exits"] += 1
            if proc.returncode != 0:
                results["failed"] += 1
                name = f"fail-{index}-{run}"
                (out / f"{name}.out").write_text(proc.stdout + proc.stderr)
                if core.exists():
                    core.rename(out / f"{name}.core")
                print(f"exitloop: worker {index} run {run}: exit {proc.returncode} "
                      f"({(proc.stderr.strip().splitlines() or [''])[-1]})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qcm-informer", required=True)
    parser.add_argument("--go", default="go")
    parser.add_argument("--cluster-dir", required=True)
    parser.add_argument("--keep-cluster", action="store_true")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--out", default=None, help="where failures and cores go")
    args = parser.parse_args()
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="exitloop-"))
    out.mkdir(parents=True, exist_ok=True)
    counts = (100, 200)
    with tempfile.TemporaryDirectory() as tmp, Cluster(args.cluster_dir, args.keep_cluster) as cluster:
        gobin = build_go(args.go, tmp)
        load_objects(gobin, cluster.kubeconfig, [("pods", c) for c in counts], True)
        stop = threading.Event()
        traffic = threading.Thread(target=annotate,
                                   args=(lecluster.Cluster(cluster.dir), counts, stop))
        traffic.start()
        results = {"exits": 0, "failed": 0}
        lock = threading.Lock()
        deadline = time.monotonic() + args.minutes * 60
        workers = [threading.Thread(target=worker, args=(i, args, cluster.kubeconfig, counts,
                                                          deadline, out, results, lock))
                   for i in range(1, args.workers + 1)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        stop.set()
        traffic.join()
    print(f"exitloop: {results['exits']} exits, {results['failed']} failed "
          f"(outputs and cores in {out})")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
