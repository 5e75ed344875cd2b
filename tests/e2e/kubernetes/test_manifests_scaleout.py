#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: the scale-out example of packaging/kubernetes/scale-out/ on the real apiserver, and
three real qcm replicas running in-cluster on it (issue 14, section 7).

  dry_run   `kubectl apply --dry-run=server -f packaging/kubernetes/scale-out/` succeeds with
            no warning and reports the objects of the base directory plus the Role and
            RoleBinding qcm:scale-out; the files it links are the base's; its Deployment is
            the base's with 3 replicas, and its controller-manager.yaml the base's with
            scaleOut.group and shards: auto on each sample, nothing else; the real qcm accepts
            that configuration.
  replicas  the directory applied for real; three qcm replicas on a real token of the
            ServiceAccount (as test_manifests.py's in_cluster runs one) form the group: the
            ring's epoch lists the three, and each entered it. Twelve Foos get their
            Deployments; each Foo in the cluster is owned by exactly one replica (the sum of
            qcm_scaleout_keys_owned), more than one replica reconciled, and no log has a 403.
            A fourth replica on a ServiceAccount with every role but qcm:scale-out is refused
            with the API server's 403 on the group's Leases, naming it, and joins once the
            Role is bound to it. SIGTERM to a replica: it exits 0, its membership Lease is
            deleted, and the others own every Foo.

    test_manifests_scaleout.py --qcm BINARY --plugins SAMPLE_PLUGIN_DIR --source REPO
                               --scenario NAME

QCM_E2E_DIR names the running test cluster (tests/e2e/cluster/cluster.py).
"""
import json
import signal
import subprocess
import sys

from test_manifests import (EXPECTED, NS, PLUGINS, check, forbidden_lines,
                            in_cluster_environment, qcmhost, run, wait, write_configmap_volume)

GROUP = "qcm"
GROUP_LABEL = f"scale-out.qcm.io/group={GROUP}"
ROLE = "qcm:scale-out"
LINKED = ("00-namespace.yaml", "10-crd-foo.yaml", "20-serviceaccount.yaml", "30-rbac.yaml")
FOOS = 12


def settings(text):
    """controller-manager.yaml's lines without comments and blank lines."""
    lines = [l.split("#", 1)[0].rstrip() for l in text.splitlines()]
    return [l for l in lines if l.strip()]


def scale_out_dir(env):
    return env.manifests / "scale-out"


def dry_run(env):
    d = scale_out_dir(env)
    env.kubectl("apply", "-f", str(env.manifests / "00-namespace.yaml"))
    out, err = env.kubectl("apply", "--dry-run=server", "-o", "name", "-f", str(d))
    expected = EXPECTED | {f"role.rbac.authorization.k8s.io/{ROLE}",
                           f"rolebinding.rbac.authorization.k8s.io/{ROLE}"}
    names = set(out.split())
    check(names == expected, f"the dry run reported {sorted(names)}, expected {sorted(expected)}")
    check("Warning" not in err, f"the dry run warned:\n{err}")

    for name in LINKED:
        check((d / name).is_symlink() and (d / name).resolve() == (env.manifests / name).resolve(),
              f"scale-out/{name} is not a link to ../{name}")
    ours = env.objects(d / "50-deployment.yaml")[0]
    base = env.objects(env.manifests / "50-deployment.yaml")[0]
    check(ours["spec"]["replicas"] == 3, f"replicas {ours['spec']['replicas']}")
    ours["spec"]["replicas"] = base["spec"]["replicas"]
    check(ours == base, "scale-out/50-deployment.yaml differs from ../50-deployment.yaml in more "
                        "than its replicas")

    ours_cm = env.objects(d / "40-configmap.yaml")[0]
    base_cm = env.objects(env.manifests / "40-configmap.yaml")[0]
    text = ours_cm["data"].pop("controller-manager.yaml")
    base_text = base_cm["data"].pop("controller-manager.yaml")
    check(ours_cm == base_cm, "the ConfigMaps differ outside controller-manager.yaml")
    # The settings, without comments: the base's, plus the group and, under each sample's
    # entry, shards: auto.
    ours, base = settings(text), settings(base_text)
    for plugin in PLUGINS:
        at = ours.index(f"  {plugin}:")
        check(ours[at + 1] == "    shards: auto", f"controllerConfig.{plugin} has no shards: auto")
        del ours[at + 1]
    check(ours.count("scaleOut:") == 1 and ours[ours.index("scaleOut:") + 1] == f"  group: {GROUP}",
          f"no scaleOut.group: {GROUP}")
    del ours[ours.index("scaleOut:"):ours.index("scaleOut:") + 2]
    check(ours == base, "scale-out/40-configmap.yaml's controller-manager.yaml differs from the "
                        "base's in more than scaleOut.group and shards")

    config_file = env.workdir / "controller-manager.yaml"
    config_file.write_text(text)
    out = subprocess.run([env.args.qcm, "--config", str(config_file), "--list-plugins",
                          "--plugin-dir", env.args.plugins], capture_output=True, text=True)
    check(out.returncode == 0, f"qcm --list-plugins refused the scale-out configuration:\n"
                               f"{out.stdout}{out.stderr}")


class Replicas:
    def __init__(self, env, config_text):
        self.env = env
        self.config_text = config_text
        self.environment, self.sa_dir = in_cluster_environment(env)
        self.running = []

    def start(self, name, environment=None):
        config_file = write_configmap_volume(self.env.workdir / f"etc-{name}", self.config_text, 1)
        qcm = qcmhost.Qcm(self.env.args.qcm, self.env.workdir, name, self.config_text,
                          args=("--config", str(config_file), "--plugin-dir", self.env.args.plugins),
                          env=environment or self.environment)
        self.env.processes.append(qcm)
        self.running.append(qcm)
        return qcm

    def settled(self, count):
        """The ring's epoch lists `count` members and every running replica entered it."""
        epoch = qcmhost.ring_epoch(self.env.cluster, NS, GROUP)
        if len(epoch["members"]) != count:
            return None
        return all(q.logged_at(f"entered epoch {epoch['number']} ") for q in self.running) \
            and epoch

    def keys_owned(self):
        return [qcmhost.metric(q.metrics(), "qcm_scaleout_keys_owned", group=GROUP,
                               controller="sample-controller") for q in self.running]


def member_leases(env):
    out, _ = env.kubectl("get", "leases", "-n", NS, "-l", GROUP_LABEL, "-o", "json")
    return json.loads(out)["items"]


def replicas(env):
    d = scale_out_dir(env)
    env.kubectl("apply", "-f", str(d))
    env.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                "crd/foos.samplecontroller.k8s.io")
    # Leases left by an earlier run that was killed would make this one wait them out.
    env.kubectl("delete", "lease", "-n", NS, "-l", GROUP_LABEL, "--ignore-not-found")
    env.kubectl("delete", "lease", "qcm", f"{GROUP}-ring", "-n", NS, "--ignore-not-found")
    config_text = env.cluster.get_json("configmap", NS, "qcm-config")["data"][
        "controller-manager.yaml"]
    group = Replicas(env, config_text)
    for name in ("replica-1", "replica-2", "replica-3"):
        group.start(name)
    epoch = wait("an epoch of the three, entered by all", lambda: group.settled(3), 90)
    print(f"the group settled on epoch {epoch['number']}: {', '.join(epoch['members'])}",
          flush=True)
    check(len(member_leases(env)) == 3, "not one membership Lease per replica")

    ns = env.cluster.create_namespace("qcm-scaleout")
    # Its Foos go, whatever happens: a later test's sample-controller would sync them all
    # (the e2e cluster runs no namespace controller, so deleting the namespace would not).
    env.cleanups.append(lambda: env.kubectl("delete", "foos", "--all", "-n", ns, check=False))
    for i in range(FOOS):
        env.apply_json({"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
                        "metadata": {"name": f"foo-{i}", "namespace": ns},
                        "spec": {"deploymentName": f"foo-{i}-deployment", "replicas": 1}})
    for i in range(FOOS):
        wait(f"foo-{i}'s Deployment", lambda i=i: env.cluster.get_json(
            "deployment", ns, f"foo-{i}-deployment"), 60)
    # Every Foo in the cluster (the informer watches all namespaces) hashes to one replica.
    total = len(env.kubectl("get", "foos", "-A", "-o", "name")[0].split())
    owned = wait(f"each of the {total} Foos owned once", lambda: (
        lambda o: None not in o and sum(o) == total and o)(group.keys_owned()), 30)
    reconciled = [qcmhost.metric(q.metrics(), "qcm_reconcile_total",
                                 controller="sample-controller", result="success") or 0
                  for q in group.running]
    print(f"Foos owned per replica {owned}, reconciled {reconciled}", flush=True)
    check(sum(1 for r in reconciled if r > 0) >= 2,
          f"one replica reconciled every Foo: {reconciled}")
    for q in group.running:
        forbidden = forbidden_lines(q)
        check(not forbidden, f"403s on {q.name}:\n" + "\n".join(forbidden))

    # A ServiceAccount with every role of ../30-rbac.yaml (its endpoint's delegation too, for
    # the scrapes below) but not qcm:scale-out.
    other = "qcm-unscaled"
    env.kubectl("create", "serviceaccount", other, "-n", NS)
    try:
        for binding, role in ((other, "qcm:controller-manager"),
                              (f"{other}-auth", "system:auth-delegator")):
            env.kubectl("create", "clusterrolebinding", binding, f"--clusterrole={role}",
                        f"--serviceaccount={NS}:{other}")
        for ns_, role in ((NS, "qcm:leader-election"),
                          ("kube-system", "extension-apiserver-authentication-reader")):
            env.kubectl("create", "rolebinding", other, "-n", ns_, f"--role={role}",
                        f"--serviceaccount={NS}:{other}")
        token, _ = env.kubectl("create", "token", other, "-n", NS, "--duration=1h")
        other_dir = env.workdir / "serviceaccount-unscaled"
        other_dir.mkdir()
        for name in ("ca.crt", "namespace"):
            (other_dir / name).write_bytes((group.sa_dir / name).read_bytes())
        (other_dir / "token").write_text(token.strip())
        fourth = group.start("replica-4", {**group.environment,
                                           "QCM_SERVICE_ACCOUNT_DIR": str(other_dir)})
        expected = (f'User "system:serviceaccount:{NS}:{other}" cannot list resource "leases" '
                    f'in API group "coordination.k8s.io" in the namespace "{NS}"')
        wait("the 403 on the group's Leases", lambda: any(
            expected in l.replace('\\"', '"') for l in fourth.log().splitlines()), 60, fourth)
        env.kubectl("create", "rolebinding", f"{other}-scale-out", "-n", NS, f"--role={ROLE}",
                    f"--serviceaccount={NS}:{other}")
        wait("the fourth replica in the group", lambda: group.settled(4), 90, fourth)

        # A graceful leave.
        leaving = group.running.pop(0)
        leaving.signal(signal.SIGTERM)
        code = leaving.wait(60)
        check(code == 0, f"{leaving.name} exited with {code} on SIGTERM:\n{leaving.log()}")
        check(leaving.logged_at("scale-out: left the group"), "no 'left the group' in the log")
        check(len(member_leases(env)) == 3, "the leaving replica's Lease was not deleted")
        wait("an epoch of the three left", lambda: group.settled(3), 60)
        wait("every Foo owned once by the three", lambda: sum(group.keys_owned()) == total, 30)
        for q in group.running:
            q.signal(signal.SIGTERM)
        for q in group.running:
            check(q.wait(60) == 0, f"{q.name} did not exit 0 on SIGTERM:\n{q.log()}")
        left = member_leases(env)
        check(not left, "membership Leases left after every replica's SIGTERM: "
                        f"{[l['metadata']['name'] for l in left]}")
    finally:
        env.kubectl("delete", "clusterrolebinding", other, f"{other}-auth", "--ignore-not-found")
        env.kubectl("delete", "rolebinding", other, f"{other}-scale-out", "-n", NS,
                    "--ignore-not-found")
        env.kubectl("delete", "rolebinding", other, "-n", "kube-system", "--ignore-not-found")
        env.kubectl("delete", "serviceaccount", other, "-n", NS, "--ignore-not-found")


SCENARIOS = {"dry_run": dry_run, "replicas": replicas}


if __name__ == "__main__":
    sys.exit(run(SCENARIOS))
