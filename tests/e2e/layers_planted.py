#!/usr/bin/env python3
"""layers_planted.py -- scripts/check-layers.py catches each kind of include
against the layer order when one is planted in a copy of the tree.

The repository's src/ and sim/ are copied into a temporary directory once;
each case adds one file there, runs the check on the copy, expects exit 1
and the line "FILE:LINE: ..." naming the planted include, then removes the
file.  The unchanged copy must pass, so a failure is the planted line's.
Cases: an upward include written as "../agent/x.h", as "agent/x.h" (the src
include directory) and as "src/agent/x.h" (the project root is an include
directory too), a sibling include, and the simulator (sim/, sim/legacy/)
including anything of src/ beyond NVML's declarations (source/nvml_abi.h).
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("SOURCE_ROOT") or os.path.join(os.path.dirname(__file__), "..", "..")
CHECK = os.path.join(ROOT, "scripts", "check-layers.py")

# (planted file, its text, the line check-layers must print, a word of its reason)
CASES = [
    ("src/core/planted.c", '#include "../agent/sampler.h"\n',
     "src/core/planted.c:1:", "higher layer"),
    ("src/core/planted.c", '/* x */\n#include "agent/sampler.h"\n',
     "src/core/planted.c:2:", "higher layer"),
    ("src/core/planted.c", '#include "src/agent/sampler.h"\n',
     "src/core/planted.c:1:", "higher layer"),
    ("src/store/planted.h", '#include "src/export/prom.h"\n',
     "src/store/planted.h:1:", "sibling"),
    ("src/store/planted.c", '#include "../../src/export/prom.h"\n',
     "src/store/planted.c:1:", "sibling"),
    ("src/agent/planted.c", '#include "sim/gpusim.h"\n',
     "src/agent/planted.c:1:", "simulator"),
    ("sim/planted.c", '#include "agent/sampler.h"\n',
     "sim/planted.c:1:", "simulator"),
    ("sim/planted.c", '#include "src/core/err.h"\n',
     "sim/planted.c:1:", "simulator"),
    ("sim/planted.h", '#include "../src/core/metrics.h"\n',
     "sim/planted.h:1:", "simulator"),
    ("sim/legacy/planted.c", '#include "source/nvml.h"\n',
     "sim/legacy/planted.c:1:", "simulator"),
]


def run(tree):
    p = subprocess.run([sys.executable, CHECK, tree], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    return p.returncode, p.stdout


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gpumon-layers.") as tmp:
        for d in ("src", "sim"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(tmp, d))
        rc, out = run(tmp)
        if rc != 0:
            print(f"FAIL: the unchanged copy does not pass (exit {rc}):\n{out}")
            return 1
        print("ok: the unchanged copy passes")
        for rel, text, want, why in CASES:
            path = os.path.join(tmp, rel)
            with open(path, "x", encoding="utf-8") as f:
                f.write(text)
            try:
                rc, out = run(tmp)
            finally:
                os.unlink(path)
            lines = [ln for ln in out.splitlines() if ln.startswith(want)]
            if rc == 1 and lines and why in lines[0]:
                print(f"ok: {rel} with {text.strip()!r}: {lines[0]}")
            else:
                print(f"FAIL: {rel} with {text.strip()!r}: exit {rc}, wanted a line "
                      f"starting {want!r} saying {why!r}; got:\n{out}")
                failed += 1
    print(f"layers-planted: {len(CASES) - failed} of {len(CASES)} planted includes caught")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
