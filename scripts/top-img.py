#!/usr/bin/env python3
"""top-img.py -- makes docs/img/top-80x24.png and docs/img/top-80x24.txt,
the picture of `gpumon top` on an 80x24 terminal: the 8-GPU simulator
(h100x8-training.ini, its clock started 10 minutes in so that GPU 5 is
hot), real processes standing in for the 8 ranks so that the one dead PID
is the 30 GiB orphan on GPU 7, an agent that has recorded a minute into a
private data directory (so top's charts start full), and top run until its
own diagnosis has spoken (35 s).  The screen is read with tmux capture-pane
(with its colours), written as text, and drawn to a PNG by headless
chromium from an HTML page of the cells (no imaging package needed).

    scripts/top-img.py [BUILD_DIR]      (default build/; about 2 minutes)

Needs tmux and chromium (scripts/install-deps.sh installs both).
"""
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
GPUMON = os.path.join(BUILD, "src", "gpumon")
COLS, ROWS = 80, 24
PALETTE = {0: "#1e1e1e", 1: "#d0312d", 2: "#3a9d23", 3: "#c7a500", 4: "#3f6fd1", 5: "#b040b0",
           6: "#1f9ea3", 7: "#d4d4d4"}
FG, BG = "#d4d4d4", "#1e1e1e"


def sgr_html(line, st):
    """One captured line (tmux capture-pane -e) as HTML spans.  st is the
    attribute state, carried from line to line: tmux writes only changes,
    and a line may begin with the attributes the one before ended with."""
    out, pos = [], 0
    for m in re.finditer(r"\x1b\[([0-9;]*)m|([^\x1b]+)", line):
        if m.group(2) is not None:
            fg, bg = st["fg"] or FG, st["bg"] or BG
            if st["rev"]:
                fg, bg = bg, fg
            style = f"color:{fg};background:{bg}"
            if st["bold"]:
                style += ";font-weight:bold"
            if st["dim"]:
                style += ";opacity:.7"
            if st["ul"]:
                style += ";text-decoration:underline"
            out.append(f'<span style="{style}">{html.escape(m.group(2))}</span>')
            pos += len(m.group(2))
            continue
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                st.update(fg=None, bg=None, bold=False, dim=False, ul=False, rev=False)
            elif c == 1:
                st["bold"] = True
            elif c == 2:
                st["dim"] = True
            elif c == 4:
                st["ul"] = True
            elif c == 7:
                st["rev"] = True
            elif c == 22:
                st["bold"] = st["dim"] = False
            elif c == 24:
                st["ul"] = False
            elif c == 27:
                st["rev"] = False
            elif 30 <= c <= 37:
                st["fg"] = PALETTE[c - 30]
            elif c == 39:
                st["fg"] = None
            elif 40 <= c <= 47:
                st["bg"] = PALETTE[c - 40]
            elif c == 49:
                st["bg"] = None
            elif 90 <= c <= 97:
                st["fg"] = PALETTE[c - 90]
            elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                st["fg" if c == 38 else "bg"] = PALETTE.get(codes[i + 2] % 8)
                i += 2
            i += 1
    return "".join(out)


def main():
    for tool in ("tmux", "chromium"):
        if not shutil.which(tool):
            sys.exit(f"top-img.py: {tool} is not installed")
    subprocess.run(["ninja", "-C", BUILD, "src/gpumon", "src/gpumon_top.so",
                    "sim/libnvidia-ml.so.1"], check=True, stdout=subprocess.DEVNULL)
    tmp = tempfile.mkdtemp(prefix="gpumon-top-img-")
    conf = os.path.join(tmp, "conf")
    os.makedirs(conf)
    with open(os.path.join(conf, "gpumon.conf"), "w") as f:
        f.write(f"[agent]\ndata-dir = {tmp}/data\ninterval = 1s\n[exporter]\nlisten =\n")
    ranks = [subprocess.Popen(["sleep", "900"]) for _ in range(8)]
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPUSIM_TIME", "GPUSIM_SPEED", "NO_COLOR")}
    env.update({"GPUMON_NVML_LIB": os.path.join(BUILD, "sim", "libnvidia-ml.so.1"),
                "GPUSIM_SCENARIO": os.path.join(ROOT, "scenarios", "h100x8-training.ini"),
                "GPUSIM_EPOCH": str(int(time.time()) - 600), "CONFIGURATION_DIRECTORY": conf,
                "TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "tmux-256color"})
    env.update({f"GPUSIM_PID_RANK{i}": str(p.pid) for i, p in enumerate(ranks)})
    agent = subprocess.Popen([GPUMON, "agent"], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sock = os.path.join(tmp, "tmux.sock")

    def tmux(*a):
        return subprocess.run(["tmux", "-S", sock, "-f", "/dev/null"] + list(a), env=env,
                              check=True, capture_output=True, text=True).stdout
    try:
        time.sleep(60)
        tmux("new-session", "-d", "-s", "t", "-x", str(COLS), "-y", str(ROWS), GPUMON, "top")
        time.sleep(35)
        text = tmux("capture-pane", "-p", "-t", "t")
        esc = tmux("capture-pane", "-p", "-e", "-t", "t")
        tmux("kill-server")
    finally:
        agent.terminate()
        agent.wait()
        for p in ranks:
            p.kill()
    lines = (esc.rstrip("\n").split("\n") + [""] * ROWS)[:ROWS]
    st = {"fg": None, "bg": None, "bold": False, "dim": False, "ul": False, "rev": False}
    page = os.path.join(tmp, "top.html")
    with open(page, "w") as f:
        f.write('<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
                f"body{{margin:0;background:{BG}}}"
                f"pre{{margin:0;padding:10px;font:16px/19px 'DejaVu Sans Mono',monospace;"
                f"color:{FG};background:{BG}}}</style></head><body><pre>"
                + "\n".join(sgr_html(l, st) for l in lines) + "</pre></body></html>\n")
    img = os.path.join(ROOT, "docs", "img")
    with open(os.path.join(img, "top-80x24.txt"), "w") as f:
        f.write(text)
    w, h = int(COLS * 9.65) + 24, ROWS * 19 + 20
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--hide-scrollbars", f"--user-data-dir={tmp}/chromium",
                    f"--window-size={w},{h}", f"--screenshot={img}/top-80x24.png",
                    "file://" + page], env=dict(env, HOME=tmp), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {img}/top-80x24.png and {img}/top-80x24.txt")


if __name__ == "__main__":
    main()
