#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The soak test (issue 15, section 6): the real qcm with the three sample plugins
(sample-controller, configmap-restarter, ttl-after-finished) on a real kube-apiserver, under
creates, updates and deletes of Foos, Jobs and ConfigMaps at --rate operations a second for
--duration seconds. Not in CI in this form; CI runs the short form (60 s, the e2e test
e2e_soak_short), which checks the cache against the server and the fds, not RSS.

    soak.py --qcm BINARY --plugins SAMPLE_PLUGIN_DIR --fixtures FIXTURE_PLUGIN_DIR
            [--cluster-dir DIR] [--duration 3600] [--rate 50] [--out DIR]

What it records, every --sample-every seconds (10): qcm's RSS (VmRSS) and open fds (entries of
/proc/PID/fd). At the end the load stops, and what qcm's shared informers hold is compared
with the server: fixture-cachedump (tests/fixtures/plugins/cachedump.cpp), loaded beside the
samples, writes the name and resourceVersion of every cached Foo, Deployment, ConfigMap and
Job of the soak's namespace every 2 s; the test lists the same from the server, and waits up
to 60 s for the two to agree (a cache trails the server by its watch latency).

Targets (docs/soak.md): RSS over the last 30 minutes within +-5 % of its mean (only checked
when the run is at least 40 minutes long); open fds flat (their range over that window, or in
a short run after the first minute or the first third, at most 2); 0 differences between
cache and server. Writes samples.csv, summary.md and rss.png (matplotlib) into --out; exits 1 when a checked
target is missed.

The load, one operation at a time on one keep-alive HTTPS connection, paced at --rate: a
kind (Foo, Job, ConfigMap) in turn, a name out of --pool per kind; a name not there is
created, one there is updated (70 %) or deleted (30 %). A Foo's Deployment (made by
sample-controller) is deleted with the Foo, as kube-controller-manager's garbage collector,
absent here, would. A Job's update finishes it (the status a Job controller writes), and
ttl-after-finished deletes it 2 s later. The cluster has no kube-controller-manager, so
nothing else writes.
"""
import argparse
import csv
import http.client
import json
import os
import pathlib
import random
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e" / "host"))
sys.path.insert(0, str(ROOT / "tests" / "e2e" / "leaderelection"))
import qcmhost  # noqa: E402
from lecluster import Cluster  # noqa: E402

CLUSTER = ROOT / "tests" / "e2e" / "cluster" / "cluster.py"
CRD = ROOT / "plugins" / "sample-controller" / "artifacts" / "crd-status-subresource.yaml"
SAMPLES = ("sample-controller", "configmap-restarter", "ttl-after-finished")
DUMP = "fixture-cachedump"
# resource, API path prefix (namespaced collection after it)
RESOURCES = {
    "foos": "/apis/samplecontroller.k8s.io/v1alpha1",
    "deployments": "/apis/apps/v1",
    "configmaps": "/api/v1",
    "jobs": "/apis/batch/v1",
}
RSS_WINDOW = 30 * 60  # seconds: the window the RSS target applies to
RSS_MIN_RUN = 40 * 60  # a shorter run does not check RSS
RSS_TOLERANCE = 0.05
FD_TOLERANCE = 2


def log(message):
    print(f"soak: {message}", file=sys.stderr, flush=True)


class Api:
    """One keep-alive HTTPS connection to the apiserver, as the cluster's admin (client
    certificate). request() returns (status, parsed body or None); it reconnects once when the
    connection was closed."""

    def __init__(self, cluster):
        state = cluster.state
        self.host, port = state["server"].removeprefix("https://").split(":")
        self.port = int(port)
        self.context = ssl.create_default_context(cafile=state["ca"])
        self.context.load_cert_chain(state["adminCert"], state["adminKey"])
        self.connection = None

    def request(self, method, path, body=None, content_type="application/json"):
        for attempt in (0, 1):
            if self.connection is None:
                self.connection = http.client.HTTPSConnection(self.host, self.port,
                                                              context=self.context, timeout=30)
            try:
                data = json.dumps(body).encode() if body is not None else None
                self.connection.request(method, path, body=data,
                                        headers={"Content-Type": content_type,
                                                 "Accept": "application/json"})
                response = self.connection.getresponse()
                raw = response.read()
                return response.status, (json.loads(raw) if raw else None)
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def finished_job_status():
    """The status a Job controller writes when the Job succeeded (what the apiserver's
    validation asks of a Complete Job since 1.31)."""
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    condition = lambda kind: {"type": kind, "status": "True", "lastTransitionTime": at}  # noqa: E731
    return {"status": {"startTime": at, "completionTime": at, "succeeded": 1,
                       "conditions": [condition("SuccessCriteriaMet"), condition("Complete")]}}


class Load:
    """The operations, on a thread of their own; counts what it did by (kind, verb, status)."""

    def __init__(self, api, ns, rate, pool, seed=1):
        self.api, self.ns, self.rate, self.pool = api, ns, rate, pool
        self.random = random.Random(seed)
        self.counts = {}
        self.unexpected = []  # (method, path, status, body) of answers the load did not expect
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def collection(self, resource):
        return f"{RESOURCES[resource]}/namespaces/{self.ns}/{resource}"

    def call(self, kind, verb, method, path, body=None, expected=(200, 201),
             content_type="application/json"):
        status, answer = self.api.request(method, path, body, content_type)
        key = (kind, verb, status)
        self.counts[key] = self.counts.get(key, 0) + 1
        if status not in expected and len(self.unexpected) < 100:
            self.unexpected.append((method, path, status, answer))
        return status, answer

    def exists(self, resource, name):
        status, _ = self.api.request("GET", f"{self.collection(resource)}/{name}")
        return status == 200

    def foo(self, name):
        path = f"{self.collection('foos')}/{name}"
        if not self.exists("foos", name):
            # A Deployment left from an earlier Foo of this name would belong to no Foo.
            self.call("deployment", "delete", "DELETE", f"{self.collection('deployments')}/{name}",
                      expected=(200, 404))
            self.call("foo", "create", "POST", self.collection("foos"), {
                "apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
                "metadata": {"name": name},
                "spec": {"deploymentName": name, "replicas": 1}}, expected=(201, 409))
        elif self.random.random() < 0.7:
            self.call("foo", "update", "PATCH", path,
                      {"spec": {"replicas": self.random.randint(1, 3)}}, expected=(200, 404),
                      content_type="application/merge-patch+json")
        else:
            self.call("foo", "delete", "DELETE", path, expected=(200, 404))
            self.call("deployment", "delete", "DELETE", f"{self.collection('deployments')}/{name}",
                      expected=(200, 404))

    def job(self, name):
        path = f"{self.collection('jobs')}/{name}"
        status, job = self.api.request("GET", path)
        if status == 404:
            self.call("job", "create", "POST", self.collection("jobs"), {
                "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
                "spec": {"ttlSecondsAfterFinished": 2, "template": {"spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}]}}}},
                expected=(201, 409))
        elif self.random.random() < 0.7:
            if (job or {}).get("status", {}).get("completionTime"):
                self.call("job", "update", "PATCH", path,
                          {"metadata": {"labels": {"soak": str(self.random.randint(0, 9))}}},
                          expected=(200, 404), content_type="application/merge-patch+json")
            else:
                self.call("job", "finish", "PATCH", path + "/status", finished_job_status(),
                          expected=(200, 404), content_type="application/merge-patch+json")
        else:
            self.call("job", "delete", "DELETE", path + "?propagationPolicy=Background",
                      expected=(200, 404))

    def configmap(self, name):
        path = f"{self.collection('configmaps')}/{name}"
        if not self.exists("configmaps", name):
            self.call("configmap", "create", "POST", self.collection("configmaps"), {
                "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                "data": {"value": str(self.random.random())}}, expected=(201, 409))
        elif self.random.random() < 0.7:
            self.call("configmap", "update", "PATCH", path,
                      {"data": {"value": str(self.random.random())}}, expected=(200, 404),
                      content_type="application/merge-patch+json")
        else:
            self.call("configmap", "delete", "DELETE", path, expected=(200, 404))

    def run(self):
        kinds = (("foo", self.foo), ("job", self.job), ("configmap", self.configmap))
        interval = 1.0 / self.rate
        next_at = time.monotonic()
        i = 0
        while not self.stopping.is_set():
            kind, operation = kinds[i % len(kinds)]
            operation(f"{kind}-{self.random.randrange(self.pool)}")
            i += 1
            next_at += interval
            delay = next_at - time.monotonic()
            if delay > 0:
                self.stopping.wait(delay)
            elif delay < -1:
                next_at = time.monotonic()  # behind by more than a second: do not burst

    def operations(self):
        # A read before an operation is not one; a Foo's Deployment delete belongs to its Foo.
        return sum(n for (kind, _, _), n in self.counts.items() if kind != "deployment")


def server_view(api, ns):
    lines = []
    for resource, prefix in RESOURCES.items():
        status, answer = api.request("GET", f"{prefix}/namespaces/{ns}/{resource}")
        if status != 200:
            raise AssertionError(f"list {resource}: {status} {answer}")
        for item in answer["items"]:
            meta = item["metadata"]
            lines.append(f"{resource} {meta['name']} {meta['resourceVersion']}")
    return sorted(lines)


def compare(api, ns, dump, timeout=60):
    """(differences, seconds waited): the lines only the server or only the cache has, once
    they agree or after `timeout`."""
    started = time.monotonic()
    while True:
        server = set(server_view(api, ns))
        cache = set(dump.read_text().splitlines()) if dump.exists() else set()
        differences = sorted(f"server only: {line}" for line in server - cache) + sorted(
            f"cache only: {line}" for line in cache - server)
        waited = time.monotonic() - started
        if not differences or waited > timeout:
            return differences, waited
        time.sleep(1)


def process_sample(pid):
    rss = 0
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def plot(csv_path, png_path):
    """rss.png from samples.csv. Debian's python3-matplotlib serves /usr/bin/python3: another
    interpreter without matplotlib (a pyenv one) hands the plot to that one."""
    try:
        import matplotlib
    except ImportError:
        system = "/usr/bin/python3"
        if sys.executable == system or not os.path.exists(system):
            raise
        subprocess.run([system, __file__, "--plot", str(csv_path), str(png_path)], check=True)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(csv_path, newline="") as f:
        samples = [(float(r["seconds"]), int(r["rss_kib"]), int(r["fds"]))
                   for r in csv.DictReader(f)]
    minutes = [s[0] / 60 for s in samples]
    figure, rss_axis = plt.subplots(figsize=(9, 4.5))
    rss_axis.plot(minutes, [s[1] / 1024 for s in samples], color="tab:blue")
    rss_axis.set_xlabel("minutes")
    rss_axis.set_ylabel("RSS MiB", color="tab:blue")
    rss_axis.set_ylim(bottom=0)
    fd_axis = rss_axis.twinx()
    fd_axis.plot(minutes, [s[2] for s in samples], color="tab:orange")
    fd_axis.set_ylabel("open fds", color="tab:orange")
    fd_axis.set_ylim(bottom=0)
    rss_axis.set_title("qcm under the soak load: RSS (blue) and open fds (orange)")
    rss_axis.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(png_path, dpi=100)


def evaluate(samples, duration):
    """The targets as rows (what, measured, target, met or None when not checked)."""
    rows = []
    end = samples[-1][0]
    if duration >= RSS_MIN_RUN:
        window = [s for s in samples if s[0] >= end - RSS_WINDOW]
        mean = sum(s[1] for s in window) / len(window)
        low, high = min(s[1] for s in window), max(s[1] for s in window)
        spread = max(high / mean - 1, 1 - low / mean)
        rows.append(("RSS over the last 30 min", f"mean {mean / 1024:.1f} MiB, "
                     f"{low / 1024:.1f}-{high / 1024:.1f} MiB (+-{spread * 100:.1f} %)",
                     "within +-5 %", spread <= RSS_TOLERANCE))
    else:
        warm_up = min(60, duration / 3)
        window = [s for s in samples if s[0] >= warm_up] or samples
        rows.append(("RSS over the last 30 min", f"{window[-1][1] / 1024:.1f} MiB at the end",
                     "within +-5 %", None))
    fds = [s[2] for s in window]
    rows.append(("open fds" + (" over the last 30 min" if duration >= RSS_MIN_RUN
                               else f" after the first {warm_up:.0f} s"),
                 f"{min(fds)}-{max(fds)}", f"range <= {FD_TOLERANCE}",
                 max(fds) - min(fds) <= FD_TOLERANCE))
    return rows


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--plot":
        plot(sys.argv[2], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True, help="the sample plugins' directory")
    parser.add_argument("--fixtures", required=True, help="fixture-cachedump's directory")
    parser.add_argument("--cluster-dir", help="a cluster.py cluster; default: $QCM_E2E_DIR, "
                        "or one started in a new directory and stopped at the end")
    parser.add_argument("--duration", type=float, default=3600)
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--pool", type=int, default=50, help="names per kind")
    parser.add_argument("--sample-every", type=float, default=10)
    parser.add_argument("--out", help="where the results go; default: a new directory")
    args = parser.parse_args()
    for name in ("qcm", "plugins", "fixtures"):  # qcm runs in a work directory of its own
        setattr(args, name, str(pathlib.Path(getattr(args, name)).resolve()))

    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="qcm-soak-results-"))
    out.mkdir(parents=True, exist_ok=True)
    cluster_dir = args.cluster_dir or os.environ.get("QCM_E2E_DIR")
    started_cluster = None
    if not cluster_dir:
        started_cluster = cluster_dir = tempfile.mkdtemp(prefix="qcm-soak-cluster-")
    try:
        subprocess.run([sys.executable, str(CLUSTER), "up", "--dir", cluster_dir], check=True)
        return soak(args, out, Cluster(cluster_dir))
    finally:
        if started_cluster:
            subprocess.run([sys.executable, str(CLUSTER), "down", "--dir", started_cluster])


def soak(args, out, cluster):
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-soak-"))
    (workdir / "plugins").mkdir()
    for name in SAMPLES:
        shutil.copy(pathlib.Path(args.plugins) / f"lib{name}.so", workdir / "plugins")
    shutil.copy(pathlib.Path(args.fixtures) / f"lib{DUMP}.so", workdir / "plugins")
    cluster.kubectl("apply", "-f", str(CRD))
    cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                    "crd/foos.samplecontroller.k8s.io")
    ns = cluster.create_namespace("soak")
    dump = workdir / "cache.txt"
    settings = (f"  {DUMP}:\n    settings: {{path: {json.dumps(str(dump))}, "
                f"namespace: {ns}}}\n")
    q = qcmhost.Qcm(args.qcm, workdir, "soak",
                    qcmhost.config(cluster.dir, lock_name=f"qcm-soak-{os.getpid()}",
                                   controller_config=settings),
                    log_file=out / "qcm.log")
    load = None
    try:
        q.wait_for("every plugin running", lambda: all(
            q.plugin_state(p) == "running" for p in (*SAMPLES, DUMP)), 120, interval=0.5)
        q.wait_for("the first cache dump", dump.exists, 60, interval=0.2)
        log(f"qcm {q.process.pid} running in {workdir}; namespace {ns}; load {args.rate}/s "
            f"for {args.duration:.0f} s")
        load = Load(Api(cluster), ns, args.rate, args.pool)
        samples = []  # (seconds, RSS KiB, fds, operations so far)
        begin = time.monotonic()
        load.thread.start()
        next_sample = begin
        while True:
            now = time.monotonic()
            if q.process.poll() is not None:
                raise AssertionError(f"qcm exited with {q.process.returncode}; log in "
                                     f"{out / 'qcm.log'}")
            if now >= next_sample:
                rss, fds = process_sample(q.process.pid)
                samples.append((now - begin, rss, fds, load.operations()))
                next_sample += args.sample_every
                if len(samples) % 30 == 1:
                    log(f"{now - begin:6.0f} s: RSS {rss / 1024:.1f} MiB, {fds} fds, "
                        f"{load.operations()} operations")
            if now - begin >= args.duration:
                break
            time.sleep(min(0.5, max(0.0, next_sample - time.monotonic())))
        load.stopping.set()
        load.thread.join(timeout=60)
        elapsed = time.monotonic() - begin
        differences, waited = compare(Api(cluster), ns, dump)
        rows = evaluate(samples, args.duration)
        rows.append(("cache against server", f"{len(differences)} differences "
                     f"(agreed after {waited:.1f} s)" if not differences
                     else f"{len(differences)} differences after {waited:.0f} s",
                     "0", not differences))

        with open(out / "samples.csv", "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["seconds", "rss_kib", "fds", "operations"])
            writer.writerows((f"{t:.1f}", rss, fds, ops) for t, rss, fds, ops in samples)
        plot(out / "samples.csv", out / "rss.png")
        achieved = load.operations() / elapsed
        lines = [f"# Soak: {args.duration / 60:.0f} min at {args.rate:.0f} operations/s",
                 "",
                 f"{load.operations()} operations in {elapsed:.0f} s ({achieved:.1f}/s); "
                 f"samples every {args.sample_every:.0f} s; namespace {ns}.",
                 "",
                 "| what | measured | target | met |", "|---|---|---|---|"]
        for what, measured, target, met in rows:
            lines.append(f"| {what} | {measured} | {target} | "
                         f"{'not checked (short run)' if met is None else 'yes' if met else 'NO'} |")
        lines += ["", "| operation | answer | count |", "|---|---|---:|"]
        for (kind, verb, status), n in sorted(load.counts.items()):
            lines.append(f"| {kind} {verb} | {status} | {n} |")
        if load.unexpected:
            lines += ["", "Unexpected answers (first 100):", ""]
            lines += [f"- {m} {p}: {s} {json.dumps(b)[:200]}" for m, p, s, b in load.unexpected]
        if differences:
            lines += ["", "Differences (first 50):", ""] + [f"- {d}" for d in differences[:50]]
        summary = "\n".join(lines) + "\n"
        (out / "summary.md").write_text(summary)
        print(summary)
        log(f"results in {out}")
        missed = [r for r in rows if r[3] is False]
        if load.unexpected:
            log(f"{len(load.unexpected)} unexpected answers (see summary.md)")
        return 1 if missed or load.unexpected else 0
    finally:
        if load:
            load.stopping.set()
        q.signal()
        try:
            q.wait(timeout=30)
        except subprocess.TimeoutExpired:
            q.stop()


if __name__ == "__main__":
    sys.exit(main())
