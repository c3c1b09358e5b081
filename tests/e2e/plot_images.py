#!/usr/bin/env python3
"""plot_images.py -- `gpumon plot` on a history recorded by the agent.

One recording, shared by the tests: `gpumon agent` at a 250 ms interval on
the simulator for ~3 s, a mark (`gpumon mark`), ~2 s more, the agent
stopped for ~3 s (a gap: 12 intervals), then ~3 s again.  Then:

  png      the PNG decoded here (zlib and the PNG chunk format, no imaging
           library): its size, every panel non-blank, the mark's solid line
           in the pixel column plot.h's geometry puts it at (and not in a
           column far from it), no series pixel in the columns of the gap
           while the columns either side have them
  svg      xmllint accepts it; the size; a path in each shown GPU's colour
  pdf      pdfinfo counts one page; pdftotext finds the panel titles, the
           GPUs' legend and the mark's text
  csv      the agent's CSV log of the same recording (--csv): non-blank,
           the gap kept
  default  no -o: gpumon-HOST-DATE.png in the current directory, its path
           printed; a symbolic link planted at that name is replaced, and
           the file it pointed to is left alone
  errors   unknown metric, bad --until, bad --id, unknown extension: exit 2
           naming the value; an unwritable directory and a missing store:
           exit 1 naming the path
"""
import os
import re
import sqlite3
import struct
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentlib  # noqa: E402
from agentlib import Agent, Fail, Scratch, Skip, check, check_eq, run, sim_env  # noqa: E402

# plot.h's fixed geometry (GM_PLOT_LEFT, GM_PLOT_RIGHT) and plot_draw.c's
# layout for one legend row: title 34, legend 26, then the panels.
LEFT, RIGHT, TOP, PANEL_H = 90, 30, 34 + 26, 190
WIDTH = 1200
MARK_RGB = (51, 51, 51)  # 0.2 grey: a mark's line
OKABE = [(230, 159, 0), (86, 180, 233)]  # GPU 0 and GPU 1's colours
METRICS = "util,mem,power,temp,clocks"

REC = {}


def png_decode(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB/RGBA PNG."""
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        check_eq(crc, zlib.crc32(kind + body) & 0xffffffff, f"CRC of chunk {kind!r}")
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            check(depth == 8 and ctype in (2, 6) and interlace == 0,
                  f"unexpected PNG form depth={depth} type={ctype} interlace={interlace}")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    check(w is not None, "no IHDR chunk")
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0:
                raise Fail(f"bad PNG filter {f} on row {y}")
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def saturated(p):
    return max(p) - min(p) > 40


def record():
    """Records the history once; REC gets the store, the mark's and the
    gap's times (ms) and the window to plot."""
    if REC:
        return REC
    d = Scratch("plot").path
    env = sim_env(speed=5, epoch=agentlib.epoch_for(0, 5))
    data = os.path.join(d, "data")
    args = ["--interval", "250ms"]
    # samples, not seconds: 10 (2.5 s at 250 ms on an idle machine) before the
    # mark, 8 after it, a 3 s gap with no agent, then 10 more
    a = Agent(data, env, args).start(wait_samples=2)
    a.wait_samples(12)
    rc, out, err = run(["mark", "--data-dir", data, "checkpoint-A"], env)
    check_eq(rc, 0, "gpumon mark", err)
    a.wait_samples(a.status()["samples"] + 8)
    check_eq(a.stop()[0], 0, "the agent's exit status", a.log())
    time.sleep(3.0)  # the gap itself (scenario), not a wait for something
    b = Agent(data, env, args).start(wait_samples=12)
    check_eq(b.stop()[0], 0, "the second agent's exit status", b.log())
    db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
    ts = [r[0] for r in db.execute(
        "SELECT s.ts FROM samples s JOIN gpus g ON g.id = s.gpu WHERE g.gpu_index = 0 "
        "ORDER BY s.ts")]
    marks = db.execute("SELECT ts FROM events WHERE type = 'mark' AND text = 'checkpoint-A'")
    mark = [r[0] for r in marks]
    db.close()
    check(len(ts) > 20, f"only {len(ts)} samples of GPU 0 were stored")
    check_eq(len(mark), 1, "marks in the store")
    gaps = [(ts[i + 1] - ts[i], ts[i], ts[i + 1]) for i in range(len(ts) - 1)]
    gap = max(gaps)
    check(gap[0] >= 2500, f"no gap of the agent's stop in the samples (longest {gap[0]} ms)")
    until_s = ts[-1] // 1000 + 2
    from_s = ts[0] // 1000 - 1
    REC.update(dir=d, data=data, env=env, ts=ts, mark=mark[0], gap=gap[1:], from_ms=from_s * 1000,
               to_ms=until_s * 1000,
               win=["--data-dir", data, "--since", f"{until_s - from_s}s", "--until",
                    time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(until_s)), "--id", "0,1",
                    "--metrics", METRICS])
    return REC


def x_of(t_ms):
    r = REC
    return LEFT + (t_ms - r["from_ms"]) / (r["to_ms"] - r["from_ms"]) * (WIDTH - RIGHT - LEFT)


def plot(name, *extra):
    r = record()
    path = os.path.join(r["dir"], name)
    rc, out, err = run(["plot"] + r["win"] + ["-o", path] + list(extra), r["env"])
    check_eq(rc, 0, f"gpumon plot -o {name}", err)
    check_eq(out, path + "\n", "what gpumon plot prints")
    return path


def test_png():
    path = plot("h.png")
    with open(path, "rb") as f:
        w, h, rows = png_decode(f.read())
    check_eq(w, WIDTH, "PNG width")
    npanel = len(METRICS.split(","))
    check(h >= TOP + npanel * PANEL_H + 40, f"PNG height {h} too small for {npanel} panels")
    # every panel has series pixels
    for k in range(npanel):
        y0, y1 = TOP + k * PANEL_H + 20, TOP + (k + 1) * PANEL_H - 22
        n = sum(1 for y in range(y0, y1) for x in range(LEFT, WIDTH - RIGHT)
                if saturated(rows[y][x]))
        check(n > 200, f"panel {k} ({METRICS.split(',')[k]}) is blank: {n} series pixels")
    ys = range(TOP, TOP + npanel * PANEL_H)

    def mark_run(x):
        return sum(1 for y in ys if rows[y][x] == MARK_RGB)
    xm = int(x_of(REC["mark"]))
    at = max(mark_run(x) for x in (xm - 1, xm, xm + 1))
    check(at >= npanel * (PANEL_H - 42) * 0.9,
          f"no mark line at x={xm}: {at} pixels of its grey in the column")
    far = xm + 60 if xm + 60 < WIDTH - RIGHT - 5 else xm - 60
    check(mark_run(far) < 20, f"the mark's grey also at x={far}, far from the mark")

    # the gap: no series pixel in its columns; pixels on either side
    def series_in(x):
        return sum(1 for y in ys if saturated(rows[y][x]))
    ga, gb = x_of(REC["gap"][0]), x_of(REC["gap"][1])
    inside = [x for x in range(int(ga) + 4, int(gb) - 3)]
    check(len(inside) >= 10, f"the gap is only {len(inside)} columns wide")
    bad = [x for x in inside if series_in(x)]
    check(not bad, f"series drawn across the gap at columns {bad[:10]} (gap {ga:.1f}-{gb:.1f})")
    check(series_in(int(ga) - 3) > 0 and series_in(int(gb) + 3) > 0,
          "no series pixels beside the gap")


def test_svg():
    path = plot("h.svg")
    p = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
    check_eq(p.returncode, 0, "xmllint on the SVG", p.stderr)
    text = open(path).read()
    m = re.search(r'<svg[^>]*width="(\d+)(?:pt)?"', text)
    check(m and int(m.group(1)) == WIDTH, "the SVG's width", text[:300])
    cols = {tuple(round(float(v) * 2.55) for v in c)
            for c in re.findall(r'stroke:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)', text)}
    cols |= {tuple(round(float(v) * 2.55) for v in c)
             for c in re.findall(r'stroke="rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)"', text)}
    for g, want in enumerate(OKABE):
        check(any(all(abs(a - b) <= 2 for a, b in zip(c, want)) for c in cols),
              f"no stroke in GPU {g}'s colour {want} in the SVG", sorted(cols)[:20])


def test_pdf():
    path = plot("h.pdf")
    p = subprocess.run(["pdfinfo", path], capture_output=True, text=True)
    check_eq(p.returncode, 0, "pdfinfo", p.stderr)
    check(re.search(r"^Pages:\s+1$", p.stdout, re.M), "pdfinfo: not one page", p.stdout)
    t = subprocess.run(["pdftotext", "-raw", path, "-"], capture_output=True, text=True).stdout
    for want in ("GPU utilisation (%)", "Memory used (GiB)", "Power draw (W)", "Temperature",
                 "SM clock (MHz)", "GPU 0", "GPU 1", "checkpoint-A", "thermal", "power cap"):
        check(want in t, f"pdftotext: no '{want}'", t[:800])
    check("GPU 2" not in t, "pdftotext: GPU 2 shown though --id 0,1", t[:800])


def test_csv():
    r = record()
    files = agentlib.day_files(os.path.join(r["data"], "csv"))
    check(files, "no CSV log of the recording")
    path = os.path.join(r["dir"], "csv.png")
    win = r["win"][2:]  # the window, GPUs and metrics without --data-dir
    rc, out, err = run(["plot", "--csv"] + files + win + ["-o", path], r["env"])
    check_eq(rc, 0, "gpumon plot --csv", err)
    with open(path, "rb") as f:
        w, h, rows = png_decode(f.read())
    check_eq(w, WIDTH, "PNG width from CSV")
    y0, y1 = TOP + 20, TOP + PANEL_H - 22
    xs = range(LEFT, WIDTH - RIGHT)
    n = sum(1 for y in range(y0, y1) for x in xs if saturated(rows[y][x]))
    check(n > 200, f"the utilisation panel from CSV is blank: {n} series pixels")
    ga, gb = x_of(REC["gap"][0]), x_of(REC["gap"][1])
    bad = [x for x in range(int(ga) + 4, int(gb) - 3)
           if any(saturated(rows[y][x]) for y in range(TOP, TOP + 5 * PANEL_H))]
    check(not bad, f"series drawn across the gap in the CSV plot at columns {bad[:10]}")
    rc, out, err = run(["plot", "--csv", files[0], "--task", "x"], r["env"])
    check_eq(rc, 2, "--csv with --task", err)


def test_default_name():
    r = record()
    cwd = os.path.join(r["dir"], "cwd")
    os.makedirs(cwd, exist_ok=True)
    argv = [agentlib.GPUMON, "plot", "--data-dir", r["data"], "--since", "1h"]
    p = subprocess.run(argv, env=r["env"], cwd=cwd, capture_output=True, text=True)
    check_eq(p.returncode, 0, "gpumon plot with no -o", p.stderr)
    name = p.stdout.strip()
    check(re.fullmatch(r"gpumon-[A-Za-z0-9._-]+-\d{4}-\d\d-\d\d\.png", name),
          f"default name {name!r}")
    with open(os.path.join(cwd, name), "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "the default file is not a PNG")
    # a planted link at that name is replaced, not written through
    victim = os.path.join(r["dir"], "victim")
    with open(victim, "w") as f:
        f.write("keep me\n")
    os.unlink(os.path.join(cwd, name))
    os.symlink(victim, os.path.join(cwd, name))
    p = subprocess.run(argv, env=r["env"], cwd=cwd, capture_output=True, text=True)
    check_eq(p.returncode, 0, "gpumon plot over a planted link", p.stderr)
    check_eq(open(victim).read(), "keep me\n", "the link's target")
    check(not os.path.islink(os.path.join(cwd, name)), "the planted link is still there")


def test_errors():
    r = record()
    env, d = r["env"], r["dir"]
    cases = [
        (["--metrics", "util,bogus"], 2, "unknown metric 'bogus'"),
        (["--until", "2026-13-01"], 2, "invalid --until '2026-13-01'"),
        (["--since", "yesterday"], 2, "invalid --since 'yesterday'"),
        (["--id", "0,x"], 2, "invalid --id '0,x'"),
        (["-o", os.path.join(d, "x.gif")], 2, "x.gif"),
        (["-o", os.path.join(d, "no-such-dir", "x.png")], 1, "no-such-dir"),
        (["--store-path", os.path.join(d, "none.db")], 1, "none.db: no such history database"),
    ]
    for args, want_rc, want_msg in cases:
        base = ["plot", "--data-dir", r["data"]] if "--store-path" not in args else ["plot"]
        rc, out, err = run(base + args, env)
        check_eq(rc, want_rc, f"exit status of plot {' '.join(args)}", err)
        check(err.startswith("gpumon: error: ") and want_msg in err,
              f"plot {' '.join(args)}: message", err)
        check_eq(out, "", f"plot {' '.join(args)}: stdout")


if __name__ == "__main__":
    for tool in ("xmllint", "pdfinfo", "pdftotext"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            print(f"SKIP: {tool} is missing (scripts/install-deps.sh installs it)")
            sys.exit(77)
    try:
        agentlib.main([test_png, test_svg, test_pdf, test_csv, test_default_name, test_errors])
    finally:
        if REC and not os.environ.get("GPUMON_KEEP"):
            subprocess.run(["rm", "-rf", REC["dir"]])
