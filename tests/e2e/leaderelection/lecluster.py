# SPDX-License-Identifier: Apache-2.0
"""Shared by the leader-election e2e test and the failover measurement: candidates (the
le_candidate binary, or its client-go twin le_candidate_go built from go/) against the test
cluster, their logs, and the checks on them.

Every time is CLOCK_MONOTONIC in seconds (time.monotonic(), the candidates' clock too).
"""
import hashlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import threading
import time

GO_CANDIDATE_SOURCES = pathlib.Path(__file__).resolve().parent / "go"


def find_go(go=None):
    """The Go tool: `go` if given and executable, else the one on PATH, /usr/local/go/bin or
    /usr/lib/go/bin (where scripts/setup.sh looks); None if there is none."""
    for candidate in (go, shutil.which("go"), "/usr/local/go/bin/go", "/usr/lib/go/bin/go"):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def go_candidate(go=None):
    """The path of le_candidate_go (client-go's LeaderElector, go/main.go), built with the Go
    tool and cached outside any build tree, as tests/e2e/cluster/build-binaries.sh caches the
    cluster's binaries: $QCM_CACHE/bin (default ~/.cache/qcm/bin), keyed by a hash of the
    module's files and `go version`, so a changed source or toolchain builds anew and the same
    ones build once per machine. Raises RuntimeError, saying what is missing, when there is no
    Go tool or the build fails: Go is a declared dependency (scripts/setup.sh)."""
    tool = find_go(go)
    if not tool:
        raise RuntimeError(
            "no Go toolchain (looked for --go, go on PATH, /usr/local/go/bin, /usr/lib/go/bin): "
            "the client-go candidate of the interop scenario needs Go >= 1.26, as the other "
            "client-go peers do; install it (https://go.dev/doc/install) and run scripts/setup.sh")
    env = dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
    version = subprocess.run([tool, "version"], capture_output=True, text=True, env=env)
    if version.returncode != 0:
        raise RuntimeError(f"{tool} version failed: {version.stderr.strip()}")
    digest = hashlib.sha256(version.stdout.encode())
    for f in sorted(GO_CANDIDATE_SOURCES.iterdir()):
        if f.is_file() and (f.suffix == ".go" or f.name in ("go.mod", "go.sum")):
            digest.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    cache = pathlib.Path(os.environ.get("QCM_CACHE") or pathlib.Path(
        os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "qcm") / "bin"
    binary = cache / f"le_candidate_go-{digest.hexdigest()[:16]}"
    if os.access(binary, os.X_OK):
        return str(binary)
    cache.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(f"{binary.name}.tmp{os.getpid()}")
    built = subprocess.run([tool, "build", "-o", str(partial), "."],
                           cwd=GO_CANDIDATE_SOURCES, env=env, capture_output=True, text=True)
    if built.returncode != 0:
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"building le_candidate_go ({GO_CANDIDATE_SOURCES}) with {tool} "
                           f"({version.stdout.strip()}; Go >= 1.26 needed) failed:\n"
                           f"{built.stderr.strip()[-2000:]}")
    os.replace(partial, binary)
    for old in cache.glob("le_candidate_go-*"):  # builds of older sources
        if old != binary and ".tmp" not in old.name:
            old.unlink(missing_ok=True)
    return str(binary)


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
    """One le_candidate (or le_candidate_go: the same flags and log) process and what it
    logged. `kind` names the implementation ("qcm" or "client-go")."""

    def __init__(self, binary, cluster, ns, name, identity, lease=3, renew=2, retry=1,
                 lock="leases", release=False, mode="runordie", server=None, watch=True,
                 work_ms=50, kind="qcm"):
        self.identity = identity
        self.kind = kind
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


class LeaseWatch:
    """Every version of a Lease's spec, in order, through `kubectl get --watch -o json` (a get,
    then a watch from its resourceVersion: the apiserver sends every change of the object).
    versions() is [(resourceVersion, spec)]."""

    def __init__(self, cluster, ns, name):
        self.proc = subprocess.Popen(
            [cluster.state["kubectl"], "--kubeconfig", cluster.kubeconfig, "get",
             "leases.coordination.k8s.io", name, "-n", ns, "--watch", "-o", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        self._versions = []
        self._lock = threading.Lock()
        self.stopped = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        buffer = ""
        for line in self.proc.stdout:  # each object pretty-printed, its last line "}"
            buffer += line
            if line.rstrip("\n") != "}":
                continue
            lease = json.loads(buffer)
            buffer = ""
            with self._lock:
                rv = lease["metadata"]["resourceVersion"]
                if not self._versions or self._versions[-1][0] != rv:
                    self._versions.append((rv, lease.get("spec", {})))

    def versions(self):
        with self._lock:
            return list(self._versions)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        """Ends the watch; returns kubectl's stderr if it had ended by itself, else None."""
        ended = self.proc.poll() is not None
        if not ended:
            self.proc.terminate()
        self.proc.wait()
        self.reader.join(5)
        return self.proc.stderr.read().strip() if ended else None


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
