#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite, from a fresh clone on a fresh Debian machine:
#   1. scripts/setup.sh installs the Debian packages and Go modules it needs;
#   2. a ThreadSanitizer build runs the unit tests (the work-queue stress test among them;
#      the client's are left out, see below), then an AddressSanitizer+UBSan build runs all;
#      these two trees build only what the unit tests run, at -O1 -g1 (below);
#   3. the release build runs every test: unit, conformance against client-go, e2e against a
#      real kube-apiserver, packaging (the .debs built and installed, the out-of-tree plugin
#      template built against them and run by the installed qcm; with CI=true as root the
#      .debs are installed onto this machine with apt-get and removed again), and a quick
#      pass of the benchmark runner. Its ctest summary is the last thing printed.
# Build trees: build/ (release), build-tsan/, build-asan/. Set QCM_SKIP_SANITIZERS=1 to skip 2.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
export PATH="/usr/local/go/bin:$PATH"

scripts/setup.sh

if [[ ${QCM_SKIP_SANITIZERS:-0} != 1 ]]; then
    for pair in tsan:thread asan:address; do
        dir="build-${pair%%:*}"
        sanitizer="${pair#*:}"
        echo "== unit tests under the $sanitizer sanitizer ($dir)"
        # Only what the unit tests run (the targets unit-tests and, without the qt-threads
        # tests, unit-tests-tsan; a program left out would fail its test), at -O1 with line
        # tables only (-g1), as the sanitizers' documentation suggests: a heavy file compiles
        # 2.5 times faster than at -O2 -g (membership.cpp under ASan: 23 s against 64 s), and
        # reports still name file and line.
        target=unit-tests
        [[ $sanitizer == thread ]] && target=unit-tests-tsan
        QCM_BUILD_TARGET=$target scripts/build.sh "$dir" -DQCM_SANITIZE="$sanitizer" \
            -DQCM_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
        # The sanitizer options (and TSan's suppressions for uninstrumented Qt) are set on
        # each test by tests/CMakeLists.txt. Under TSan the tests labelled qt-threads are
        # left out: their threads hand work over through Qt (queued calls, QFuture, the event
        # loop), whose locks are not instrumented, so TSan reports every hand-over as a race.
        # qcm's own concurrency (queues, clock, locks, FIFO, reflector) runs under TSan.
        exclude=()
        [[ $sanitizer == thread ]] && exclude=(-LE qt-threads)
        ctest --test-dir "$dir" -L unit "${exclude[@]}" --output-on-failure --timeout 900
    done
fi

echo "== the whole suite (build)"
scripts/build.sh build
ctest --test-dir build --output-on-failure --timeout 900
