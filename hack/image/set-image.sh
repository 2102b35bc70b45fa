#!/usr/bin/env bash
# Keeps the manager's image the same in config/ and the Helm chart. Called by `make manifests`
# with the Makefile's IMG.
#
#   set-image.sh REPOSITORY:TAG  writes the image into config/manager/kustomization.yaml
#                                (images: newName and newTag), charts/caldera/values.yaml
#                                (image.repository) and charts/caldera/Chart.yaml (appVersion,
#                                the tag the chart deploys when image.tag is empty)
#   set-image.sh --current       prints the image those files name now (IMG's default, so that
#                                regenerating on any checkout changes nothing)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
kustomization=config/manager/kustomization.yaml
values=charts/caldera/values.yaml
chart=charts/caldera/Chart.yaml

current() {
	local repo tag
	repo=$(awk '/^image:/ { in_image = 1; next } in_image && /^[^ #]/ { in_image = 0 }
		in_image && $1 == "repository:" { gsub(/"/, "", $2); print $2; exit }' "$values")
	tag=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$chart")
	if [[ -z $repo || -z $tag ]]; then
		echo "set-image.sh: no image.repository in $values or no appVersion in $chart" >&2
		exit 1
	fi
	echo "$repo:$tag"
}

# edit FILE SED-SCRIPT PATTERN applies the sed script to FILE after checking that a line matches
# PATTERN, and rewrites FILE only when that changes it.
edit() {
	local file=$1 script=$2 pattern=$3 tmp
	if ! grep -q "$pattern" "$file"; then
		echo "set-image.sh: $file has no line matching '$pattern'" >&2
		exit 1
	fi
	tmp=$(mktemp)
	sed "$script" "$file" >"$tmp"
	if cmp -s "$tmp" "$file"; then
		rm -f "$tmp"
	else
		cat "$tmp" >"$file"
		rm -f "$tmp"
		echo "set-image.sh: updated $file"
	fi
}

if [[ $# -ne 1 ]]; then
	echo "usage: set-image.sh REPOSITORY:TAG | --current" >&2
	exit 2
fi
if [[ $1 == --current ]]; then
	current
	exit 0
fi

image=$1
repo=${image%:*}
tag=${image##*:}
# A repository is lowercase path components, optionally after a registry host[:port]; a tag is at
# most 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'.
if [[ $image != *:* || $tag == */* || $image == *@* ||
	! $repo =~ ^[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9]+([._-]+[a-z0-9]+)*)+$|^[a-z0-9]+([._-]+[a-z0-9]+)*$ ||
	! $tag =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]]; then
	echo "set-image.sh: IMG=$image is not REPOSITORY:TAG, for example ghcr.io/caldera-sh/caldera:0.1.0 (digests are not supported here)" >&2
	exit 1
fi

edit "$kustomization" "s|^  newName: .*|  newName: $repo|; s|^  newTag: .*|  newTag: \"$tag\"|" '^  newTag: '
edit "$values" "/^image:/,/^[^ #]/ s|^  repository: .*|  repository: $repo|" '^  repository: '
edit "$chart" "s|^appVersion: .*|appVersion: \"$tag\"|" '^appVersion: '
