#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: a real Prometheus server scrapes the real qcm binary running on the real apiserver,
and evaluates every expression of the shipped Grafana dashboard
(packaging/grafana/qcm-dashboard.json) against what it scraped.

  * qcm runs fixture-configmaps (which needs leader election, and reconciles ConfigMaps
    labelled for it) and fixture-optional, leading a Lease of its own namespace;
  * Prometheus (Debian's `prometheus`, the server itself) scrapes qcm's /metrics every second,
    over HTTPS, verifying qcm's self-signed certificate (--cert-dir) as its CA, with the bearer
    token (credentials_file) of a ServiceAccount bound to the shipped ClusterRole
    qcm-metrics-reader, which qcm has the API server review (TokenReview,
    SubjectAccessReview); without it /metrics is 401;
    its target is up (`up{job="qcm"} == 1`, health "up", no scrape error), and it holds
    qcm_plugin_state{plugin="fixture-configmaps",state="running"} = 1 and the reconciles of the
    ConfigMaps made for the test (qcm_reconcile_total{result="success"} > 0);
  * every metric name the dashboard uses is one qcm exposes (its /metrics, # TYPE lines), and
    every panel's expression, with $job = qcm and $__rate_interval = 30s, evaluates to a
    non-empty result.

    test_prometheus.py --qcm BINARY --plugins FIXTURE_DIR --prometheus PROMETHEUS
                       --dashboard DASHBOARD_JSON
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check, wait  # noqa: E402
from lecluster import Cluster  # noqa: E402

RBAC = HERE.parents[2] / "packaging" / "kubernetes" / "30-rbac.yaml"
CONFIGMAPS = "fixture-configmaps"
OPTIONAL = "fixture-optional"
METRIC_RX = re.compile(r"\b((?:qcm|workqueue|leader_election|process|informer)_[a-z_]+)")


class Prometheus:
    def __init__(self, binary, workdir, target, ca_file, token_file):
        self.port = qcmhost.free_port()
        self.dir = pathlib.Path(workdir) / "prometheus"
        self.dir.mkdir()
        config = self.dir / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n"
            "  - job_name: qcm\n"
            "    scrape_interval: 1s\n"
            "    metrics_path: /metrics\n"
            "    scheme: https\n"
            f"    tls_config: {{ca_file: '{ca_file}'}}\n"
            f"    authorization: {{type: Bearer, credentials_file: '{token_file}'}}\n"
            f"    static_configs: [{{targets: ['{target}']}}]\n")
        self.log = open(self.dir / "prometheus.log", "w")
        self.process = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={self.dir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def api(self, path, **params):
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.load(r)
        check(body.get("status") == "success", f"{url}: {body}")
        return body["data"]

    def query(self, expr):
        return self.api("query", query=expr)["result"]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


def exposed_names(metrics_text):
    return {line.split()[2] for line in metrics_text.splitlines() if line.startswith("# TYPE ")}


def base_name(name):
    return re.sub(r"_(bucket|sum|count)$", "", name)


def main():
    parser = argparse.ArgumentParser()
    for option in ("--qcm", "--plugins", "--prometheus", "--dashboard"):
        parser.add_argument(option, required=True)
    args = parser.parse_args()
    cluster = Cluster(os.environ["QCM_E2E_DIR"])
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-prometheus-e2e-"))
    (workdir / "plugins").mkdir()
    for name in (CONFIGMAPS, OPTIONAL):
        shutil.copy(pathlib.Path(args.plugins) / f"lib{name}.so", workdir / "plugins")
    q = prometheus = None
    try:
        ns = cluster.create_namespace("e2e-prometheus")
        settings = (f"  {CONFIGMAPS}:\n"
                    f"    settings: {{labelSelector: \"qcm-e2e={ns}\", annotation: "
                    f"qcm.io/replica, value: scraped}}\n")
        q = qcmhost.Qcm(args.qcm, workdir, "prometheus",
                        qcmhost.config(cluster.dir, lock_namespace=ns, lock_name="qcm-prometheus",
                                       controller_config=settings))
        q.wait_for("leadership", lambda: q.plugin_state(CONFIGMAPS) == "running", 60)
        for i in range(3):
            cluster.kubectl("create", "configmap", f"scraped-{i}", "-n", ns)
            cluster.kubectl("label", "configmap", f"scraped-{i}", "-n", ns, f"qcm-e2e={ns}")

        # Prometheus scrapes as a ServiceAccount bound to the shipped qcm-metrics-reader, with a
        # token qcm has the API server review: its delegated authentication and authorization.
        reader = next(d for d in RBAC.read_text().split("\n---\n")
                      if "name: qcm-metrics-reader" in d)
        subprocess.run([cluster.state["kubectl"], "--kubeconfig", cluster.kubeconfig, "apply",
                        "-f", "-"], input=reader, text=True, check=True, capture_output=True)
        cluster.kubectl("create", "serviceaccount", "prometheus", "-n", ns)
        cluster.kubectl("create", "clusterrolebinding", f"{ns}-prometheus",
                        "--clusterrole=qcm-metrics-reader", f"--serviceaccount={ns}:prometheus")
        token_file = workdir / "prometheus.token"
        token_file.write_text(cluster.kubectl("create", "token", "prometheus", "-n", ns).strip())
        check(q.get("/metrics", token=token_file.read_text())[0] == 200, "the token cannot scrape")
        check(q.get("/metrics", token="")[0] == 401, "/metrics without a token is not 401")
        prometheus = Prometheus(args.prometheus, workdir, f"127.0.0.1:{q.port}", q.ca_file,
                                token_file)
        target = wait("a healthy qcm target", lambda: next(
            (t for t in prometheus.api("targets")["activeTargets"]
             if t["labels"].get("job") == "qcm" and t["health"] == "up"), None), 60)
        check(target["lastError"] == "", f"scrape error: {target['lastError']}")
        print(f"target {target['scrapeUrl']} up, scraped in {target['lastScrapeDuration']:.4f}s",
              flush=True)
        up = prometheus.query('up{job="qcm"}')
        check(len(up) == 1 and up[0]["value"][1] == "1", f"up: {up}")
        running = wait("qcm_plugin_state running in Prometheus", lambda: prometheus.query(
            f'qcm_plugin_state{{job="qcm",plugin="{CONFIGMAPS}",state="running"}} == 1'), 30)
        check(len(running) == 1, f"{running}")
        reconciled = wait("reconciles in Prometheus", lambda: prometheus.query(
            f'qcm_reconcile_total{{job="qcm",controller="{CONFIGMAPS}",result="success"}} >= 3'),
            60)
        print(f"Prometheus sees {reconciled[0]['value'][1]} successful reconciles", flush=True)
        adds = wait("a workqueue metric in Prometheus", lambda: prometheus.query(
            f'workqueue_adds_total{{job="qcm",name="{CONFIGMAPS}"}} >= 3'), 30)
        check(len(adds) == 1, f"{adds}")

        # The dashboard: its metrics exist, and each panel shows something.
        dashboard = json.loads(pathlib.Path(args.dashboard).read_text())
        exposed = exposed_names(q.get("/metrics")[1])
        exprs = [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p["targets"]]
        check(len(exprs) >= 10, f"{len(exprs)} panel expressions")
        used = {base_name(m) for _, e in exprs for m in METRIC_RX.findall(e)}
        missing = sorted(used - exposed)
        check(not missing, f"the dashboard uses metrics qcm does not expose: {missing}")
        time.sleep(3)  # a few scrapes, for the rates
        empty = []
        for title, expr in exprs:
            concrete = expr.replace("$job", "qcm").replace("$__rate_interval", "30s")
            if not prometheus.query(concrete):
                empty.append(f"{title}: {concrete}")
        check(not empty, "panels with no data:\n" + "\n".join(empty))
        print(f"dashboard: {len(exprs)} panels, {len(used)} metrics, all evaluated with data",
              flush=True)
        cluster.kubectl("delete", "namespace", ns, "--wait=false")
        cluster.kubectl("delete", "clusterrolebinding", f"{ns}-prometheus")
    except Exception:
        if q:
            print(q.log()[-4000:])
        if prometheus:
            print((prometheus.dir / "prometheus.log").read_text()[-4000:])
        raise
    finally:
        if prometheus:
            prometheus.stop()
        if q:
            q.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print("PASS prometheus", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
