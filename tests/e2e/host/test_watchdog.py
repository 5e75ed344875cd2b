#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: the plugin watchdog, through the real qcm binary on the real kube-apiserver, with the
fixture plugin fixture-misbehaves (tests/fixtures/plugins/misbehaves.cpp), whose ConfigMaps'
annotations make it sleep, and fixture-configmaps beside it, with a stall timeout of 2 s:

  * a reconcile that sleeps 6 s on a worker: /healthz/fixture-misbehaves fails with the
    reason (the controller, the reconcile and its key), qcm_controller_stalled is 1, /livez
    stays 200 (the event loop runs); once it returns, all is well again and
    qcm_controller_stalls_total{activity="reconcile"} is 1;
  * an add handler that sleeps 5 s on the host's event loop: a /livez?verbose sent during the
    block is answered after it, with [-]event-loop failed; the log names the handler; /livez
    is 200 again one stall timeout later;
  * the host stays up throughout, and fixture-configmaps goes on reconciling after each.

    test_watchdog.py --qcm BINARY --plugins FIXTURE_DIR
"""
import argparse
import os
import pathlib
import shutil
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "leaderelection"))
import qcmhost  # noqa: E402
from qcmhost import check  # noqa: E402
from lecluster import Cluster  # noqa: E402

MISBEHAVES = "fixture-misbehaves"
CONFIGMAPS = "fixture-configmaps"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qcm", required=True)
    parser.add_argument("--plugins", required=True)
    args = parser.parse_args()
    cluster = Cluster(os.environ["QCM_E2E_DIR"])
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="qcm-watchdog-e2e-"))
    (workdir / "plugins").mkdir()
    for name in (MISBEHAVES, CONFIGMAPS):
        shutil.copy(pathlib.Path(args.plugins) / f"lib{name}.so", workdir / "plugins")
    ns = cluster.create_namespace("e2e-watchdog")
    q = None
    try:
        settings = (f"  {MISBEHAVES}:\n    settings: {{labelSelector: \"qcm-e2e={ns}-misbehaves\"}}\n"
                    f"  {CONFIGMAPS}:\n    settings: {{labelSelector: \"qcm-e2e={ns}\", "
                    f"annotation: qcm.io/seen, value: \"yes\"}}\n")
        q = qcmhost.Qcm(args.qcm, workdir, "watchdog",
                        qcmhost.config(cluster.dir, leader_elect=False, controller_config=settings),
                        args=("--watchdog-stall-timeout=2s",))
        q.wait_for("both running", lambda: q.plugin_state(MISBEHAVES) == "running"
                   and q.plugin_state(CONFIGMAPS) == "running", 60)

        def reconciled(name):
            cluster.kubectl("create", "configmap", name, "-n", ns)
            cluster.kubectl("label", "configmap", name, "-n", ns, f"qcm-e2e={ns}")
            q.wait_for(f"{name} reconciled by {CONFIGMAPS}", lambda: cluster.get_json(
                "configmap", ns, name)["metadata"].get("annotations", {}).get("qcm.io/seen")
                == "yes", 30)

        def misbehaving(name, annotation, value):
            cluster.kubectl("create", "configmap", name, "-n", ns)
            cluster.kubectl("annotate", "configmap", name, "-n", ns, f"{annotation}={value}")
            cluster.kubectl("label", "configmap", name, "-n", ns, f"qcm-e2e={ns}-misbehaves")

        # A reconcile stuck on a worker.
        misbehaving("slow-reconcile", "qcm.io/sleep-in-reconcile", "6")
        path = f"/healthz/{MISBEHAVES}"
        q.wait_for("the stall in /healthz", lambda: q.get(path)[0] == 500, 15)
        status, body = q.get(path)
        check(f'stalled: no progress for' in body and f'in its reconcile of "{ns}/slow-reconcile"'
              in body and "(stall timeout 2s)" in body, f"{status} {body}")
        check(qcmhost.metric(q.metrics(), "qcm_controller_stalled", controller=MISBEHAVES) == 1,
              "qcm_controller_stalled is not 1")
        check(q.get("/livez") == (200, "ok"), f"/livez while a worker stalls: {q.get('/livez')}")
        check(q.get(f"/healthz/{CONFIGMAPS}")[0] == 200, "the other controller is not healthy")
        reconciled("during-the-stall")
        q.wait_for("the stall over", lambda: q.get(path)[0] == 200, 20)
        samples = q.metrics()
        check(qcmhost.metric(samples, "qcm_controller_stalled", controller=MISBEHAVES) == 0,
              "qcm_controller_stalled is not back to 0")
        check(qcmhost.metric(samples, "qcm_controller_stalls_total", controller=MISBEHAVES,
                             activity="reconcile") == 1, "the reconcile stall was not counted")
        check(q.logged_at(f"watchdog: controller {MISBEHAVES} made progress again"), q.log())
        print("reconcile stall: /healthz/<controller> failed with its reason, then recovered",
              flush=True)

        # A handler that blocks the event loop.
        livez = {}

        def probe():
            time.sleep(2.5)  # inside the block
            livez["sent"] = time.monotonic()
            livez["answer"] = q.get("/livez?verbose", timeout=30)
            livez["answered"] = time.monotonic()

        prober = threading.Thread(target=probe)
        prober.start()
        misbehaving("slow-handler", "qcm.io/sleep-in-handler", "5")
        prober.join(60)
        status, body = livez.get("answer", (0, ""))
        check(status == 500 and "[-]event-loop failed" in body, f"/livez during the block: {status} {body}")
        check(q.logged_at(f"it runs {MISBEHAVES}'s add handler: /livez fails"), q.log())
        q.wait_for("/livez 200 again", lambda: q.get("/livez")[0] == 200, 15)
        check(qcmhost.metric(q.metrics(), "qcm_controller_stalls_total", controller=MISBEHAVES,
                             activity="handler") == 1, "the handler stall was not counted")
        reconciled("after-the-block")
        check(q.process.poll() is None, "qcm exited")
        print(f"handler stall: /livez answered {livez['answered'] - livez['sent']:.1f}s after it "
              f"was sent, failing event-loop; 200 again after", flush=True)
        print("PASS", flush=True)
    except BaseException:
        if q:
            print(f"--- qcm's log\n{q.log()}", file=sys.stderr)
        raise
    finally:
        if q:
            q.stop()
        cluster.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
