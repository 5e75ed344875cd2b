#!/usr/bin/env python3
"""Runs the qcm benchmarks and their client-go twins in one run and prints the ratio table.

    run_bench.py --qcm-bench build/tests/bench/qcm_bench_workqueue [--go go]
                 [--repetitions 5] [--quick] [--markdown]

Both sides run every case --repetitions times; the table shows the medians. ratio is
client-go ns/op divided by qcm ns/op: 2.0 means qcm does the same work in half the time.
--quick runs each side once with short times, to check that the runner and every case work;
its figures are not for the record. Exits non-zero if a case is missing on either side (not
if a target is missed: the table says so).
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

# case, qcm benchmark, Go benchmark, how to read ns/op, target ratio
CASES = [
    ("(a) queue add/get/done x100", "BM_Queue/manual_time", "BenchmarkQueue", 1, 2.0),
    ("(b) 2 producers x 2 consumers, 10k keys", "BM_ParallelQueue/real_time",
     "BenchmarkParallelQueue", 1, 1.5),
    ("(c) delaying addAfter + get, per item", "BM_DelayingQueueAddAfter/200000/iterations:1",
     "BenchmarkDelayingQueue_AddAfter", 200000, 2.0),
    ("(d) addRateLimited, default limiter", "BM_AddRateLimited", "BenchmarkAddRateLimited", 1, 2.0),
]
DELAYING_ITEMS = 200000


def run_qcm(binary, repetitions, quick):
    args = [binary, "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
            "--benchmark_report_aggregates_only=false"]
    if quick:
        args.append("--benchmark_min_time=0.05")
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        times.setdefault(b["run_name"], []).append(b["real_time"] * scale)
    return times


def run_go(go, repetitions, quick):
    env = dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
    count = str(repetitions)
    runs = [("Queue$|ParallelQueue|AddRateLimited", "100ms" if quick else "1s"),
            ("DelayingQueue_AddAfter", f"{DELAYING_ITEMS}x")]
    times = {}
    for pattern, benchtime in runs:
        out = subprocess.run([go, "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime,
                              "-count", count, "."], cwd=HERE / "go", env=env, check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
            if m:
                times.setdefault(m.group(1), []).append(float(m.group(2)))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qcm-bench", required=True)
    parser.add_argument("--go", default="go")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    repetitions = 1 if args.quick else args.repetitions

    qcm = run_qcm(args.qcm_bench, repetitions, args.quick)
    go = run_go(args.go, repetitions, args.quick)

    rows = []
    missing = []
    for name, qcm_name, go_name, qcm_divisor, target in CASES:
        if qcm_name not in qcm or go_name not in go:
            missing.append(name)
            continue
        q = statistics.median(qcm[qcm_name]) / qcm_divisor
        g = statistics.median(go[go_name])
        ratio = g / q
        rows.append((name, q, g, ratio, target, "yes" if ratio >= target else "NO"))

    if args.markdown:
        print("| case | qcm ns/op | client-go ns/op | ratio | target | met |")
        print("|---|---:|---:|---:|---:|---|")
        for r in rows:
            print(f"| {r[0]} | {r[1]:,.1f} | {r[2]:,.1f} | {r[3]:.2f}x | {r[4]:.1f}x | {r[5]} |")
    else:
        print(f"{'case':44} {'qcm ns/op':>14} {'client-go ns/op':>16} {'ratio':>7} {'target':>7}  met")
        for r in rows:
            print(f"{r[0]:44} {r[1]:14,.1f} {r[2]:16,.1f} {r[3]:6.2f}x {r[4]:6.1f}x  {r[5]}")
    print(f"(medians of {repetitions} run(s) each; ratio = client-go / qcm"
          f"{'; --quick: not for the record' if args.quick else ''})")
    if missing:
        print("missing cases: " + ", ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
