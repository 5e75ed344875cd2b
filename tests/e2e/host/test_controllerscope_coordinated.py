#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: coordinated leader election (KEP-4355) of the controller-scope Leases, through real qcm
replicas on the real kube-apiserver, which the e2e cluster starts with
CoordinatedLeaderElection and coordination.k8s.io/v1beta1 (docs/scale-out.md, "Coordinated
election of controller Leases"). Four leader-elected controllers, fixture-placed-1..4, in
leaderElection.scope: controller with leaderElection.coordinated:

  * two replicas of emulation version 0.1.0: the controllers are spread over both (2 and 2).
    Each controller's Lease is held by the LeaseCandidate "<identity>.<controller>" of the
    replica whose /statusz says it holds it, written by the API server's election controller
    (the Lease has its strategy, OldestEmulationVersion), and no other replica has a
    candidate for that Lease;
  * a third replica of emulation version 0.0.9 joins: every controller moves to it, as the
    election controller would pick it; the others withdraw (delete) their candidates and hold
    none;
  * it is killed (SIGKILL): its candidates stay, and are of the older version, but no longer
    answer the election controller's pings, so once its Leases have expired the controllers
    are spread over the two 0.1.0 replicas again;
  * another 0.0.9 replica joins and takes every controller; it leaves on SIGTERM,
    withdrawing its candidates, and the controllers are spread over the 0.1.0 ones again.

Meanwhile a writer changes ConfigMaps that every controller copies into an annotation of its
own, and each records its reconciles; at the end, every ConfigMap has converged for every
controller, and the chaos test's detector asserts that no controller ran on two replicas at
once (test_controllerscope.py's check).

    test_controllerscope_coordinated.py --qcm BINARY --plugins FIXTURE_DIR
"""
import collections
import json
import pathlib
import shutil
import signal
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check, wait  # noqa: E402
from test_controllerscope import overlaps, scope_held  # noqa: E402
from test_scaleout_chaos import KEYS, Writer  # noqa: E402

CONTROLLERS = [f"fixture-placed-{n}" for n in range(1, 5)]
TIMINGS = (3, 2, 1)


def main():
    args, cluster, workdir = qcmhost.host_test("cscope-coordinated", CONTROLLERS)
    ns = cluster.create_namespace("e2e-cscope-cle")
    group = f"c{int(time.time() * 1000) % 10000000}"
    replicas, deaths = {}, {}
    writer = None
    passed = False
    try:
        qcmhost.create_recorded_configmaps(cluster, ns, KEYS)

        def start(name, emulation):
            entries = "".join(
                f"  {c}:\n    workers: 1\n"
                f"    settings: {{labelSelector: \"qcm-e2e={ns}\", replica: {name}, "
                f"sleepMs: 1, annotation: qcm.io/{c}, recordFile: {workdir}/{c}-{name}}}\n"
                for c in CONTROLLERS)
            extra = ("  scope: controller\n  coordinated: true\n"
                     f"  emulationVersion: {emulation}\n")
            config = qcmhost.config(cluster.dir, lock_namespace=ns, mode="rejoin",
                                    controller_config=entries, timings=TIMINGS,
                                    scale_out_group=group, leader_election_extra=extra)
            replicas[name] = qcmhost.Qcm(args.qcm, workdir, name, config)

        def leases():
            items = json.loads(cluster.kubectl("get", "leases", "-n", ns, "-o", "json"))["items"]
            return {i["metadata"]["name"]: i["spec"] for i in items}

        def candidates():
            items = json.loads(cluster.kubectl("get", "leasecandidates.coordination.k8s.io",
                                               "-n", ns, "-o", "json"))["items"]
            return {i["metadata"]["name"]: i["spec"] for i in items}

        def spread(live):
            """{replica: [controllers]} once each controller's Lease is held by the candidate
            of the one live replica that says it holds it, and no other live replica has a
            candidate for it; else None."""
            identity = {}
            held = scope_held(replicas, live, identity)
            if held is None:
                return None
            specs, cands = leases(), candidates()
            for c in CONTROLLERS:
                mine = [n for n in live if c in held[n]]
                if len(mine) != 1:
                    return None
                expected = f"{identity[mine[0]]}.{c}"
                spec = specs.get(f"{group}-{c}", {})
                if spec.get("holderIdentity") != expected:
                    return None
                for_lease = sorted(  # a killed replica's stay: only the live ones count
                    n for n, s in cands.items() if s["leaseName"] == f"{group}-{c}"
                    and any(n.startswith(identity[r] + ".") for r in live))
                if for_lease != [expected]:
                    return None
            return held

        def spread_over(live, what):
            t0 = time.monotonic()
            held = wait(f"the controllers spread over {live} ({what})", lambda: spread(live), 90)
            check(sorted(len(v) for v in held.values()) == [2, 2], f"spread {held}")
            print(f"{what}: spread {held} in {time.monotonic() - t0:.1f}s", flush=True)
            return held

        def all_on(name, live, what):
            t0 = time.monotonic()
            held = wait(f"every controller on {name} ({what})",
                        lambda: (lambda h: h if h and h[name] == CONTROLLERS else None)(
                            spread(live)), 90)
            check(all(not v for n, v in held.items() if n != name), f"spread {held}")
            print(f"{what}: all on {name} in {time.monotonic() - t0:.1f}s", flush=True)

        def candidates_of(version):
            return sorted(n for n, s in candidates().items() if s["emulationVersion"] == version
                          and s["leaseName"] != "qcm")  # the manager Lease's stays, as client-go's

        start("r1", "0.1.0")
        start("r2", "0.1.0")
        spread_over(["r1", "r2"], "start")
        specs = leases()
        for c in CONTROLLERS:
            check(specs[f"{group}-{c}"].get("strategy") == "OldestEmulationVersion",
                  f"{c}: {specs[f'{group}-{c}']} (the election controller writes the strategy)")
        for name, spec in candidates().items():
            check(spec["strategy"] == "OldestEmulationVersion" and spec["binaryVersion"]
                  and spec["emulationVersion"] == "0.1.0", f"{name}: {spec}")
        writer = Writer(cluster, ns)
        writer.start()
        time.sleep(2 * TIMINGS[2])

        start("r3", "0.0.9")
        all_on("r3", ["r1", "r2", "r3"], "r3 (0.0.9) joined")
        check(len(candidates_of("0.1.0")) == 0, f"0.1.0 candidates left: {candidates_of('0.1.0')}")
        for name in ("r1", "r2"):
            check(replicas[name].logged_at("stopping: giving up lease"), replicas[name].log())
        time.sleep(2 * TIMINGS[2])

        replicas["r3"].signal(signal.SIGKILL)
        replicas["r3"].wait(30)
        deaths["r3"] = time.monotonic_ns()
        spread_over(["r1", "r2"], "r3 killed (-9)")
        check(len(candidates_of("0.0.9")) == len(CONTROLLERS),
              f"r3's candidates {candidates_of('0.0.9')} (they stay until the server collects them)")
        time.sleep(2 * TIMINGS[2])

        start("r4", "0.0.9")
        all_on("r4", ["r1", "r2", "r4"], "r4 (0.0.9) joined")
        time.sleep(2 * TIMINGS[2])
        replicas["r4"].signal(signal.SIGTERM)
        check(replicas["r4"].wait(60) == 0, replicas["r4"].log())
        spread_over(["r1", "r2"], "r4 left (SIGTERM)")
        check(len(candidates_of("0.0.9")) == len(CONTROLLERS),
              f"r4 left candidates: {candidates_of('0.0.9')} besides r3's")
        writer.running = False
        writer.join(30)

        wait("every ConfigMap converged for every controller", lambda: not qcmhost.unconverged(
            cluster, ns, [f"qcm.io/{c}" for c in CONTROLLERS]), 60)
        for name in ("r1", "r2"):
            replicas[name].signal(signal.SIGTERM)
        for name in ("r1", "r2"):
            check(replicas[name].wait(60) == 0, replicas[name].log())
        _, bad, outside, reconciles = overlaps(workdir, replicas, deaths,
                                               collections.defaultdict(list), TIMINGS)
        check(reconciles > 0, "no reconcile recorded")
        check(not bad, "a controller ran on two replicas at once:\n" + "\n".join(bad[:20]))
        check(not outside, "reconciles started outside a term:\n" + "\n".join(outside[:20]))
        print(f"{reconciles} reconciles, each controller on one replica at a time", flush=True)
        passed = True
        print("PASS", flush=True)
    finally:
        if writer:
            writer.running = False
        if not passed:
            for name, q in replicas.items():
                print(f"--- {name} ---\n{q.log()[-6000:]}", flush=True)
        for q in replicas.values():
            q.stop()
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
