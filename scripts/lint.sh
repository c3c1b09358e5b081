#!/bin/sh
# lint.sh -- the layer order of includes (scripts/check-layers.py), then
# clang-format (check only), cppcheck and clang-tidy over src/ and sim/.
# Needs a configured build dir (for compile_commands.json).
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
files=$(find src sim -name '*.[ch]' | sort)
status=0

echo "== layers"
python3 scripts/check-layers.py . || status=1

echo "== clang-format"
clang-format --dry-run --Werror $files || status=1

echo "== cppcheck"
cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
    --inline-suppr --std=c11 -D__GNUC__ -D_GNU_SOURCE -I src \
    --suppress=missingIncludeSystem $(find src sim -name '*.c') || status=1

echo "== clang-tidy"
srcs=$(find src sim -name '*.c' | sort)
clang-tidy -p "$build" --quiet $srcs 2>/dev/null | grep -E "warning:|error:" && status=1

[ $status -eq 0 ] && echo "lint: clean"
exit $status
