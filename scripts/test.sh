#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite, from a fresh clone on a fresh Debian machine:
#   1. scripts/setup.sh installs the Debian packages and Go modules it needs;
#   2. a ThreadSanitizer build runs the unit tests (the work-queue stress test among them;
#      the client's are left out, see below), then an AddressSanitizer+UBSan build runs all;
#      these two trees build only what the unit tests run, at -O1 -g1 (the tests themselves
#      at -O0, below);
#   3. the release build (-O2 -g1, below) runs every test: unit, conformance against
#      client-go, e2e against a real kube-apiserver, packaging (the .debs built and installed,
#      the out-of-tree plugin template built against them and run by the installed qcm; with
#      CI=true as root the .debs are installed onto this machine with apt-get and removed
#      again), and a quick pass of the benchmark runner. Its ctest summary is the last thing
#      printed but the total time.
# Build trees: build/ (release), build-tsan/, build-asan/. Set QCM_SKIP_SANITIZERS=1 to skip 2.
# Each step's line starts with the minutes since the start, so that a CI log shows where the
# time went.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
export PATH="/usr/local/go/bin:$PATH"
step() { printf '== [%d min] %s\n' $((SECONDS / 60)) "$*"; }

step "setup"
scripts/setup.sh

if [[ ${QCM_SKIP_SANITIZERS:-0} != 1 ]]; then
    for pair in tsan:thread asan:address; do
        dir="build-${pair%%:*}"
        sanitizer="${pair#*:}"
        step "unit tests under the $sanitizer sanitizer ($dir): build"
        # Only what the unit tests run (the targets unit-tests and, without the qt-threads
        # tests, unit-tests-tsan; a program left out would fail its test), at -O1 with line
        # tables only (-g1), as the sanitizers' documentation suggests: a heavy file compiles
        # 2.5 times faster than at -O2 -g (membership.cpp under ASan: 23 s against 64 s), and
        # reports still name file and line. The QtTest programs themselves at -O0
        # (QCM_TEST_COMPILE_OPTIONS, tests/CMakeLists.txt): instrumented all the same, they
        # compile in half the time, and the code they test stays at -O1.
        target=unit-tests
        [[ $sanitizer == thread ]] && target=unit-tests-tsan
        QCM_BUILD_TARGET=$target scripts/build.sh "$dir" -DQCM_SANITIZE="$sanitizer" \
            -DQCM_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
            -DQCM_TEST_COMPILE_OPTIONS=-O0
        # The sanitizer options (and TSan's suppressions for uninstrumented Qt) are set on
        # each test by tests/CMakeLists.txt. Under TSan the tests labelled qt-threads are
        # left out: their threads hand work over through Qt (queued calls, QFuture, the event
        # loop), whose locks are not instrumented, so TSan reports every hand-over as a race.
        # qcm's own concurrency (queues, clock, locks, FIFO, reflector) runs under TSan.
        exclude=()
        [[ $sanitizer == thread ]] && exclude=(-LE qt-threads)
        step "unit tests under the $sanitizer sanitizer ($dir): run"
        ctest --test-dir "$dir" -L unit "${exclude[@]}" --output-on-failure --timeout 900
    done
fi

# The release tree at -O2 as always, with line tables only (-g1, as the sanitizer trees): the
# compiler's time on full debug information was a third to a half of each file's (restclient.cpp
# 6.0 s against 3.1 s on a 2-vCPU machine), for variable and type information that no test
# reads; backtraces, perf and gdb still name functions, files and lines. The .debs are stripped
# either way (CPACK_STRIP_FILES).
step "the whole suite: build"
scripts/build.sh build -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
step "the whole suite: run"
ctest --test-dir build --output-on-failure --timeout 900
step "done"
