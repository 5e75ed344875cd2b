#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's run command, scripts/run.sh, without $KUBECONFIG: it must start a local
# kube-apiserver + etcd, apply the Foo CRD, run qcm with the three sample plugins until they are
# running and /readyz answers 200, stop qcm gracefully on SIGINT (Ctrl-C), and stop the local
# cluster again. The sample-controller must do its job on that cluster.
#
#   test_run_sh.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir="$1"
build_dir="$2"
work="$(mktemp -d /tmp/qcm-test-run-sh.XXXXXX)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
log="$work/run.log"
fail() {
    echo "FAIL: $*" >&2
    echo "--- scripts/run.sh output" >&2
    tail -n 60 "$log" >&2 || true
    exit 1
}
cleanup() {
    [[ -n ${run_pid:-} ]] && kill -KILL -- "-$run_pid" 2>/dev/null || true
    python3 "$source_dir/tests/e2e/cluster/cluster.py" down --dir "$work/cluster" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# Its own process group, as a terminal's foreground job is: Ctrl-C signals the whole group.
env -u KUBECONFIG QCM_RUN_SKIP_BUILD=1 QCM_RUN_BUILD_DIR="$build_dir" \
    QCM_RUN_CLUSTER_DIR="$work/cluster" QCM_RUN_CERT_DIR="$work/certs" \
    setsid "$source_dir/scripts/run.sh" --secure-port="$port" >"$log" 2>&1 &
run_pid=$!

ready=0
for _ in $(seq 1 240); do
    kill -0 "$run_pid" 2>/dev/null || fail "scripts/run.sh exited before qcm was ready"
    # HTTPS, verified against the self-signed certificate run.sh says to use.
    if [[ $(curl -s --cacert "$work/certs/qcm.crt" -o /dev/null -w '%{http_code}' \
        "https://127.0.0.1:$port/readyz") == 200 ]]; then
        ready=1
        break
    fi
    sleep 0.5
done
((ready)) || fail "/readyz never answered 200"
grep -q "starting a local kube-apiserver" "$log" || fail "no local cluster was started"
grep -qF "curl --cacert $work/certs/qcm.crt https://127.0.0.1:$port/readyz" "$log" \
    || fail "run.sh does not say what to curl"
grep -qF "curl --cacert $work/certs/qcm.crt -H \"Authorization: Bearer qcm-admin-token\" https://127.0.0.1:$port/metrics" "$log" \
    || fail "run.sh does not say how to read /metrics"
[[ $(curl -s --cacert "$work/certs/qcm.crt" -o /dev/null -w '%{http_code}' \
    "https://127.0.0.1:$port/metrics") == 401 ]] || fail "/metrics without a token is not 401"
metrics="$(curl -s --cacert "$work/certs/qcm.crt" -H "Authorization: Bearer qcm-admin-token" \
    "https://127.0.0.1:$port/metrics")"
for plugin in sample-controller ttl-after-finished configmap-restarter; do
    grep -q "qcm_plugin_state{plugin=\"$plugin\",state=\"running\"} 1" <<<"$metrics" \
        || fail "$plugin is not running"
done

# The sample-controller does its job on the local cluster.
mapfile -t binaries < <("$source_dir/tests/e2e/cluster/build-binaries.sh")
kubectl=("${binaries[2]}" --kubeconfig "$work/cluster/admin.kubeconfig")
"${kubectl[@]}" apply -f "$source_dir/plugins/sample-controller/artifacts/example-foo.yaml" >/dev/null
created=0
for _ in $(seq 1 60); do
    if "${kubectl[@]}" get deployment example-foo >/dev/null 2>&1; then
        created=1
        break
    fi
    sleep 0.5
done
((created)) || fail "the sample-controller created no Deployment for example-foo"

# Ctrl-C: qcm stops gracefully, run.sh exits 0 and takes the local cluster down.
kill -INT -- "-$run_pid"
status=0
wait "$run_pid" || status=$?
run_pid=
((status == 0)) || fail "scripts/run.sh exited with $status after SIGINT"
grep -q "cluster: stopped" "$log" || fail "the local cluster was not stopped"
if curl -s -k -m 2 -o /dev/null "https://127.0.0.1:$port/readyz"; then
    fail "qcm still serves after SIGINT"
fi
echo "PASS: scripts/run.sh started a local cluster, ran the sample plugins, stopped on SIGINT"
