#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a scale-out chaos e2e several times in a row on a test cluster of its own, as issue 14
# asks (docs/scale-out.md, "What the e2e tests show"):
#
#   scripts/scaleout-chaos.sh [runs, default 5] [short|client-go, default short] [keys|controllers]
#
# keys (the default): tests/e2e/host/test_scaleout_chaos.py, a sharded controller's keys;
# controllers: tests/e2e/host/test_controllerscope.py, whole controllers (scope: controller).
#
# short: leaseDuration 3s, renewDeadline 2s, retryPeriod 1s (what CI runs once);
# client-go: 15s, 10s, 2s (client-go's and kube-controller-manager's defaults).
# Builds what it needs in build/, starts the cluster (tests/e2e/cluster/cluster.py) in a
# temporary directory and stops it at the end. Each run's summary line is printed, with the
# time each step took to settle and the longest wait after each; the script fails if any run
# fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-5}"
timings="${2:-short}"
what="${3:-keys}"
case "$what" in
keys) test=test_scaleout_chaos.py summary='^[0-9]+ reconciles' steps='^  after |: epoch [0-9]+ of' ;;
controllers) test=test_controllerscope.py summary='^PASS' steps=': balanced|killed: the epoch' ;;
*) echo "scaleout-chaos.sh: the third argument is keys or controllers, not $what" >&2; exit 2 ;;
esac
build="$here/build"
cmake --build "$build" --target qcm fixture-recorder fixture-placed-1 fixture-placed-2 \
    fixture-placed-3 fixture-placed-4 qcm-e2e-cluster >/dev/null
cluster="$(mktemp -d /tmp/qcm-chaos-cluster.XXXXXX)"
python3 "$here/tests/e2e/cluster/cluster.py" up --dir "$cluster" >/dev/null
trap 'python3 "$here/tests/e2e/cluster/cluster.py" down --dir "$cluster" >/dev/null; rm -rf "$cluster"' EXIT
failed=0
for ((i = 1; i <= runs; i++)); do
    log="$(mktemp /tmp/qcm-chaos-run.XXXXXX)"
    if QCM_E2E_DIR="$cluster" python3 "$here/tests/e2e/host/$test" \
        --qcm "$build/app/qcm" --plugins "$build/tests/fixtures/plugins" --timings "$timings" \
        >"$log" 2>&1; then
        echo "run $i/$runs ($timings, $what): $(grep -E "$summary" "$log")"
        grep -E "$steps" "$log" | sed 's/^ */    /'
        rm -f "$log"
    else
        echo "run $i/$runs ($timings, $what): FAILED, log in $log"
        tail -5 "$log"
        failed=$((failed + 1))
    fi
done
echo "$((runs - failed)) of $runs runs passed ($timings timings, $what)"
((failed == 0))
