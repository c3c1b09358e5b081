#!/bin/sh
# Fails when a generated document differs from what gpumon generates now,
# printing the difference.  docs_fresh.sh GPUMON DOC [metrics|config]
set -eu
gpumon=$1; doc=$2; what=${3:-metrics}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$gpumon" "$what" --markdown >"$tmp"
if ! diff -u "$doc" "$tmp"; then
    echo "$doc is stale: run '$gpumon $what --markdown > $doc'" >&2
    exit 1
fi
