#!/usr/bin/env python3
"""libgpumon as a user gets it: `meson install` into a scratch DESTDIR, then
C programs built with `cc $(pkg-config --cflags --libs gpumon)` against the
installed header and gpumon.pc (PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR
pointing there) and run on the installed simulator.

  installed_files:  the header, libgpumon.so.1 (its soname), the .so link,
                    gpumon.pc; the library exports only gpumon_* names.
  example_values:   the example of docs/libgpumon.md (taken from the page)
                    prints the same numbers as `gpumon query` at the same
                    pinned scenario time; the missing power reading of the
                    laptop GPU is a status word, not a number.
  errors:           tests/e2e/libgpumon_errors.c: every status and error
                    code of the API (unknown metric, GPU past the end, not
                    collected, wrong type, bad step values, no agent), and a
                    hung driver (faults.ini): the timeout names the call,
                    then the collector is wedged.
  example_marks:    with an agent running, the example's mark and step are
                    in the store and in `gpumon report --format json`;
                    without one, it fails with the no-agent message.

usage: libgpumon_install.py BUILD_DIR [TEST...]
"""
import glob
import json
import os
import re
import subprocess
import sys

import agentlib
from agentlib import DEADLINE, Agent, Fail, Scratch, check, check_eq, db_query, run, sim_env

BUILD = os.path.abspath(sys.argv.pop(1))
_inst = {}


def install():
    """Installs the build into a scratch DESTDIR once; returns its paths."""
    if _inst:
        return _inst
    root = agentlib.tempfile.mkdtemp(prefix="gmlib.", dir="/tmp")
    p = subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet",
                        "--destdir", root], capture_output=True, text=True)
    check_eq(p.returncode, 0, "meson install --destdir", p.stdout + p.stderr)
    pcs = glob.glob(os.path.join(root, "**", "pkgconfig", "gpumon.pc"), recursive=True)
    check_eq(len(pcs), 1, "one gpumon.pc installed", pcs)
    libdir = os.path.dirname(os.path.dirname(pcs[0]))
    _inst.update(root=root, pcdir=os.path.dirname(pcs[0]), libdir=libdir,
                 simlib=os.path.join(libdir, "gpumon", "libnvidia-ml.so.1"),
                 gpumon=glob.glob(os.path.join(root, "**", "bin", "gpumon"), recursive=True)[0])
    return _inst


def build(src_text, name, work):
    """Builds a C program against the installed library; returns its path."""
    i = install()
    src = os.path.join(work, name + ".c")
    with open(src, "w") as f:
        f.write(src_text)
    env = dict(os.environ, PKG_CONFIG_PATH=i["pcdir"], PKG_CONFIG_SYSROOT_DIR=i["root"])
    p = subprocess.run(["pkg-config", "--cflags", "--libs", "gpumon"], env=env,
                       capture_output=True, text=True)
    check_eq(p.returncode, 0, "pkg-config gpumon", p.stderr)
    flags = p.stdout.split()
    check(f"-I{i['root']}/" in p.stdout, "pkg-config's -I points into the DESTDIR", p.stdout)
    exe = os.path.join(work, name)
    cc = os.environ.get("CC", "cc")
    p = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe, src] + flags,
                       capture_output=True, text=True)
    check_eq(p.returncode, 0, f"cc {name}.c $(pkg-config --cflags --libs gpumon)", p.stderr)
    return exe


def lib_env(scn, pinned=None):
    i = install()
    env = sim_env(scn, pinned=pinned)
    env["GPUMON_NVML_LIB"] = i["simlib"]
    env["LD_LIBRARY_PATH"] = i["libdir"]
    if os.environ.get("LIBGPUMON_PRELOAD"):
        # a sanitized build: the ASan runtime first (tests/e2e/meson.build)
        env["LD_PRELOAD"] = os.environ["LIBGPUMON_PRELOAD"]
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def example_source():
    with open(os.path.join(agentlib.ROOT, "docs", "libgpumon.md")) as f:
        doc = f.read()
    m = re.search(r"## Example\n.*?```c\n(.*?)```", doc, re.S)
    check(m, "docs/libgpumon.md has a ```c block under ## Example")
    return m.group(1)


def test_installed_files():
    i = install()
    check(glob.glob(os.path.join(i["root"], "**", "include", "gpumon", "gpumon.h"),
                    recursive=True), "gpumon/gpumon.h installed")
    lib = os.path.join(i["libdir"], "libgpumon.so.1")
    check(os.path.exists(lib) and os.path.exists(os.path.join(i["libdir"], "libgpumon.so")),
          "libgpumon.so.1 and libgpumon.so installed", os.listdir(i["libdir"]))
    p = subprocess.run(["objdump", "-p", lib], capture_output=True, text=True)
    check(re.search(r"SONAME\s+libgpumon\.so\.1\n", p.stdout), "soname libgpumon.so.1", p.stdout)
    p = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
    names = [ln.split()[-1] for ln in p.stdout.splitlines() if ln.strip()]
    bad = [n for n in names if not n.startswith("gpumon_") and n != "GPUMON_1"]
    check_eq(bad, [], "libgpumon exports only gpumon_* names")
    with open(os.path.join(agentlib.ROOT, "include", "gpumon", "gpumon.h")) as f:
        declared = set(re.findall(r"\b(gpumon_[a-z_]+)\(", f.read()))
    exported = {n.split("@")[0] for n in names if n.startswith("gpumon_")}
    check_eq(exported, declared, "the exports are the header's functions")


def query_values(env):
    """`gpumon query` of the example's metrics: {gpu: [4 cells]}."""
    rc, out, err = run(["query", "--query-gpu=index,utilization.gpu,memory.used,power.draw,"
                        "power.draw.instant", "--format=csv,noheader,nounits"], env)
    check_eq((rc, err), (0, ""), "gpumon query")
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split(",")]
        rows[int(cells[0])] = cells[1:]
    return rows


def test_example_values():
    with Scratch("lbx") as d:
        exe = build(example_source(), "example", d)
        env = lib_env("workstation.ini", pinned=45)
        p = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=30)
        check_eq((p.returncode, p.stderr), (0, ""), "example on the simulator", p.stdout)
        want = query_values(env)
        lines = p.stdout.splitlines()
        check_eq(lines[0], f"driver ok, {len(want)} GPUs", "the example's first line", p.stdout)
        for gpu, cells in want.items():
            line = lines[1 + gpu]
            got = dict(re.findall(r" ([a-z.]+)=(\S+)", line))
            for key, cell in zip(("utilization.gpu", "memory.used", "power.draw",
                                  "power.draw.instant"), cells):
                if cell.startswith("["):
                    check(got[key] in ("not_available", "not_supported"),
                          f"gpu {gpu} {key}: a status word where query says {cell}", line)
                    continue
                num = float(got[key])
                if key == "memory.used":
                    check_eq(int(num // 1048576), int(cell), f"gpu {gpu} memory.used MiB", line)
                else:
                    check(abs(num - float(cell)) < 0.006, f"gpu {gpu} {key}: {num} vs {cell}",
                          line)
            check(" power.draw=" in line, "the example prints power.draw", line)
        check(re.search(r"power\.draw=[0-9.]+ watts", lines[1]), "units printed", lines[1])


def test_errors():
    with Scratch("lbe") as d:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "libgpumon_errors.c")) as f:
            exe = build(f.read(), "errors", d)
        env = lib_env("workstation.ini", pinned=45)
        p = subprocess.run([exe, os.path.join(d, "nodata")], env=env, capture_output=True,
                           text=True, timeout=30)
        check_eq((p.returncode, p.stdout, p.stderr), (0, "all checks passed\n", ""),
                 "libgpumon_errors")
        # the driver hangs 60 s: a sample (or a close) that waited for it
        # would not end within the 30 s (no tighter duration is asserted)
        hang_scn = os.path.join(agentlib.ROOT, "tests", "fixtures", "hang-long.ini")
        try:
            p = subprocess.run([exe, "--hang"], env=lib_env(hang_scn, pinned=130),
                               capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            raise Fail("libgpumon_errors --hang waited for the hung driver (30 s)")
        check_eq((p.returncode, p.stdout, p.stderr), (0, "all checks passed\n", ""),
                 "libgpumon_errors --hang")


def test_example_marks():
    with Scratch("lbm") as d:
        exe = build(example_source(), "example", d)
        data = os.path.join(d, "data")
        env = lib_env("h100x8-training.ini", pinned=300)
        p = subprocess.run([exe, data], env=env, capture_output=True, text=True, timeout=30)
        check_eq(p.returncode, 1, "example with no agent: exit 1", p.stdout + p.stderr)
        check("no gpumon agent is running for data directory" in p.stderr and
              "(no_agent)" in p.stderr, "example with no agent: the message", p.stderr)
        a = Agent(data, sim_env(pinned=300), ["--interval", "1s", "--no-alerts"])
        try:
            a.start()
            ev0 = a.status()["sinks"]["store"]["events"]
            p = subprocess.run([exe, data], env=env, capture_output=True, text=True, timeout=30)
            check_eq((p.returncode, p.stderr), (0, ""), "example with an agent", p.stdout)
            check(p.stdout.endswith("marked\n"), "example says marked", p.stdout)
            a.wait_for(lambda s: s["sinks"]["store"]["events"] >= ev0 + 2, DEADLINE,
                       "the mark and the step in the store")
            rc, _ = a.stop()
            check_eq(rc, 0, "agent exit")
        finally:
            a.cleanup()
        texts = [r[0] for r in db_query(os.path.join(data, "gpumon.db"),
                                        "SELECT text FROM events WHERE type = 'mark' ORDER BY id")]
        check_eq(texts, ["epoch 3", "step 120 loss=0.53 samples_per_s=812.4"], "marks in the store")
        rc, out, err = run(["report", "--no-config", "--data-dir", data, "--since", "2h",
                            "--format", "json"], sim_env(pinned=300))
        check_eq((rc, err), (0, ""), "gpumon report")
        marks = {m["text"] for row in json.loads(out) for m in row["marks"]}
        check_eq(marks, {"epoch 3", "step 120 loss=0.53 samples_per_s=812.4"},
                 "the mark and the step in report's marks")


if __name__ == "__main__":
    try:
        agentlib.main([test_installed_files, test_example_values, test_errors,
                       test_example_marks])
    finally:
        if _inst:
            agentlib.shutil.rmtree(_inst["root"], ignore_errors=True)
