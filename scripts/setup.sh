#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs everything qcm needs to build and test, on Debian 12 (bookworm) or later.
# Idempotent: a second run installs nothing new and fetches nothing new.
#
#   * Debian packages (apt-get, as root): compiler, CMake, Ninja, Qt 6 (Core, Network, Test,
#     HttpServer and its WebSockets dependency), libssl-dev (the self-signed serving
#     certificate), yaml-cpp, Google Benchmark, promtool
#     (package prometheus), clang-format, python3, clang and libclang-rt-dev (libFuzzer, for
#     the fuzz harnesses), and for the .debs (CPack, the packaging tests): dpkg-dev
#     (dpkg-shlibdeps), file and lintian; curl (the e2e tests are driven with it);
#     python3-matplotlib (the soak test's plot, tests/soak/soak.py).
#   * Go modules (through the Go module proxy) for the test peers: client-go for the
#     conformance driver, the benchmarks and the leader-election interop candidate, and a
#     real kube-apiserver, etcd and kubectl for the e2e tests
#     (tests/e2e/cluster/build-binaries.sh, cached in ~/.cache/qcm).
#     Go itself (>= 1.26, what client-go v0.37 needs) must already be installed
#     (https://go.dev/doc/install); Debian's golang package is too old.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
    build-essential cmake ninja-build pkg-config python3 openssl libssl-dev curl
    qt6-base-dev qt6-httpserver-dev qt6-websockets-dev
    libyaml-cpp-dev libbenchmark-dev prometheus clang-format
    clang libclang-rt-dev dpkg-dev file lintian python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing Debian packages: ${missing[*]}"
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "setup: Debian packages present"
fi

if ! command -v go >/dev/null 2>&1; then
    for candidate in /usr/local/go/bin /usr/lib/go/bin; do
        [[ -x $candidate/go ]] && export PATH="$candidate:$PATH" && break
    done
fi
if ! command -v go >/dev/null 2>&1; then
    echo "setup: Go is not installed; the client-go peers need Go >= 1.26 (https://go.dev/doc/install)" >&2
    exit 1
fi

# The e2e cluster: kube-apiserver, etcd and kubectl built from Go modules, cached in
# ~/.cache/qcm (a few minutes the first time, nothing after).
echo "setup: e2e binaries (kube-apiserver, etcd, kubectl)"
"$here/tests/e2e/cluster/build-binaries.sh" --assets >/dev/null

for module in tests/conformance/go tests/bench/go tests/e2e/leaderelection/go; do
    if [[ -f $here/$module/go.mod ]]; then
        echo "setup: Go modules for $module"
        (cd "$here/$module" && go mod download && go build -o /dev/null ./...)
    fi
done
echo "setup: done"
