#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: leaderElection.scope: controller (issue 14, sections 2 and 5) through real qcm replicas
on the real kube-apiserver (docs/scale-out.md, "Whole controllers").

Replicas of one group run four leader-elected controllers, fixture-placed-1..4
(tests/fixtures/plugins/placedrecorder.cpp.in), each recording its reconciles (key, replica,
CLOCK_MONOTONIC) into a file of its own and copying each ConfigMap's data.value into its own
annotation, while a writer changes the values all the time. Each replica talks to the API
server through a TCP proxy of its own, so that it can be cut off. The steps:

  three replicas -> a fourth joins -> SIGTERM it (a graceful leave) -> kill -9 one -> a new
  one joins -> SIGSTOP one past its lease, then SIGCONT -> cut one off past its lease, then
  heal

After each, the test waits until the spread is balanced: every controller's Lease
"<group>-<controller>" is held by a live replica, /statusz of each live replica says it holds
exactly those, and the counts differ by at most one; it prints how long that took. After a
join or a leave it asserts the bound, leaseDuration + retryPeriod after the membership change:
the ring's epoch that lists the newcomer, or the SIGTERM. After a kill -9, the others learn of
it once its membership Lease has expired (the time from the kill to the epoch that drops it is
printed), and its controllers' Leases are taken a full leaseDuration after their new holder
first reads them: the bound is leaseDuration + 1.2 x retryPeriod (client-go's jitter) + 1 s
from that epoch. After a pause or a partition, only that it balances. Then it asserts:

  * each controller ran on one replica at a time: no two replicas ran reconciles of one
    controller at once, whichever keys they were of, except a reconcile that had started
    within its replica's term and was still running when the replica was paused or cut off
    (the leader term's documented limit; counted and printed), with the chaos test's detector
    (test_scaleout_chaos.py);
  * no reconcile started while its replica was paused, or cut off past renewDeadline;
  * every ConfigMap converges for each controller;
  * qcm_scaleout_controllers_held and _placed agree with /statusz.

    test_controllerscope.py --qcm BINARY --plugins FIXTURE_DIR [--timings short|client-go]
"""
import argparse
import collections
import json
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check, wait  # noqa: E402
from lecluster import Cluster  # noqa: E402
from test_scaleout_chaos import (  # noqa: E402
    KEYS, TIMINGS, Loss, Writer, detect, intervals, read_records)

CONTROLLERS = [f"fixture-placed-{n}" for n in range(1, 5)]


def holders(cluster, ns, group):
    """{controller: the holderIdentity of its Lease, or None}."""
    items = json.loads(cluster.kubectl("get", "leases", "-n", ns, "-o", "json"))["items"]
    by_name = {i["metadata"]["name"]: i["spec"].get("holderIdentity") for i in items}
    return {c: by_name.get(f"{group}-{c}") or None for c in CONTROLLERS}


def scope_held(replicas, live, identities):
    """{replica: the controllers its /statusz says it holds} for each of `live`, noting each
    one's identity in `identities`; None while one has not yet loaded every controller."""
    held = {}
    for name in live:
        code, body = replicas[name].get("/statusz")
        if code != 200:  # not yet serving: wait() tries again
            raise ValueError(f"{name}: /statusz answered {code}")
        st = json.loads(body)
        identities[name] = st["identity"]
        scope = st["scaleOut"]["controllerScope"]
        if scope["controllers"] != CONTROLLERS:
            return None
        held[name] = scope["held"]
    return held


def overlaps(workdir, replicas, deaths, losses, settings):
    """The chaos test's detector over each controller's recorded reconciles, with each
    controller as one key: (allowed, bad, outside, reconciles), printing each one's count."""
    bad, outside, allowed, reconciles = [], [], [], 0
    for c in CONTROLLERS:
        records = {name: read_records(workdir / f"{c}-{name}")
                   for name in replicas if (workdir / f"{c}-{name}").exists()}
        spans = [(s, e, r) for ss in intervals(records, deaths).values() for s, e, r in ss]
        reconciles += len(spans)
        print(f"{c}: {len(spans)} reconciles on {sorted({r for _, _, r in spans})}", flush=True)
        # A replica's own reconciles of it (its workers run several at once) merged into the
        # times it ran.
        a, b, o = detect({c: ran(spans)}, losses, settings)
        allowed += a
        bad += b
        outside += o
    return allowed, bad, outside, reconciles


def ran(spans):
    """[(start, end, replica)] merged per replica: the intervals each ran any reconcile in."""
    merged = []
    for replica in sorted({r for _, _, r in spans}):
        mine = sorted((s, e) for s, e, r in spans if r == replica)
        for s, e in mine:
            if merged and merged[-1][2] == replica and s <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], e), replica)
            else:
                merged.append((s, e, replica))
    return merged


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--timings", choices=sorted(TIMINGS), default="short")
    args = parser.parse_args()
    settings = TIMINGS[args.timings]
    lease, renew, retry = settings
    bound = lease + retry
    cluster = Cluster(os.environ["QCM_E2E_DIR"])
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-controllerscope-e2e-"))
    (workdir / "plugins").mkdir()
    for c in CONTROLLERS:
        shutil.copy(pathlib.Path(args.plugins) / f"lib{c}.so", workdir / "plugins")
    ns = cluster.create_namespace("e2e-cscope")
    group = f"p{int(time.time() * 1000) % 10000000}"
    replicas, identities, deaths, proxies = {}, {}, {}, {}
    losses = collections.defaultdict(list)
    writer = None
    passed = False
    try:
        qcmhost.create_recorded_configmaps(cluster, ns, KEYS)

        def start(name):
            entries = "".join(
                f"  {c}:\n    workers: 2\n"
                f"    settings: {{labelSelector: \"qcm-e2e={ns}\", replica: {name}, "
                f"sleepMs: 10, annotation: qcm.io/{c}, recordFile: {workdir}/{c}-{name}}}\n"
                for c in CONTROLLERS)
            proxies[name], kubeconfig = qcmhost.proxied_kubeconfig(cluster, workdir, name)
            config = qcmhost.config(workdir, kubeconfig=kubeconfig, lock_namespace=ns,
                                    mode="rejoin", controller_config=entries, timings=settings,
                                    scale_out_group=group,
                                    leader_election_extra="  scope: controller\n")
            config += f"controllerShutdownTimeout: {renew}s\n"
            q = qcmhost.Qcm(args.qcm, workdir, name, config)
            replicas[name] = q
            identities[name] = None
            return q

        def status(name):
            code, body = replicas[name].get("/statusz")
            if code != 200:  # not yet serving: wait() tries again
                raise ValueError(f"{name}: /statusz answered {code}")
            return json.loads(body)

        def balanced(live):
            """The spread {replica: [controllers]} once it is balanced, else None."""
            held = scope_held(replicas, live, identities)
            if held is None:
                return None
            owners = holders(cluster, ns, group)
            by_identity = {identities[n]: n for n in live}
            for c in CONTROLLERS:
                mine = [n for n in live if c in held[n]]
                if len(mine) != 1 or by_identity.get(owners[c]) != mine[0]:
                    return None
            counts = [len(held[n]) for n in live]
            return held if max(counts) - min(counts) <= 1 else None

        def settle(live, what, since, limit):
            held = wait(f"a balanced spread over {sorted(live)} ({what})",
                        lambda: balanced(live), 10 * lease + 30, interval=0.1)
            took = time.monotonic() - since
            print(f"{what}: balanced {dict(sorted(held.items()))} in {took:.1f}s "
                  f"(bound {limit}s)", flush=True)
            check(took <= limit, f"{what}: the spread took {took:.1f}s to balance, more than "
                                 f"{limit}s")
            return held

        began = time.monotonic()
        for name in ("r1", "r2", "r3"):
            start(name)
        settle({"r1", "r2", "r3"}, "start", began, 60)
        for name in ("r1", "r2", "r3"):
            samples = replicas[name].metrics()
            held = status(name)["scaleOut"]["controllerScope"]
            for metric, want in (("qcm_scaleout_controllers_held", held["held"]),
                                 ("qcm_scaleout_controllers_placed", held["placed"])):
                got = qcmhost.metric(samples, metric, group=group)
                check(got == len(want), f"{name}: {metric} {got}, /statusz {want}")
        writer = Writer(cluster, ns)
        writer.start()
        time.sleep(2 * retry)

        def epoch_of(count):
            """When the ring's epoch first lists `count` members."""
            wait(f"an epoch of {count} members", lambda: len(
                qcmhost.ring_epoch(cluster, ns, group)["members"]) == count, 10 * lease + 30,
                interval=0.1)
            return time.monotonic()

        start("r4")
        settle({"r1", "r2", "r3", "r4"}, "r4 joined", epoch_of(4), bound)
        time.sleep(2 * retry)

        left = time.monotonic()
        replicas["r4"].signal(signal.SIGTERM)
        code = replicas["r4"].wait(60)
        check(code == 0, f"r4 exited with {code}:\n{replicas['r4'].log()}")
        settle({"r1", "r2", "r3"}, "r4 left (SIGTERM)", left, bound)
        time.sleep(2 * retry)

        killed = time.monotonic()
        replicas["r1"].signal(signal.SIGKILL)
        replicas["r1"].wait(30)
        deaths["r1"] = time.monotonic_ns()
        dropped = epoch_of(2)
        print(f"r1 killed: the epoch without it {dropped - killed:.1f}s later", flush=True)
        # The Lease r1 held is taken a full leaseDuration after its new holder first reads it
        # (the observer's clock: it cannot trust r1's renewTime), which it does once it has
        # entered that epoch, then at its next try (retryPeriod, jittered by up to 1.2).
        settle({"r2", "r3"}, "r1 killed (-9)", dropped, lease + 1.2 * retry + 1)
        time.sleep(2 * retry)

        start("r5")
        settle({"r2", "r3", "r5"}, "r5 joined", epoch_of(3), bound)
        time.sleep(2 * retry)

        # SIGSTOP past the lease, then SIGCONT: the others take its controllers once its
        # Leases expire; on waking its terms are over (their tokens stop its reconciles at
        # once), it rejoins as a new incarnation, and the spread balances again.
        stopped = replicas["r2"].pause()  # once every thread is stopped
        time.sleep(lease + 2 * retry)
        replicas["r2"].signal(signal.SIGCONT)
        losses["r2"].append((stopped, Loss("pause", time.monotonic_ns())))
        settle({"r2", "r3", "r5"}, "r2 paused and resumed", time.monotonic(), 10 * lease + 30)
        time.sleep(2 * retry)

        # Cut off from the API server past the lease, then healed.
        proxies["r3"].cut()
        cut = time.monotonic_ns()
        time.sleep(lease + 2 * retry)
        proxies["r3"].heal()
        losses["r3"].append((cut, Loss("partition", time.monotonic_ns())))
        settle({"r2", "r3", "r5"}, "r3 cut off and back", time.monotonic(), 10 * lease + 30)
        time.sleep(2 * retry)
        writer.running = False
        writer.join(30)

        def behind():
            return qcmhost.unconverged(cluster, ns, [f"qcm.io/{c}" for c in CONTROLLERS])
        try:
            wait("every ConfigMap converged for every controller", lambda: not behind(), 60)
        except AssertionError:
            qcmhost.hold_for_debugger(replicas)
            raise
        # All at once, as a Deployment's deletion does. One by one, the last ones would
        # re-place the leavers' controllers, and a SIGTERM that crosses an acquire in flight
        # leaves that Lease held until it expires (as in client-go, whose cancelled context
        # does not undo a write the server applied; docs/scale-out.md).
        for name in ("r2", "r3", "r5"):
            replicas[name].signal(signal.SIGTERM)
        for name in ("r2", "r3", "r5"):
            code = replicas[name].wait(60)
            check(code == 0, f"{name} exited with {code}:\n{replicas[name].log()}")
        left_held = {c: h for c, h in holders(cluster, ns, group).items() if h}
        check(not left_held, f"Leases still held after every replica left: {left_held}")

        allowed, bad, outside, reconciles = overlaps(workdir, replicas, deaths, losses,
                                                     settings)
        for line, _ in allowed:
            print(f"  allowed: {line}", flush=True)
        check(not bad, "a controller ran on two replicas at once:\n" + "\n".join(bad[:20]))
        check(not outside, "reconciles started outside a term:\n" + "\n".join(outside[:20]))
        print(f"PASS: {reconciles} reconciles, each controller on one replica at a time "
              f"({len(allowed)} overlap(s) of a reconcile that started in its replica's term "
              f"and ran on past its pause or partition: the leader term's limit), every "
              f"spread balanced within its bound", flush=True)
        passed = True
    finally:
        if writer:
            writer.running = False
        qcmhost.stop_replicas(replicas, proxies)
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        if not passed:
            for name, q in replicas.items():
                (workdir / f"{name}.log").write_text(q.log())
            print(f"kept {workdir} (records, logs)", flush=True)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
