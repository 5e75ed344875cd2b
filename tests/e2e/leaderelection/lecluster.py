"""Shared by the leader-election e2e test and the failover measurement: candidates (the
le_candidate binary) against the test cluster, their logs, and the checks on them.

Every time is CLOCK_MONOTONIC in seconds (time.monotonic(), the candidates' clock too).
"""
import json
import os
import pathlib
import signal
import subprocess
import threading
import time


class Cluster:
    """The cluster that tests/e2e/cluster/cluster.py started in `directory`."""

    def __init__(self, directory):
        self.dir = pathlib.Path(directory)
        self.state = json.loads((self.dir / "cluster.json").read_text())
        self.kubeconfig = str(self.dir / "admin.kubeconfig")
        self.server = self.state["server"]

    def kubectl(self, *args, check=True):
        out = subprocess.run([self.state["kubectl"], "--kubeconfig", self.kubeconfig, *args],
                             capture_output=True, text=True)
        if check and out.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def get_json(self, resource, ns, name):
        return json.loads(self.kubectl("get", resource, "-n", ns, name, "-o", "json"))

    def create_namespace(self, prefix):
        ns = f"{prefix}-{os.getpid() % 10000}-{int(time.time() * 1000) % 100000}"
        self.kubectl("create", "namespace", ns)
        return ns

    def records(self, lock, ns, name):
        """The leader election records on the server, one per object of the lock type, each
        as {"kind", "raw", "holderIdentity", "leaseDurationSeconds", "acquireTime",
        "renewTime", "leaderTransitions"}: the annotation's text for ConfigMaps and Endpoints
        (raw), the Lease's spec (raw is its JSON). None for an object without a record."""
        def lease():
            spec = self.get_json("leases.coordination.k8s.io", ns, name)["spec"]
            return {"kind": "Lease", "raw": json.dumps(spec),
                    "holderIdentity": spec.get("holderIdentity", ""),
                    "leaseDurationSeconds": spec.get("leaseDurationSeconds"),
                    "acquireTime": spec.get("acquireTime"), "renewTime": spec.get("renewTime"),
                    "leaderTransitions": spec.get("leaseTransitions")}

        def annotated(resource):
            meta = self.get_json(resource, ns, name)["metadata"]
            raw = meta.get("annotations", {}).get("control-plane.alpha.kubernetes.io/leader")
            if raw is None:
                return None
            return dict(json.loads(raw), kind=resource, raw=raw)

        return {
            "leases": lambda: [lease()],
            "configmaps": lambda: [annotated("configmaps")],
            "endpoints": lambda: [annotated("endpoints")],
            "endpointsleases": lambda: [annotated("endpoints"), lease()],
            "configmapsleases": lambda: [annotated("configmaps"), lease()],
        }[lock]()

    def holder(self, lock, ns, name):
        """The holder recorded on the server, per object of the lock type."""
        return [r["holderIdentity"] if r else None for r in self.records(lock, ns, name)]


class Candidate:
    """One le_candidate process and what it logged."""

    def __init__(self, binary, cluster, ns, name, identity, lease=3, renew=2, retry=1,
                 lock="leases", release=False, mode="runordie", server=None, watch=True,
                 work_ms=50):
        self.identity = identity
        args = [binary, "--kubeconfig", cluster.kubeconfig, "--namespace", ns, "--name", name,
                "--identity", identity, "--lock", lock, "--lease", str(lease), "--renew",
                str(renew), "--retry", str(retry), "--mode", mode, "--work-ms", str(work_ms)]
        if release:
            args.append("--release")
        if server:
            args += ["--server", server]
        if not watch:
            args.append("--no-watch")
        self.lines = []  # (t, event, {key: value})
        self.errors = []
        self._lock = threading.Lock()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True)
        self.killed_at = None
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            parts = line.split()
            if len(parts) < 2:
                continue
            fields = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
            with self._lock:
                self.lines.append((int(parts[0]) / 1e9, parts[1], fields))

    def _read_errors(self):
        for line in self.proc.stderr:
            with self._lock:
                self.errors.append(line.rstrip())

    def events(self, kind=None):
        with self._lock:
            return [l for l in self.lines if kind is None or l[1] == kind]

    def leading(self):
        started = len(self.events("STARTED"))
        stopped = len(self.events("STOPPED"))
        return self.alive() and started > stopped

    def alive(self):
        return self.proc.poll() is None and self.killed_at is None

    def signal(self, sig):
        t = time.monotonic()
        self.proc.send_signal(sig)
        if sig == signal.SIGKILL:
            self.killed_at = t
        return t

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            if self.killed_at is None:
                self.killed_at = time.monotonic()
        self.proc.wait()

    def intervals(self):
        """Leading intervals (start, end): a term ends at the end it logged, or at SIGKILL."""
        out = []
        start = None
        for t, event, fields in self.events():
            if event == "STARTED":
                start = t
            elif event == "STOPPED" and start is not None:
                out.append((start, int(fields["end"]) / 1e9))
                start = None
        if start is not None:
            out.append((start, self.killed_at if self.killed_at else float("inf")))
        return out


def wait_for(predicate, timeout, step=0.01):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def leaders(candidates):
    return [c for c in candidates if c.leading()]


def wait_for_leader(candidates, timeout, exclude=()):
    """The first new STARTED after now among candidates not in `exclude`: (candidate, t)."""
    def found():
        for c in candidates:
            if c in exclude or not c.alive():
                continue
            if c.leading():
                return c
        return None
    c = wait_for(found, timeout)
    if not c:
        return None, None
    return c, c.events("STARTED")[-1][0]


def overlaps(candidates):
    """Pairs of leading intervals of different candidates that overlap."""
    spans = [(s, e, c.identity) for c in candidates for s, e in c.intervals()]
    spans.sort()
    bad = []
    for i in range(1, len(spans)):
        prev_end = max(e for s, e, _ in spans[:i])
        if spans[i][0] < prev_end:
            bad.append(spans[i])
    return bad


def work_outside_terms(candidate):
    """WORK lines whose time is not inside one of the candidate's terms."""
    terms = candidate.intervals()
    bad = []
    for t, _, fields in candidate.events("WORK"):
        at = int(fields["at"]) / 1e9
        if not any(s - 0.001 <= at <= e for s, e in terms):
            bad.append(at)
    return bad


def percentile(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)
