#!/usr/bin/env python3
"""check-layers.py -- fails when a source file includes a header of a layer
above its own, or of a sibling module in the same layer.

The layers, lowest first (docs/architecture.md):

    core  <  {source, store, export, alert, insight}  <  agent  <  {view, lib}  <  cli

A file in src/X/ may include headers of X itself and of any layer strictly
below X's; nothing else.  Headers are found by their quoted include path
("../core/err.h", "core/err.h"); system headers (<...>) are not checked.
Prints one line per upward include, "FILE:LINE: X includes Y (layer ...)",
and exits 1 when there is any.
"""
import os
import re
import sys

LAYER = {
    "core": 0,
    "source": 1, "store": 1, "export": 1, "alert": 1, "insight": 1,
    "agent": 2,
    "view": 3, "lib": 3,
    "cli": 4,
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module_of(include, here):
    """The module directory an include path names, or None for a file in the
    including file's own directory."""
    parts = os.path.normpath(os.path.join(here, include)).split(os.sep)
    if "src" in parts:
        rest = parts[parts.index("src") + 1:]
        if len(rest) >= 2:
            return rest[0]
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    src = os.path.join(root, "src")
    bad = 0
    for mod in sorted(os.listdir(src)):
        d = os.path.join(src, mod)
        if not os.path.isdir(d):
            continue
        if mod not in LAYER:
            print(f"src/{mod}/: a module with no layer; add it to scripts/check-layers.py "
                  "and docs/architecture.md")
            bad += 1
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(d, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for no, line in enumerate(f, 1):
                    m = INC.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    # "core/x.h" (from the src include dir) or "../core/x.h"
                    if "/" in inc and not inc.startswith(("..", ".")):
                        target = inc.split("/")[0]
                    else:
                        target = module_of(inc, d)
                    if target is None or target == mod or target not in LAYER:
                        continue
                    if LAYER[target] >= LAYER[mod]:
                        kind = "a sibling" if LAYER[target] == LAYER[mod] else "a higher layer"
                        print(f"src/{mod}/{name}:{no}: {mod} includes {inc} ({kind})")
                        bad += 1
    if bad:
        print(f"layers: {bad} include(s) against the layer order (docs/architecture.md)")
        return 1
    print("layers: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
