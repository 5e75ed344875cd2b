#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: crash records and quarantine, through the real qcm binary on the real kube-apiserver,
run in a restart loop as a kubelet would run it, with the fixture plugin fixture-misbehaves
(tests/fixtures/plugins/misbehaves.cpp) segfaulting on its first reconcile of a ConfigMap
annotated qcm.io/crash-in-reconcile, and fixture-configmaps beside it:

  * each of the first 3 runs dies of SIGSEGV; stderr names the controller and the record, and
    <stateDir>/crashes holds one record per crash (mode 0600, naming controller and signal);
  * the 4th run stays up: fixture-misbehaves is quarantined (qcm_plugin_state
    state="quarantined", /healthz/fixture-misbehaves fails with the reason, /configz lists it,
    a Warning Event "Quarantined" on the host's Lease), and fixture-configmaps reconciles;
  * once the operator removes the records (and the bad ConfigMap), the next run runs it again.

    test_quarantine.py --qcm BINARY --plugins FIXTURE_DIR
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import stat
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check  # noqa: E402
from lecluster import Cluster  # noqa: E402

MISBEHAVES = "fixture-misbehaves"
CONFIGMAPS = "fixture-configmaps"
LIMIT = 3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True)
    args = parser.parse_args()
    cluster = Cluster(os.environ["QCM_E2E_DIR"])
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-quarantine-e2e-"))
    (workdir / "plugins").mkdir()
    for name in (MISBEHAVES, CONFIGMAPS):
        shutil.copy(pathlib.Path(args.plugins) / f"lib{name}.so", workdir / "plugins")
    state = workdir / "state"
    records = state / "crashes"
    ns = cluster.create_namespace("e2e-quarantine")
    runs = []
    try:
        settings = (f"  {MISBEHAVES}:\n    settings: {{labelSelector: \"qcm-e2e={ns}-misbehaves\"}}\n"
                    f"  {CONFIGMAPS}:\n    settings: {{labelSelector: \"qcm-e2e={ns}\", "
                    f"annotation: qcm.io/seen, value: \"yes\"}}\n")
        config = qcmhost.config(cluster.dir, leader_elect=False, lock_namespace=ns,
                                controller_config=settings) + f"stateDir: {state}\n"
        cluster.kubectl("create", "configmap", "poison", "-n", ns)
        cluster.kubectl("annotate", "configmap", "poison", "-n", ns, "qcm.io/crash-in-reconcile=true")
        cluster.kubectl("label", "configmap", "poison", "-n", ns, f"qcm-e2e={ns}-misbehaves")

        def start(i):
            q = qcmhost.Qcm(args.qcm, workdir, f"run{i}", config)
            runs.append(q)
            return q

        # The kubelet's restart loop: each run dies of the plugin's segfault.
        for i in range(1, LIMIT + 1):
            q = start(i)
            code = q.wait(90)
            check(code == -signal.SIGSEGV, f"run {i} exited with {code}:\n{q.log()}")
            check(q.logged_at(f"qcm: fatal signal 11 in the plugin code of controller {MISBEHAVES}; "
                              f"crash record {records}/{MISBEHAVES}."), q.log())
            found = sorted(records.glob(f"{MISBEHAVES}.*"))
            check(len(found) == i, f"run {i}: records {found}")
        for record in records.iterdir():
            check(stat.S_IMODE(record.stat().st_mode) == 0o600, f"{record} mode")
            text = record.read_text()
            check(f"controller {MISBEHAVES}\n" in text and "signal 11\n" in text, text)
        print(f"{LIMIT} runs died of SIGSEGV in {MISBEHAVES}, each with its crash record", flush=True)

        # The next run quarantines it, and the rest run.
        q = start(LIMIT + 1)
        q.wait_for("fixture-configmaps running", lambda: q.plugin_state(CONFIGMAPS) == "running", 60)
        check(q.plugin_state(MISBEHAVES) == "quarantined", f"{q.plugin_state(MISBEHAVES)}")
        status, body = q.get(f"/healthz/{MISBEHAVES}")
        check(status == 500 and f"quarantined: its plugin code crashed qcm {LIMIT} times in the "
              f"last 10m0s (the last: SIGSEGV at" in body, f"{status} {body}")
        configz = json.loads(q.get("/configz")[1])
        check(MISBEHAVES in configz.get("quarantined", {}), f"/configz: {configz.get('quarantined')}")
        cluster.kubectl("create", "configmap", "healthy", "-n", ns)
        cluster.kubectl("label", "configmap", "healthy", "-n", ns, f"qcm-e2e={ns}")
        q.wait_for("fixture-configmaps reconciling", lambda: cluster.get_json(
            "configmap", ns, "healthy")["metadata"].get("annotations", {}).get("qcm.io/seen")
            == "yes", 30)

        def quarantine_event():
            events = json.loads(cluster.kubectl("get", "events", "-n", ns, "-o", "json"))["items"]
            return next((e for e in events if e.get("reason") == "Quarantined"), None)
        event = q.wait_for("the Quarantined Event", quarantine_event, 30)
        event = quarantine_event()
        check(event["type"] == "Warning" and event["involvedObject"]["kind"] == "Lease"
              and MISBEHAVES in event["message"], f"{event}")
        check(q.process.poll() is None, "the quarantining run exited")
        q.signal(signal.SIGTERM)
        check(q.wait(30) == 0, q.log())
        print(f"run {LIMIT + 1}: {MISBEHAVES} quarantined (metric, /healthz, /configz, Event); "
              f"{CONFIGMAPS} reconciles", flush=True)

        # The operator fixes it: the bad object gone, the records removed.
        cluster.kubectl("delete", "configmap", "poison", "-n", ns)
        for record in records.glob(f"{MISBEHAVES}.*"):
            record.unlink()
        q = start(LIMIT + 2)
        q.wait_for(f"{MISBEHAVES} running again", lambda: q.plugin_state(MISBEHAVES) == "running", 60)
        q.signal(signal.SIGTERM)
        check(q.wait(30) == 0, q.log())
        print("records removed: the controller runs again", flush=True)
        print("PASS", flush=True)
    except BaseException:
        for q in runs[-2:]:
            print(f"--- {q.name}'s log\n{q.log()}", file=sys.stderr)
        raise
    finally:
        for q in runs:
            q.stop()
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
