#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a random conformance trace (README.md in this folder describes the format).

    gen_trace.py --seed 42 --length 200 [--kind queue|delaying|ratelimiting|limiter|deltafifo]

The same seed, length and kind always give the same trace, so a failing seed can be replayed
and shared. Without --kind the seed picks one of the work-queue kinds (a DeltaFifo trace is
only made when asked for). Items come from a small pool so that adds collide, and most done()
calls are `done ^` (give back what get() handed out, as a worker would); a few name any item,
because client-go defines what happens then too.

DeltaFifo traces draw their options (known store, emitDeltaTypeReplaced, transformer) from
the seed, start with a replace() (the informer's first list) most of the time (sometimes with
objects already in the known store), use a few keys
so that deltas pile up on a key, and give every new object a fresh resourceVersion so that
each delta is recognisable in the output.
"""
import argparse
import random
import sys

KINDS = ["queue", "delaying", "ratelimiting", "limiter"]
ITEMS = ["a", "b", "c", "d", "e", "f", "g", "h"]
# Namespaced and cluster-scoped keys.
DELTAFIFO_KEYS = ["a/x", "a/y", "b/x", "b/y", "c/z", "x", "y"]


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


def deltafifo_trace(rng, seed, length):
    options = [name for name, p in (("known", 0.75), ("replaced", 0.5), ("transform", 0.3))
               if rng.random() < p]
    lines = [f"# gen_trace.py --seed {seed} --length {length} --kind deltafifo",
             " ".join(["deltafifo"] + options)]
    known = "known" in options
    keys = rng.sample(DELTAFIFO_KEYS, rng.randint(2, len(DELTAFIFO_KEYS)))
    version = 0

    def obj(key):
        nonlocal version
        if "transform" in options and rng.random() < 0.04:
            return f"{key}@bad"  # the transformer refuses it
        version += 1
        return f"{key}@{version}"

    def replace():
        listed = rng.sample(keys, rng.randint(0, len(keys)))
        if listed and rng.random() < 0.05:
            listed.append(rng.choice(listed))  # a key listed twice
        return " ".join(["replace"] + [obj(key) for key in listed])

    close_at = rng.randint(length // 2, length * 3)
    if known and rng.random() < 0.3:
        # Objects known before the first list (client-go's tests do this): their tombstones
        # count in the first list's population.
        lines += [f"store {obj(key)}" for key in rng.sample(keys, rng.randint(1, len(keys)))]
    if rng.random() < 0.6:
        lines.append(replace())
    ops = {"add": 12, "update": 12, "delete": 12, "replace": 5, "resync": 5, "pop": 30,
           "popfail": 2, "hassynced": 4, "keys": 5, "isclosed": 1}
    if known:
        ops.update({"known": 4, "store": 1, "unstore": 1})
    for step in range(length):
        if step == close_at:
            lines.append("close")
            continue
        # hasSynced is mostly interesting while the first list drains.
        weights = [w * 4 if name == "hassynced" and step < 20 else w for name, w in ops.items()]
        op = rng.choices(list(ops), weights)[0]
        key = rng.choice(keys)
        if op in ("add", "update", "delete", "store"):
            lines.append(f"{op} {obj(key)}")
        elif op == "replace":
            lines.append(replace())
        elif op == "popfail":
            lines.append("pop fail")
        elif op == "unstore":
            lines.append(f"unstore {key}")
        else:
            lines.append(op)
    return "\n".join(lines) + "\n"


def trace(seed, length, kind=None):
    rng = random.Random(seed)
    if kind == "deltafifo":
        return deltafifo_trace(rng, seed, length)
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
    parser.add_argument("--kind", choices=KINDS + ["deltafifo"])
    args = parser.parse_args()
    sys.stdout.write(trace(args.seed, args.length, args.kind))


if __name__ == "__main__":
    main()
