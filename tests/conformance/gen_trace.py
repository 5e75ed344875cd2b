#!/usr/bin/env python3
"""Writes a random conformance trace (README.md in this folder describes the format).

    gen_trace.py --seed 42 --length 200 [--kind queue|delaying|ratelimiting|limiter]

The same seed, length and kind always give the same trace, so a failing seed can be replayed
and shared. Without --kind the seed picks the kind too. Items come from a small pool so that
adds collide, and most done() calls are `done ^` (give back what get() handed out, as a worker
would); a few name any item, because client-go defines what happens then too.
"""
import argparse
import random
import sys

KINDS = ["queue", "delaying", "ratelimiting", "limiter"]
ITEMS = ["a", "b", "c", "d", "e", "f", "g", "h"]


def duration(rng, big=False):
    unit = rng.choice(["us", "ms", "ms", "ms", "s"])
    if unit == "us":
        return f"{rng.randint(1, 5000)}us"
    if unit == "ms":
        return f"{rng.randint(0 if big else 1, 1500)}ms"
    return f"{rng.randint(1, 30 if big else 12)}s"


def limiter(rng, depth=0):
    kinds = ["exponential", "fastslow", "bucket", "default"]
    if depth < 2:
        kinds += ["maxof", "maxwait"]
    kind = rng.choice(kinds)
    if kind == "exponential":
        base = rng.choice(["1ms", "5ms", "10ms", "100us", "3ms", "250ms"])
        return f"exponential {base} {rng.choice(['1s', '10s', '1000s', '500ms', '2m'])}"
    if kind == "fastslow":
        return f"fastslow {rng.choice(['1ms', '5ms', '20ms'])} {rng.choice(['1s', '3s', '10s'])} {rng.randint(0, 5)}"
    if kind == "bucket":
        qps = rng.choice(["1", "2", "10", "0.5", "100", "3.7"])
        return f"bucket {qps} {rng.choice([1, 2, 5, 10, 100])}"
    if kind == "maxof":
        n = rng.randint(1, 3)
        return f"maxof {n} " + " ".join(limiter(rng, depth + 1) for _ in range(n))
    if kind == "maxwait":
        return f"maxwait {rng.choice(['5ms', '100ms', '1s', '30s'])} {limiter(rng, depth + 1)}"
    return "default"


def trace(seed, length, kind=None):
    rng = random.Random(seed)
    kind = kind or rng.choice(KINDS)
    lines = [f"# gen_trace.py --seed {seed} --length {length} --kind {kind}"]
    if kind == "ratelimiting" or kind == "limiter":
        lines.append(f"{kind} {limiter(rng)}")
    else:
        lines.append(kind)
    items = ITEMS[: rng.randint(2, len(ITEMS))]
    shutdown_at = rng.randint(length // 2, length * 3) if kind != "limiter" else None
    for step in range(length):
        if shutdown_at is not None and step == shutdown_at:
            lines.append("shutdown")
            continue
        if kind == "limiter":
            op = rng.choices(["when", "forget", "numrequeues", "advance"], [60, 12, 15, 13])[0]
        else:
            ops = {"add": 22, "get": 20, "done": 16, "len": 8, "advance": 8, "shuttingdown": 1}
            if kind in ("delaying", "ratelimiting"):
                ops.update({"addafter": 12})
            if kind == "ratelimiting":
                ops.update({"addratelimited": 14, "forget": 6, "numrequeues": 6})
            op = rng.choices(list(ops), list(ops.values()))[0]
        item = rng.choice(items)
        if op == "done":
            # Mostly what a worker does: give back an item that get() handed out.
            lines.append("done ^" if rng.random() < 0.8 else f"done {item}")
        elif op == "addafter":
            lines.append(f"addafter {item} {duration(rng, big=True) if rng.random() < 0.2 else duration(rng)}")
        elif op == "advance":
            lines.append(f"advance {duration(rng, big=rng.random() < 0.3)}")
        elif op in ("add", "forget", "numrequeues", "addratelimited", "when"):
            lines.append(f"{op} {item}")
        else:
            lines.append(op)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--length", type=int, default=200)
    parser.add_argument("--kind", choices=KINDS)
    args = parser.parse_args()
    sys.stdout.write(trace(args.seed, args.length, args.kind))


if __name__ == "__main__":
    main()
