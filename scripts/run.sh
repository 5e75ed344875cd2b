#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what qcm needs, builds it, and runs it with the sample plugins:
#
#   scripts/run.sh [qcm arguments...]
#
#   * Cluster: the first file of $KUBECONFIG if it is set. Otherwise a local kube-apiserver
#     and etcd on loopback (tests/e2e/cluster/cluster.py, binaries built from Go modules on
#     first use and cached in ~/.cache/qcm), stopped again when qcm exits. Its state lives in
#     $QCM_RUN_CLUSTER_DIR (default ~/.cache/qcm/run-cluster).
#   * The sample-controller's Foo CRD is applied (kubectl apply is idempotent).
#   * qcm runs in the foreground with the root controller-manager.yaml (the three sample
#     plugins from build/plugins, leader election on). Ctrl-C stops it gracefully.
#   * qcm serves HTTPS on 127.0.0.1:10257 (or --secure-port) with a self-signed certificate kept
#     in $QCM_RUN_CERT_DIR (default ~/.cache/qcm/run-certs); run.sh prints the curl commands
#     (/metrics, /configz and /statusz need a bearer token: the local cluster's admin token).
#   * For tests (tests/e2e/run/test_run_sh.sh): QCM_RUN_SKIP_BUILD=1 skips the install and
#     build steps, and QCM_RUN_BUILD_DIR=DIR runs DIR/app/qcm with the plugins of DIR/plugins.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
build_dir="${QCM_RUN_BUILD_DIR:-build}"
if [[ ${QCM_RUN_SKIP_BUILD:-0} != 1 ]]; then
    scripts/setup.sh
    scripts/build.sh "$build_dir"
fi
plugin_args=()
[[ -n ${QCM_RUN_BUILD_DIR:-} ]] && plugin_args=(--plugin-dir "$build_dir/plugins")

# build-binaries.sh prints the kube-apiserver, etcd and kubectl paths, one per line.
mapfile -t binaries < <(tests/e2e/cluster/build-binaries.sh)
kubectl="${binaries[2]:?tests/e2e/cluster/build-binaries.sh printed no kubectl path}"
if [[ -n ${KUBECONFIG:-} ]]; then
    kubeconfig="${KUBECONFIG%%:*}"
    echo "run: using the cluster of $kubeconfig"
else
    cluster_dir="${QCM_RUN_CLUSTER_DIR:-$HOME/.cache/qcm/run-cluster}"
    echo "run: \$KUBECONFIG is not set: starting a local kube-apiserver and etcd in $cluster_dir"
    # cluster.py starts it with qcm-e2e-cluster (the SDK's TestEnvironment) of this build.
    export QCM_E2E_CLUSTER_TOOL="$build_dir/tests/e2e/qcm-e2e-cluster"
    python3 tests/e2e/cluster/cluster.py up --dir "$cluster_dir"
    trap 'python3 tests/e2e/cluster/cluster.py down --dir "$cluster_dir"' EXIT
    kubeconfig="$cluster_dir/admin.kubeconfig"
fi

"$kubectl" --kubeconfig "$kubeconfig" apply \
    -f plugins/sample-controller/artifacts/crd-status-subresource.yaml
cert_dir="${QCM_RUN_CERT_DIR:-$HOME/.cache/qcm/run-certs}"
port=10257
for arg in "$@"; do
    case "$arg" in --secure-port=* | --port=*) port="${arg#*=}" ;; esac
done
echo "run: qcm serves HTTPS with a self-signed certificate; for example:"
echo "run:   curl --cacert $cert_dir/qcm.crt https://127.0.0.1:$port/readyz"
# /metrics, /configz and /statusz ask for credentials the API server accepts and authorizes
# (docs/security.md): the local cluster's admin token, or one of the user's cluster.
if [[ -n ${KUBECONFIG:-} ]]; then
    token='$(kubectl create token <serviceaccount bound to qcm-metrics-reader>)'
else
    token=qcm-admin-token
fi
echo "run:   curl --cacert $cert_dir/qcm.crt -H \"Authorization: Bearer $token\" https://127.0.0.1:$port/metrics"
# Not exec: the trap stops the local cluster once qcm has exited.
"$build_dir/app/qcm" --kubeconfig "$kubeconfig" --config controller-manager.yaml \
    --cert-dir "$cert_dir" "${plugin_args[@]}" "$@"
