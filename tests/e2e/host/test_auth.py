#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: the delegated authentication and authorization of qcm's endpoint on the real
kube-apiserver, driven with curl, real ServiceAccount tokens (kubectl create token) and a
client certificate the cluster's client CA signed, as kube-controller-manager's is used:

  * no credentials: 401, a Status object; /healthz, /livez and /readyz open without any;
  * a ServiceAccount token without a role: 403, naming the user and the path;
  * a ServiceAccount bound to the shipped ClusterRole qcm-metrics-reader
    (packaging/kubernetes/30-rbac.yaml): /metrics 200, /configz 403, /statusz 403;
  * one bound to the shipped ClusterRole qcm-status-reader: /statusz 200, /metrics 403;
  * a client certificate (CN=cert-scraper, signed by the cluster's CA, which qcm reads from
    kube-system/extension-apiserver-authentication) bound to the same role: 200;
  * the serving certificate (--tls-cert-file, signed by a test CA) replaced on disk: the
    serial a new connection is served changes, without a restart;
  * with kube-apiserver stopped: a token not seen before gets 401, the client certificate 500
    on a path not reviewed before (the SubjectAccessReview cannot be made: fail closed;
    answers of the last 10 s stay cached, as kube-controller-manager's), the health roots
    still 200; once it is back, the token works.

Runs against the disruptive cluster (it stops the apiserver).

    test_auth.py --qcm BINARY --cluster-script CLUSTER_PY
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check, wait  # noqa: E402
from lecluster import Cluster  # noqa: E402

RBAC = HERE.parents[2] / "packaging" / "kubernetes" / "30-rbac.yaml"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def sign(directory, name, subject, ca, extensions):
    """A key and a certificate `name`.crt for `subject`, signed by `ca` (.crt and .key)."""
    (directory / f"{name}.ext").write_text(extensions)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", f"{name}.key",
            "-out", f"{name}.csr", cwd=directory)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-days", "1", "-extfile", f"{name}.ext", "-out", f"{name}.crt",
            cwd=directory)


class Curl:
    def __init__(self, port, ca_file):
        self.base = f"https://127.0.0.1:{port}"
        self.ca_file = ca_file

    def get(self, path, token=None, cert=None):
        """(status, body) as curl got them; status 0 when nothing answered."""
        args = ["curl", "-s", "-m", "15", "--cacert", str(self.ca_file), "-w", "\n%{http_code}"]
        if token:
            args += ["-H", f"Authorization: Bearer {token}"]
        if cert:
            args += ["--cert", f"{cert}.crt", "--key", f"{cert}.key"]
        out = subprocess.run([*args, self.base + path], capture_output=True, text=True)
        body, _, code = out.stdout.rpartition("\n")
        return int(code or 0), body


def served_serial(port):
    """The serial number of the certificate a new TLS connection to qcm is served."""
    shown = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}",
                            "-servername", "localhost"], input="", capture_output=True, text=True)
    pem = shown.stdout[shown.stdout.find("-----BEGIN CERTIFICATE-----"):]
    out = subprocess.run(["openssl", "x509", "-noout", "-serial"], input=pem,
                         capture_output=True, text=True)
    return out.stdout.strip()


def file_serial(path):
    return subprocess.run(["openssl", "x509", "-noout", "-serial", "-in", str(path)],
                          capture_output=True, text=True, check=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--cluster-script", required=True)
    args = parser.parse_args()
    cluster = Cluster(os.environ["QCM_E2E_DIR"])
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-auth-e2e-"))
    (workdir / "plugins").mkdir()
    q = restart = None
    ns = cluster.create_namespace("e2e-auth")
    binding = f"{ns}-metrics"
    try:
        # The shipped ClusterRole, and who is bound to it.
        for role in ("qcm-metrics-reader", "qcm-status-reader"):
            shipped = next(d for d in RBAC.read_text().split("\n---\n") if f"name: {role}\n" in d)
            subprocess.run([cluster.state["kubectl"], "--kubeconfig", cluster.kubeconfig, "apply",
                            "-f", "-"], input=shipped, text=True, check=True, capture_output=True)
        for sa in ("scraper", "nobody", "operator"):
            cluster.kubectl("create", "serviceaccount", sa, "-n", ns)
        cluster.kubectl("create", "clusterrolebinding", binding, "--clusterrole=qcm-metrics-reader",
                        f"--serviceaccount={ns}:scraper", "--user=cert-scraper")
        cluster.kubectl("create", "clusterrolebinding", f"{binding}-status",
                        "--clusterrole=qcm-status-reader", f"--serviceaccount={ns}:operator")
        scraper = cluster.kubectl("create", "token", "scraper", "-n", ns).strip()
        operator = cluster.kubectl("create", "token", "operator", "-n", ns).strip()
        unseen = cluster.kubectl("create", "token", "scraper", "-n", ns).strip()  # for the outage
        nobody = cluster.kubectl("create", "token", "nobody", "-n", ns).strip()
        check(scraper != unseen, "two tokens alike")

        # A client certificate from the cluster's client CA; a serving pair from a test CA.
        shutil.copy(cluster.dir / "ca.crt", workdir / "cluster-ca.crt")
        shutil.copy(cluster.dir / "ca.key", workdir / "cluster-ca.key")
        sign(workdir, "cert-scraper", "/CN=cert-scraper", "cluster-ca",
             "extendedKeyUsage = clientAuth\n")
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                "/CN=serving-ca", "-keyout", "serving-ca.key", "-out", "serving-ca.crt",
                cwd=workdir)
        serving_ext = "subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\n"
        sign(workdir, "serving", "/CN=qcm", "serving-ca", serving_ext)
        (workdir / "tls").mkdir()
        for f in ("serving.crt", "serving.key"):
            shutil.copy(workdir / f, workdir / "tls" / f)

        q = qcmhost.Qcm(args.qcm, workdir, "auth",
                        qcmhost.config(cluster.dir, leader_elect=False),
                        args=(f"--tls-cert-file={workdir / 'tls' / 'serving.crt'}",
                              f"--tls-private-key-file={workdir / 'tls' / 'serving.key'}"))
        curl = Curl(q.port, workdir / "serving-ca.crt")
        wait("qcm serving", lambda: curl.get("/livez")[0] == 200, 30)
        wait("the cluster's client CA", lambda: q.logged_at(
            "client certificates are verified against the client CA of "
            "kube-system/extension-apiserver-authentication"), 30)

        status, body = curl.get("/metrics")
        check(status == 401 and '"reason":"Unauthorized"' in body, f"no credentials: {status} {body}")
        for path in ("/healthz", "/livez", "/readyz"):
            check(curl.get(path) == (200, "ok"), f"{path} without credentials: {curl.get(path)}")
        status, body = curl.get("/metrics", token=nobody)
        check(status == 403 and f'User \\"system:serviceaccount:{ns}:nobody\\" cannot get path '
              '\\"/metrics\\"' in body, f"a token without a role: {status} {body}")
        status, body = curl.get("/metrics", token=scraper)
        check(status == 200 and "process_start_time_seconds" in body,
              f"the metrics reader: {status} {body[:200]}")
        check(curl.get("/configz", token=scraper)[0] == 403, "the metrics reader reads /configz")
        check(curl.get("/statusz", token=scraper)[0] == 403, "the metrics reader reads /statusz")
        check(curl.get("/statusz")[0] == 401, "/statusz without credentials")
        status, body = curl.get("/statusz", token=operator)
        check(status == 200 and json.loads(body)["leaderElection"] is None,
              f"the status reader: {status} {body[:200]}")
        check(curl.get("/metrics", token=operator)[0] == 403, "the status reader reads /metrics")
        cert = str(workdir / "cert-scraper")
        status, body = curl.get("/metrics", cert=cert)
        check(status == 200 and "process_start_time_seconds" in body,
              f"the client certificate: {status} {body[:200]}")
        status, body = curl.get("/configz", cert=cert)
        check(status == 403 and 'User \\"cert-scraper\\"' in body, f"{status} {body}")
        print("401, 403 and 200 as RBAC says, by token and by client certificate", flush=True)

        # The serving certificate renewed on disk, as cert-manager renews it.
        before = served_serial(q.port)
        check(before == file_serial(workdir / "serving.crt"), f"served {before}")
        sign(workdir, "renewed", "/CN=qcm", "serving-ca", serving_ext)
        shutil.copy(workdir / "renewed.key", workdir / "tls" / "serving.key.new")
        shutil.copy(workdir / "renewed.crt", workdir / "tls" / "serving.crt.new")
        os.replace(workdir / "tls" / "serving.key.new", workdir / "tls" / "serving.key")
        os.replace(workdir / "tls" / "serving.crt.new", workdir / "tls" / "serving.crt")
        renewed = file_serial(workdir / "renewed.crt")
        wait("the renewed certificate served", lambda: served_serial(q.port) == renewed, 15)
        check(curl.get("/metrics", token=scraper)[0] == 200, "after the renewal")
        print(f"serving certificate renewed without a restart: {before} -> {renewed}", flush=True)

        # kube-apiserver stopped: fail closed, health stays.
        restart = subprocess.Popen([sys.executable, args.cluster_script, "restart", "--dir",
                                    str(cluster.dir), "--component", "kube-apiserver",
                                    "--down", "15"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        wait("kube-apiserver down", lambda: subprocess.run(
            [cluster.state["kubectl"], "--kubeconfig", cluster.kubeconfig, "get", "--raw",
             "/readyz", "--request-timeout=2s"], capture_output=True).returncode != 0, 30)
        status, body = curl.get("/metrics", token=unseen)
        check(status == 401, f"a new token while the apiserver is down: {status} {body}")
        # A path not reviewed for it yet: the answers of the last 10 s are cached, as in
        # kube-controller-manager.
        status, body = curl.get("/healthz/ping", cert=cert)
        check(status == 500 and '"reason":"InternalError"' in body,
              f"a client certificate while the apiserver is down: {status} {body}")
        for path in ("/healthz", "/livez"):
            status, body = curl.get(path)
            check(status == 200, f"{path} while the apiserver is down: {status} {body}")
        check(q.logged_at("cannot authenticate a request for /metrics"), "no log of the failure")
        out, _ = restart.communicate(timeout=180)
        check(restart.returncode == 0, f"cluster restart: {out}")
        restart = None
        wait("the new token accepted once the apiserver is back",
             lambda: curl.get("/metrics", token=unseen)[0] == 200, 60)
        print("apiserver down: protected paths refused (401, 500), health served", flush=True)
        check(q.process.poll() is None, "qcm exited")
        print("PASS", flush=True)
    except BaseException:
        if q:
            print(f"--- qcm's log\n{q.log()}", file=sys.stderr)
        raise
    finally:
        if restart:
            restart.wait(180)
        if q:
            q.stop()
        cluster.kubectl("delete", "clusterrolebinding", binding, f"{binding}-status", check=False)
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
