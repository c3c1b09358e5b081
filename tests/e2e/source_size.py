#!/usr/bin/env python3
"""source_size.py -- no .c file of src/source/ or src/store/ grows past 1000
lines (#24).

Every src/source/*.c and src/store/*.c over the limit is named on stderr
with its line count ("src/source/doctor.c: 1415 lines, over 1000: split it
along its seams") and the test fails.  A file of exactly 1000 lines passes.
Before the real tree, the check runs on a planted one in a temporary
directory (in each directory of the rule: one file of 1000 lines, one of
1001, one .h of 2000 that the rule leaves out), so a check that could not
fail fails here.

Usage: source_size.py [ROOT]   (default: $SOURCE_ROOT, else the checkout)
"""
import glob
import os
import sys
import tempfile

LIMIT = 1000
RULE_DIRS = (os.path.join("src", "source"), os.path.join("src", "store"))


def lines_of(path):
    with open(path, "rb") as f:
        return len(f.read().splitlines())


def over_limit(root):
    """[(path relative to root, lines)] of the .c files over LIMIT, sorted."""
    out = []
    for rule_dir in RULE_DIRS:
        for p in sorted(glob.glob(os.path.join(root, rule_dir, "*.c"))):
            n = lines_of(p)
            if n > LIMIT:
                out.append((os.path.relpath(p, root), n))
    return out


def planted_check():
    with tempfile.TemporaryDirectory(prefix="gm-source-size-") as tmp:
        for rule_dir in RULE_DIRS:
            d = os.path.join(tmp, rule_dir)
            os.makedirs(d)
            for name, n in (("at_limit.c", LIMIT), ("over.c", LIMIT + 1), ("big.h", 2 * LIMIT)):
                with open(os.path.join(d, name), "w") as f:
                    f.write("/* x */\n" * n)
        got = over_limit(tmp)
        want = [(os.path.join(rule_dir, "over.c"), LIMIT + 1) for rule_dir in RULE_DIRS]
        if got != want:
            sys.stderr.write("source_size.py: the planted tree gave %r, expected %r\n" % (got, want))
            return False
    return True


def main():
    root = (sys.argv[1] if len(sys.argv) > 1 else None) or os.environ.get("SOURCE_ROOT") \
        or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    if not planted_check():
        return 1
    for rule_dir in RULE_DIRS:
        if not glob.glob(os.path.join(root, rule_dir, "*.c")):
            sys.stderr.write("source_size.py: no %s/*.c under %s\n" % (rule_dir, root))
            return 1
    bad = over_limit(root)
    for rel, n in bad:
        sys.stderr.write("%s: %d lines, over %d: split it along its seams\n" % (rel, n, LIMIT))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
