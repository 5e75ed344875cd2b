#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: the Kubernetes manifests of packaging/kubernetes/ on the real apiserver, and the real
qcm binary running in-cluster on them (issue 7, section 5).

  dry_run     `kubectl apply --dry-run=server -f packaging/kubernetes/` succeeds and reports
              exactly the objects the directory should hold, with no warning (the namespace
              enforces and warns on Pod Security "restricted"; a Deployment without the
              capability drop does get the warning, so the check can fail); the Deployment
              and the ConfigMap agree (port, probes, Lease namespace and name, the Role's
              resourceNames), and with the image of packaging/Containerfile (tag, entry point,
              user, port); the packaged controller-manager.yaml is accepted by the real qcm
              (--list-plugins: the three sample plugins, enabled); the copy of the Foo CRD is
              the sample-controller's.
  in_cluster  the namespace, the CRD, the ServiceAccount, the RBAC and the ConfigMap applied
              for real; a real token of the ServiceAccount (`kubectl create token`) and the
              cluster CA written where the in-cluster configuration reads them
              (QCM_SERVICE_ACCOUNT_DIR); the ConfigMap's controller-manager.yaml laid out as a
              ConfigMap volume is (..data symlinks); qcm run with KUBERNETES_SERVICE_HOST/PORT
              and no kubeconfig, with the sample plugins and leader election. Checked: it
              takes the Lease qcm-system/qcm, the three plugins run, /readyz is 200; each
              plugin does its job through the RBAC of 30-rbac.yaml (sample-controller creates
              and scales a Foo's Deployment, writes the Foo's status and records an Event;
              configmap-restarter adopts and restarts a Deployment; ttl-after-finished deletes
              an expired Job) with no 403 in the log; a ConfigMap-volume update of the file
              turns a controller off without a restart; with `patch` on deployments taken out
              of the ClusterRole, a restart fails with the API server's 403 naming the
              ServiceAccount and leaves the Deployment alone, and succeeds once the role is
              applied again; a second replica on the same token is ready on standby, and
              takes the Lease within 1.5 s of the leader's SIGTERM (the release, seen through
              its watch on the Lease); its own SIGTERM exits 0 and releases the Lease.

    test_manifests.py --qcm BINARY --plugins SAMPLE_PLUGIN_DIR --source REPO --scenario NAME

QCM_E2E_DIR names the running test cluster (tests/e2e/cluster/cluster.py).
"""
import argparse
import copy
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
sys.path.insert(0, str(HERE.parent / "host"))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from lecluster import Cluster  # noqa: E402

NS = "qcm-system"
SA = "qcm"
USER = f"system:serviceaccount:{NS}:{SA}"
PLUGINS = ("sample-controller", "ttl-after-finished", "configmap-restarter")
# A standby takes over this soon after the leader's SIGTERM (measured: 0.1 s,
# tests/bench/RESULTS.md "Host"), through the release and its watch on the Lease.
FAILOVER_LIMIT = 1.5
EXPECTED = {
    "namespace/qcm-system",
    "customresourcedefinition.apiextensions.k8s.io/foos.samplecontroller.k8s.io",
    "serviceaccount/qcm",
    "clusterrole.rbac.authorization.k8s.io/qcm:controller-manager",
    "clusterrolebinding.rbac.authorization.k8s.io/qcm:controller-manager",
    "role.rbac.authorization.k8s.io/qcm:leader-election",
    "rolebinding.rbac.authorization.k8s.io/qcm:leader-election",
    "clusterrolebinding.rbac.authorization.k8s.io/qcm:auth-delegator",
    "rolebinding.rbac.authorization.k8s.io/qcm:extension-apiserver-authentication-reader",
    "clusterrole.rbac.authorization.k8s.io/qcm-metrics-reader",
    "clusterrole.rbac.authorization.k8s.io/qcm-status-reader",
    "configmap/qcm-config",
    "deployment.apps/qcm",
}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def wait(what, predicate, timeout, qcm=None):
    """Polls `predicate` (errors count as false) until it returns a true value, which it returns."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except (AssertionError, RuntimeError, KeyError, ValueError, OSError) as e:
            last = e
        if qcm is not None and qcm.process.poll() is not None:
            raise AssertionError(f"qcm exited with {qcm.process.returncode} while waiting for "
                                 f"{what}:\n{qcm.log()}")
        if time.monotonic() > deadline:
            log = f"\nqcm's log:\n{qcm.log()}" if qcm is not None else ""
            raise AssertionError(f"no {what} within {timeout}s (last error: {last}){log}")
        time.sleep(0.2)


def json_stream(text):
    """The JSON values of kubectl's -o json for several objects: one after the other (or one
    List)."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            break
        value, at = decoder.raw_decode(text, at)
        values += value["items"] if value.get("kind") == "List" else [value]
    return values


class Env:
    def __init__(self, args):
        self.args = args
        self.cluster = Cluster(os.environ["QCM_E2E_DIR"])
        self.manifests = pathlib.Path(args.source) / "packaging" / "kubernetes"
        self.workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-kubernetes-e2e-"))
        self.processes = []
        self.cleanups = []  # run after the processes have stopped

    def kubectl(self, *args, stdin=None, check=True):
        """kubectl as the cluster's admin: (stdout, stderr)."""
        out = subprocess.run([self.cluster.state["kubectl"], "--kubeconfig", self.cluster.kubeconfig,
                              *args], input=stdin, capture_output=True, text=True)
        if check and out.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout, out.stderr

    def apply_json(self, obj, *args):
        return self.kubectl("apply", *args, "-f", "-", stdin=json.dumps(obj))

    def objects(self, path):
        """The objects of a manifest file or directory, as JSON, parsed by kubectl."""
        out, _ = self.kubectl("create", "--dry-run=client", "-o", "json", "-f", str(path))
        return json_stream(out)

    def manifest(self, kind):
        return next(o for o in self.objects(self.manifests) if o["kind"] == kind)

    def packaged_config(self):
        return self.manifest("ConfigMap")["data"]["controller-manager.yaml"]

    def cleanup(self):
        for p in self.processes:
            p.stop()
        for c in self.cleanups:
            c()
        shutil.rmtree(self.workdir, ignore_errors=True)


def dry_run(env):
    # The namespaced objects can only be dry-run into a namespace that exists (the dry run
    # creates nothing, the Namespace included); a real `kubectl apply -f` creates it first, as
    # 00-namespace.yaml sorts first.
    env.kubectl("apply", "-f", str(env.manifests / "00-namespace.yaml"))
    out, err = env.kubectl("apply", "--dry-run=server", "-o", "name", "-f", str(env.manifests))
    names = set(out.split())
    check(names == EXPECTED, f"the dry run reported {sorted(names)}, expected {sorted(EXPECTED)}")
    check("Warning" not in err, f"the dry run warned:\n{err}")

    # The same Deployment without its capability drop gets Pod Security's warning: the check
    # above can fail.
    deployment = env.manifest("Deployment")
    weakened = copy.deepcopy(deployment)
    del weakened["spec"]["template"]["spec"]["containers"][0]["securityContext"]["capabilities"]
    _, err = env.apply_json(weakened, "--dry-run=server")
    check('would violate PodSecurity "restricted' in err and "capabilities" in err,
          f"no Pod Security warning for a Deployment without the capability drop:\n{err}")

    # The Deployment as the API server defaults it.
    out, _ = env.kubectl("apply", "--dry-run=server", "-o", "json", "-f",
                         str(env.manifests / "50-deployment.yaml"))
    spec = json.loads(out)["spec"]
    pod = spec["template"]["spec"]
    container = pod["containers"][0]
    check(spec["replicas"] == 2, f"replicas {spec['replicas']}")
    check(pod["serviceAccountName"] == SA, "serviceAccountName")
    check(pod["securityContext"]["runAsNonRoot"] is True, "runAsNonRoot")
    check(pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", "seccomp")
    sc = container["securityContext"]
    check(sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
          and sc["capabilities"]["drop"] == ["ALL"], f"container securityContext {sc}")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(container["livenessProbe"]["httpGet"]["path"] == "/livez", "liveness probe path")
    check(container["readinessProbe"]["httpGet"]["path"] == "/readyz", "readiness probe path")
    for probe in ("livenessProbe", "readinessProbe"):
        check(container[probe]["httpGet"]["port"] in ("metrics", ports.get("metrics")),
              f"{probe} port")
        check(container[probe]["httpGet"].get("scheme") == "HTTPS", f"{probe} scheme (qcm serves HTTPS)")
    requests = container["resources"]["requests"]
    check("cpu" in requests and "memory" in requests, f"resource requests {requests}")
    mount = next(m for m in container["volumeMounts"] if m["name"] == "config")
    state = next(m for m in container["volumeMounts"] if m["name"] == "state")
    check(container["args"] == [f"--config={mount['mountPath']}/controller-manager.yaml",
                                f"--state-dir={state['mountPath']}"],
          f"args {container['args']} do not name the mounted configuration and state")
    volume = next(v for v in pod["volumes"] if v["name"] == "state")
    check("emptyDir" in volume, f"the state volume {volume} is not an emptyDir (it must outlive "
          "a container restart, for the quarantine)")

    # The Deployment runs the image packaging/Containerfile builds, as that image runs: its
    # tag, its entry point, its user, its port.
    containerfile = (pathlib.Path(env.args.source) / "packaging" / "Containerfile").read_text()
    directives = dict(line.split(None, 1) for line in containerfile.splitlines()
                      if line and not line.startswith("#") and line.split()[0].isupper())
    check(f"-t {container['image']} " in containerfile,
          f"the image {container['image']} is not the tag packaging/Containerfile builds")
    check(json.loads(directives["ENTRYPOINT"]) == container["command"],
          f"command {container['command']} is not the image's ENTRYPOINT")
    uid, gid = directives["USER"].split(":")
    check(pod["securityContext"]["runAsUser"] == int(uid)
          and pod["securityContext"]["runAsGroup"] == int(gid),
          f"runAsUser/runAsGroup are not the image's USER {directives['USER']}")
    check(int(directives["EXPOSE"]) == ports["metrics"], "the metrics port is not the EXPOSEd one")

    # The ConfigMap's configuration agrees with the Deployment and the Role, and the real qcm
    # accepts it: strict parsing, the three samples found and enabled.
    config_file = env.workdir / "controller-manager.yaml"
    config_file.write_text(env.packaged_config())
    out = subprocess.run([env.args.qcm, "--config", str(config_file), "--list-plugins",
                          "--plugin-dir", env.args.plugins], capture_output=True, text=True)
    check(out.returncode == 0, f"qcm --list-plugins refused the packaged configuration:\n"
                               f"{out.stdout}{out.stderr}")
    for plugin in PLUGINS:
        row = next((l.split() for l in out.stdout.splitlines() if l.split()[:1] == [plugin]), None)
        check(row is not None and row[3] == "yes" and row[2] != "failed",
              f"{plugin} not listed as enabled and valid:\n{out.stdout}")
    text = env.packaged_config()
    check(f"securePort: {ports['metrics']}" in text, "serving.securePort is not the metrics port")
    check(f"resourceNamespace: {NS}" in text and "resourceName: qcm" in text,
          "the Lease is not qcm-system/qcm")
    role = next(o for o in env.objects(env.manifests / "30-rbac.yaml") if o["kind"] == "Role")
    check(any(r.get("resourceNames") == ["qcm"] for r in role["rules"]),
          "the Role does not name the Lease qcm")
    check("pluginDirs: [/usr/lib/qcm/plugins]" in text, "pluginDirs is not the .deb's")

    # The CRD is the sample-controller's.
    ours = env.objects(env.manifests / "10-crd-foo.yaml")[0]
    theirs = env.objects(pathlib.Path(env.args.source) / "plugins" / "sample-controller" /
                         "artifacts" / "crd-status-subresource.yaml")[0]
    check(ours == theirs, "10-crd-foo.yaml differs from the sample-controller's CRD")


def write_configmap_volume(directory, text, generation):
    """What the kubelet's AtomicWriter does with a ConfigMap volume: the files in a
    timestamped directory, `..data` a symlink to it, swapped by a rename, and each key a
    symlink through `..data`."""
    directory.mkdir(exist_ok=True)
    stamped = directory / f"..2026_01_01_00_00_0{generation}.000000000"
    stamped.mkdir()
    (stamped / "controller-manager.yaml").write_text(text)
    old = os.readlink(directory / "..data") if (directory / "..data").is_symlink() else None
    (directory / "..data_tmp").symlink_to(stamped.name)
    os.rename(directory / "..data_tmp", directory / "..data")
    key = directory / "controller-manager.yaml"
    if not key.is_symlink():
        key.symlink_to("..data/controller-manager.yaml")
    if old:
        shutil.rmtree(directory / old)
    return key


def metrics_reader(env, qcm, ns):
    """qcm, on its ServiceAccount with 30-rbac.yaml's delegation, lets a scraper bound to
    qcm-metrics-reader read /metrics and nothing else, and an operator bound to
    qcm-status-reader /statusz and nothing else, refuses a caller without credentials,
    and leaves the probes' paths open; it read the cluster's client CA."""
    env.kubectl("create", "serviceaccount", "scraper", "-n", ns)
    env.kubectl("create", "clusterrolebinding", f"{ns}-scraper", "--clusterrole=qcm-metrics-reader",
                f"--serviceaccount={ns}:scraper")
    token = env.kubectl("create", "token", "scraper", "-n", ns)[0].strip()
    check(qcm.get("/metrics", token=token)[0] == 200, "the metrics reader cannot read /metrics")
    status, body = qcm.get("/configz", token=token)
    check(status == 403 and f'User \\"system:serviceaccount:{ns}:scraper\\" cannot get path' in body,
          f"/configz for the metrics reader: {status} {body}")
    check(qcm.get("/statusz", token=token)[0] == 403, "the metrics reader reads /statusz")
    check(qcm.get("/metrics", token="")[0] == 401, "/metrics without credentials is not 401")
    env.kubectl("create", "serviceaccount", "operator", "-n", ns)
    env.kubectl("create", "clusterrolebinding", f"{ns}-operator", "--clusterrole=qcm-status-reader",
                f"--serviceaccount={ns}:operator")
    operator = env.kubectl("create", "token", "operator", "-n", ns)[0].strip()
    status, body = qcm.get("/statusz", token=operator)
    check(status == 200 and "leaderElection" in json.loads(body),
          f"/statusz for the status reader: {status} {body}")
    check(qcm.get("/metrics", token=operator)[0] == 403, "the status reader reads /metrics")
    for path in ("/livez", "/readyz"):
        check(qcm.get(path, token="")[0] == 200, f"the probe's {path} is not open")
    check(qcm.logged_at("client certificates are verified against the client CA of "
                        "kube-system/extension-apiserver-authentication"),
          "qcm did not read the cluster's client CA")
    env.kubectl("delete", "clusterrolebinding", f"{ns}-scraper", f"{ns}-operator")


def in_cluster_environment(env):
    """The in-cluster configuration's files, as the kubelet mounts them (a real token of the
    ServiceAccount, the cluster's CA), and the environment that points qcm at them:
    (environment, the files' directory)."""
    sa_dir = env.workdir / "serviceaccount"
    sa_dir.mkdir()
    token, _ = env.kubectl("create", "token", SA, "-n", NS, "--duration=1h")
    (sa_dir / "token").write_text(token.strip())
    shutil.copy(env.cluster.dir / "ca.crt", sa_dir / "ca.crt")
    (sa_dir / "namespace").write_text(NS)
    environment = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    environment.update({
        "KUBERNETES_SERVICE_HOST": "127.0.0.1",
        "KUBERNETES_SERVICE_PORT": str(env.cluster.state["port"]),
        "QCM_SERVICE_ACCOUNT_DIR": str(sa_dir),
    })
    return environment, sa_dir


def forbidden_lines(qcm):
    return [l for l in qcm.log().splitlines() if "forbidden" in l.lower() or " 403" in l]


def in_cluster(env):
    for name in ("00-namespace.yaml", "10-crd-foo.yaml", "20-serviceaccount.yaml",
                 "30-rbac.yaml", "40-configmap.yaml"):
        env.kubectl("apply", "-f", str(env.manifests / name))
    env.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                "crd/foos.samplecontroller.k8s.io")
    # A Lease left by an earlier run that was killed would make this one wait it out.
    env.kubectl("delete", "lease", "qcm", "-n", NS, "--ignore-not-found")

    environment, sa_dir = in_cluster_environment(env)

    # The ConfigMap's file, read back from the cluster, as its volume holds it.
    cm = env.cluster.get_json("configmap", NS, "qcm-config")
    config_text = cm["data"]["controller-manager.yaml"]
    config_file = write_configmap_volume(env.workdir / "etc-qcm", config_text, 1)
    # Qcm passes --config with a file of its own first; the later --config wins (as in pflag),
    # so qcm reads the ConfigMap volume. The plugins are the build's, the port a free one.
    qcm = qcmhost.Qcm(env.args.qcm, env.workdir, "incluster", config_text,
                      args=("--config", str(config_file), "--plugin-dir", env.args.plugins),
                      env=environment)
    env.processes.append(qcm)

    server = env.cluster.state["server"]
    wait("the in-cluster API server line",
         lambda: qcm.logged_at(f"API server {server} (in-cluster ({sa_dir}))"), 30, qcm)
    wait("leadership", lambda: qcm.logged_at("leading: 3 controller(s)"), 60, qcm)
    holder = env.cluster.get_json("leases.coordination.k8s.io", NS, "qcm")["spec"]["holderIdentity"]
    check(holder.startswith(os.uname().nodename + "_"), f"the Lease is held by {holder!r}")
    for plugin in PLUGINS:
        wait(f"{plugin} running", lambda p=plugin: qcm.plugin_state(p) == "running", 60, qcm)
    wait("/readyz 200", lambda: qcm.get("/readyz")[0] == 200, 60, qcm)
    check(qcmhost.metric(qcm.metrics(), "leader_election_master_status", name="qcm") == 1,
          "leader_election_master_status is not 1")

    ns = env.cluster.create_namespace("qcm-incluster")
    sample_controller(env, qcm, ns)
    configmap_restarter(env, qcm, ns)
    ttl_after_finished(env, qcm, ns)
    forbidden = forbidden_lines(qcm)
    check(not forbidden, "403s with the full role:\n" + "\n".join(forbidden))
    metrics_reader(env, qcm, ns)

    # controller-manager.yaml changed through the ConfigMap volume: ttl-after-finished off,
    # without a restart.
    write_configmap_volume(env.workdir / "etc-qcm", config_text.replace(
        'controllers: ["*"]', 'controllers: ["*", "-ttl-after-finished"]'), 2)
    wait("ttl-after-finished stopped by the reload",
         lambda: qcm.plugin_state("ttl-after-finished") == "unloaded", 60, qcm)
    check(qcm.plugin_state("sample-controller") == "running", "sample-controller stopped too")
    check(qcm.process.poll() is None, "qcm exited")

    least_privilege(env, qcm, ns)

    # The Deployment's second replica: a standby on the same token and RBAC, ready without
    # leading; SIGTERM to the leader hands it the Lease. The standby sees the release through
    # its watch on the Lease (get, watch, then update: the Role's verbs); polling alone would
    # take it one retryPeriod (2 to 4.4 s) later.
    standby = qcmhost.Qcm(env.args.qcm, env.workdir, "standby", config_text,
                          args=("--config", str(config_file), "--plugin-dir", env.args.plugins),
                          env=environment)
    env.processes.append(standby)
    wait("the standby ready", lambda: standby.get("/readyz")[0] == 200, 60, standby)
    check(standby.plugin_state("sample-controller") == "loaded",
          f"the standby runs sample-controller: {standby.plugin_state('sample-controller')}")
    leader_identity = holder
    signalled = time.monotonic()
    qcm.signal(signal.SIGTERM)
    code = qcm.wait(60)
    check(code == 0, f"qcm exited with {code} on SIGTERM:\n{qcm.log()}")
    led = wait("the standby leading", lambda: standby.logged_at("leading: "), 30, standby)
    print(f"failover: the standby led {led - signalled:.2f}s after the leader's SIGTERM",
          flush=True)
    check(led - signalled < FAILOVER_LIMIT,
          f"the standby led {led - signalled:.2f}s after the leader's SIGTERM "
          f"(limit {FAILOVER_LIMIT}s): is the Lease watch refused?")
    holder = env.cluster.get_json("leases.coordination.k8s.io", NS, "qcm")["spec"][
        "holderIdentity"]
    check(holder != leader_identity and holder.startswith(os.uname().nodename + "_"),
          f"the Lease is held by {holder!r} after the failover")
    wait("sample-controller running on the new leader",
         lambda: standby.plugin_state("sample-controller") == "running", 60, standby)
    forbidden = forbidden_lines(standby)
    check(not forbidden, "403s on the standby:\n" + "\n".join(forbidden))

    standby.signal(signal.SIGTERM)
    code = standby.wait(60)
    check(code == 0, f"the standby exited with {code} on SIGTERM:\n{standby.log()}")
    holder = env.cluster.get_json("leases.coordination.k8s.io", NS, "qcm")["spec"].get(
        "holderIdentity", "")
    check(holder == "", f"the Lease was not released: held by {holder!r}")


def sample_controller(env, qcm, ns):
    env.apply_json({"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
                    "metadata": {"name": "foo", "namespace": ns},
                    "spec": {"deploymentName": "foo-deployment", "replicas": 1}})
    # create deployments: the Foo's Deployment, owned by it.
    deployment = wait("the Foo's Deployment", lambda: env.cluster.get_json(
        "deployment", ns, "foo-deployment"), 60, qcm)
    owner = deployment["metadata"]["ownerReferences"][0]
    check(owner["kind"] == "Foo" and owner["name"] == "foo", f"owner {owner}")
    # update deployments: scaled with the Foo.
    env.kubectl("patch", "foo", "foo", "-n", ns, "--type=merge", "-p",
                '{"spec": {"replicas": 3}}')
    wait("the Deployment scaled to 3", lambda: env.cluster.get_json(
        "deployment", ns, "foo-deployment")["spec"]["replicas"] == 3, 60, qcm)
    # update foos/status: the Deployment's status (no Deployment controller runs here) reaches
    # the Foo.
    env.kubectl("patch", "deployment", "foo-deployment", "-n", ns, "--subresource=status",
                "--type=merge", "-p", '{"status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 2, '
                '"availableReplicas": 2}}')
    wait("the Foo's status.availableReplicas 2", lambda: env.cluster.get_json(
        "foo", ns, "foo").get("status", {}).get("availableReplicas") == 2, 60, qcm)

    # create events: "Synced" on the Foo, from sample-controller.
    def synced():
        out, _ = env.kubectl("get", "events", "-n", ns, "-o", "json", "--field-selector",
                             "involvedObject.name=foo,reason=Synced")
        # The source component is the controller's name (or "<name>-controller", the host's
        # recorder's convention).
        return [e for e in json.loads(out)["items"]
                if e["source"].get("component", "").startswith("sample-controller")]
    wait("a Synced Event on the Foo", synced, 60, qcm)


def configmap_hash(env, ns, name, where):
    meta = env.cluster.get_json("deployment", ns, name)
    if where == "template":
        meta = meta["spec"]["template"]
    return meta["metadata"].get("annotations", {}).get("qcm.io/configmap-hash")


def configmap_restarter(env, qcm, ns):
    env.kubectl("create", "configmap", "app-config", "-n", ns, "--from-literal=greeting=hello")
    env.apply_json({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": ns},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{
                                  "name": "web", "image": "nginx",
                                  "envFrom": [{"configMapRef": {"name": "app-config"}}]}]}}}})
    # patch deployments: adopted (the data hash recorded on the Deployment), no restart.
    adopted = wait("the Deployment adopted", lambda: configmap_hash(env, ns, "web", "metadata"),
                   60, qcm)
    check(configmap_hash(env, ns, "web", "template") is None, "adoption restarted the pods")
    env.kubectl("patch", "configmap", "app-config", "-n", ns, "--type=merge", "-p",
                '{"data": {"greeting": "bonjour"}}')
    restarted = wait("the restart", lambda: configmap_hash(env, ns, "web", "template"), 60, qcm)
    check(restarted != adopted, "the restart kept the old hash")


def ttl_after_finished(env, qcm, ns):
    env.apply_json({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "done", "namespace": ns},
        "spec": {"ttlSecondsAfterFinished": 5,
                 "template": {"spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "c", "image": "busybox"}]}}}})
    # No Job controller runs here: finish it 60 s ago, as the apiserver's validation wants it.
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
    conditions = [{"type": t, "status": "True", "lastTransitionTime": at}
                  for t in ("SuccessCriteriaMet", "Complete")]
    env.kubectl("patch", "job", "done", "-n", ns, "--subresource=status", "--type=merge", "-p",
                json.dumps({"status": {"startTime": at, "completionTime": at, "succeeded": 1,
                                       "conditions": conditions}}))
    # get and delete jobs: the expired Job is gone.
    wait("the expired Job deleted", lambda: env.kubectl(
        "get", "job", "done", "-n", ns, check=False)[1].find("NotFound") >= 0, 60, qcm)


def least_privilege(env, qcm, ns):
    """Without `patch` on deployments, configmap-restarter's restart is refused with a 403
    naming the ServiceAccount, and nothing changes; with the role back, it goes through."""
    role = json.loads(env.kubectl("get", "clusterrole", "qcm:controller-manager", "-o", "json")[0])
    for field in ("resourceVersion", "uid", "creationTimestamp", "managedFields"):
        role["metadata"].pop(field, None)
    weakened = copy.deepcopy(role)
    removed = 0
    for rule in weakened["rules"]:
        if "deployments" in rule.get("resources", []) and "patch" in rule["verbs"]:
            rule["verbs"].remove("patch")
            removed += 1
    check(removed == 1, f"expected one rule granting patch on deployments, found {removed}")
    weakened["rules"] = [r for r in weakened["rules"] if r["verbs"]]
    env.kubectl("replace", "-f", "-", stdin=json.dumps(weakened))
    try:
        before = configmap_hash(env, ns, "web", "template")
        env.kubectl("patch", "configmap", "app-config", "-n", ns, "--type=merge", "-p",
                    '{"data": {"greeting": "hola"}}')
        expected = (f'User \\"{USER}\\" cannot patch resource \\"deployments\\" in API group '
                    f'\\"apps\\" in the namespace \\"{ns}\\"')
        plain = expected.replace('\\"', '"')
        line = wait("the 403 in qcm's log", lambda: next(
            (l for l in qcm.log().splitlines() if "configmap-restarter" in l
             and (expected in l or plain in l)), None), 60, qcm)
        check("403" in line or "Forbidden" in line or "forbidden" in line,
              f"the refusal is not a 403: {line}")
        time.sleep(2)  # retries come with backoff; none may have gone through
        check(configmap_hash(env, ns, "web", "template") == before,
              "the Deployment was restarted without the patch permission")
    finally:
        env.kubectl("apply", "-f", str(env.manifests / "30-rbac.yaml"))
    # The role back: the retried key goes through (the work queue's backoff is short yet).
    wait("the restart once the role is back", lambda: configmap_hash(
        env, ns, "web", "template") != before, 60, qcm)


SCENARIOS = {"dry_run": dry_run, "in_cluster": in_cluster}


def run(scenarios):
    """Runs the scenario --scenario names, of `scenarios`, in an Env of its own."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--scenario", required=True, choices=sorted(scenarios))
    args = parser.parse_args()
    env = Env(args)
    try:
        scenarios[args.scenario](env)
    finally:
        env.cleanup()
    print(f"PASS {args.scenario}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run(SCENARIOS))
