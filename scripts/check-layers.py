#!/usr/bin/env python3
"""check-layers.py -- fails when a source file includes a header of a layer
above its own, or of a sibling module in the same layer, or when the
simulator and the product reach into each other.

The layers, lowest first (docs/architecture.md):

    core  <  {source, store, export, alert, insight}  <  agent  <  {view, lib, fleet}  <  cli

A file in src/X/ may include headers of X itself and of any layer strictly
below X's; nothing else (not the simulator's sim/).  A file in sim/ (and
its subdirectories) may include sim/'s headers and, of src/, only NVML's
declarations (source/nvml_abi.h, which brings core/nvmlrc.h): the
simulator is a library of its own and links nothing of gpumon.

A quoted include is resolved the way the compiler does: the including
file's directory first, then the include directories the build gives
(the project root, src/, include/), so "../core/err.h", "core/err.h" and
"src/core/err.h" all name src/core/err.h.  A header that is in none of
them (a generated one, a library's) is not checked unless its path names
src/ or sim/.  System headers (<...>) are not checked.
Prints one line per offending include, "FILE:LINE: X includes Y (why)",
and exits 1 when there is any.
"""
import os
import re
import sys

LAYER = {
    "core": 0,
    "source": 1, "store": 1, "export": 1, "alert": 1, "insight": 1,
    "agent": 2,
    "view": 3, "lib": 3, "fleet": 3,
    "cli": 4,
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


# What sim/ may include of src/: NVML's declarations and what they include.
SIM_MAY_USE = {"source/nvml_abi.h", "core/nvmlrc.h"}


def resolve(root, here, inc):
    """The include's file as a path relative to root, "/"-separated, or None
    when it is outside the tree's include directories."""
    dirs = [here, root, os.path.join(root, "src"), os.path.join(root, "include")]
    for d in dirs:
        path = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(path):
            break
    else:
        # not there (generated, or planted by mistake): judge the spelling
        first = os.path.normpath(inc).split(os.sep)[0]
        if inc.startswith("."):
            path = os.path.normpath(os.path.join(here, inc))
        elif first in ("src", "sim"):
            path = os.path.normpath(os.path.join(root, inc))
        elif first in LAYER:
            path = os.path.normpath(os.path.join(root, "src", inc))
        else:
            return None
    rel = os.path.relpath(path, root)
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


def sources(root, top):
    """(directory, file name) of each .c/.h under root/top, sorted."""
    out = []
    for d, subdirs, names in os.walk(os.path.join(root, top)):
        subdirs.sort()
        out += [(d, n) for n in sorted(names) if n.endswith((".c", ".h"))]
    return out


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, line in enumerate(f, 1):
            m = INC.match(line)
            if m:
                yield no, m.group(1)


def check_src(root, mod, d, name):
    """The offending lines of src/mod/.../name."""
    bad = []
    rel_file = os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/")
    for no, inc in includes(os.path.join(d, name)):
        target = resolve(root, d, inc)
        if target is None:
            continue
        parts = target.split("/")
        if parts[0] == "sim":
            bad.append(f"{rel_file}:{no}: {mod} includes {inc} (the simulator's; "
                       "gpumon reaches it only through dlopen)")
            continue
        if parts[0] != "src" or len(parts) < 3:
            continue
        tmod = parts[1]
        if tmod == mod or tmod not in LAYER:
            continue
        if LAYER[tmod] >= LAYER[mod]:
            kind = "a sibling" if LAYER[tmod] == LAYER[mod] else "a higher layer"
            bad.append(f"{rel_file}:{no}: {mod} includes {inc} ({kind})")
    return bad


def check_sim(root, d, name):
    """The offending lines of sim/.../name."""
    bad = []
    rel_file = os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/")
    for no, inc in includes(os.path.join(d, name)):
        target = resolve(root, d, inc)
        if target is None or not target.startswith("src/"):
            continue
        if target[len("src/"):] not in SIM_MAY_USE:
            bad.append(f"{rel_file}:{no}: sim includes {inc} (the simulator uses "
                       "only NVML's declarations of src/: source/nvml_abi.h)")
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    root = os.path.abspath(root)
    src = os.path.join(root, "src")
    lines = []
    for mod in sorted(os.listdir(src)):
        d = os.path.join(src, mod)
        if not os.path.isdir(d):
            continue
        if mod not in LAYER:
            lines.append(f"src/{mod}/: a module with no layer; add it to "
                         "scripts/check-layers.py and docs/architecture.md")
            continue
        for sd, name in sources(root, os.path.join("src", mod)):
            lines += check_src(root, mod, sd, name)
    if not os.path.isdir(os.path.join(root, "sim")):
        lines.append("sim/: not found; the simulator's includes are checked too")
    for sd, name in sources(root, "sim"):
        lines += check_sim(root, sd, name)
    for line in lines:
        print(line)
    if lines:
        print(f"layers: {len(lines)} include(s) against the layer order (docs/architecture.md)")
        return 1
    print("layers: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
