#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds one tree: scripts/build.sh <build-dir> [extra cmake arguments...]
# QCM_BUILD_TARGET names the one target to build (default: all).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$1"
shift
cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" --parallel "$(nproc)" ${QCM_BUILD_TARGET:+--target "$QCM_BUILD_TARGET"}
