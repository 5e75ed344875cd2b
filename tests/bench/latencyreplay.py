# SPDX-License-Identifier: Apache-2.0
"""Watch latency through the replay peer (`informerbench replay`, go/informerbench/replay.go),
for run_bench.py --qcm-informer: issue 15's latency targets at the existing rate (500/s) and
at 10x it (5,000/s), which the apiserver and etcd cannot write on a two-core machine (RESULTS.md
run 6: ~1,000 patches a second).

Each side syncs its informer of the 10k ConfigMaps through the peer (the apiserver's own list
and WatchList stream, relayed), and from its initial-events-end bookmark on its watch gets the
peer's events instead of the server's: the same ConfigMaps with data.ts set when the event is
made, one encoding written to every side. So the latency is each side's own path from the
bytes on loopback to its handler; the server's write path, which is most of what the sides
share in the apiserver runs, is out. Sides: qcm, client-go's typed informer asking for JSON
(the peer serves JSON only, so client-go's default would decode JSON too) and the raw JSON
watch, which reads the lines and decodes nothing (the floor). One peer per round.

Two ways at each rate: every side at once on the same events (as the apiserver runs), and each
side alone, one after another. Together, three informer processes and the peer share two
cores, so a side whose event crosses more threads waits for a core more often; alone, each side
has the machine as one controller manager on a node would. Both are printed and judged.

The Qt floor (`qcm_bench_informer latency-floor`: one thread reads the socket, one queued call
per read to the receiver, nothing decoded) is the least any informer on Qt that keeps qcm's
handler contract can do. Together, it runs in rounds of its own in qcm's place (never as a
fourth process, which would change what the others share), the two kinds of round alternating,
so the verdict can compare qcm's ratio to client-go with the floor's (RESULTS.md run 24:
three processes on two cores at 500/s put the floor itself at 0.80-0.93x client-go's p50).
Alone, it is one more side.
"""
import itertools
import os
import subprocess
import tempfile

import informerbench
from informerbench import QT_FLOOR, RAW, SIDES, TYPED_JSON, beside_floor, log

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: replay
  cluster:
    server: {url}
    certificate-authority-data: {ca}
users:
- name: replay
  user:
    token: {token}
contexts:
- name: replay
  context:
    cluster: replay
    user: replay
current-context: replay
"""
# The peer serves JSON only: client-go's default typed informer would decode JSON here too.
SIDES_REPLAY = [s for s in SIDES if s[0] in ("qcm", TYPED_JSON)] + [RAW]
# What the rounds with the Qt floor in qcm's place print: the floor and the others beside it.
SIDES_BESIDE_FLOOR = [QT_FLOOR] + [(beside_floor(label), flags, env)
                                   for label, flags, env in SIDES_REPLAY if label != "qcm"]


class Replay:
    """One `informerbench replay` process and a kubeconfig (0600) that reaches it."""

    def __init__(self, gobin, kubeconfig, namespace, directory):
        self.err = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [gobin, "replay", "-kubeconfig", kubeconfig, "-namespace", namespace],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
        words = self.process.stdout.readline().split()
        if len(words) != 4 or words[0] != "LISTENING":
            self.process.wait(timeout=10)
            message = self.stderr()
            self.close()
            raise SystemExit(f"informer bench: the replay peer did not start: {words} {message}")
        self.kubeconfig = os.path.join(directory, "replay.kubeconfig")
        fd = os.open(self.kubeconfig, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(KUBECONFIG.format(url=words[1], token=words[2], ca=words[3]))

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def send(self, updates, rate, watchers):
        self.process.stdin.write(f"send {updates} {rate} {watchers}\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line.startswith("{"):
            raise SystemExit(f"informer bench: replay send failed: {line}{self.stderr()}")
        result = informerbench.json_line(line, "replay send")
        if result["cut"] or result["watchers"] != watchers:
            raise SystemExit(f"informer bench: replay: {result['cut']} watch(es) cut off, "
                             f"{result['watchers']} of {watchers} live at the end")
        return result

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.err.close()


def replay_together(args, gobin, kubeconfig, count, order, updates, rate):
    """informerbench.latency_together through a new replay peer: {label: result}."""
    namespace = informerbench.namespace_of("configmaps", count)
    with tempfile.TemporaryDirectory() as tmp:
        replay = Replay(gobin, kubeconfig, namespace, tmp)
        try:
            return informerbench.latency_together(order, args.qcm_informer, gobin,
                                                  replay.kubeconfig, count, updates, rate,
                                                  send=replay.send)
        finally:
            replay.close()


def with_floor_rounds(together):
    """together(order) -> {label: result}, wrapped so that each call also runs a round with
    the Qt floor in qcm's place (same order otherwise), the floor's round first every other
    call; the other sides of the floor's round are labelled beside_floor(label)."""
    calls = itertools.count()

    def both(order):
        floor_order = [QT_FLOOR if side[0] == "qcm" else side for side in order]
        results = {}
        for kind in (("floor", "qcm") if next(calls) % 2 else ("qcm", "floor")):
            if kind == "qcm":
                results.update(together(order))
            else:
                results.update({label if label == QT_FLOOR[0] else beside_floor(label): result
                                for label, result in together(floor_order).items()})
        return results
    return both


def run_replay(args, gobin, kubeconfig, repetitions, quick, count):
    """The replay rounds at each of args.replay_rates, every side at once and then each side
    alone, the Qt floor with them (module docstring); prints a table for each and returns the
    rows of the targets table."""
    targets = []
    for rate in args.replay_rates:
        updates = 200 if quick else int(rate * args.latency_seconds)
        for mode in ("together", "alone"):
            log(f"replay latency at {rate:.0f}/s, {mode}")
            if mode == "together":
                sides = SIDES_REPLAY

                def together(order):
                    return replay_together(args, gobin, kubeconfig, count, order, updates, rate)
                together = with_floor_rounds(together)
                printed = SIDES_REPLAY + SIDES_BESIDE_FLOOR
            else:
                sides = SIDES_REPLAY + [QT_FLOOR]
                printed = sides

                def together(order):  # one side after another, each alone on the machine
                    results = {}
                    for side in order:
                        results.update(replay_together(args, gobin, kubeconfig, count, [side],
                                                       updates, rate))
                    return results
            results = informerbench.latency_rounds(sides, repetitions, together)
            how = ("every side at once on the same events; the Qt floor in rounds of its own in "
                   "qcm's place, alternating with qcm's" if mode == "together" else
                   "each side alone, one after another (the order reversed every other round)")
            informerbench.print_latency(
                printed, results, args.markdown,
                f"{updates} events at {rate:.0f}/s over {count} ConfigMaps from the replay peer "
                "(latencyreplay.py: the apiserver's sync relayed, then the peer's events, JSON "
                f"over HTTPS on loopback), {how}; medians of {repetitions} round(s)")
            if mode == "alone":
                # alone, client-go's own runs are the floor's neighbours as much as qcm's
                results[beside_floor(TYPED_JSON)] = results[TYPED_JSON]
            targets += informerbench.judge_latency(f"replay, {rate:.0f}/s, {mode}", results,
                                                   (TYPED_JSON,))
    return targets
