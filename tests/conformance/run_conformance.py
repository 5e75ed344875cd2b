#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs conformance traces through the qcm and client-go drivers and diffs their outputs.

    run_conformance.py --qcm DRIVER --go DRIVER [--traces DIR] [--kind KIND] [--seeds N]
                       [--first-seed S] [--length L] [--failures DIR]

Every *.trace file in --traces runs first, then N random traces from gen_trace.py with seeds
S, S+1, ... (of --kind, or of the kind each seed picks). Any difference, or a driver that
fails, fails the run; the first differing line is shown and a failing random trace is saved
under --failures for replay.
"""
import argparse
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_trace  # noqa: E402


def run(driver, text):
    proc = subprocess.run([driver], input=text, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{driver} exited {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout.splitlines()


def compare(name, text, args):
    ours = run(args.qcm, text)
    theirs = run(args.go, text)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            context = "\n".join(f"    {line}" for line in theirs[max(0, i - 5):i])
            return (f"{name}: output line {i + 1} differs\n{context}\n"
                    f"  qcm:       {a}\n  client-go: {b}"), len(theirs)
    if len(ours) != len(theirs):
        return f"{name}: qcm printed {len(ours)} lines, client-go {len(theirs)}", len(theirs)
    return None, len(theirs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--go", required=True)
    parser.add_argument("--traces", type=pathlib.Path)
    parser.add_argument("--kind", choices=gen_trace.KINDS + ["deltafifo"])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--length", type=int, default=300)
    parser.add_argument("--failures", type=pathlib.Path, default=pathlib.Path("."))
    args = parser.parse_args()

    cases = []
    if args.traces:
        cases += [(path.name, path.read_text(), None) for path in sorted(args.traces.glob("*.trace"))]
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        cases.append((f"seed {seed}", gen_trace.trace(seed, args.length, args.kind), seed))

    failures = 0
    operations = 0
    for name, text, seed in cases:
        try:
            problem, count = compare(name, text, args)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            problem, count = f"{name}: {error}", 0
        operations += count
        if problem:
            failures += 1
            print(problem)
            if seed is not None:
                args.failures.mkdir(parents=True, exist_ok=True)
                kind = f"{args.kind}-" if args.kind else ""
                saved = args.failures / f"conformance-failure-{kind}{seed}.trace"
                saved.write_text(text)
                print(f"  trace saved to {saved}")
    print(f"conformance: {len(cases)} traces, {operations} operations, "
          f"{failures} differing (client-go vs qcm)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
