# SPDX-License-Identifier: Apache-2.0
"""Runs docs/plugin-author-guide.md, the tutorial, as a reader would: every block it marks, in
order (test_packaging.py's `tutorial` test, against the installed packages).

A marker is an HTML comment on the line before a fenced block:

  <!-- tutorial: file <path> -->   write the block to <path> (relative to the work directory)
  <!-- tutorial: run -->           run the block with bash -euo pipefail; it must succeed
  <!-- tutorial: background -->    start the block (one command) and keep it running until
                                   the end; it must not exit before then

The commands run as written, in the work directory, with HOME there too (so `~/` stays inside
it; the caches of testenv-setup and Go stay the user's). Where the packages are unpacked into a scratch root instead of installed in /usr, the
only change is /usr/libexec/qcm/ → <root>/usr/libexec/qcm/, with <root>/usr/bin first on
PATH and CMAKE_PREFIX_PATH set to <root>/usr, the SDK's place."""
import os
import pathlib
import re
import signal
import subprocess
import time

from packaging_support import check, log

# What the tutorial leaves in the cluster; an earlier run's would let `kubectl wait` pass at once.
LEFTOVERS = (("crd", "greetings.greeter.example.com"),
             ("configmap", "hello-greeting", "-n", "default"))

MARKER = re.compile(r"^<!-- tutorial: (file (?P<path>\S+)|run|background) -->\n"
                    r"```[a-z]*\n(?P<body>.*?)^```\n", re.MULTILINE | re.DOTALL)


def steps(guide):
    """[(kind, path or None, body)] in the order of the guide."""
    out = []
    for m in MARKER.finditer(pathlib.Path(guide).read_text()):
        kind = "file" if m.group("path") else m.group(1)
        out.append((kind, m.group("path"), m.group("body")))
    return out


class Tutorial:
    def __init__(self, guide, work, prefix, env):
        self.steps = steps(guide)
        self.work = pathlib.Path(work)
        self.prefix = pathlib.Path(prefix)
        # HOME is the work directory, so that the tutorial's ~/ stays in it; the caches stay
        # the user's, as a reader's would: testenv-setup's binaries and Go's modules.
        home = pathlib.Path(env.get("HOME") or pathlib.Path.home())
        cache = pathlib.Path(env.get("XDG_CACHE_HOME") or home / ".cache")
        self.env = dict(env, HOME=str(self.work))
        self.env.setdefault("QCM_CACHE", str(cache / "qcm"))
        self.env.setdefault("GOPATH", str(home / "go"))
        self.env.setdefault("GOCACHE", str(cache / "go-build"))
        if self.prefix != pathlib.Path("/usr"):
            self.env["PATH"] = f"{self.prefix / 'bin'}:{self.env['PATH']}"
            self.env["CMAKE_PREFIX_PATH"] = str(self.prefix)
        self.background = []  # (command, process, log file)
        self.last_output = ""  # the stdout of the last command block

    def command(self, body):
        if self.prefix != pathlib.Path("/usr"):
            body = body.replace("/usr/libexec/qcm/", f"{self.prefix / 'libexec' / 'qcm'}/")
        return body

    def run(self):
        counts = {kind: sum(1 for k, _, _ in self.steps if k == kind)
                  for kind in ("file", "run", "background")}
        log(f"the tutorial: {counts['file']} files, {counts['run']} command blocks, "
            f"{counts['background']} in the background")
        for kind, path, body in self.steps:
            if kind == "file":
                target = self.work / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(body)
            elif kind == "run":
                self.run_block(body)
            else:
                self.start(body)
        for command, process, out in self.background:
            check(process.poll() is None, f"`{command}` is still running at the end of the "
                  f"tutorial:\n{out.read_text()}")
        return counts

    def run_block(self, body):
        command = self.command(body)
        log(f"$ {command.strip()}")
        p = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=self.work,
                           env=self.env, capture_output=True, text=True)
        output = p.stdout + p.stderr
        logs = "".join(f"\n--- {c}:\n{o.read_text()}" for c, _, o in self.background)
        check(p.returncode == 0, f"the tutorial's block exited with {p.returncode}:\n"
              f"{command}\n{output}{logs}")
        self.last_output = p.stdout

    def start(self, body):
        command = self.command(body).strip()
        log(f"$ {command} &")
        out = self.work / f"background-{len(self.background)}.log"
        process = subprocess.Popen(["bash", "-euo", "pipefail", "-c", f"exec {command}"],
                                   cwd=self.work, env=self.env, stdout=out.open("w"),
                                   stderr=subprocess.STDOUT)
        self.background.append((command, process, out))
        time.sleep(1)
        check(process.poll() is None, f"`{command}` exited at once:\n{out.read_text()}")

    def log_of(self, index=0):
        return self.background[index][2].read_text()

    def stop(self):
        """SIGTERM to each background command; their exit statuses."""
        statuses = []
        for _, process, _ in self.background:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            statuses.append(process.returncode)
        return statuses


def test(guide, work, prefix, cluster, cleanups):
    """The packaging test: the tutorial run against the installed packages in `prefix` and the
    e2e `cluster` (lecluster.Cluster); `cleanups` gets what undoes it."""
    def remove_leftovers():
        for what in LEFTOVERS:
            cluster.kubectl("delete", *what, "--ignore-not-found", check=False)
    remove_leftovers()
    cleanups.append(remove_leftovers)
    kubectl = pathlib.Path(cluster.state["kubectl"]).parent
    env = dict(os.environ, KUBECONFIG=cluster.kubeconfig, PATH=f"{kubectl}:{os.environ['PATH']}")
    t = Tutorial(guide, work, prefix, env)
    cleanups.append(t.stop)
    counts = t.run()
    check(counts["file"] >= 7 and counts["run"] >= 4 and counts["background"] == 1,
          f"the tutorial's markers: {counts}")
    check(t.last_output.strip().splitlines()[-1:] == ["Hello from qcm"],
          f"the ConfigMap holds the Greeting's message: {t.last_output!r}")
    qcm_log = t.log_of(0)
    check(re.search(r"greeter \(.*\): configured -> running", qcm_log),
          f"qcm loaded the dropped-in plugin and runs its controller:\n{qcm_log}")
    check(t.stop() == [0], f"qcm exits 0 on SIGTERM:\n{t.log_of(0)}")
    log("the tutorial ran from an empty folder to its controller in a running qcm")
