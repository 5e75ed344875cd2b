#!/usr/bin/env bash
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
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
scripts/setup.sh
scripts/build.sh build

read -r _apiserver _etcd kubectl < <(tests/e2e/cluster/build-binaries.sh | tr '\n' ' ')
if [[ -n ${KUBECONFIG:-} ]]; then
    kubeconfig="${KUBECONFIG%%:*}"
    echo "run: using the cluster of $kubeconfig"
else
    cluster_dir="${QCM_RUN_CLUSTER_DIR:-$HOME/.cache/qcm/run-cluster}"
    echo "run: \$KUBECONFIG is not set: starting a local kube-apiserver and etcd in $cluster_dir"
    python3 tests/e2e/cluster/cluster.py up --dir "$cluster_dir"
    trap 'python3 tests/e2e/cluster/cluster.py down --dir "$cluster_dir"' EXIT
    kubeconfig="$cluster_dir/admin.kubeconfig"
fi

"$kubectl" --kubeconfig "$kubeconfig" apply \
    -f plugins/sample-controller/artifacts/crd-status-subresource.yaml
# Not exec: the trap stops the local cluster once qcm has exited.
build/app/qcm --kubeconfig "$kubeconfig" --config controller-manager.yaml "$@"
