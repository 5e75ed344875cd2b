#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A real etcd + kube-apiserver on loopback, for e2e tests and for scripts/run.sh.

    cluster.py up   --dir DIR     start (building the binaries on first use) and wait for /readyz
    cluster.py down --dir DIR     stop both; fails if a process is left behind
    cluster.py env  --dir DIR     print shell exports for a running cluster
    cluster.py restart --dir DIR --component etcd|kube-apiserver [--down SECONDS] [--with-apiserver]
                                  stop one process, wait, start it again (same data, same port)
                                  and wait until it serves; --with-apiserver restarts the
                                  apiserver too while etcd is down
    cluster.py compact --dir DIR  compact etcd's history at its current revision, so that a watch
                                  from an older resourceVersion gets 410 Gone

`up` writes into DIR:
    admin.kubeconfig       client certificate, O=system:masters
    token.kubeconfig       bearer token of user "token-admin" (group system:masters)
    restricted.kubeconfig  bearer token of user "restricted": RBAC allows only get/list/watch of
                           ConfigMaps in namespace "restricted"
    ca.crt, ca.key, sa.key, sa.pub, serving/admin certificates, tokens.csv
    cluster.json           ports, pids and paths (read by `down` and `env`)
    etcd.log, kube-apiserver.log
The processes run in their own session and outlive `up`; `down` stops them.
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
TOKENS = {
    "qcm-admin-token": ("token-admin", "1001", "system:masters"),
    "qcm-restricted-token": ("restricted", "1002", ""),
}


def log(message):
    print(f"cluster: {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(d):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
            "-days", "3650", "-subj", "/CN=qcm-e2e-ca", cwd=d)
    (d / "serving.ext").write_text(
        "subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,"
        "DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n")
    (d / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    for name, subject, ext in [("serving", "/CN=kube-apiserver", "serving.ext"),
                               ("admin", "/O=system:masters/CN=admin", "client.ext")]:
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
                f"{name}.csr", "-subj", subject, cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{name}.crt", "-days", "3650", "-extfile", ext, cwd=d)
    openssl("genrsa", "-out", "sa.key", "2048", cwd=d)
    openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=d)
    (d / "tokens.csv").write_text("".join(
        f'{token},{user},{uid},"{groups}"\n' for token, (user, uid, groups) in TOKENS.items()))


def kubeconfig(d, name, server, user):
    path = d / f"{name}.kubeconfig"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": "qcm-e2e", "cluster": {
            "server": server, "certificate-authority": str(d / "ca.crt")}}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {"cluster": "qcm-e2e", "user": name}}],
    }, indent=2))
    return path


def binaries():
    out = subprocess.run([str(HERE / "build-binaries.sh")], check=True, capture_output=True,
                         text=True)
    apiserver, etcd, kubectl = out.stdout.split()
    return apiserver, etcd, kubectl


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
        down(d)
    apiserver, etcd, kubectl = binaries()
    shutil.rmtree(d / "etcd-data", ignore_errors=True)  # every cluster starts empty
    make_certificates(d)
    etcd_port, peer_port, port = free_port(), free_port(), free_port()
    server = f"https://127.0.0.1:{port}"
    state = {
        "server": server, "port": port, "etcdPort": etcd_port,
        "etcd": f"http://127.0.0.1:{etcd_port}", "kubectl": kubectl,
        "ca": str(d / "ca.crt"), "adminCert": str(d / "admin.crt"), "adminKey": str(d / "admin.key"),
        "pids": {},
    }
    state["cmds"] = {}
    state["cmds"]["etcd"] = [
        etcd, "--name=default", f"--data-dir={d / 'etcd-data'}",
        f"--listen-client-urls=http://127.0.0.1:{etcd_port}",
        f"--advertise-client-urls=http://127.0.0.1:{etcd_port}",
        f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
        f"--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}",
        f"--initial-cluster=default=http://127.0.0.1:{peer_port}",
        "--unsafe-no-fsync", "--log-level=warn",
    ]
    state["pids"]["etcd"] = start(state["cmds"]["etcd"], d / "etcd.log")
    (d / "cluster.json").write_text(json.dumps(state, indent=2))
    state["cmds"]["kube-apiserver"] = [
        apiserver,
        f"--etcd-servers=http://127.0.0.1:{etcd_port}",
        "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={port}",
        f"--cert-dir={d}", f"--tls-cert-file={d / 'serving.crt'}",
        f"--tls-private-key-file={d / 'serving.key'}", f"--client-ca-file={d / 'ca.crt'}",
        f"--token-auth-file={d / 'tokens.csv'}",
        f"--service-account-key-file={d / 'sa.pub'}",
        f"--service-account-signing-key-file={d / 'sa.key'}",
        "--service-account-issuer=https://kubernetes.default.svc",
        "--service-cluster-ip-range=10.0.0.0/24", "--authorization-mode=RBAC",
        "--endpoint-reconciler-type=none", "--allow-privileged=true",
        # No controller-manager runs, so nothing would create the "default" ServiceAccount
        # that this admission plugin insists on for every Pod.
        "--disable-admission-plugins=ServiceAccount",
        # PodTemplates bypass the watch cache, so that a watch from a compacted
        # resourceVersion reaches etcd and gets 410 Gone at once; with the cache, the apiserver
        # keeps serving young history from memory for a while.
        "--watch-cache-sizes=podtemplates#0",
        "--profiling=false", "--v=1",
    ]
    state["pids"]["kube-apiserver"] = start(state["cmds"]["kube-apiserver"], d / "kube-apiserver.log")
    (d / "cluster.json").write_text(json.dumps(state, indent=2))
    deadline = time.time() + 120
    while True:
        for name, pid in state["pids"].items():
            if not alive(pid):
                down(d)
                raise SystemExit(f"cluster: {name} exited during start-up; see {d / (name + '.log')}")
        try:
            status, _ = request(state, "GET", "/readyz", ok_codes=(500, 503))
            if status == 200:
                break
        except Exception:  # noqa: BLE001 - not listening yet, or not ready yet
            pass
        if time.time() > deadline:
            down(d)
            raise SystemExit(f"cluster: /readyz not ready after 120 s; see {d / 'kube-apiserver.log'}")
        time.sleep(0.25)

    kubeconfig(d, "admin", server, {"client-certificate": str(d / "admin.crt"),
                                    "client-key": str(d / "admin.key")})
    kubeconfig(d, "token", server, {"token": "qcm-admin-token"})
    kubeconfig(d, "restricted", server, {"token": "qcm-restricted-token"})
    request(state, "POST", "/api/v1/namespaces",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "restricted"}}, ok_codes=(409,))
    request(state, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/restricted/roles", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "configmap-reader"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]},
        ok_codes=(409,))
    request(state, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/restricted/rolebindings", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "restricted-reads-configmaps"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "configmap-reader"},
        "subjects": [{"kind": "User", "name": "restricted", "apiGroup": "rbac.authorization.k8s.io"}]},
        ok_codes=(409,))
    log(f"ready at {server} (kubeconfig {d / 'admin.kubeconfig'})")
    return state


def stop(pid):
    """SIGTERM the process group, then SIGKILL after 15 s."""
    if not pid or not alive(pid):
        return
    os.killpg(pid, signal.SIGTERM)
    deadline = time.time() + 15
    while alive(pid) and time.time() < deadline:
        time.sleep(0.1)
    if alive(pid):
        os.killpg(pid, signal.SIGKILL)
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


def down(d):
    path = d / "cluster.json"
    if not path.exists():
        return
    state = json.loads(path.read_text())
    # The apiserver first, then etcd; SIGTERM, then SIGKILL after 15 s.
    for name in ("kube-apiserver", "etcd"):
        stop(state["pids"].get(name))
    left = [name for name, pid in state["pids"].items() if alive(pid)]
    if left:
        raise SystemExit(f"cluster: still running after stop: {', '.join(left)}")
    path.unlink()
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
