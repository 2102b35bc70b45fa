#!/usr/bin/env bash
# release.sh VERSION [DIR] writes DIR/vc.yaml, the krew manifest of `kubectl vc` for release
# VERSION (a tag such as v0.2.0), from hack/krew/vc.yaml and the SHA256SUMS in DIR (default
# bin/image, where `make image` writes vcctl-<os>-<arch>.tar.gz and their sums). It sets
# spec.version, and each platform's uri (the release download of its archive) and sha256.
# A platform whose archive is not in SHA256SUMS is left out, with a warning; no platform at all
# is an error. The result carries no value of the template's release.
set -euo pipefail
trap 'rm -f "${dir:-.}/vc.yaml.tmp"' EXIT

version=${1:?usage: hack/krew/release.sh VERSION [DIR], for example v0.2.0 bin/image}
dir=${2:-bin/image}
repo=${RELEASE_REPO:-https://github.com/caldera-sh/caldera}
here=$(cd "$(dirname "$0")" && pwd)
sums="$dir/SHA256SUMS"
[[ -f "$sums" ]] || { echo "release.sh: $sums not found: run make image first" >&2; exit 1; }

awk -v version="$version" -v repo="$repo" -v sums="$sums" '
  BEGIN {
    while ((getline line < sums) > 0) {
      split(line, f, /[ *]+/)
      sum[f[2]] = f[1]
    }
  }
  # Each platform is buffered from its "- selector:" line and written only if its archive exists.
  function flush() {
    if (buf == "") return
    if (archive in sum) { printf "%s", buf; kept++ }
    else printf "release.sh: warning: %s is not in %s: platform %s/%s left out\n", archive, sums, os, arch > "/dev/stderr"
    buf = ""
  }
  /^  platforms:/ { inplatforms = 1; print; next }
  /^  version:/ { print "  version: " version; next }
  inplatforms && /^  - selector:/ { flush(); buf = $0 "\n"; next }
  inplatforms && buf != "" {
    if ($1 == "os:") os = $2
    if ($1 == "arch:") arch = $2
    archive = "vcctl-" os "-" arch ".tar.gz"
    if ($1 == "uri:") $0 = "    uri: " repo "/releases/download/" version "/" archive
    if ($1 == "sha256:" && (archive in sum)) $0 = "    sha256: " sum[archive]
    buf = buf $0 "\n"
    next
  }
  { print }
  END {
    flush()
    if (kept == 0) { print "release.sh: no vcctl archive in " sums > "/dev/stderr"; exit 1 }
  }
' "$here/vc.yaml" > "$dir/vc.yaml.tmp"
mv "$dir/vc.yaml.tmp" "$dir/vc.yaml"
echo "$dir/vc.yaml"
