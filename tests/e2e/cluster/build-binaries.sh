#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a real kube-apiserver, etcd and kubectl from Go modules (through the module proxy) and
# caches them outside any build tree, keyed by version. Only the first build is slow.
#
#   build-binaries.sh            prints the three paths, building what is missing
#   build-binaries.sh --assets   builds what is missing, links the three as etcd,
#                                kube-apiserver and kubectl into $QCM_CACHE/testenv/<k8s version>
#                                and prints that directory: QCM_TESTENV_ASSETS for
#                                qcm::testing::TestEnvironment. The SDK installs this script as
#                                <libexec>/qcm/testenv-setup. Building needs Go (go.dev/dl or
#                                Debian's golang, 1.24 or newer) and the module proxy.
#
# Versions: QCM_K8S_VERSION (default v1.36.3) and QCM_ETCD_VERSION (default v3.6.16).
# (The module proxy refuses k8s.io/kubernetes v1.37.2's source zip: "not available".)
# Cache:    QCM_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/qcm); binaries in $QCM_CACHE/bin.
#
# kube-apiserver comes from k8s.io/kubernetes with a replace directive for every staging module
# (k8s.io/api, k8s.io/apimachinery, ...) pointing at the matching v0.x.y release; the list is
# read from k8s.io/kubernetes' own go.mod. A tiny main runs app.NewAPIServerCommand(), and the
# version ldflags are set so that /version tells the truth.
set -euo pipefail
export PATH="/usr/local/go/bin:$PATH" GOTOOLCHAIN=local GOFLAGS=-mod=mod
k8s_version="${QCM_K8S_VERSION:-v1.36.3}"
etcd_version="${QCM_ETCD_VERSION:-v3.6.16}"
cache="${QCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qcm}"
bin="$cache/bin"
apiserver="$bin/kube-apiserver-$k8s_version"
etcd="$bin/etcd-$etcd_version"
kubectl="$bin/kubectl-$k8s_version"
mkdir -p "$bin"

log() { echo "build-binaries: $*" >&2; }

# -X flags that make /version and `kubectl version` report $k8s_version, as
# hack/lib/version.sh does.
version_ldflags() {
    local minor="${k8s_version#v1.}"
    minor="${minor%%.*}"
    local flags="" pkg
    for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        flags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
        flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    done
    echo "$flags"
}

build_apiserver() {
    local work="$cache/build/kube-apiserver-$k8s_version"
    rm -rf "$work" && mkdir -p "$work" && cd "$work"
    log "kube-apiserver $k8s_version: reading k8s.io/kubernetes' staging modules"
    local dir
    dir=$(cd "$work" && go mod download -json "k8s.io/kubernetes@$k8s_version" |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit("build-binaries: " + d.get("Error", "no module directory")))')
    local staging="v0.${k8s_version#v1.}"
    {
        echo "module qcm.io/e2e/kube-apiserver"
        echo
        echo "go 1.24"
        echo
        echo "require k8s.io/kubernetes $k8s_version"
        echo
        echo "replace ("
        sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\t\1 => \1 '"$staging"'#p' "$dir/go.mod"
        echo ")"
    } >go.mod
    grep -c "=>" go.mod | xargs -I{} echo "build-binaries: {} staging replaces" >&2
    cat >main.go <<'GO'
// kube-apiserver, as cmd/kube-apiserver/apiserver.go builds it.
package main

import (
	"os"
	_ "time/tzdata"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
GO
    log "kube-apiserver $k8s_version: resolving modules"
    go mod tidy >&2
    log "kube-apiserver $k8s_version: compiling (slow the first time)"
    go build -trimpath -ldflags "-s -w $(version_ldflags)" -o "$apiserver.tmp" . >&2
    mv "$apiserver.tmp" "$apiserver"
}

# kubectl from the same module graph (cmd/kubectl/kubectl.go), so that no prebuilt binary is
# needed; the version ldflags are the apiserver's.
build_kubectl() {
    local work="$cache/build/kube-apiserver-$k8s_version"
    [[ -f $work/go.mod ]] || build_apiserver
    mkdir -p "$work/kubectl" && cd "$work"
    cat >kubectl/main.go <<'GO'
// kubectl, as cmd/kubectl/kubectl.go builds it.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
GO
    log "kubectl $k8s_version: compiling"
    go build -trimpath -ldflags "-s -w $(version_ldflags)" -o "$kubectl.tmp" ./kubectl >&2
    mv "$kubectl.tmp" "$kubectl"
}

build_etcd() {
    local work="$cache/build/etcd-$etcd_version"
    rm -rf "$work" && mkdir -p "$work" && cd "$work"
    printf 'module qcm.io/e2e/etcd\n\ngo 1.24\n' >go.mod
    log "etcd $etcd_version: resolving modules"
    go get "go.etcd.io/etcd/server/v3@$etcd_version" >&2
    log "etcd $etcd_version: compiling"
    go build -trimpath -ldflags "-s -w" -o "$etcd.tmp" go.etcd.io/etcd/server/v3 >&2
    mv "$etcd.tmp" "$etcd"
}

[[ -x $etcd ]] || build_etcd
[[ -x $apiserver ]] || build_apiserver
[[ -x $kubectl ]] || build_kubectl
if [[ ${1:-} == --assets ]]; then
    assets="$cache/testenv/$k8s_version"
    mkdir -p "$assets"
    ln -sfn "$etcd" "$assets/etcd"
    ln -sfn "$apiserver" "$assets/kube-apiserver"
    ln -sfn "$kubectl" "$assets/kubectl"
    echo "$assets"
    exit 0
fi
echo "$apiserver"
echo "$etcd"
echo "$kubectl"
