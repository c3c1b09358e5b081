#!/usr/bin/env python3
"""report_html.py -- `gpumon report --html` on a history recorded by the agent.

One recording, shared by the tests: `gpumon agent` at a 250 ms interval on a
two-GPU simulator (speed 5) whose GPU 0 has a hostile name (markup, quotes,
a newline, ESC and a byte 0xff), with an alert rule that fires at once
(its summary holds that name); ~2.5 s, a hostile mark (markup and ESC),
~2 s more, the agent stopped for ~3 s (a gap), then ~2.5 s again.  Then:

  file     the report is written and its path printed; xmllint's HTML parser
           reads it with no error but the HTML5 and SVG tags it does not know,
           and it is well-formed XML too; no http:/https: URL anywhere, no
           <script>, <link>, <img>, <iframe>, <object>, <embed>, no src= or
           href=, a CSP meta with default-src 'none'; the hostile texts appear
           only escaped (no raw "<script", "<img", ESC, control or 0xff byte;
           valid UTF-8); one summary row per GPU with the numbers of
           `report --json --by period`; five charts, a series per GPU, the
           mark's line where the chart's geometry puts it, no series path
           across the gap; the alert and the mark listed
  browser  Debian's chromium, headless, offline (every host name resolves to
           nothing) and with logging on: no CONSOLE line (a CSP violation or
           a script error would be one), the DOM has 2 summary rows whose
           numbers equal `report --json --by period`, 5 SVG charts with
           series, the hostile GPU name as text (not as an element), no
           element that loads anything.  SKIP (77) when chromium is absent.
  layout   (a recording of its own) a GPU named `evil<U+202E>txt.exe`, a
           process with U+202E in its name and a 3,000-character unbroken
           mark, the report opened in chromium (DevTools, 800 x 600): the
           page is no wider than the window (the mark wraps), every <bdi>
           computes unicode-bidi: isolate and overflow-wrap: anywhere, the
           names and the mark are in <bdi> elements, the name's "txt" is
           drawn left of its "exe" (not reversed) and holds no U+202E.
           A full-page PNG is left in $GM_TEST_PNG_DIR when that is set.
  symlink  a symbolic link planted at the output name is replaced by the
           report; the file it pointed to is untouched
  errors   --html with --format: exit 2; a missing store, an unknown task, an
           unwritable directory (not as root), a directory that does not
           exist: exit 1 naming it; an empty period: exit 1, no file
"""
import html.parser
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentlib  # noqa: E402
from agentlib import Agent, Scratch, Skip, check, check_eq, run, sim_env  # noqa: E402

GPU_NAME = b'<script>alert("gpu")</script>&\'x\nB\x1b[2J\xff'
MARK = '<img src=x onerror=alert(2)>&amp; \x1b[2J mark-A'
RULE = "html-test-hot"
# report_html.h's geometry
WIDTH, LEFT, RIGHT = 960, 64, 16

SCENARIO = """\
[machine]
seed = 7

[gpu.0]
model = H100-SXM5-80GB
name = ${GM_T_GPU_NAME}
workload = steady

[gpu.1]
model = H100-SXM5-80GB
workload = steady

[process.evil]
gpu = 0
pid = 4194999
name = <script>evil&x
used_memory = 1GiB
"""

CONFIG = f"""\
[alert.{RULE}]
when = temperature.gpu > 0
severity = warning
"""

REC = {}


def line_form(b):
    """What gm_text_line makes of bytes b (one line, U+FFFD for controls)."""
    s = b.decode("utf-8", "replace")
    return "".join("\ufffd" if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f else c for c in s)


def record():
    if REC:
        return REC
    d = Scratch("rhtml").path
    scn = os.path.join(d, "hostile.ini")
    with open(scn, "w") as f:
        f.write(SCENARIO)
    conf = os.path.join(d, "gpumon.conf")
    with open(conf, "w") as f:
        f.write(CONFIG)
    env = sim_env(scn, speed=5, epoch=agentlib.epoch_for(0, 5))
    envb = {k.encode(): v.encode() for k, v in env.items()}
    envb[b"GM_T_GPU_NAME"] = GPU_NAME
    data = os.path.join(d, "data")
    args = ["--interval", "250ms", "--task", "html-test"]
    # samples, not seconds: 10 (2.5 s at 250 ms on an idle machine) before the
    # mark, 8 after it, a 3 s gap with no agent, then 10 more
    a = Agent(data, envb, args, config=conf).start(wait_samples=2)
    a.wait_samples(12)
    rc, out, err = run(["mark", "--data-dir", data, "--no-config", MARK], env)
    check_eq(rc, 0, "gpumon mark", err)
    a.wait_samples(a.status()["samples"] + 8)
    check_eq(a.stop()[0], 0, "the agent's exit status", a.log())
    time.sleep(3.0)  # the gap itself (scenario), not a wait for something
    b = Agent(data, envb, args, config=conf).start(wait_samples=12)
    check_eq(b.stop()[0], 0, "the second agent's exit status", b.log())
    db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
    ts = [r[0] for r in db.execute(
        "SELECT s.ts FROM samples s JOIN gpus g ON g.id = s.gpu WHERE g.gpu_index = 0 "
        "ORDER BY s.ts")]
    mark = [r[0] for r in db.execute("SELECT ts FROM events WHERE type = 'mark'")]
    nalerts = db.execute("SELECT count(*) FROM alerts WHERE rule = ?", (RULE,)).fetchone()[0]
    db.close()
    check(len(ts) > 20, f"only {len(ts)} samples of GPU 0 were stored")
    check_eq(len(mark), 1, "marks in the store")
    check(nalerts >= 1, "the rule did not fire (no notice in the alerts table)")
    gaps = [(ts[i + 1] - ts[i], ts[i], ts[i + 1]) for i in range(len(ts) - 1)]
    gap = max(gaps)
    check(gap[0] >= 2500, f"no gap of the agent's stop in the samples (longest {gap[0]} ms)")
    # the report counts the hours that start in the period: from the hour
    # of the first sample to just after the last one
    from_s = ts[0] // 1000 // 3600 * 3600
    to_s = ts[-1] // 1000 + 2
    iso = lambda s: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))  # noqa: E731
    win = ["--no-config", "--data-dir", data, "--from", iso(from_s), "--until", iso(to_s)]
    out_path = os.path.join(d, "report.html")
    rc, out, err = run(["report"] + win + ["--html", out_path], env)
    check_eq(rc, 0, "report --html exit status", err)
    check_eq(out, out_path + "\n", "report --html prints the path")
    rc, js, err = run(["report"] + win + ["--format", "json", "--by", "period"], env)
    check_eq(rc, 0, "report --json --by period exit status", err)
    rc, ujs, err = run(["report"] + win + ["--format", "json", "--by", "user"], env)
    check_eq(rc, 0, "report --json --by user exit status", err)
    REC.update(dir=d, data=data, env=env, ts=ts, mark=mark[0], gap=gap[1:], win=win,
               path=out_path, json=json.loads(js), usage=json.loads(ujs))
    return REC


class Dom(html.parser.HTMLParser):
    """The elements of a document: (tag, attrs, text directly inside)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.el = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        e = [tag, dict(attrs), ""]
        self.el.append(e)
        if tag not in ("meta", "br", "hr", "input", "img", "link"):
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self.el.append([tag, dict(attrs), ""])

    def handle_endtag(self, tag):
        while self.stack:
            e = self.stack.pop()
            if e[0] == tag:
                break

    def handle_data(self, data):
        for e in self.stack:
            e[2] += data

    def find(self, tag, **want):
        return [e for e in self.el if e[0] == tag
                and all(e[1].get(k.replace("_", "-")) == v for k, v in want.items())]


def parse(text):
    d = Dom()
    d.feed(text)
    d.close()
    return d


LOADERS = ("script", "link", "img", "iframe", "object", "embed", "audio", "video", "source",
           "frame", "base", "form", "use", "image", "foreignobject")


def check_dom(d, where):
    """What both the file and the browser's DOM must show."""
    rec = REC
    for e in d.el:
        check(e[0] not in LOADERS, f"{where}: a <{e[0]}> element", e)
        for k, v in e[1].items():
            check(k not in ("src", "href", "xlink:href", "srcset", "action", "poster", "data",
                            "background") and not k.startswith("on"),
                  f"{where}: attribute {k}={v!r} on <{e[0]}>")
    csp = [e for e in d.find("meta") if e[1].get("http-equiv", "").lower() ==
           "content-security-policy"]
    check_eq(len(csp), 1, f"{where}: CSP meta tags")
    check("default-src 'none'" in csp[0][1]["content"], f"{where}: CSP", csp[0][1])
    check("script-src" not in csp[0][1]["content"], f"{where}: CSP allows scripts", csp[0][1])
    # who held the GPUs: the hostile process on GPU 0, escaped (the parser
    # unescapes: the text reads back whole), its GPU time as report --by user
    urows = d.find("tr", **{"class": "usage"})
    check_eq(len(urows), 1, f"{where}: processes-and-users rows")
    check("<script>evil&x" in urows[0][2], f"{where}: the process's name", urows[0][2])
    check_eq(len(rec["usage"]), 1, "report --by user rows")
    check_eq(urows[0][1]["data-gpu"], "0", f"{where}: the process's GPU")
    gs = float(urows[0][1]["data-gpu-seconds"])
    check(abs(gs - rec["usage"][0]["gpu_seconds"]) < 0.002,
          f"{where}: GPU-seconds {gs} vs report --by user", rec["usage"][0])
    check(rec["usage"][0]["gpu_seconds"] > 3, "the process's GPU time", rec["usage"][0])
    # summary: one row per GPU, numbers as report --json --by period
    rows = d.find("tr", **{"class": "gpu"})
    check_eq(len(rows), 2, f"{where}: summary rows")
    by_gpu = {r["gpu"]: r for r in rec["json"]}
    check_eq(sorted(by_gpu), [0, 1], f"{where}: GPUs of report --json --by period")
    cells = [e for e in d.el if e[0] in ("td", "span") and "data-key" in e[1]]
    # cells come in document order, row by row: split them at each "gpu" cell
    per_row, cur = [], None
    for e in cells:
        if e[1]["data-key"] == "gpu":
            cur = {}
            per_row.append(cur)
        if cur is not None:
            cur[e[1]["data-key"]] = e[2].strip()
    check_eq(len(per_row), 2, f"{where}: rows with a gpu cell")
    compared = 0
    for row in per_row:
        g = int(row["gpu"])
        want = by_gpu[g]
        check_eq(int(rows[g][1]["data-gpu"]), g, f"{where}: data-gpu of row {g}")
        for k, text in row.items():
            if k in ("name", "thr", "findings", "hours", "gpu"):
                continue
            v = text.split()[-1]
            if want.get(k) is None:
                check_eq(v, "N/A", f"{where}: GPU {g} {k} (null in JSON)")
            else:
                check_eq(float(v), float(want[k]), f"{where}: GPU {g} {k}")
            compared += 1
        check_eq(row["name"], line_form(GPU_NAME) if g == 0 else want["name"],
                 f"{where}: GPU {g}'s name as text")
    check(compared >= 14, f"{where}: only {compared} numbers compared")
    charts = d.find("svg", **{"class": "chart"})
    check_eq([c[1]["data-metric"] for c in charts], ["util", "mem", "power", "temp", "clocks"],
             f"{where}: charts")
    series = d.find("path", **{"class": "series"})
    for g in ("0", "1"):
        check(len([s for s in series if s[1]["data-gpu"] == g]) >= 5,
              f"{where}: fewer than 5 series paths of GPU {g}")
    alerts = d.find("tr", **{"class": "alert"})
    check(any(RULE in a[2] for a in alerts), f"{where}: the alert is not listed",
          [a[2] for a in alerts])
    check(any(line_form(GPU_NAME) in a[2] for a in alerts),
          f"{where}: the alert's summary does not show the GPU's name as text",
          [a[2] for a in alerts])
    marks = d.find("tr", **{"class": "mark"})
    check_eq(len(marks), 1, f"{where}: marks listed")
    check(line_form(MARK.encode()) in marks[0][2], f"{where}: the mark's text", marks[0][2])
    check_eq(len(d.find("table", id="verdicts")), 1, f"{where}: the diagnosis")
    check_pictures(d, where)
    return charts


def nice_step(s):
    import math
    m = s / 10 ** math.floor(math.log10(s) + 1e-9)
    return any(abs(m - k) < 1e-6 for k in (1, 2, 5))


def check_pictures(d, where):
    """Issue 26's pictures: the time recorded, 1-2-5 ticks, the shared
    palette, every mark and alert line numbered and listed whole."""
    # recorded: the seconds the history covers (~7 s here), not "1" hour
    hours = [e for e in d.el if e[0] == "td" and e[1].get("data-key") == "hours"]
    check_eq(len(hours), 2, f"{where}: recorded cells")
    for e in hours:
        sec = float(e[1].get("data-seconds", "-1"))
        check(2 <= sec <= 85 and e[2].strip().endswith(" s"),
              f"{where}: recorded {e[2].strip()!r} ({sec} s) for seconds of history", e[1])
    # y ticks: a run of 1, 2 or 5 times a power of ten from 0
    ticks = [e for e in d.el if e[0] == "text" and e[1].get("class") == "yt"]
    runs, cur = [], []
    for e in ticks:
        v = float(e[2])
        if cur and v <= cur[-1]:
            runs.append(cur)
            cur = []
        cur.append(v)
    runs.append(cur)
    check_eq(len(runs), 5, f"{where}: y tick runs", runs)
    for r in runs:
        steps = {round(b - a, 9) for a, b in zip(r, r[1:])}
        check(r[0] == 0 and len(steps) == 1 and nice_step(steps.pop()),
              f"{where}: y ticks {r} do not step by 1, 2 or 5 times a power of ten")
    # the palette of src/core/nice.c, by GPU index
    for g, want in (("0", "#0072B2"), ("1", "#E69F00")):
        got = {s[1]["stroke"] for s in d.find("path", **{"class": "series"})
               if s[1]["data-gpu"] == g}
        check_eq(got, {want}, f"{where}: GPU {g}'s series colour")
    # numbered lines: the first chart's badges cover every number once,
    # without overlapping; the list under the charts has each whole
    first = []
    for e in d.el:
        if e[0] == "svg" and e[1].get("class") == "chart" and first:
            break
        if e[0] == "svg" and e[1].get("class") == "chart":
            first.append(e)
        elif first and e[0] == "line" and e[1].get("class") in ("mark", "alert"):
            first.append(e)
        elif first and e[0] == "g" and "ev" in e[1].get("class", "").split():
            first.append(e)
        elif first and e[0] == "rect" and first[-1][0] == "g":
            first[-1] = first[-1] + [e]
    lines = [e for e in first if e[0] == "line"]
    badges = [e for e in first if e[0] == "g"]
    check(len(lines) >= 2, f"{where}: mark and alert lines in the first chart", lines)
    nums = sorted(int(e[1]["data-n"]) for e in lines)
    check_eq(nums, list(range(1, len(lines) + 1)), f"{where}: the lines' numbers")
    covered = []
    for g in badges:
        covered += range(int(g[1]["data-from"]), int(g[1]["data-to"]) + 1)
    check_eq(sorted(covered), nums, f"{where}: the numbers the badges show")
    boxes = sorted((float(g[3][1]["x"]), float(g[3][1]["x"]) + float(g[3][1]["width"]))
                   for g in badges)
    for a, b in zip(boxes, boxes[1:]):
        check(b[0] >= a[1], f"{where}: badges overlap", boxes)
    items = [e for e in d.el if e[0] == "li" and e[1].get("class") in ("ml", "al")]
    check_eq(len(items), len(lines), f"{where}: the numbered lines listed under the charts")
    check(any(RULE in e[2] for e in items if e[1]["class"] == "al"),
          f"{where}: the alert's whole rule in the list", [e[2] for e in items])
    check(any(line_form(MARK.encode()) in e[2] for e in items if e[1]["class"] == "ml"),
          f"{where}: the mark's whole text in the list", [e[2] for e in items])


def test_file():
    rec = record()
    raw = open(rec["path"], "rb").read()
    text = raw.decode("utf-8")  # raises on invalid UTF-8
    check(len(raw) < 2_000_000, f"{len(raw)} bytes")
    check(not re.search(r"https?:", text), "an http(s): URL in the file",
          re.findall(r".{40}https?:.{40}", text))
    for bad in ("<script", "<img", "<link", "\x1b", "\ufffd\ufffd\ufffd\ufffd"):
        check(bad not in text, f"{bad!r} in the file")
    check(not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), "a control character in the file")
    check("&lt;script&gt;alert(&quot;gpu&quot;)&lt;/script&gt;&amp;&#39;x" in text,
          "the GPU name is not escaped as expected")
    check("&lt;img src=x onerror=alert(2)&gt;&amp;amp;" in text, "the mark is not escaped")
    check("&lt;script&gt;evil&amp;x" in text, "the process name is not escaped")
    if shutil.which("xmllint"):
        p = subprocess.run(["xmllint", "--html", "--noout", rec["path"]], capture_output=True,
                           text=True)
        errs = [line for line in p.stderr.splitlines() if "parser error" in line]
        unknown = {"svg", "path", "line", "rect", "text", "title", "figure", "figcaption", "bdi",
                   "g"}
        other = [e for e in errs
                 if not any(f"Tag {t} invalid" in e for t in unknown)]
        check_eq(other, [], "xmllint --html errors other than HTML5/SVG tags")
        p = subprocess.run(["xmllint", "--noout", rec["path"]], capture_output=True, text=True)
        check_eq(p.returncode, 0, "xmllint (XML) exit status", p.stderr[-2000:])
    d = parse(text)
    charts = check_dom(d, "file")
    # the mark's line where the geometry puts it (same x in every chart)
    c0 = charts[0][1]
    f_ms, t_ms = int(c0["data-from-ms"]), int(c0["data-to-ms"])
    check(f_ms <= rec["ts"][0] and t_ms >= rec["ts"][-1], "the chart window misses samples",
          f_ms, t_ms, rec["ts"][0], rec["ts"][-1])
    span = t_ms - f_ms

    def x_of(t):
        return LEFT + (t - f_ms) / span * (WIDTH - LEFT - RIGHT)

    mlines = d.find("line", **{"class": "mark"})
    check_eq(len(mlines), 5, "mark lines (one per chart)")
    for m in mlines:
        check(abs(float(m[1]["x1"]) - x_of(rec["mark"])) < 1.0, "the mark's x", m[1],
              x_of(rec["mark"]))
    check(len(d.find("line", **{"class": "alert"})) >= 5, "no alert line in the charts")
    # no series path spans the gap's inside
    ga, gb = x_of(rec["gap"][0]), x_of(rec["gap"][1])
    check(gb - ga > 40, f"the gap is too narrow to test ({ga:.0f}..{gb:.0f})")
    for s in d.find("path", **{"class": "series"}):
        xs = [float(v) for v in re.findall(r"[ML]([0-9.]+),", s[1]["d"])]
        check(not (min(xs) < ga + 2 and max(xs) > gb - 2),
              f"a series of GPU {s[1]['data-gpu']} runs across the gap ({ga:.0f}..{gb:.0f})",
              s[1]["d"][:200])


def test_browser():
    rec = record()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise Skip("chromium is not installed (Debian: apt-get install chromium)")
    prof = os.path.join(rec["dir"], "chromium-profile")
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-first-run", "--disable-extensions", "--disable-sync",
                        "--disable-background-networking", "--disable-component-update",
                        f"--user-data-dir={prof}", "--enable-logging=stderr", "--v=0",
                        "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=2000",
                        "--dump-dom", "file://" + rec["path"]],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, TZ=rec["env"]["TZ"]))
    check_eq(p.returncode, 0, "chromium exit status", p.stderr[-3000:])
    console = [line for line in p.stderr.splitlines() if "CONSOLE" in line]
    check_eq(console, [], "console messages in chromium")
    check("<svg" in p.stdout, "no SVG in chromium's DOM", p.stdout[:2000])
    check_dom(parse(p.stdout), "chromium")


LAYOUT_SCENARIO = """\
[gpu.0]
model = H100-SXM5-80GB
name = evil\u202etxt.exe
workload = steady

[process.rlo]
gpu = 0
pid = 4194998
name = job\u202egnp.sh
used_memory = 1GiB
"""


def test_browser_layout():
    import cdp
    cdp.chromium_exe()  # Skip early without chromium
    with Scratch("rhtml-layout") as d:
        scn = os.path.join(d, "rlo.ini")
        with open(scn, "w", encoding="utf-8") as f:
            f.write(LAYOUT_SCENARIO)
        env = sim_env(scn, speed=5, epoch=agentlib.epoch_for(0, 5))
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "250ms", "--task", "layout"]).start(wait_samples=2)
        long_mark = "W" * 3000
        rc, out, err = run(["mark", "--data-dir", data, "--no-config", long_mark], env)
        check_eq(rc, 0, "gpumon mark", err)
        time.sleep(1.0)
        check_eq(a.stop()[0], 0, "the agent's exit status", a.log())
        db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
        t0, t1 = db.execute("SELECT min(ts), max(ts) FROM samples").fetchone()
        db.close()
        iso = lambda s: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))  # noqa: E731
        path = os.path.join(d, "report.html")
        rc, out, err = run(["report", "--no-config", "--data-dir", data,
                            "--from", iso(t0 // 1000 // 3600 * 3600), "--until",
                            iso(t1 // 1000 + 2), "--html", path], env)
        check_eq(rc, 0, "report --html exit status", err)
        with cdp.Page("file://" + path, d, width=800, height=600) as p:
            got = p.eval("""(function () {
              const de = document.documentElement;
              const bdis = Array.from(document.querySelectorAll("bdi"));
              const name = document.querySelector('tr.gpu td[data-key="name"] bdi');
              const proc = document.querySelector("tr.usage bdi:not(:empty)");
              const mark = Array.from(document.querySelectorAll("tr.mark td bdi"))
                .map(function (e) { return e.textContent; });
              const rect = function (node, a, b) {
                const r = document.createRange();
                r.setStart(node, a); r.setEnd(node, b);
                return r.getBoundingClientRect().left;
              };
              const t = name ? name.firstChild : null;
              const i = t ? t.data.indexOf("txt") : -1, j = t ? t.data.indexOf("exe") : -1;
              return {
                scroll: de.scrollWidth, client: de.clientWidth,
                bdis: bdis.length,
                styles: Array.from(new Set(bdis.map(function (e) {
                  const c = getComputedStyle(e);
                  return c.unicodeBidi + " " + c.overflowWrap; }))),
                name: name ? name.textContent : null,
                procs: Array.from(document.querySelectorAll("tr.usage bdi"))
                  .map(function (e) { return e.textContent; }),
                mark: mark,
                txt: i >= 0 ? rect(t, i, i + 3) : null,
                exe: j >= 0 ? rect(t, j, j + 3) : null
              };
            })()""")
            png_dir = os.environ.get("GM_TEST_PNG_DIR")
            if png_dir:
                p.screenshot(os.path.join(png_dir, "report-layout.png"))
        check(got["scroll"] <= got["client"],
              f"the report is {got['scroll']} px wide in an {got['client']} px window "
              "(it scrolls sideways)")
        check(got["bdis"] >= 4, "outside text is not in <bdi> elements", got)
        check_eq(got["styles"], ["isolate anywhere"], "computed unicode-bidi, overflow-wrap of <bdi>")
        check(got["name"] and "\u202e" not in got["name"] and got["name"].startswith("evil"),
              "GPU 0's name", got["name"])
        check(got["txt"] is not None and got["exe"] is not None and got["txt"] < got["exe"],
              "GPU 0's name drawn reversed (\"txt\" not left of \"exe\")", got)
        check(any(x.startswith("job") and "\u202e" not in x for x in got["procs"]),
              "the process's name", got["procs"])
        check(any(x.startswith("WWWWWWWW") for x in got["mark"]), "the long mark", got["mark"])
        # every table fits its column on a desktop; on a phone a table may
        # scroll in its own box (div.tw), which fits the column
        for width, level in ((800, 0), (390, 1)):
            with cdp.Page("file://" + path, d, width=width, height=800) as p:
                wide = p.eval("""(function (level) {
                  const out = Array.from(document.querySelectorAll("table")).map(function (t) {
                    let e = t;
                    for (let i = 0; i < level; i++) e = e.parentElement;
                    const r = e.getBoundingClientRect();
                    const c = e.parentElement.getBoundingClientRect();
                    return [t.id, Math.round(r.right), Math.round(c.right)];
                  }).filter(function (x) { return x[1] > x[2]; });
                  const de = document.documentElement;
                  if (de.scrollWidth > de.clientWidth) out.push(["page", de.scrollWidth, de.clientWidth]);
                  return out;
                })(""" + str(level) + ")")
            check_eq(wide, [], f"tables wider than their column at {width} px ([id, right, "
                     "column's right])")


def test_symlink():
    rec = record()
    d = os.path.join(rec["dir"], "sym")
    os.makedirs(d)
    victim = os.path.join(d, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me\n")
    out = os.path.join(d, "r.html")
    os.symlink(victim, out)
    rc, o, err = run(["report"] + rec["win"] + ["--html", out], rec["env"])
    check_eq(rc, 0, "report --html over a link", err)
    check(not os.path.islink(out) and os.path.isfile(out), "the link was not replaced")
    check_eq(open(victim).read(), "keep me\n", "the file the link pointed to")
    check(open(out).read().startswith("<!DOCTYPE html>"), "the report is not at the name")


def test_errors():
    rec = record()
    env, win = rec["env"], rec["win"]
    out = os.path.join(rec["dir"], "e.html")
    rc, o, err = run(["report"] + win + ["--html", out, "--format", "json"], env)
    check_eq(rc, 2, "--html with --format", err)
    check("--html" in err, "the message names --html", err)
    missing = os.path.join(rec["dir"], "nope", "gpumon.db")
    rc, o, err = run(["report", "--no-config", "--store-path", missing, "--html", out], env)
    check_eq(rc, 1, "a missing store", err)
    check(missing in err, "the message names the store", err)
    rc, o, err = run(["report"] + win + ["--task", "no-such-task", "--html", out], env)
    check_eq(rc, 1, "an unknown task", err)
    check("no-such-task" in err and "html-test" in err, "the message names the tasks", err)
    ro = os.path.join(rec["dir"], "ro")
    os.makedirs(ro)
    os.chmod(ro, 0o500)
    try:
        if os.access(ro, os.W_OK):
            pass  # root writes anyway: nothing to test here
        else:
            rc, o, err = run(["report"] + win + ["--html", os.path.join(ro, "x.html")], env)
            check_eq(rc, 1, "an unwritable directory", err)
            check(ro in err, "the message names the path", err)
    finally:
        os.chmod(ro, 0o700)
    nodir = os.path.join(rec["dir"], "no-such-dir", "x.html")
    rc, o, err = run(["report"] + win + ["--html", nodir], env)
    check_eq(rc, 1, "a directory that does not exist", err)
    check(os.path.dirname(nodir) in err, "the message names the directory", err)
    rc, o, err = run(["report", "--no-config", "--data-dir", rec["data"], "--from",
                      "2001-01-01T00:00Z", "--until", "2001-01-02T00:00Z", "--html", out], env)
    check_eq(rc, 1, "an empty period", err)
    check("no samples" in err, "the message says why", err)
    check(not os.path.exists(out), "a file was written for a failed report")


if __name__ == "__main__":
    try:
        agentlib.main([test_file, test_browser, test_browser_layout, test_symlink, test_errors])
    finally:
        if REC:
            shutil.rmtree(REC["dir"], ignore_errors=True)
