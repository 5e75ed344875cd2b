#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: coordinated leader election (KEP-4355) through the real qcm binary on the real
kube-apiserver, which the e2e cluster starts with CoordinatedLeaderElection and
coordination.k8s.io/v1beta1 (docs/host.md):

  * two replicas with leaderElection.coordinated, emulation versions 0.1.0 (qcm's own) and
    0.0.9: each registers a LeaseCandidate named after its identity, with qcm's version as
    binary version; the API server's election controller makes the 0.0.9 replica the holder
    (handing the Lease on if it elected the 0.1.0 one while that was alone), and then only it
    runs the controller that needs leader election;
  * a third replica, 0.0.8, joins: the controller marks the term ended (preferredHolder), the
    0.0.9 leader steps down (rejoin: its controller stops), and the 0.0.8 replica leads.

    test_coordinated.py --qcm BINARY --plugins FIXTURE_DIR
"""
import json
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check, wait  # noqa: E402

CONFIGMAPS = "fixture-configmaps"
LOCK = "qcm-coordinated"


def lease(cluster, ns):
    out = cluster.kubectl("get", "lease", "-n", ns, LOCK, "-o", "json", check=False)
    return json.loads(out)["spec"] if out else {}


def candidates(cluster, ns):
    """{name: spec} of the LeaseCandidates in `ns`."""
    items = json.loads(cluster.kubectl("get", "leasecandidates.coordination.k8s.io", "-n", ns,
                                       "-o", "json"))["items"]
    return {i["metadata"]["name"]: i["spec"] for i in items}


def main():
    args, cluster, workdir = qcmhost.host_test("coordinated", [CONFIGMAPS])
    ns = cluster.create_namespace("e2e-coordinated")
    replicas = []
    try:
        def start(name, emulation):
            extra = f"  coordinated: true\n  emulationVersion: {emulation}\n"
            config = qcmhost.config(cluster.dir, lock_namespace=ns, lock_name=LOCK,
                                    mode="rejoin", timings=(3, 2, 1),
                                    leader_election_extra=extra)
            q = qcmhost.Qcm(args.qcm, workdir, name, config)
            replicas.append(q)
            q.wait_for("its LeaseCandidate", lambda: len(candidates(cluster, ns)) >= len(replicas),
                       30)
            return q

        def running(q):
            return q.plugin_state(CONFIGMAPS) == "running"

        newer = start("newer", "0.1.0")
        older = start("older", "0.0.9")
        found = candidates(cluster, ns)
        check(len(found) == 2, f"candidates {found}")
        for name, spec in found.items():
            check(spec["leaseName"] == LOCK and spec["binaryVersion"] == "0.1.0"
                  and spec["strategy"] == "OldestEmulationVersion", f"{name}: {spec}")
        by_version = {spec["emulationVersion"]: name for name, spec in found.items()}
        # The controller may have elected the newer one while it was alone; then it hands the
        # Lease on as below. Either way the 0.0.9 replica ends up holding it.
        held = wait("the 0.0.9 replica elected",
                    lambda: lease(cluster, ns).get("holderIdentity") == by_version["0.0.9"], 60)
        wait("the older replica's controller running", lambda: running(older), 30)
        wait("the newer replica's controller stopped", lambda: not running(newer), 30)
        held = lease(cluster, ns).get("holderIdentity")
        check(not running(newer), f"the newer replica runs {CONFIGMAPS} too")
        check(lease(cluster, ns).get("strategy") == "OldestEmulationVersion", f"{lease(cluster, ns)}")
        print(f"elected {held} (0.0.9) over {by_version['0.1.0']} (0.1.0)", flush=True)

        oldest = start("oldest", "0.0.8")
        wait("the 0.0.9 leader's controller stopped", lambda: not running(older), 60)
        wait("the 0.0.8 replica leading", lambda: running(oldest), 60)
        final = lease(cluster, ns)
        identities = {spec["emulationVersion"]: name
                      for name, spec in candidates(cluster, ns).items()}
        check(final.get("holderIdentity") == identities["0.0.8"], f"{final}")
        check(not running(newer) and not running(older), "two replicas run the controller")
        check(older.logged_at("is marked as 'end of term'"), older.log())
        print(f"handed over to {identities['0.0.8']} (0.0.8) through preferredHolder", flush=True)
        print("PASS", flush=True)
    finally:
        for q in replicas:
            q.stop()
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
