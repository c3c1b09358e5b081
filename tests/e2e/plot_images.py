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
  default-window  no --since: the window is the history's span (seconds
           here), so the series reach both edges of the panel
  multiples  all 8 GPUs: each panel holds at most 4 lines (the palette's
           colours counted in each framed panel of the PNG), so each metric
           has two panels
  labels   a copy of the store with 8 marks and 3 fired alerts 100 ms apart
           (labels that would pile up): no two words of the PDF overlap
           (pdftotext -bbox), and the legend lists every mark and alert
  ticks    every panel's y tick labels are an arithmetic run with a step of
           1, 2 or 5 times a power of ten
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
# layout for one legend row: title 34, legend 26, the row of the marks'
# numbers 18, then the panels.
LEFT, RIGHT, TOP, PANEL_H = 90, 30, 34 + 26 + 18, 190
WIDTH = 1200
MARK_RGB = (51, 51, 51)  # 0.2 grey: a mark's line
# the palette (src/core/nice.c: Okabe-Ito, its yellow darkened), in series order
PALETTE = [(0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233),
           (213, 94, 0), (0, 0, 0), (160, 138, 0)]
OKABE = PALETTE[:2]  # GPU 0 and GPU 1's colours
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


def panel_colours(rows, w):
    """Per framed panel of a PNG (top to bottom): the palette colours its
    plot area holds (pixels within 10 of one, at least 15 of them: a
    line's blend with white at its edges is not another colour)."""
    # the frame's left edge: column LEFT in the frame's grey (0.3), for the
    # panel's height; a line at the edge may cover a few of its pixels
    runs, start, miss = [], None, 0
    for y in range(len(rows)):
        if max(abs(a - 77) for a in rows[y][LEFT]) <= 3:
            if start is None:
                start = y
            miss = 0
            end = y
        elif start is not None:
            miss += 1
            if miss > 6:
                runs.append((start, end))
                start, miss = None, 0
    if start is not None:
        runs.append((start, end))
    panels = []
    for y0, y1 in runs:
        if y1 - y0 < 100:
            continue
        y0, y1 = y0 + 2, y1 - 1
        count = [0] * len(PALETTE)
        for y in range(y0, y1):
            for x in range(LEFT + 2, w - RIGHT - 2):
                p = rows[y][x]
                for i, c in enumerate(PALETTE):
                    if max(abs(a - b) for a, b in zip(p, c)) <= 10:
                        count[i] += 1
                        break
        panels.append({i for i, n in enumerate(count) if n >= 15})
    return panels


def test_default_window():
    r = record()
    path = os.path.join(r["dir"], "default-window.png")
    rc, out, err = run(["plot", "--data-dir", r["data"], "--id", "0", "--metrics", "util",
                        "-o", path], r["env"])
    check_eq(rc, 0, "gpumon plot without --since", err)
    with open(path, "rb") as f:
        w, h, rows = png_decode(f.read())
    y0, y1 = TOP + 20, TOP + PANEL_H - 22
    xs = [x for x in range(LEFT, w - RIGHT) if any(saturated(rows[y][x]) for y in range(y0, y1))]
    span = w - RIGHT - LEFT
    check(xs and xs[0] < LEFT + span * 0.1 and xs[-1] > w - RIGHT - span * 0.1,
          f"the default window is not the history's span: series in columns "
          f"{xs[:1]}..{xs[-1:]} of {LEFT}..{w - RIGHT}")


def test_multiples():
    r = record()
    path = os.path.join(r["dir"], "eight.png")
    win = [a for a in r["win"]]
    i = win.index("--id")
    del win[i:i + 2]
    i = win.index("--metrics")
    win[i + 1] = "util,power"
    rc, out, err = run(["plot"] + win + ["-o", path], r["env"])
    check_eq(rc, 0, "gpumon plot of 8 GPUs", err)
    with open(path, "rb") as f:
        w, h, rows = png_decode(f.read())
    panels = panel_colours(rows, w)
    check_eq(len(panels), 4, "panels for 2 metrics of 8 GPUs (4 lines each)",
             [sorted(p) for p in panels])
    for k, p in enumerate(panels):
        check(1 <= len(p) <= 4, f"panel {k} has {len(p)} series colours: {sorted(p)}")
    # the two panels of a metric show different GPUs (a dotted line under
    # the others may keep too few pixels of its own colour to be counted)
    check(len(panels[0] | panels[1]) >= 6, f"the GPUs' colours over a metric: "
          f"{sorted(panels[0])} and {sorted(panels[1])}")


def crowded_store():
    """A copy of the recording's store with 8 marks and 3 fired alerts
    100 ms apart just after the first mark: labels that would pile up."""
    r = record()
    d = os.path.join(r["dir"], "crowded")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "gpumon.db")
    if os.path.exists(path):
        return path
    src = sqlite3.connect(f"file:{r['data']}/gpumon.db?mode=ro", uri=True)
    dst = sqlite3.connect(path)
    src.backup(dst)
    src.close()
    t0 = r["mark"]
    for k in range(8):
        dst.execute("INSERT INTO events (ts, type, text) VALUES (?, 'mark', ?)",
                    (t0 + 200 + 100 * k, f"step-{k} saved"))
    gid = dst.execute("SELECT id FROM gpus WHERE gpu_index = 1").fetchone()[0]
    for k in range(3):
        dst.execute("INSERT INTO alerts (ts, rule, severity, state, repeat, gpu, summary, "
                    "fingerprint) VALUES (?, ?, 'critical', 'firing', 0, ?, 'hot', ?)",
                    (t0 + 250 + 100 * k, f"gpu_hot_{k}", gid, f"fp{k}"))
    dst.commit()
    dst.close()
    return path


def pdf_words(path):
    """The words of a PDF with their boxes: (text, x0, y0, x1, y1)."""
    p = subprocess.run(["pdftotext", "-bbox", path, "-"], capture_output=True, text=True)
    check_eq(p.returncode, 0, "pdftotext -bbox", p.stderr)
    words = []
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" '
                         r'yMax="([\d.]+)">([^<]*)</word>', p.stdout):
        words.append((m.group(5),) + tuple(float(m.group(k)) for k in range(1, 5)))
    check(words, "pdftotext -bbox found no words", p.stdout[:400])
    return words


def crowded_pdf():
    r = record()
    db = crowded_store()
    path = os.path.join(r["dir"], "crowded.pdf")
    win = ["--store-path", db] + r["win"][2:]
    i = win.index("--id")
    win[i + 1] = "0,1"
    rc, out, err = run(["plot"] + win + ["-o", path], r["env"])
    check_eq(rc, 0, "gpumon plot of the crowded store", err)
    return path


def test_labels():
    words = pdf_words(crowded_pdf())
    bad = []
    ws = sorted(words, key=lambda w: w[1])
    for i, a in enumerate(ws):
        for b in ws[i + 1:]:
            if b[1] >= a[3] - 0.5:
                break
            ox = min(a[3], b[3]) - max(a[1], b[1])
            oy = min(a[4], b[4]) - max(a[2], b[2])
            if ox > 0.5 and oy > 0.5:
                bad.append((a[0], b[0], round(a[1]), round(a[2])))
    check(not bad, f"{len(bad)} pairs of words overlap in the PDF", bad[:12])
    text = " ".join(w[0] for w in words)
    for k in range(8):
        check(f"step-{k}" in text, f"mark step-{k} is not in the PDF", text[:600])
    for k in range(3):
        check(f"gpu_hot_{k}" in text, f"alert gpu_hot_{k} is not in the PDF", text[:600])


def nice_step(s):
    m = s / 10 ** __import__("math").floor(__import__("math").log10(s) + 1e-9)
    return any(abs(m - k) < 1e-6 for k in (1, 2, 5))


def test_ticks():
    words = pdf_words(crowded_pdf())
    strip = min(w[2] for w in words if w[0] == "Clocks")
    labels = sorted((w[2], float(w[0])) for w in words
                    if w[3] <= LEFT - 2 and w[2] < strip and re.fullmatch(r"-?[\d.]+", w[0]))
    runs, cur = [], []
    for y, v in labels:  # top to bottom a panel's ticks go down
        if cur and v >= cur[-1]:
            runs.append(cur)
            cur = []
        cur.append(v)
    runs.append(cur)
    check(len(runs) >= 5, f"y tick runs: {runs}")
    for run_ in runs:
        steps = {round(a - b, 9) for a, b in zip(run_, run_[1:])}
        check(len(run_) >= 2 and len(steps) == 1 and nice_step(steps.pop()),
              f"y ticks {run_}: not a 1-2-5 step")


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
        agentlib.main([test_png, test_svg, test_pdf, test_csv, test_default_name,
                       test_default_window, test_multiples, test_labels, test_ticks,
                       test_errors])
    finally:
        if REC and not os.environ.get("GPUMON_KEEP"):
            subprocess.run(["rm", "-rf", REC["dir"]])
