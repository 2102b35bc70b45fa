#!/usr/bin/env bash
# Builds Volcano's own end-to-end suites (volcano.sh/volcano at a pinned version, fetched through
# the Go module proxy) into the tool cache, and prints the folder of the test binaries on the last
# line of stdout. `make e2e-volcano` runs them against a local control plane with Caldera.
#
# What is changed of Volcano's code: only the wait constants of test/e2e/util/util.go, lowered by
# wait-constants.patch so that a failing spec costs about a minute instead of five or ten.
#
# volcano.sh/volcano's go.mod takes volcano.sh/apis from its staging folder, which the module zip
# leaves out, and the proxy does not serve the apis release of the same version. The nearest one
# served (APIS_VERSION) is put in the staging folder instead; it lacks one constant the release
# added, QueueAllocationGateKey (the name of Volcano's queue-allocation scheduling gate, the same
# string as Caldera's scheduler/api.QueueAllocationGate), which is written beside it.
#
# Environment:
#   CALDERA_CACHE   cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/caldera)
#   SUITES          suites to build (default: all those run by make e2e-volcano)
set -euo pipefail

VOLCANO_VERSION=v1.15.0
APIS_VERSION=v1.14.0
SUITES=${SUITES:-"schedulingbase jobp jobseq schedulingaction gangevict schedulinggates vcctl hypernode cronjob"}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${CALDERA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}
log() { echo "e2e-volcano: $*" >&2; }

key=$(cat "$here/build.sh" "$here/wait-constants.patch" | sha256sum | cut -c1-12)
out="$cache_root/volcano-e2e-$VOLCANO_VERSION-$key"
src="$out/src"
mkdir -p "$out/bin"

# moddir MODULE@VERSION downloads a module through the proxy and prints its folder.
moddir() {
	go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

if [[ ! -f "$src/.ready" ]]; then
	log "fetching volcano.sh/volcano@$VOLCANO_VERSION and volcano.sh/apis@$APIS_VERSION through the module proxy"
	volcano=$(moddir "volcano.sh/volcano@$VOLCANO_VERSION")
	apis=$(moddir "volcano.sh/apis@$APIS_VERSION")
	[[ -d "$volcano" && -d "$apis" ]] || { log "the module proxy did not serve them"; exit 1; }
	rm -rf "$src"
	cp -r "$volcano" "$src"
	chmod -R u+w "$src"
	mkdir -p "$src/staging/src/volcano.sh"
	cp -r "$apis" "$src/staging/src/volcano.sh/apis"
	chmod -R u+w "$src/staging/src/volcano.sh/apis"
	cat >"$src/staging/src/volcano.sh/apis/pkg/apis/scheduling/v1beta1/queue_allocation_gate.go" <<'EOF'
package v1beta1

// QueueAllocationGateKey is the scheduling gate and pod annotation of Volcano's queue
// allocation gate (volcano.sh/apis of the same release as volcano.sh/volcano).
const QueueAllocationGateKey = "scheduling.volcano.sh/queue-allocation-gate"
EOF
	(cd "$src" && git apply -p1 "$here/wait-constants.patch")
	touch "$src/.ready"
fi

for suite in $SUITES; do
	bin="$out/bin/$suite.test"
	if [[ -x "$bin" ]]; then
		continue
	fi
	log "building Volcano's $suite suite"
	(cd "$src" && GOFLAGS=-mod=mod go test -c -o "$bin.tmp" "./test/e2e/$suite") >&2
	mv "$bin.tmp" "$bin"
done
echo "$out"
