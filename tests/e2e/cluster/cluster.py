#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A real etcd + kube-apiserver on loopback, for e2e tests and for scripts/run.sh.

    cluster.py up   --dir DIR     start (building the binaries on first use) and wait for /readyz
    cluster.py down --dir DIR     stop both (also what an `up` that died half-way left running);
                                  fails if a process is left behind
    cluster.py env  --dir DIR     print shell exports for a running cluster
    cluster.py restart --dir DIR --component etcd|kube-apiserver [--down SECONDS] [--with-apiserver]
                                  stop one process, wait, start it again (same data, same port)
                                  and wait until it serves; --with-apiserver restarts the
                                  apiserver too while etcd is down
    cluster.py compact --dir DIR  compact etcd's history at its current revision, so that a watch
                                  from an older resourceVersion gets 410 Gone

`up` needs qcm-e2e-cluster built: $QCM_E2E_CLUSTER_TOOL (CTest and scripts/run.sh set it), else
build/tests/e2e/qcm-e2e-cluster of this source tree.

`up` runs qcm-e2e-cluster, the SDK's TestEnvironment (envtest) with detached processes, which
writes into DIR:
    admin.kubeconfig        client certificate, O=system:masters
    token-admin.kubeconfig  bearer token of user "token-admin" (group system:masters)
    restricted.kubeconfig   bearer token of user "restricted": RBAC allows only get/list/watch
                            of ConfigMaps in namespace "restricted"
    ca.crt, ca.key (the CA of the serving and client certificates), sa.key, tokens.csv
    cluster.json            ports, pids, command lines and paths (read by the other commands)
    etcd.log, kube-apiserver.log
The processes run in their own session and outlive `up`; `down` stops them.
"""
import argparse
import json
import os
import pathlib
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
# qcm-e2e-cluster (a testing::TestEnvironment) starts the cluster: $QCM_E2E_CLUSTER_TOOL, set by
# CMake and scripts/run.sh, or where the default build directory has it.
DEFAULT_TOOL = HERE.parents[2] / "build" / "tests" / "e2e" / "qcm-e2e-cluster"


def log(message):
    print(f"cluster: {message}", file=sys.stderr, flush=True)


def assets():
    """The directory with etcd, kube-apiserver and kubectl, building them on first use."""
    out = subprocess.run([str(HERE / "build-binaries.sh"), "--assets"], check=True,
                         stdout=subprocess.PIPE, text=True)
    return out.stdout.strip()


def tool():
    path = pathlib.Path(os.environ.get("QCM_E2E_CLUSTER_TOOL") or DEFAULT_TOOL)
    if not os.access(path, os.X_OK):
        raise SystemExit(f"cluster: no qcm-e2e-cluster at {path}: build it (cmake --build build "
                         "--target qcm-e2e-cluster) or set QCM_E2E_CLUSTER_TOOL")
    return str(path)


def start(args, logfile):
    with open(logfile, "ab") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True).pid


def request(state, method, path, body=None, ok_codes=()):
    context = ssl.create_default_context(cafile=state["ca"])
    context.load_cert_chain(state["adminCert"], state["adminKey"])
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"{state['server']}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, context=context, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        if error.code in ok_codes:
            return error.code, error.read()
        raise SystemExit(f"cluster: {method} {path}: {error.code} {error.read().decode(errors='replace')}")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (our child that nobody reaped) is not running.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def up(d):
    d.mkdir(parents=True, exist_ok=True)
    if (d / "cluster.json").exists():
        state = json.loads((d / "cluster.json").read_text())
        if all(alive(p) for p in state["pids"].values()):
            log(f"already running at {state['server']}")
            return state
    down(d)  # what is left of an earlier cluster in DIR, if anything
    # A cluster that is started again begins empty (the tool empties etcd-data).
    result = subprocess.run([tool(), "--dir", str(d), "--assets", assets()])
    if result.returncode != 0:
        raise SystemExit(f"cluster: qcm-e2e-cluster failed; see {d / 'kube-apiserver.log'}")
    state = json.loads((d / "cluster.json").read_text())
    log(f"ready at {state['server']} (kubeconfig {d / 'admin.kubeconfig'})")
    return state


def stop(pid):
    """SIGTERM, then SIGKILL after 15 s."""
    if not pid or not alive(pid):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 15
    while alive(pid) and time.time() < deadline:
        time.sleep(0.1)
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)


def wait_serving(d, state, name, timeout=120):
    """Waits until `name` serves. Like a kubelet, starts it again if it exits meanwhile (the
    apiserver exits when etcd stays unreachable at start-up)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not alive(state["pids"][name]):
            log(f"{name} exited; starting it again (see {d / (name + '.log')})")
            time.sleep(1)
            state["pids"][name] = start(state["cmds"][name], d / f"{name}.log")
            (d / "cluster.json").write_text(json.dumps(state, indent=2))
            continue
        try:
            if name == "etcd":
                with urllib.request.urlopen(f"{state['etcd']}/health", timeout=2) as response:
                    if json.loads(response.read()).get("health") == "true":
                        return
            else:
                status, _ = request(state, "GET", "/readyz", ok_codes=(500, 503))
                if status == 200:
                    return
        except Exception:  # noqa: BLE001 - not listening yet
            pass
        time.sleep(0.2)
    raise SystemExit(f"cluster: {name} not serving {timeout} s after restart")


def restart(d, name, down_seconds, with_apiserver=False):
    state = json.loads((d / "cluster.json").read_text())
    stop(state["pids"][name])
    log(f"{name} stopped; starting it again in {down_seconds:g} s")
    if with_apiserver:
        # A control plane whose apiserver fails its liveness check without etcd: the
        # apiserver restarts during the outage, and keeps exiting until etcd is back.
        pause = min(5.0, down_seconds / 2)
        time.sleep(pause)
        stop(state["pids"]["kube-apiserver"])
        state["pids"]["kube-apiserver"] = start(state["cmds"]["kube-apiserver"],
                                                d / "kube-apiserver.log")
        log("kube-apiserver restarted during the outage")
        down_seconds -= pause
    time.sleep(down_seconds)
    state["pids"][name] = start(state["cmds"][name], d / f"{name}.log")
    (d / "cluster.json").write_text(json.dumps(state, indent=2))
    wait_serving(d, state, name)
    if name == "etcd":  # the apiserver reconnects by itself; wait until it is ready again
        wait_serving(d, state, "kube-apiserver")
    log(f"{name} serving again")


def etcd_post(state, path, body):
    req = urllib.request.Request(f"{state['etcd']}{path}", data=json.dumps(body).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as response:
        return json.loads(response.read())


def compact(d):
    state = json.loads((d / "cluster.json").read_text())
    # Any range answers with the store's current revision in its header.
    revision = int(etcd_post(state, "/v3/kv/range", {"key": "Lw==", "limit": 1})["header"]["revision"])
    etcd_post(state, "/v3/kv/compaction", {"revision": revision, "physical": True})
    log(f"etcd compacted at revision {revision}")
    print(revision)


def strays(d):
    """etcd and kube-apiserver processes of DIR that no cluster.json names: what an `up` that
    died half-way (Ctrl-C, a test runner's kill) left running. Found by their command lines."""
    marks = {f"--data-dir={d / 'etcd-data'}", f"--cert-dir={d}"}
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if marks.intersection(args) and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def down(d):
    pids = []
    path = d / "cluster.json"
    if path.exists():
        state = json.loads(path.read_text())
        # The apiserver first, then etcd; SIGTERM, then SIGKILL after 15 s.
        pids = [state["pids"].get(name) for name in ("kube-apiserver", "etcd")]
    pids += strays(d)
    for pid in pids:
        stop(pid)
    left = [str(pid) for pid in pids if pid and alive(pid)]
    if left:
        raise SystemExit(f"cluster: still running after stop: pids {', '.join(left)}")
    if path.exists():
        path.unlink()
    if pids:
        log("stopped")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["up", "down", "env", "restart", "compact"])
    parser.add_argument("--dir", type=pathlib.Path, required=True)
    parser.add_argument("--component", choices=["etcd", "kube-apiserver"])
    parser.add_argument("--down", type=float, default=0, help="seconds to stay down (restart)")
    parser.add_argument("--with-apiserver", action="store_true",
                        help="restart etcd: restart kube-apiserver too during the outage")
    args = parser.parse_args()
    d = args.dir.resolve()
    if args.command == "up":
        up(d)
    elif args.command == "down":
        down(d)
    elif args.command == "restart":
        if not args.component:
            parser.error("restart needs --component")
        restart(d, args.component, args.down, args.with_apiserver)
    elif args.command == "compact":
        compact(d)
    else:
        state = json.loads((d / "cluster.json").read_text())
        print(f"export KUBECONFIG={d / 'admin.kubeconfig'}")
        print(f"export QCM_E2E_DIR={d}")
        print(f"export QCM_E2E_ETCD={state['etcd']}")
        print(f"export QCM_KUBECTL={state['kubectl']}")


if __name__ == "__main__":
    main()
