#!/usr/bin/env bash
# Prints one hash of the contents of the files under the given folders (missing folders count
# as empty), so a make target can tell whether regenerating changed anything.
set -euo pipefail
for dir in "$@"; do
	if [ -d "$dir" ]; then find "$dir" -type f -print0; fi
done | sort -z | xargs -0 -r sha256sum | sha256sum | cut -d' ' -f1
