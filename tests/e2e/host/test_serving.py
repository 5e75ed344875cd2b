#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: the real qcm binary on the real apiserver, for serving and leader election (issue 6,
sections 2, 3 and 8), with the fixture plugins fixture-configmaps (needs leader election) and
fixture-optional (runs on every replica).

  two_replicas     two replicas with leader election: fixture-configmaps runs only on the
                   leader (qcm_plugin_state, leader_election_master_status, and whose
                   annotation value lands on the ConfigMaps), fixture-optional on both; the
                   follower is ready as standby; /metrics passes promtool on both; /configz
                   shows no credential of the kubeconfig; SIGTERM the leader with
                   releaseOnCancel: it stops its controllers, then releases, and the standby
                   runs fixture-configmaps in under 3 s (measured from the signal, with the
                   default 15 s lease, so only the release can explain it).
  loss_run_or_die  the lease taken away from a leader: it exits with status 1.
  loss_rejoin      the same in rejoin mode: its controller stops, it stays up and ready on
                   standby, and runs the controller again once it wins the lease back.
  readyz           /readyz goes through its transitions: a service account that may not list
                   ConfigMaps keeps the informers from syncing (500, informer-sync failing,
                   while /livez is 200); once RBAC allows it, /readyz turns 200.
  reload_two_replicas
                   two replicas and a SIGHUP reload that enables fixture-labelled (needs leader
                   election): on the leader it starts and works (qcm_plugin_state running, its
                   annotation lands), on the follower it waits on standby (loaded, /readyz 200);
                   SIGTERM the leader, and the other replica runs the reloaded set
                   (fixture-configmaps and fixture-labelled both work there).
  lease_events     the LeaderElection Events kube-controller-manager writes on its lease:
                   "<identity> became leader" from the leader, source component qcm, about the
                   Lease (its uid), read with kubectl get events; and "<identity> stopped
                   leading", written before qcm exits on SIGTERM.

    test_serving.py --qcm BINARY --plugins FIXTURE_DIR --promtool PROMTOOL [--only NAME]
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check  # noqa: E402
from lecluster import Cluster  # noqa: E402

CONFIGMAPS = "fixture-configmaps"
OPTIONAL = "fixture-optional"
LABELLED = "fixture-labelled"
FAILOVER_LIMIT = 3.0


class Env:
    def __init__(self, args):
        self.args = args
        self.cluster = Cluster(os.environ["QCM_E2E_DIR"])
        self.workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-serving-e2e-"))
        plugins = self.workdir / "plugins"
        plugins.mkdir()
        for name in (CONFIGMAPS, OPTIONAL, LABELLED):
            shutil.copy(pathlib.Path(args.plugins) / f"lib{name}.so", plugins)
        self.processes = []

    def qcm(self, name, config):
        q = qcmhost.Qcm(self.args.qcm, self.workdir, name, config)
        self.processes.append(q)
        return q

    def annotation(self, ns, name, key="qcm.io/replica"):
        meta = self.cluster.get_json("configmap", ns, name)["metadata"]
        return meta.get("annotations", {}).get(key)

    def configmap(self, ns, name):
        self.cluster.kubectl("create", "configmap", name, "-n", ns)
        self.cluster.kubectl("label", "configmap", name, "-n", ns, f"qcm-e2e={ns}")

    def wait(self, what, predicate, timeout):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout}s")
            time.sleep(0.1)

    def promtool(self, q):
        status, body = q.get("/metrics")
        check(status == 200, f"{q.name}: /metrics {status}")
        out = subprocess.run([self.args.promtool, "check", "metrics"], input=body,
                             capture_output=True, text=True)
        check(out.returncode == 0 and not (out.stdout + out.stderr).strip(),
              f"{q.name}: promtool check metrics: {out.stdout}{out.stderr}")
        return body

    def cleanup(self):
        for q in self.processes:
            q.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def configmaps_settings(ns, value):
    return (f"  {CONFIGMAPS}:\n"
            f"    settings: {{labelSelector: \"qcm-e2e={ns}\", annotation: qcm.io/replica, "
            f"value: {value}}}\n")


def leader_status(q, lock):
    return qcmhost.metric(q.metrics(), "leader_election_master_status", name=lock)


def lease_holder(env, ns, lock):
    return env.cluster.get_json("leases.coordination.k8s.io", ns, lock)["spec"].get(
        "holderIdentity", "")


def secrets_of_kubeconfig(path):
    """Every credential string a kubeconfig holds (token, key data, key file contents)."""
    secrets = []
    for user in json.loads(pathlib.Path(path).read_text())["users"]:
        u = user["user"]
        for key in ("token", "password", "client-key-data"):
            if u.get(key):
                secrets.append(u[key])
        if u.get("client-key"):
            body = [line for line in pathlib.Path(u["client-key"]).read_text().splitlines()
                    if line and not line.startswith("-----")]
            secrets.extend(line for line in body if len(line) >= 16)
    check(secrets, f"{path} holds no credential to look for")
    return secrets


def two_replicas(env):
    ns = env.cluster.create_namespace("e2e-serving")
    lock = "qcm-e2e"
    cluster_dir = env.cluster.dir
    common = dict(controllers=("*", OPTIONAL), lock_namespace=ns, lock_name=lock)
    a = env.qcm("a", qcmhost.config(cluster_dir, controller_config=configmaps_settings(ns, "a"),
                                    **common))
    # The first replica leads. It is not ready before it has seen the lease (it cannot know
    # yet whether it will lead), nor while its controller's caches sync: when /readyz first
    # answers 200, the controller runs.
    a.wait_for("/readyz 200", lambda: a.get("/readyz")[0] == 200, 30, interval=0.005)
    check(a.plugin_state(CONFIGMAPS) == "running" and leader_status(a, lock) == 1,
          f"a was ready before leading: {CONFIGMAPS} is {a.plugin_state(CONFIGMAPS)}")
    identity_a = lease_holder(env, ns, lock)

    # The second replica uses the token kubeconfig, for the /configz check below.
    b = env.qcm("b", qcmhost.config(cluster_dir, kubeconfig="token-admin.kubeconfig",
                                    controller_config=configmaps_settings(ns, "b"), **common))
    b.wait_for("/readyz 200 on standby", lambda: b.get("/readyz")[0] == 200, 30)
    check(b.plugin_state(CONFIGMAPS) == "loaded", f"b: {CONFIGMAPS} is {b.plugin_state(CONFIGMAPS)}")
    check(b.plugin_state(OPTIONAL) == "running", f"b: {OPTIONAL} is {b.plugin_state(OPTIONAL)}")
    check(a.plugin_state(OPTIONAL) == "running", f"a: {OPTIONAL} is {a.plugin_state(OPTIONAL)}")
    check(leader_status(b, lock) == 0, "b claims to lead")
    status, body = b.get("/readyz?verbose")
    check(f"[+]{CONFIGMAPS} ok" in body, body)

    # Only the leader's controller works: the annotation carries its value.
    env.configmap(ns, "first")
    env.wait("annotation a", lambda: env.annotation(ns, "first") == "a", 30)
    time.sleep(1)
    check(env.annotation(ns, "first") == "a", "the follower touched the ConfigMap")
    check(not any(name == "qcm_reconcile_total" and dict(labels).get("controller") == CONFIGMAPS
                  for name, labels in b.metrics()), "the follower reconciled")
    check(qcmhost.metric(a.metrics(), "qcm_reconcile_total", controller=CONFIGMAPS,
                         result="success") >= 1, "the leader did not count its reconcile")

    for q in (a, b):
        env.promtool(q)
        for path in ("/healthz", "/livez", "/healthz/leaderElection", f"/healthz/{CONFIGMAPS}"):
            status, body = q.get(path)
            check(status == 200 and body == "ok", f"{q.name}: {path}: {status} {body}")
    for q, kubeconfig in ((a, "admin.kubeconfig"), (b, "token-admin.kubeconfig")):
        status, body = q.get("/configz")
        check(status == 200, f"{q.name}: /configz {status}")
        for secret in secrets_of_kubeconfig(cluster_dir / kubeconfig):
            check(secret not in body, f"{q.name}: /configz shows a credential of {kubeconfig}")
        served = json.loads(body)["controllermanager.qcm.io"]
        check(served["leaderElection"]["resourceName"] == lock, body)
        check(served["kubeconfig"] == f"{cluster_dir}/{kubeconfig}", body)

    # SIGTERM the leader: controllers stop, then the lease is released, then the standby leads.
    t0 = time.monotonic()
    a.signal(signal.SIGTERM)
    took_over = b.wait_for(f"{CONFIGMAPS} running on b",
                           lambda: b.plugin_state(CONFIGMAPS) == "running", 20)
    failover = took_over - t0
    code = a.wait(30)
    log_a = a.log()
    check(code == 0, f"a exited with {code}:\n{log_a}")
    stopped = log_a.find(f"lib{CONFIGMAPS}.so): running -> stopped")
    released = log_a.find("stopping: giving up lease")
    check(0 <= stopped < released, f"a released before its controller stopped:\n{log_a}")
    check(failover < FAILOVER_LIMIT, f"failover took {failover:.3f}s (limit {FAILOVER_LIMIT}s)")
    holder = lease_holder(env, ns, lock)
    check(holder not in ("", identity_a), f"the lease is held by {holder!r}")
    b.wait_for("/readyz 200 as leader", lambda: b.get("/readyz")[0] == 200, 30)
    env.configmap(ns, "second")
    env.wait("annotation b", lambda: env.annotation(ns, "second") == "b", 30)
    env.promtool(b)

    b.signal(signal.SIGTERM)
    code = b.wait(30)
    check(code == 0, f"b exited with {code}:\n{b.log()}")
    check(lease_holder(env, ns, lock) == "", "b did not release the lease")
    env.cluster.kubectl("delete", "namespace", ns, "--wait=false")
    print(f"two_replicas: failover after SIGTERM {failover * 1000:.0f} ms", flush=True)
    return failover


def steal(env, ns, lock, seconds):
    env.cluster.kubectl("patch", "leases.coordination.k8s.io", lock, "-n", ns, "--type", "merge",
                        "-p", json.dumps({"spec": {"holderIdentity": "thief",
                                                   "leaseDurationSeconds": seconds}}))


def single_leader(env, name, lock, value, **config):
    """One replica in a namespace of its own, leading lock (its fixture-configmaps running,
    annotating with value): (namespace, Qcm)."""
    ns = env.cluster.create_namespace(f"e2e-{name}")
    q = env.qcm(name, qcmhost.config(env.cluster.dir, lock_namespace=ns, lock_name=lock,
                                     controller_config=configmaps_settings(ns, value), **config))
    q.wait_for("leadership", lambda: q.plugin_state(CONFIGMAPS) == "running", 30)
    return ns, q


def loss_run_or_die(env):
    lock = "qcm-loss"
    ns, q = single_leader(env, "loss", lock, "l")
    steal(env, ns, lock, 3600)
    code = q.wait(20)
    log = q.log()
    check(code == 1, f"exit status {code} after losing the lease:\n{log}")
    check("leader election lost" in log and "exiting (run-or-die)" in log, log)
    env.cluster.kubectl("delete", "namespace", ns, "--wait=false")
    print("loss_run_or_die: exited 1", flush=True)


def loss_rejoin(env):
    lock = "qcm-rejoin"
    ns, q = single_leader(env, "rejoin", lock, "r", mode="rejoin")
    steal(env, ns, lock, 3)
    q.wait_for(f"{CONFIGMAPS} stopped", lambda: q.plugin_state(CONFIGMAPS) == "stopped", 20)
    check(q.get("/readyz")[0] == 200, "not ready on standby after a lost term")
    check(leader_status(q, lock) == 0, "still claims to lead")
    t = q.wait_for(f"{CONFIGMAPS} running again",
                   lambda: q.plugin_state(CONFIGMAPS) == "running", 30)
    check(q.process.poll() is None, "exited in rejoin mode")
    env.configmap(ns, "after-rejoin")
    env.wait("annotation r", lambda: env.annotation(ns, "after-rejoin") == "r", 30)
    q.signal(signal.SIGTERM)
    check(q.wait(30) == 0, q.log())
    env.cluster.kubectl("delete", "namespace", ns, "--wait=false")
    print("loss_rejoin: stopped, stayed up, led again", flush=True)


def readyz(env):
    ns = env.cluster.create_namespace("e2e-readyz")
    sa = "qcm-readyz"
    role = f"qcm-e2e-readyz-{ns}"
    env.cluster.kubectl("create", "serviceaccount", sa, "-n", ns)
    # The delegation its endpoint needs to review callers (as packaging/kubernetes/30-rbac.yaml
    # grants it), and nothing of what its controllers need yet.
    env.cluster.kubectl("create", "clusterrolebinding", f"{role}-auth",
                        "--clusterrole=system:auth-delegator", f"--serviceaccount={ns}:{sa}")
    token = env.cluster.kubectl("create", "token", sa, "-n", ns, "--duration=1h").strip()
    admin = json.loads((env.cluster.dir / "admin.kubeconfig").read_text())
    cluster_entry = admin["clusters"][0]
    kubeconfig = env.workdir / "readyz.kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "sa",
        "clusters": [cluster_entry],
        "users": [{"name": "sa", "user": {"token": token}}],
        "contexts": [{"name": "sa", "context": {"cluster": cluster_entry["name"], "user": "sa"}}],
    }))
    q = env.qcm("readyz", qcmhost.config(env.workdir, kubeconfig="readyz.kubeconfig",
                                         leader_elect=False,
                                         controller_config=configmaps_settings(ns, "z")))
    try:
        first = q.wait_for("an answer", lambda: q.get("/readyz")[0] != 0, 30)
        status, body = q.get("/readyz?verbose")
        check(status == 500, f"ready without being allowed to list: {status} {body}")
        check("[-]informer-sync failed: reason withheld" in body, body)
        time.sleep(3)  # the informers keep failing to list: still not ready
        status, body = q.get("/readyz/informer-sync")
        check(status == 500 and "have not synced" in body, f"{status} {body}")
        check(q.get("/livez") == (200, "ok"), "not live while not ready")
        check(q.plugin_state(CONFIGMAPS) == "running", "not running")

        env.cluster.kubectl("create", "clusterrole", role, "--verb=get,list,watch,patch",
                            "--resource=configmaps")
        granted = time.monotonic()
        env.cluster.kubectl("create", "clusterrolebinding", role, f"--clusterrole={role}",
                            f"--serviceaccount={ns}:{sa}")
        ready = q.wait_for("/readyz 200", lambda: q.get("/readyz")[0] == 200, 90, interval=0.1)
        status, body = q.get("/readyz?verbose")
        check(status == 200 and "[+]informer-sync ok" in body, body)
        q.signal(signal.SIGTERM)
        check(q.wait(30) == 0, q.log())
        print(f"readyz: 500 from {first - q.started_at:.2f}s after start, 200 "
              f"{ready - granted:.2f}s after RBAC allowed the list", flush=True)
    finally:
        env.cluster.kubectl("delete", "clusterrolebinding", role, "--ignore-not-found", check=False)
        env.cluster.kubectl("delete", "clusterrolebinding", f"{role}-auth", "--ignore-not-found",
                            check=False)
        env.cluster.kubectl("delete", "clusterrole", role, "--ignore-not-found", check=False)
        env.cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)


def labelled_settings(ns, value):
    return (f"  {LABELLED}:\n"
            f"    settings: {{labelSelector: \"qcm-e2e={ns}\", annotation: qcm.io/labelled, "
            f"value: {value}}}\n")


def reload_two_replicas(env):
    ns = env.cluster.create_namespace("e2e-reload2")
    lock = "qcm-e2e-reload"
    cluster_dir = env.cluster.dir

    def replica_config(value):
        return qcmhost.config(cluster_dir, controllers=("*", f"-{LABELLED}", OPTIONAL),
                              lock_namespace=ns, lock_name=lock,
                              controller_config=configmaps_settings(ns, value)
                              + labelled_settings(ns, value))

    a = env.qcm("reload-a", replica_config("a"))
    a.wait_for(f"{CONFIGMAPS} running on a", lambda: a.plugin_state(CONFIGMAPS) == "running", 30)
    b = env.qcm("reload-b", replica_config("b"))
    b.wait_for("/readyz 200 on standby", lambda: b.get("/readyz")[0] == 200, 30)
    for q in (a, b):
        check(q.plugin_state(LABELLED) == "discovered",
              f"{q.name}: {LABELLED} is {q.plugin_state(LABELLED)} before the reload")
    env.configmap(ns, "before")
    env.wait("annotation a", lambda: env.annotation(ns, "before") == "a", 30)
    check(env.annotation(ns, "before", "qcm.io/labelled") is None, "labelled ran while disabled")

    # The edit and SIGHUP, on both replicas. (The file watch may see the edit first: either
    # way one reload applies it.)
    for q in (a, b):
        text = q.config_file.read_text().replace(f'"-{LABELLED}", ', "")
        check(f"-{LABELLED}" not in text, text)
        q.config_file.write_text(text)
        q.signal(signal.SIGHUP)
    a.wait_for(f"{LABELLED} running on the leader",
               lambda: a.plugin_state(LABELLED) == "running", 30)
    check(qcmhost.metric(a.metrics(), "qcm_plugin_state", plugin=LABELLED, state="running") == 1,
          "qcm_plugin_state")
    b.wait_for(f"{LABELLED} on standby on the follower",
               lambda: "applied: enabled: " + LABELLED in b.log(), 30)
    check(b.plugin_state(LABELLED) == "loaded",
          f"b: {LABELLED} is {b.plugin_state(LABELLED)}, not on standby")
    check(b.plugin_state(CONFIGMAPS) == "loaded", f"b: {CONFIGMAPS} is {b.plugin_state(CONFIGMAPS)}")
    status, body = b.get("/readyz?verbose")
    check(status == 200 and f"[+]{LABELLED} ok" in body, f"b /readyz: {status} {body}")
    for q in (a, b):
        check("reloading (SIGHUP)" in q.log(), f"{q.name}: no SIGHUP reload:\n{q.log()}")
    # Behaviour: the leader's fixture-labelled annotates, and only the leader's.
    env.configmap(ns, "after-reload")
    env.wait("labelled annotation a",
             lambda: env.annotation(ns, "after-reload", "qcm.io/labelled") == "a", 30)
    check(env.annotation(ns, "after-reload") == "a", "configmaps annotation")
    check(not any(name == "qcm_reconcile_total" and dict(labels).get("controller") == LABELLED
                  for name, labels in b.metrics()), "the follower reconciled")

    # SIGTERM the leader: b runs the reloaded set.
    a.signal(signal.SIGTERM)
    check(a.wait(30) == 0, f"a exited badly:\n{a.log()}")
    b.wait_for("both running on b", lambda: b.plugin_state(CONFIGMAPS) == "running"
               and b.plugin_state(LABELLED) == "running", 30)
    env.configmap(ns, "after-failover")
    env.wait("annotations b", lambda: env.annotation(ns, "after-failover") == "b"
             and env.annotation(ns, "after-failover", "qcm.io/labelled") == "b", 30)
    b.signal(signal.SIGTERM)
    check(b.wait(30) == 0, f"b exited badly:\n{b.log()}")
    env.cluster.kubectl("delete", "namespace", ns, "--wait=false")
    print("reload_two_replicas: enabled on the leader, standby on the follower, "
          "the reloaded set after failover", flush=True)


def lease_events(env):
    lock = "qcm-e2e-events"
    ns, q = single_leader(env, "lease-events", lock, "e")
    identity = lease_holder(env, ns, lock)
    uid = env.cluster.get_json("leases.coordination.k8s.io", ns, lock)["metadata"]["uid"]

    def events():
        out = env.cluster.kubectl(
            "get", "events", "-n", ns, "-o", "json", "--field-selector",
            f"involvedObject.kind=Lease,involvedObject.name={lock},reason=LeaderElection")
        return json.loads(out)["items"]

    q.wait_for("the became-leader Event",
               lambda: any(e["message"] == f"{identity} became leader" for e in events()), 30)
    event = next(e for e in events() if e["message"] == f"{identity} became leader")
    check(event["type"] == "Normal", event)
    check(event["source"].get("component") == "qcm", event)
    check(event["involvedObject"].get("uid") == uid, event)
    check(event["involvedObject"].get("apiVersion") == "coordination.k8s.io/v1", event)
    check(f'reason="LeaderElection" message="{identity} became leader"' in q.log(), q.log())
    # On SIGTERM qcm writes what is queued before it exits: the stopped-leading Event is there
    # when the process is gone, without waiting.
    q.signal(signal.SIGTERM)
    check(q.wait(30) == 0, q.log())
    check(any(e["message"] == f"{identity} stopped leading" for e in events()),
          f"no stopped-leading Event after exit: {events()}\n{q.log()}")
    env.cluster.kubectl("delete", "namespace", ns, "--wait=false")
    print("lease_events: became leader, stopped leading", flush=True)


SCENARIOS = {"two_replicas": two_replicas, "loss_run_or_die": loss_run_or_die,
             "loss_rejoin": loss_rejoin, "readyz": readyz,
             "reload_two_replicas": reload_two_replicas, "lease_events": lease_events}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--promtool", required=True)
    parser.add_argument("--only", choices=sorted(SCENARIOS))
    args = parser.parse_args()
    env = Env(args)
    failed = []
    try:
        for name, scenario in SCENARIOS.items():
            if args.only and name != args.only:
                continue
            print(f"--- {name}", flush=True)
            try:
                scenario(env)
                print(f"PASS {name}", flush=True)
            except Exception as e:  # report every scenario, then fail
                failed.append(name)
                print(f"FAIL {name}: {e}", flush=True)
    finally:
        env.cleanup()
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
