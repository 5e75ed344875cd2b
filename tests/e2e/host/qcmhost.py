# SPDX-License-Identifier: Apache-2.0
"""Shared by the host's serving e2e test and the host measurement (tests/bench/measure_host.py):
the real qcm binary as a process, with its own config, port and log, and what it serves.

Times are time.monotonic() seconds unless said otherwise.
"""
import json
import os
import pathlib
import re
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request


# The e2e cluster's bearer token of user token-admin, group system:masters
# (tests/e2e/cluster/cluster.py).
ADMIN_TOKEN = "qcm-admin-token"


def check(condition, message):
    """An assertion that holds in every Python (assert statements vanish under -O)."""
    if not condition:
        raise AssertionError(message)


def wait(what, predicate, timeout, interval=0.2):
    """Polls `predicate` until it returns something true, and returns that; an OSError,
    ValueError or KeyError counts as not yet (a server still starting). AssertionError naming
    `what` and the last answer after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except (OSError, ValueError, KeyError) as e:
            last = e
        time.sleep(interval)
    raise AssertionError(f"no {what} within {timeout}s (last: {last!r})")


def free_port():
    """A loopback port nothing listens on (the kernel's choice, closed again)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_metrics(text):
    """The samples of a Prometheus text exposition: {(name, ((label, value), ...)): value}."""
    samples = {}
    sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
    label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = sample.match(line)
        if not m:
            raise ValueError(f"not a sample line: {line!r}")
        labels = tuple(sorted(label.findall(m.group(2) or "")))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples


def metric(samples, metric_name, **labels):
    """The value of one series, or None."""
    return samples.get((metric_name, tuple(sorted(labels.items()))))


class Qcm:
    """One qcm process: `config` is controller-manager.yaml's text, run from `workdir`. It
    serves HTTPS on 127.0.0.1 and a free port: a serving section is added, or, if the text has
    one, --bind-address and --secure-port override it. Its self-signed certificate is made in
    <workdir>/<name>-certs (--cert-dir), and get() trusts that certificate alone. get() sends
    `token` as a bearer token: by default the e2e cluster's token-admin (group system:masters,
    which qcm's delegated authorization always allows); None sends no credentials. With
    `log_file`, qcm's log goes to that file instead of memory (a long run), and logged_at()
    finds nothing."""

    def __init__(self, binary, workdir, name, config, args=(), env=None, token=ADMIN_TOKEN,
                 log_file=None):
        self.name = name
        self.token = token
        self.workdir = pathlib.Path(workdir)
        self.port = free_port()
        self.config_file = self.workdir / f"{name}.yaml"
        self.cert_dir = self.workdir / f"{name}-certs"
        args = (f"--cert-dir={self.cert_dir}", *args)
        if re.search(r"^serving:", config, re.MULTILINE):
            args = (*args, "--bind-address=127.0.0.1", f"--secure-port={self.port}")
        else:
            config += f"serving:\n  bindAddress: 127.0.0.1\n  securePort: {self.port}\n"
        self.config_file.write_text(config)
        self.log_lines = []  # (monotonic time, line)
        self._lock = threading.Lock()
        self.started_at = time.monotonic()
        self.log_file = pathlib.Path(log_file) if log_file else None
        with open(self.log_file, "w") if self.log_file else open(os.devnull) as log_out:
            self.process = subprocess.Popen(
                [binary, "--config", str(self.config_file), *args], cwd=self.workdir,
                stdout=subprocess.DEVNULL,
                stderr=log_out if self.log_file else subprocess.PIPE, text=True,
                env={**os.environ, **(env or {})})
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        if self.log_file:
            return
        for line in self.process.stderr:
            with self._lock:
                self.log_lines.append((time.monotonic(), line.rstrip("\n")))

    def log(self):
        if self.log_file:
            return self.log_file.read_text(errors="replace")
        with self._lock:
            return "\n".join(line for _, line in self.log_lines)

    def logged_at(self, text):
        """When a line containing `text` was read, or None."""
        with self._lock:
            for t, line in self.log_lines:
                if text in line:
                    return t
        return None

    def url(self, path):
        return f"https://127.0.0.1:{self.port}{path}"

    @property
    def ca_file(self):
        """qcm's self-signed serving certificate, which clients take as their CA."""
        return self.cert_dir / "qcm.crt"

    def get(self, path, timeout=5, token=None):
        """(status, body); status 0 when nothing answered (or before the certificate exists).
        `token` replaces the instance's for this request ("" sends none)."""
        if not self.ca_file.exists():
            return 0, ""
        context = ssl.create_default_context(cafile=str(self.ca_file))
        request = urllib.request.Request(self.url(path))
        token = self.token if token is None else token
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=context) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
        except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError):
            return 0, ""

    def metrics(self):
        status, body = self.get("/metrics")
        if status != 200:
            raise AssertionError(f"{self.name}: /metrics answered {status}")
        return parse_metrics(body)

    def plugin_state(self, plugin):
        """The state qcm_plugin_state says the plugin is in, or None."""
        for (name, labels), value in self.metrics().items():
            d = dict(labels)
            if name == "qcm_plugin_state" and d.get("plugin") == plugin and value == 1:
                return d["state"]
        return None

    def rss_bytes(self):
        """Resident set size from /proc (not from qcm's own metrics)."""
        for line in pathlib.Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")

    def wait_for(self, what, predicate, timeout, interval=0.02):
        """Polls `predicate` until it is true; returns the monotonic time it first was."""
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            try:
                if predicate():
                    return now
            except (AssertionError, ValueError, KeyError, OSError):
                pass
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode} while "
                                     f"waiting for {what}:\n{self.log()}")
            if now > deadline:
                raise AssertionError(f"{self.name}: no {what} within {timeout}s:\n{self.log()}")
            time.sleep(interval)

    def signal(self, sig=signal.SIGTERM):
        self.process.send_signal(sig)

    def pause(self, timeout=10):
        """SIGSTOP, then waits until every thread of the process is stopped; returns that
        moment (monotonic ns). kill() returns when the signal is queued, not when it has
        taken effect: a thread on another CPU (or on a vCPU the hypervisor has descheduled)
        runs on, and can start a reconcile, until it next enters the kernel: in one CI run
        (at 2b5b56a) a reconcile started about 10 ms after kill(SIGSTOP) had returned, and
        the chaos test, which took the moment of the pause from that return, counted it as
        started outside the replica's term."""
        self.process.send_signal(signal.SIGSTOP)
        tasks = pathlib.Path(f"/proc/{self.process.pid}/task")
        deadline = time.monotonic() + timeout
        while True:
            states = []
            for task in tasks.iterdir():
                try:
                    # The state follows the command name's closing parenthesis.
                    states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
                except (OSError, IndexError):
                    pass  # a thread that ended meanwhile
            if states and all(state in ("T", "t") for state in states):
                return time.monotonic_ns()
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: not every thread stopped {timeout}s after "
                                     f"SIGSTOP: {states}")
            time.sleep(0.001)

    def wait(self, timeout=30):
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def host_test(prefix, plugins):
    """The start of a host e2e script run as `SCRIPT --qcm BINARY --plugins FIXTURE_DIR`: its
    arguments, the e2e cluster of $QCM_E2E_DIR, and a new work directory whose plugins/ holds
    lib<name>.so of each of `plugins`: (args, cluster, workdir)."""
    import argparse
    import shutil
    import sys
    import tempfile
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "leaderelection"))
    from lecluster import Cluster
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True)
    args = parser.parse_args()
    workdir = pathlib.Path(tempfile.mkdtemp(prefix=f"qcm-{prefix}-e2e-"))
    (workdir / "plugins").mkdir()
    for name in plugins:
        shutil.copy(pathlib.Path(args.plugins) / f"lib{name}.so", workdir / "plugins")
    return args, Cluster(os.environ["QCM_E2E_DIR"]), workdir


def config(cluster_dir, kubeconfig="admin.kubeconfig", controllers=("*",), leader_elect=True,
           lock_namespace="kube-system", lock_name="qcm", release_on_cancel=True,
           mode="run-or-die", plugin_dirs=("plugins",), controller_config="", timings=None,
           scale_out_group=None, leader_election_extra=""):
    """controller-manager.yaml's text, without the serving section (Qcm adds it). `timings`:
    (leaseDuration, renewDeadline, retryPeriod) in seconds; None: the defaults.
    `leader_election_extra`: more lines of the leaderElection section, indented."""
    quoted = ", ".join(json.dumps(c) for c in controllers)
    dirs = ", ".join(json.dumps(d) for d in plugin_dirs)
    text = ("apiVersion: qcm.io/v1alpha1\n"
            "kind: ControllerManagerConfiguration\n"
            f"kubeconfig: {cluster_dir}/{kubeconfig}\n"
            f"pluginDirs: [{dirs}]\n"
            f"controllers: [{quoted}]\n"
            "leaderElection:\n"
            f"  leaderElect: {'true' if leader_elect else 'false'}\n"
            f"  resourceNamespace: {lock_namespace}\n"
            f"  resourceName: {lock_name}\n"
            f"  releaseOnCancel: {'true' if release_on_cancel else 'false'}\n"
            f"  mode: {mode}\n" + leader_election_extra)
    if timings:
        lease, renew, retry = timings
        text += (f"  leaseDuration: {lease}s\n  renewDeadline: {renew}s\n"
                 f"  retryPeriod: {retry}s\n")
    if scale_out_group:
        text += f"scaleOut:\n  group: {scale_out_group}\n"
    if controller_config:
        text += "controllerConfig:\n" + controller_config
    return text


def ring_epoch(cluster, ns, group):
    """The epoch on a scale-out group's ring Lease, as a dict; no members before the first."""
    out = cluster.kubectl("get", "lease", "-n", ns, f"{group}-ring", "-o", "json", check=False)
    annotations = (json.loads(out)["metadata"].get("annotations") or {}) if out else {}
    return json.loads(annotations.get("scale-out.qcm.io/epoch", '{"members": []}'))


def recorder_records(path):
    """fixture-recorder's records in `path` (tests/fixtures/plugins/recorder.cpp), one per
    line "S|E <namespace/name> <replica> <CLOCK_MONOTONIC ns>": [(kind, key, replica, t_ns)]."""
    records = []
    for line in path.read_text().splitlines():
        kind, key, replica, t = line.split(" ")
        records.append((kind, key, replica, int(t)))
    return records


def create_recorded_configmaps(cluster, ns, count):
    """cm-0 .. cm-<count-1> in `ns`, each with data.value "0" and the label qcm-e2e=<ns> that
    fixture-recorder's labelSelector picks (the scale-out tests)."""
    for i in range(count):
        cluster.kubectl("create", "configmap", f"cm-{i}", "-n", ns, "--from-literal=value=0")
        cluster.kubectl("label", "configmap", f"cm-{i}", "-n", ns, f"qcm-e2e={ns}")


def unconverged(cluster, ns, annotations):
    """The (annotation, ConfigMap name) pairs of the ConfigMaps labelled qcm-e2e=<ns> whose
    annotation is not (yet) their data.value: what fixture-recorder's copies still lack."""
    items = json.loads(cluster.kubectl("get", "configmaps", "-n", ns, "-l", f"qcm-e2e={ns}",
                                       "-o", "json"))["items"]
    return [(a, i["metadata"]["name"]) for i in items for a in annotations
            if (i["metadata"].get("annotations") or {}).get(a) != i["data"]["value"]]


def proxied_kubeconfig(cluster, workdir, name):
    """A TcpProxy (tests/e2e/leaderelection/tcpproxy.py) to the cluster's apiserver, started,
    and <workdir>/<name>.kubeconfig, the admin's through it, so that the partition tests can
    cut one replica off: (proxy, the kubeconfig's file name)."""
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "leaderelection"))
    from tcpproxy import TcpProxy
    host, port = cluster.server.removeprefix("https://").split(":")
    proxy = TcpProxy((host, int(port))).start()
    kubeconfig = json.loads((cluster.dir / "admin.kubeconfig").read_text())
    kubeconfig["clusters"][0]["cluster"]["server"] = f"https://127.0.0.1:{proxy.port}"
    (pathlib.Path(workdir) / f"{name}.kubeconfig").write_text(json.dumps(kubeconfig))
    return proxy, f"{name}.kubeconfig"


def hold_for_debugger(replicas):
    """With $QCM_CHAOS_HOLD set (seconds), prints the pids of `replicas` ({name: Qcm}) and
    sleeps that long before a failing test kills them, so that a debugger can attach."""
    if os.environ.get("QCM_CHAOS_HOLD"):
        print("held: " + " ".join(f"{n}={q.process.pid}" for n, q in replicas.items()),
              flush=True)
        time.sleep(float(os.environ["QCM_CHAOS_HOLD"]))


def stop_replicas(replicas, proxies):
    """The end of a chaos test: every replica ({name: Qcm}) killed, a paused one resumed first
    so that it can die, and every proxy ({name: TcpProxy}) closed."""
    for q in replicas.values():
        try:
            q.process.send_signal(signal.SIGCONT)
        except OSError:
            pass
        q.stop()
    for proxy in proxies.values():
        proxy.close()
