#!/usr/bin/env bash
# Builds the control-plane binaries the tests and `make dev` run (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubectl, etcd, kwok) and helm from the Go module proxy into a cache outside the repo,
# keyed by version, and prints the folder on the last line of stdout.
#
# The versions come from the tools modules in hack/tools/{kube,etcd,kwok,helm}; a binary
# already in the cache at the same version is reused. An already-set
# KUBEBUILDER_ASSETS (for example from setup-envtest) is honoured as it is, with
# kube-controller-manager, kube-scheduler, kwok and helm built beside the cache when that folder lacks them.
#
# Other parts of a cluster the tests run against Caldera (an autoscaler, operators that create
# PodGroups) are built the same way by build_beside, each into its own version-keyed folder of the
# cache, and linked into the printed folder.
#
# Environment:
#   CALDERA_CACHE   cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/caldera)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$repo/hack/tools"
cache_root=${CALDERA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}

log() { echo "kube-binaries: $*" >&2; }

# modver DIR MODULE prints the version MODULE is required at in DIR/go.mod.
modver() {
	(cd "$1" && go list -m -f '{{.Version}}' "$2")
}

kube_version=$(modver "$tools/kube" k8s.io/kubernetes)
etcd_version=$(modver "$tools/etcd" go.etcd.io/etcd/server/v3)
kwok_version=$(modver "$tools/kwok" sigs.k8s.io/kwok)
helm_version=$(modver "$tools/helm" helm.sh/helm/v4)
helm_ldflags="-X helm.sh/helm/v4/internal/version.version=$helm_version -X helm.sh/helm/v4/internal/version.gitTreeState=clean"

# build DIR NAME PACKAGE VERSION LDFLAGS builds one binary into $out unless the
# cache already holds it at VERSION.
build() {
	local dir=$1 name=$2 pkg=$3 version=$4 ldflags=$5
	local bin="$out/$name" stamp="$out/.$name.version"
	if [[ -x "$bin" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]]; then
		return 0
	fi
	log "building $name $version (cold builds take a few minutes)"
	local start=$SECONDS
	(cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ldflags" -o "$bin.tmp.$$" "$pkg")
	mv "$bin.tmp.$$" "$bin"
	echo "$version" >"$stamp"
	log "built $name in $((SECONDS - start))s"
}

# build_beside DIR NAME PACKAGE VERSION LDFLAGS builds one binary into $cache_root/NAME-VERSION
# (unless there already) and links it into $assets, the folder this script prints.
build_beside() {
	local dir=$1 name=$2 pkg=$3 version=$4 ldflags=$5
	local assets_dir=$assets
	out="$cache_root/$name-$version"
	mkdir -p "$out"
	build "$dir" "$name" "$pkg" "$version" "$ldflags"
	ln -sf "$out/$name" "$assets_dir/$name" 2>/dev/null || log "$name is at $out/$name"
}

# ecosystem builds the other parts of a cluster into the cache, beside $assets.
ecosystem() {
	# Operators that create PodGroups for Caldera (e2e/operators): each binary and its CRDs,
	# copied from the module it was built from, go into its own version-keyed folder.
	build_operator "$tools/kuberay" kuberay-operator github.com/ray-project/kuberay/ray-operator \
		github.com/ray-project/kuberay/ray-operator config/crd/bases
	build_operator "$tools/mpi-operator" mpi-operator github.com/kubeflow/mpi-operator/cmd/mpi-operator \
		github.com/kubeflow/mpi-operator manifests/base/kubeflow.org_mpijobs.yaml

	# Karpenter with its KWOK cloud provider, and the CRDs it needs (NodePool, NodeClaim,
	# KWOKNodeClass) copied from its module into karpenter-crds beside it.
	local karpenter_version
	karpenter_version=$(modver "$tools/karpenter" sigs.k8s.io/karpenter)
	build_beside "$tools/karpenter" karpenter sigs.k8s.io/karpenter/kwok "$karpenter_version" \
		"-X sigs.k8s.io/karpenter/pkg/operator.Version=$karpenter_version"
	local crds="$cache_root/karpenter-$karpenter_version/crds" moddir
	if [[ ! -f "$crds/.version" || "$(cat "$crds/.version")" != "$karpenter_version" ]]; then
		moddir=$(cd "$tools/karpenter" && go mod download sigs.k8s.io/karpenter &&
			go list -m -f '{{.Dir}}' sigs.k8s.io/karpenter)
		mkdir -p "$crds"
		cp "$moddir"/pkg/apis/crds/karpenter.sh_*.yaml "$moddir"/kwok/apis/crds/*.yaml "$crds/"
		chmod u+w "$crds"/*.yaml
		echo "$karpenter_version" >"$crds/.version"
	fi
	ln -sfn "$crds" "$assets/karpenter-crds" 2>/dev/null || log "Karpenter's CRDs are at $crds"
}

# build_operator DIR NAME PACKAGE MODULE CRDS builds an operator with build_beside and copies CRDS
# (a folder or a file inside MODULE, as the module cache holds it) into $cache_root/NAME-VERSION/crds.
build_operator() {
	local dir=$1 name=$2 pkg=$3 module=$4 crds=$5
	local version moddir
	version=$(modver "$dir" "$module")
	build_beside "$dir" "$name" "$pkg" "$version" ""
	if [[ ! -d "$out/crds" ]]; then
		moddir=$(cd "$dir" && go mod download "$module" && go list -m -f '{{.Dir}}' "$module")
		mkdir -p "$out/crds.tmp.$$"
		if [[ -d "$moddir/$crds" ]]; then
			cp "$moddir/$crds"/*.yaml "$out/crds.tmp.$$/"
		else
			cp "$moddir/$crds" "$out/crds.tmp.$$/"
		fi
		chmod u+w "$out/crds.tmp.$$"/*.yaml
		mv "$out/crds.tmp.$$" "$out/crds"
	fi
	ln -sfn "$out/crds" "$assets/$name-crds" 2>/dev/null || log "$name CRDs are at $out/crds"
}

minor=${kube_version#v1.}
minor=${minor%%.*}
kube_ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	kube_ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	kube_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

if [[ -n "${KUBEBUILDER_ASSETS:-}" && -x "${KUBEBUILDER_ASSETS}/kube-apiserver" && -x "${KUBEBUILDER_ASSETS}/etcd" ]]; then
	if [[ ! -x "$KUBEBUILDER_ASSETS/kube-controller-manager" ]]; then
		# setup-envtest ships no kube-controller-manager: build ours (it should be no newer than
		# that folder's kube-apiserver; the framework runs whatever is there).
		out="$cache_root/k8s-$kube_version"
		mkdir -p "$out"
		build "$tools/kube" kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$kube_version" "$kube_ldflags"
		ln -sf "$out/kube-controller-manager" "$KUBEBUILDER_ASSETS/kube-controller-manager" 2>/dev/null ||
			log "kube-controller-manager is at $out/kube-controller-manager: copy it into $KUBEBUILDER_ASSETS"
	fi
	if [[ ! -x "$KUBEBUILDER_ASSETS/kube-scheduler" ]]; then
		out="$cache_root/k8s-$kube_version"
		mkdir -p "$out"
		build "$tools/kube" kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler "$kube_version" "$kube_ldflags"
		ln -sf "$out/kube-scheduler" "$KUBEBUILDER_ASSETS/kube-scheduler" 2>/dev/null ||
			log "kube-scheduler is at $out/kube-scheduler: copy it into $KUBEBUILDER_ASSETS"
	fi
	out="$cache_root/kwok-$kwok_version"
	mkdir -p "$out"
	if [[ ! -x "$KUBEBUILDER_ASSETS/kwok" ]]; then
		build "$tools/kwok" kwok sigs.k8s.io/kwok/cmd/kwok "$kwok_version" \
			"-X sigs.k8s.io/kwok/pkg/consts.Version=$kwok_version"
		ln -sf "$out/kwok" "$KUBEBUILDER_ASSETS/kwok" 2>/dev/null || log "kwok is at $out/kwok"
	fi
	if [[ ! -x "$KUBEBUILDER_ASSETS/helm" ]]; then
		out="$cache_root/helm-$helm_version"
		mkdir -p "$out"
		build "$tools/helm" helm helm.sh/helm/v4/cmd/helm "$helm_version" "$helm_ldflags"
		ln -sf "$out/helm" "$KUBEBUILDER_ASSETS/helm" 2>/dev/null || log "helm is at $out/helm"
	fi
	assets=$KUBEBUILDER_ASSETS
	ecosystem
	echo "$KUBEBUILDER_ASSETS"
	exit 0
fi

out="$cache_root/k8s-$kube_version"
mkdir -p "$out"

build "$tools/kube" kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$kube_version" "$kube_ldflags"
build "$tools/kube" kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$kube_version" "$kube_ldflags"
build "$tools/kube" kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler "$kube_version" "$kube_ldflags"
build "$tools/kube" kubectl k8s.io/kubernetes/cmd/kubectl "$kube_version" "$kube_ldflags"
build "$tools/etcd" etcd go.etcd.io/etcd/server/v3 "$etcd_version" ""
build "$tools/kwok" kwok sigs.k8s.io/kwok/cmd/kwok "$kwok_version" \
	"-X sigs.k8s.io/kwok/pkg/consts.Version=$kwok_version"
build "$tools/helm" helm helm.sh/helm/v4/cmd/helm "$helm_version" "$helm_ldflags"

assets=$out
ecosystem
echo "$assets"
