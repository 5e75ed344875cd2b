#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: scale-out through the real qcm binary on the real kube-apiserver (docs/scale-out.md).

Two replicas of one group (scaleOut.group) run fixture-configmaps with shards: auto, although
its plugin needs leader election. Each replica's copy writes its own name into the annotation
qcm.io/replica of the ConfigMaps it reconciles, so the annotation shows who owns each key:

  * both replicas hold a membership Lease labelled with the group, each with its term id, and
    the ring Lease's epoch lists both incarnations;
  * every ConfigMap is reconciled, by one replica or the other, each owning a fair part;
  * the owners do not flap: the annotations stay as they are while nothing changes;
  * the metrics agree (qcm_scaleout_keys_owned is each replica's part; the epoch, serving and
    base epochs are the ring's), and the leader's EpochWritten Event names the placement;
  * /statusz agrees: the ring Lease's epoch and members with their acks, each replica's keys,
    and one manager-scope leader, whom both name;
  * SIGTERM to one replica: it exits 0 after leaving (its Lease is deleted at once), and the
    other takes every key, within seconds, not after the lease has expired; an Event names
    the leave.

    test_scaleout.py --qcm BINARY --plugins FIXTURE_DIR
"""
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
from qcmhost import check, wait, ring_epoch as epoch  # noqa: E402

CONFIGMAPS = "fixture-configmaps"
KEYS = 40
ANNOTATION = "qcm.io/replica"
GROUP_LABEL = "scale-out.qcm.io/group"


def owners(cluster, ns):
    """{ConfigMap name: the replica named in its annotation, or None}."""
    items = json.loads(cluster.kubectl("get", "configmaps", "-n", ns, "-l", f"qcm-e2e={ns}",
                                       "-o", "json"))["items"]
    return {i["metadata"]["name"]: (i["metadata"].get("annotations") or {}).get(ANNOTATION)
            for i in items}


def leases(cluster, ns, group):
    """The group's membership Leases: [(holderIdentity, term id)]."""
    items = json.loads(cluster.kubectl("get", "leases", "-n", ns, "-l", f"{GROUP_LABEL}={group}",
                                       "-o", "json"))["items"]
    return sorted((i["spec"].get("holderIdentity", ""),
                   (i["metadata"].get("annotations") or {}).get("scale-out.qcm.io/term"))
                  for i in items)


def placement_events(cluster, ns, group):
    """The messages of the EpochWritten Events on the group's ring Lease."""
    items = json.loads(cluster.kubectl(
        "get", "events", "-n", ns, "-o", "json", "--field-selector",
        f"involvedObject.name={group}-ring,reason=EpochWritten"))["items"]
    return [i["message"] for i in items]


def main():
    args, cluster, workdir = qcmhost.host_test("scaleout", [CONFIGMAPS])
    ns = cluster.create_namespace("e2e-scaleout")
    group = f"g{int(time.time() * 1000) % 10000000}"
    replicas = {}
    try:
        for i in range(KEYS):
            cluster.kubectl("create", "configmap", f"cm-{i}", "-n", ns)
            cluster.kubectl("label", "configmap", f"cm-{i}", "-n", ns, f"qcm-e2e={ns}")

        def start(name):
            settings = (f"  {CONFIGMAPS}:\n    shards: auto\n    workers: 2\n"
                        f"    settings: {{labelSelector: \"qcm-e2e={ns}\", "
                        f"annotation: {ANNOTATION}, value: {name}}}\n")
            config = qcmhost.config(cluster.dir, lock_namespace=ns, mode="rejoin",
                                    controller_config=settings, timings=(3, 2, 1),
                                    scale_out_group=group)
            q = qcmhost.Qcm(args.qcm, workdir, name, config)
            replicas[name] = q
            return q

        r1 = start("r1")
        r2 = start("r2")
        for q in (r1, r2):
            q.wait_for("the sharded controller running",
                       lambda q=q: q.plugin_state(CONFIGMAPS) == "running", 60)
            check(q.logged_at(f"sharded across {group}"), q.log())

        # Two members, each with its term id, both in the epoch.
        members = wait("two membership Leases with term ids",
                       lambda: (lambda ls: ls if len(ls) == 2 and all(t for _, t in ls) else None)(
                           leases(cluster, ns, group)), 30)
        listed = wait("an epoch of both members",
                      lambda: (lambda e: e if len(e["members"]) == 2 else None)(
                          epoch(cluster, ns, group)), 30)
        check(sorted(listed["members"]) == sorted(f"{h}/{t}" for h, t in members),
              f"epoch {listed} for Leases {members}")
        print(f"group {group}: members {members}, epoch {listed['number']}", flush=True)

        # Every key is reconciled, by one of them; both have a fair part.
        seen = wait("every ConfigMap annotated by its owner",
                    lambda: (lambda o: o if len(o) == KEYS and all(o.values()) else None)(
                        owners(cluster, ns)), 60)
        counts = {name: list(seen.values()).count(name) for name in ("r1", "r2")}
        check(counts["r1"] + counts["r2"] == KEYS, f"owners {seen}")
        check(min(counts.values()) >= KEYS // 5, f"an unfair split: {counts}")
        # No flapping: nothing changes while membership does not.
        time.sleep(3)
        check(owners(cluster, ns) == seen, f"owners moved without a membership change: "
                                           f"{seen} then {owners(cluster, ns)}")
        print(f"{KEYS} keys split {counts}, stable", flush=True)

        # The metrics say the same: each replica owns what it annotated, both serve the epoch
        # on the ring Lease, past its barrier. The leader's Event names the placement change.
        ring = epoch(cluster, ns, group)
        now = ring["number"]
        for name, q in (("r1", r1), ("r2", r2)):
            samples = q.metrics()
            value = lambda metric, **labels: qcmhost.metric(samples, metric, group=group, **labels)
            check(value("qcm_scaleout_keys_owned", controller=CONFIGMAPS) == counts[name],
                  f"{name}'s qcm_scaleout_keys_owned is not its {counts[name]} keys")
            for metric in ("qcm_scaleout_epoch", "qcm_scaleout_serving_epoch",
                           "qcm_scaleout_base_epoch"):
                check(value(metric) == now, f"{name}'s {metric} is {value(metric)}, not {now}")
            check(value("qcm_scaleout_members") == 2, f"{name}'s qcm_scaleout_members")
            check(value("qcm_scaleout_epochs_entered_total") >= 1, f"{name} entered no epoch")
        # /statusz says who holds what: both replicas see the ring Lease's epoch and members,
        # each member's ack of it, each its own keys, and one leader of the manager-scope
        # Lease, whom both name.
        statuses = {name: json.loads(q.get("/statusz")[1]) for name, q in (("r1", r1), ("r2", r2))}
        leaders = [st["identity"] for st in statuses.values() if st["leaderElection"]["leading"]]
        check(len(leaders) == 1, f"leaders in /statusz: {statuses}")
        for name, st in statuses.items():
            out = st["scaleOut"]
            check(out["group"] == group and out["ring"] == {
                "epoch": now, "id": ring["id"], "members": sorted(ring["members"])},
                f"{name}'s /statusz ring {out['ring']}, the Lease's {ring}")
            check(out["servingEpoch"] == now and out["baseEpoch"] == now, f"{name}: {out}")
            check(sorted((m["incarnation"], m["ack"]) for m in out["members"]) == sorted(
                (m, f"{now}/{ring['id']}") for m in ring["members"]), f"{name}: {out['members']}")
            check(out["incarnation"] in ring["members"]
                  and out["incarnation"].split("/")[0] == st["identity"], f"{name}: {st}")
            check(st["leaderElection"]["holder"] == leaders[0], f"{name}: {st['leaderElection']}")
            mine = [c for c in st["controllers"] if c["name"] == CONFIGMAPS]
            check(mine == [{"name": CONFIGMAPS, "state": "running", "keysOwned": counts[name]}],
                  f"{name}'s /statusz controllers {st['controllers']}")
        print(f"/statusz: leader {leaders[0]}, ring {now} as on the Lease", flush=True)
        wait(f"the EpochWritten Event of epoch {now}", lambda: any(
            f"epoch {now} of group {group}: members " in m and m.endswith("; left none")
            for m in placement_events(cluster, ns, group)), 30)

        # A graceful leave: r2 exits 0, its Lease is gone at once, r1 takes every key.
        left = time.monotonic()
        r2.signal(signal.SIGTERM)
        code = r2.wait(60)
        check(code == 0, f"r2 exited with {code}:\n{r2.log()}")
        check(r2.logged_at("scale-out: left the group"), r2.log())
        remaining = leases(cluster, ns, group)
        check(len(remaining) == 1 and remaining[0][0] != "", f"Leases after the leave: {remaining}")
        wait("every ConfigMap taken by r1",
             lambda: all(v == "r1" for v in owners(cluster, ns).values()), 30)
        took = time.monotonic() - left
        check(len(epoch(cluster, ns, group)["members"]) == 1, f"{epoch(cluster, ns, group)}")
        print(f"r2 left; r1 owned every key {took:.1f}s after the SIGTERM", flush=True)
        r2_member = next(m for m in listed["members"] if m.split("/")[0] != remaining[0][0])
        wait("the Event of r2's leave", lambda: any(
            m.endswith(f"; left {r2_member}") for m in placement_events(cluster, ns, group)), 30)
        check(qcmhost.metric(r1.metrics(), "qcm_scaleout_keys_owned", group=group,
                             controller=CONFIGMAPS) == KEYS, "r1 does not own every key")

        r1.signal(signal.SIGTERM)
        code = r1.wait(60)
        check(code == 0, f"r1 exited with {code}:\n{r1.log()}")
        check(leases(cluster, ns, group) == [], f"{leases(cluster, ns, group)}")
        print("PASS", flush=True)
    finally:
        for q in replicas.values():
            q.stop()
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
