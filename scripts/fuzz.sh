#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzes qcm's parsers with libFuzzer (docs/fuzzing.md):
#
#   scripts/fuzz.sh [seconds per harness, default 600] [harness...]   (default: every harness)
#
# Configures build-fuzz/ with clang and -DQCM_FUZZ=ON (coverage, ASan, UBSan), builds the
# fuzz_<harness> targets and runs each for the given time, starting from its seed corpus
# (tests/fuzz/corpus/<harness>). What it learns goes to build-fuzz/corpus/<harness>; a crash,
# leak or timeout stops that harness, leaves its input in build-fuzz/artifacts/<harness>/ and
# makes the script fail. A summary line per harness: runs, coverage, corpus size, result.
# Copy a crashing input into tests/fuzz/corpus/<harness> once it is fixed: ctest replays it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-600}"
shift || true
dir="$here/build-fuzz"
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
    harnesses=(duration config pluginmetadata kubeconfig labelselector lockrecord execcredential
        json watchframes http1response status reviews typed crds epoch leasecandidate)
fi

CC=clang CXX=clang++ cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DQCM_FUZZ=ON -DQCM_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$dir" --parallel "$(nproc)" --target "${harnesses[@]/#/fuzz_}"

failed=()
for h in "${harnesses[@]}"; do
    mkdir -p "$dir/corpus/$h" "$dir/artifacts/$h"
    log="$dir/artifacts/$h/fuzz.log"
    echo "== fuzz_$h for ${seconds}s"
    status=0
    # -timeout: one input may take at most 10 s; -rss_limit_mb: the harness may hold 2 GiB.
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$dir/tests/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$h/" \
        "$dir/corpus/$h" "$here/tests/fuzz/corpus/$h" >"$log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
    corpus=$(find "$dir/corpus/$h" -type f | wc -l)
    if ((status == 0)); then
        echo "fuzz_$h: ${seconds}s, $runs runs, coverage $cov edges, corpus $corpus: no failure"
    else
        echo "fuzz_$h: FAILED after $runs runs (status $status); see $log and $dir/artifacts/$h/"
        grep -m5 -E "ERROR|invariant broken|SUMMARY" "$log" || true
        failed+=("$h")
    fi
done
if ((${#failed[@]})); then
    echo "fuzz: failures in ${failed[*]}"
    exit 1
fi
