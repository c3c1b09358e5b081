#!/bin/sh
# Fails when docs/metrics.md differs from what the registry generates
# (`gpumon metrics --markdown`), printing the difference.
set -eu
gpumon=$1; doc=$2
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$gpumon" metrics --markdown >"$tmp"
if ! diff -u "$doc" "$tmp"; then
    echo "docs/metrics.md is stale: run '$gpumon metrics --markdown > docs/metrics.md'" >&2
    exit 1
fi
