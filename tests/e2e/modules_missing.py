#!/usr/bin/env python3
"""modules_missing.py -- gpumon's optional modules when they are absent or
cannot load, and found in a relocated install (src/core/modload.c).

The .deb's gpumon package only recommends gpumon-extras (the modules of
plot, top, the exporter and the webhooks, with cairo, ncurses, microhttpd
and curl), and the release tarball ships the modules but not the libraries
they need.  So a module may be missing at run time; the command that needs
it must say which file and which library, and what to install.

  missing   GPUMON_{PLOT,TOP,EXPORT}_MODULE naming a file that does not
            exist: `plot` and `top` (on a pseudo-terminal) exit 1, `agent
            --listen` exits non-zero; each error names the module file, the
            library it needs (libcairo.so.2, libncursesw.so.6,
            libmicrohttpd.so.12) and gpumon-extras
  relocated a copy of gpumon in DIR/bin with the plot module in
            DIR/lib/gpumon (install.sh --prefix DIR): plot finds it without
            any environment variable and writes the PNG
  broken    the same layout with a plot module whose DT_NEEDED names a
            library that does not exist (libcairo.so.2 patched to
            libcairo.so.0 in a copy): the error is the dynamic loader's
            reason for that module ("libcairo.so.0: cannot open shared
            object file"), not the absence of the installed path tried after
            it
"""
import os
import pty
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentlib import (GPUMON, Agent, Fail, Scratch, Skip, check, check_eq, main, run,  # noqa: E402
                      sim_env)
from exporter_lib import free_port  # noqa: E402

BUILD_SRC = os.path.dirname(GPUMON)
CASES = (  # env var, module file, library, gpumon's arguments after the history flags
    ("GPUMON_PLOT_MODULE", "gpumon_plot.so", "libcairo.so.2", "plot"),
    ("GPUMON_TOP_MODULE", "gpumon_top.so", "libncursesw.so.6", "top"),
    ("GPUMON_EXPORT_MODULE", "gpumon_export.so", "libmicrohttpd.so.12", "agent"),
)
HIST = {}


def history():
    """A short recorded history for plot (the agent for 3 samples)."""
    if HIST:
        return HIST
    d = Scratch("mod").path
    env = sim_env()
    data = os.path.join(d, "data")
    a = Agent(data, env, ["--interval", "200ms"]).start(wait_samples=3)
    check_eq(a.stop()[0], 0, "the agent's exit status", a.log())
    HIST.update(dir=d, data=data, env=env)
    return HIST


def run_top(env):
    """gpumon top on a pseudo-terminal (top refuses a pipe before it loads
    its module); returns (exit status, what it wrote)."""
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([GPUMON, "top"], stdin=slave, stdout=slave,
                             stderr=slave, env=env, close_fds=True)
        os.close(slave)
        slave = -1
        out = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the other side is closed
                break
            if not chunk:
                break
            out += chunk
            if len(out) > 1 << 20:
                break
        rc = p.wait(timeout=60)
        return rc, out.decode(errors="replace")
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def test_missing():
    h = history()
    for var, mod, lib, cmd in CASES:
        env = dict(h["env"])
        bad = os.path.join(h["dir"], "nonexistent", mod)
        env[var] = bad
        if cmd == "plot":
            rc, out, err = run(["plot", "--no-config", "--data-dir", h["data"], "--since", "1h",
                                "-o", os.path.join(h["dir"], "x.png")], env)
            check_eq(rc, 1, "plot without its module: exit status", err)
        elif cmd == "top":
            rc, err = run_top(env)
            check_eq(rc, 1, "top without its module: exit status", err)
        else:
            rc, out, err = run(["agent", "--no-config", "--data-dir",
                                os.path.join(h["dir"], "d-" + mod), "--listen",
                                f"127.0.0.1:{free_port()}"], env)
            check(rc != 0, "agent --listen without the exporter module exited 0", err)
        check(f"{bad}: cannot open shared object file" in err,
              f"{cmd}: the error names the module file", err)
        check(f"it needs {mod} and {lib}" in err, f"{cmd}: the error names {mod} and {lib}", err)
        check("apt install gpumon-extras" in err, f"{cmd}: the error names gpumon-extras", err)


def relocated(tag):
    """DIR/bin/gpumon (a copy) and DIR/lib/gpumon/; returns (DIR, gpumon)."""
    d = Scratch(tag).path
    os.makedirs(os.path.join(d, "bin"))
    os.makedirs(os.path.join(d, "lib", "gpumon"))
    exe = os.path.join(d, "bin", "gpumon")
    shutil.copy2(GPUMON, exe)
    return d, exe


def plot_with(exe, h, out):
    env = dict(h["env"])
    env.pop("GPUMON_PLOT_MODULE", None)
    p = subprocess.run([exe, "plot", "--no-config", "--data-dir", h["data"], "--since", "1h",
                        "-o", out], env=env, capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def test_relocated():
    h = history()
    src = os.path.join(BUILD_SRC, "gpumon_plot.so")
    if not os.path.exists(src):
        raise Skip(f"no plot module at {src}")
    d, exe = relocated("rel")
    shutil.copy2(src, os.path.join(d, "lib", "gpumon", "gpumon_plot.so"))
    out = os.path.join(d, "p.png")
    rc, stdout, err = plot_with(exe, h, out)
    check_eq(rc, 0, "plot from DIR/bin with its module in DIR/lib/gpumon", err)
    with open(out, "rb") as f:
        check_eq(f.read(8), b"\x89PNG\r\n\x1a\n", "the PNG's signature")


def test_broken():
    h = history()
    src = os.path.join(BUILD_SRC, "gpumon_plot.so")
    if not os.path.exists(src):
        raise Skip(f"no plot module at {src}")
    with open(src, "rb") as f:
        blob = f.read()
    if blob.count(b"libcairo.so.2\0") != 1:
        raise Fail("the plot module does not name libcairo.so.2 once in its dynamic strings")
    d, exe = relocated("brk")
    with open(os.path.join(d, "lib", "gpumon", "gpumon_plot.so"), "wb") as f:
        f.write(blob.replace(b"libcairo.so.2\0", b"libcairo.so.0\0"))
    rc, stdout, err = plot_with(exe, h, os.path.join(d, "p.png"))
    check_eq(rc, 1, "plot with a module that cannot load: exit status", err)
    check("cannot load the chart module: libcairo.so.0: cannot open shared object file" in err,
          "the error is the loader's reason for the module found", err)


if __name__ == "__main__":
    main([test_missing, test_relocated, test_broken])
