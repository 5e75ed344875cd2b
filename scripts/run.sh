#!/usr/bin/env bash
# Installs what qcm needs, builds it, and runs it: scripts/run.sh [qcm arguments...]
#
# Today qcm is the SDK's foundation (work queues, rate limiters, metrics): the plugin host,
# the REST client and the local test cluster are not built yet, so qcm prints its help
# (or answers the arguments you pass, such as --version). When the host lands this script
# will run qcm with the sample plugins against $KUBECONFIG, or against a local
# kube-apiserver it starts for you.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
scripts/setup.sh
scripts/build.sh build
exec build/app/qcm "$@"
