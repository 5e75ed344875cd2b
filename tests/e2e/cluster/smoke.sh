#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# e2e: the test cluster itself, driven with kubectl. Every later e2e test relies on these.
#   smoke.sh <cluster dir>
set -euo pipefail
dir="$1"
kubectl="$(python3 "$(dirname "$0")/cluster.py" env --dir "$dir" | sed -n 's/^export QCM_KUBECTL=//p')"
k() { "$kubectl" --kubeconfig "$dir/$1.kubeconfig" "${@:2}"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

version=$(k admin version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])')
[[ $version == v1.* ]] || fail "/version says '$version'"
echo "server version $version"

k admin get --raw /readyz | grep -qx ok || fail "/readyz is not ok"
name="smoke-$RANDOM"
k token-admin create configmap "$name" -n default --from-literal=k=v >/dev/null || fail "the token user cannot create"
k admin get configmap "$name" -n default -o jsonpath='{.data.k}' | grep -qx v || fail "the configmap is not there"
k restricted get configmaps -n restricted >/dev/null || fail "the restricted user cannot list in its namespace"
if out=$(k restricted create configmap "$name-x" -n default --from-literal=k=v 2>&1); then
    fail "the restricted user could create"
fi
grep -q "forbidden" <<<"$out" || fail "expected forbidden, got: $out"
k admin run "pod-$name" --image=registry.invalid/none --restart=Never >/dev/null || fail "cannot create a pod"
k admin delete configmap "$name" -n default >/dev/null
k admin delete pod "pod-$name" --grace-period=0 --force >/dev/null 2>&1 || true
echo "1 passed, 0 failed"
