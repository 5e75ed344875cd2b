# SPDX-License-Identifier: Apache-2.0
"""Running both sides of run_bench.py's benchmarks: qcm's Google Benchmark binaries and
client-go's `go test` benchmarks (HERE/go), their tables, and contended cases in interleaved
slices (Slicer): each side's run cut into short runs taken in turn, between measurements of
the cache-line round trip between the first two CPUs, so that every side meets the same
placements of the two vCPUs (on a VM the round trip, and a contended case with it, moves with
the host's placement: RESULTS.md, runs 8, 12 and 13)."""
import json
import os
import pathlib
import re
import statistics
import subprocess
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
GO_ENV = dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-mod=mod")


def run_qcm(binary, repetitions, quick, benchmark_filter=None, min_time=None):
    """ns per iteration by benchmark name; min_time (seconds) overrides the benchmark's own
    (--quick: 0.05)."""
    args = [binary, "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
            "--benchmark_report_aggregates_only=false"]
    if benchmark_filter:
        args.append(f"--benchmark_filter={benchmark_filter}")
    if min_time or quick:
        args.append(f"--benchmark_min_time={min_time or 0.05}")
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        times.setdefault(b["run_name"], []).append(b["real_time"] * scale)
    return times


def print_table(columns, rows, markdown):
    """columns: (title, width, format) for each column; the first is left-aligned text.
    A value of None prints as "-"."""
    def cell(fmt, v):
        return "-" if v is None else fmt.format(v) if fmt else str(v)
    if markdown:
        print("| " + " | ".join(title for title, _, _ in columns) + " |")
        print("|---|" + "".join("---:|" if fmt else "---|" for _, _, fmt in columns[1:]))
        for row in rows:
            print("| " + " | ".join(cell(fmt, v) for (_, _, fmt), v in zip(columns, row)) + " |")
        return
    print(" ".join(f"{title:{width}}" if i == 0 else f"{title:>{width}}"
                   for i, (title, width, _) in enumerate(columns)))
    for row in rows:
        print(" ".join(f"{v:{width}}" if i == 0 else f"{cell(fmt, v):>{width}}"
                       for i, ((_, width, fmt), v) in enumerate(zip(columns, row))))


def go_bench(go, pattern, benchtime, repetitions):
    out = subprocess.run([go, "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime,
                          "-count", str(repetitions), "."], cwd=HERE / "go", env=GO_ENV, check=True,
                         capture_output=True, text=True).stdout
    return go_times_of(out)


def go_times_of(out):
    """ns/op by benchmark name (without the -N suffix) from `go test -bench` output."""
    times = {}
    for line in out.splitlines():
        m = re.match(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
        if m:
            times.setdefault(m.group(1), []).append(float(m.group(2)))
    return times


def round_trip(qcm_bench):
    """The cache-line round trip between the first two CPUs in ns (BM_CacheLineRoundTrip of
    the work-queue benchmark binary); None without that binary, or on a single CPU, where the
    benchmark skips itself."""
    if not qcm_bench:
        return None
    t = run_qcm(qcm_bench, 1, False, "BM_CacheLineRoundTrip")
    v = t.get("BM_CacheLineRoundTrip/iterations:5/manual_time")
    return statistics.median(v) if v else None


# Each side's run of a pair is SLICES short runs, interleaved with the other sides' (on the
# record VM the placement flips in spells of one or two seconds, shorter than a pair:
# RESULTS.md, runs 8 and 12).
SLICES = 8
# Seconds per slice. Go's (b) ran about 9 % slower in 0.125 s runs than in 1 s ones (qcm's
# about 3 %), which favoured qcm; at 0.25 s neither side was slower than in 1 s runs
# (RESULTS.md, run 13).
SLICE_SECONDS = 0.25


def slice_seconds(quick):
    return 0.05 if quick else SLICE_SECONDS


# On the record machine the round trip is 70-180 ns when the host places the two vCPUs near
# (sharing a cache) and 280-530 ns when far (RESULTS.md, runs 8, 12 and 15); the line between
# them lies in the gap (it was 150 ns until run 15, which counted some near rounds as far).
NEAR_ROUND_TRIP_NS = 250


class Slicer:
    """Runs sides in interleaved slices. A context manager: it compiles client-go's benchmarks
    into a temporary directory once. `qcm_bench` (the work-queue binary) measures the round
    trips; without it they are None."""

    def __init__(self, go, qcm_bench, quick):
        self.go, self.qcm_bench = go, qcm_bench
        self.seconds = slice_seconds(quick)
        self.slices = 2 if quick else SLICES

    def __enter__(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.gobench = os.path.join(self._tmp.name, "gobench")
        subprocess.run([self.go, "test", "-c", "-o", self.gobench, "."], cwd=HERE / "go",
                       env=GO_ENV, check=True, capture_output=True)
        return self

    def __exit__(self, *exc):
        self._tmp.cleanup()

    def qcm(self, binary, name):
        """A side: one slice of qcm's benchmark `name` (real time), ns per iteration."""
        def run():
            t = run_qcm(binary, 1, False, f"^{name}/", min_time=self.seconds)
            return t.get(f"{name}/real_time", [None])[0]
        return run

    def client_go(self, name):
        """A side: one slice of client-go's benchmark `name`, ns per op."""
        def run():
            out = subprocess.run([self.gobench, "-test.run", "^$", "-test.bench", f"^{name}$",
                                  "-test.benchtime", f"{self.seconds * 1000:.0f}ms"],
                                 cwd=HERE / "go", check=True, capture_output=True,
                                 text=True).stdout
            return go_times_of(out).get(name, [None])[0]
        return run

    def interleave(self, sides):
        """self.slices rounds of: a round trip, then one slice of each side in turn; then a
        last round trip. Returns the round trips and each side's median slice (None if a
        slice of it gave nothing)."""
        round_trips, times = [], []
        for _ in range(self.slices):
            round_trips.append(round_trip(self.qcm_bench))
            times.append(tuple(side() for side in sides))
        round_trips.append(round_trip(self.qcm_bench))
        return round_trips, [None if None in column else statistics.median(column)
                             for column in zip(*times)]


def measured_round_trips(round_trips):
    return [rt for rt in round_trips if rt is not None]


def far_round_trips(round_trips):
    """How many of the round trips were far, and how many were measured."""
    measured = measured_round_trips(round_trips)
    return sum(rt >= NEAR_ROUND_TRIP_NS for rt in measured), len(measured)


def round_trip_columns(round_trips):
    """The pair tables' "rt ns" and "far rt" cells."""
    measured = measured_round_trips(round_trips)
    far, count = far_round_trips(round_trips)
    return (f"{min(measured):.0f}-{max(measured):.0f}" if measured else None,
            f"{far} of {count}")
