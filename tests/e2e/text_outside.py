#!/usr/bin/env python3
"""Text from outside gpumon (process names, command lines, GPU names, VBIOS,
marks) with hostile bytes, through every output (docs/security-text.md).

The simulated GPU is named '=HYPERLINK("x","y"),' plus a newline, an OSC
title sequence, a C1 CSI (U+009B) and a byte 0xff; its VBIOS string is not
UTF-8.  One simulated process has an NVML name with a formula, an ESC
sequence and 0xff.  A second GPU process is a live Python process that named
itself "ev\\xff\\xfe\\n\\x1b[2Jx" with prctl(PR_SET_NAME) and whose argv[0]
is a spreadsheet formula and argv[3] holds a newline, ESC and 0xff: gpumon
reads those from /proc like any other process.  The scenario takes the
strings through ${ENV} expansion (os.environb).

  exporter: /metrics of a running `serve --process-metrics` passes
      `promtool check metrics` with no lint; label values are UTF-8 with
      U+FFFD for the bad bytes and controls and \\n for the newline; the
      OpenMetrics rendering passes the OpenMetrics checker; --names dcgm
      lints only for dcgm-exporter's own names.
  status: the text view (plain and -c) is UTF-8 with no control character
      but the line ends, one line per GPU; --json parses (strict UTF-8),
      holds no raw control or C1 character, and gives comm back exactly
      (repaired bytes, controls as JSON escapes).
  query_pmon: `query --query-compute-apps` and `--query-gpu` CSV parse with
      Python's csv module into as many fields as asked, one row per process
      (a name with a newline or comma does not split a row), formula cells
      have a leading ', numbers are untouched; pmon (table and csv) has one
      line per process and no control character.
  agent_files: an agent with --procs: the GPU, processes and events CSV
      files are UTF-8, every row has the header's cell count, the number of
      process rows is exact, formula cells (GPU name, process name, command,
      a mark) start with ', numbers (pid, MiB) do not; the SQLite store is
      readable by Python's sqlite3 (TEXT is valid UTF-8); `report` as csv
      (defused), json (parses) and table (no control character).
  alerts: `alerts test` (table: one line per notice, no control character;
      --json: one JSON object per line).

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import csv
import io
import json
import os
import sqlite3
import subprocess
import sys

from agentlib import (DEADLINE, GPUMON, PROCS_HEADER, Agent, Fail, Scratch, check, check_eq,
                      day_files, main, sim_env)
from exporter_lib import (Gpumon, check_openmetrics, parse_samples, promtool_check_metrics)

GPU_NAME = b'=HYPERLINK("x","y"),\n\x1b]0;pwn\x07\xc2\x9b' + b"2J\xff"
VBIOS = b"96.00.\xfe\xff.01"
NVML_PROC = b"=cmd|' /C calc'!A0\x1b[31m\xff"
LIVE_COMM = b"ev\xff\xfe\n\x1b[2Jx"
LIVE_ARGV = [b"@SUM(1+1)*cmd|' /C calc'!A0", b"-c", None, b"a\nb\x1b[2J\xff", b"-1"]
MARK = b"=1+2 \x1b[2J\xc2\x9b\xff"

SCENARIO = """\
[machine]
driver_version = 550.107.02
cuda_version = 12.4
seed = 7

[gpu.0]
model = H100-SXM5-80GB
name = ${GM_T_GPU_NAME}
vbios = ${GM_T_VBIOS}
workload = steady

[process.evil]
gpu = 0
pid = 4194400
name = ${GM_T_PROC_NAME}
used_memory = 1GiB
; gone (the simulator's /proc view), so outputs fall back to the NVML name
alive = no

[process.live]
gpu = 0
pid = ${GPUSIM_PID_LIVE:-4194401}
name = /usr/bin/python3
used_memory = 2GiB
"""

LIVE_CODE = """\
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(%r), 0, 0, 0)
sys.stdout.write("ready\\n")
sys.stdout.flush()
time.sleep(600)
""" % LIVE_COMM


def line_form(b):
    """What gm_text_line makes of bytes b (valid for inputs whose invalid
    bytes are single bytes, where Python's 'replace' agrees)."""
    s = b.decode("utf-8", "replace")
    return "".join("\ufffd" if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f else c for c in s)


def ascii_form(b):
    """What gm_text_term makes of bytes b for a terminal that is not UTF-8:
    '?' for each character (or bad byte) outside printable ASCII."""
    return "".join(c if 0x20 <= ord(c) < 0x7f else "?" for c in b.decode("utf-8", "replace"))


def check_clean(data, where, newlines=True):
    """data (bytes) is UTF-8 with no control character (line ends allowed
    when newlines); returns the text."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Fail(f"{where}: not UTF-8 ({e})", repr(data[max(0, e.start - 60):e.end + 60]))
    for i, c in enumerate(text):
        o = ord(c)
        if (o < 0x20 and not (newlines and c == "\n")) or 0x7f <= o <= 0x9f:
            raise Fail(f"{where}: control character U+{o:04X} at {i}",
                       repr(text[max(0, i - 60):i + 60]))
    return text


class Live:
    """The live stand-in GPU process with a hostile comm and command line."""

    def __enter__(self):
        argv = list(LIVE_ARGV)
        argv[2] = LIVE_CODE.encode()
        self.p = subprocess.Popen(argv, executable=sys.executable, stdout=subprocess.PIPE)
        check_eq(self.p.stdout.readline(), b"ready\n", "the live process started")
        with open(f"/proc/{self.p.pid}/comm", "rb") as f:
            check_eq(f.read(), LIVE_COMM + b"\n", "the live process's comm")
        return self

    def __exit__(self, *exc):
        self.p.kill()
        self.p.wait()
        return False

    @property
    def pid(self):
        return self.p.pid


def hostile_env(d, live, pinned=10):
    path = os.path.join(d, "hostile.ini")
    with open(path, "w") as f:
        f.write(SCENARIO)
    env = {k.encode(): v.encode() for k, v in sim_env(path, pinned=pinned).items()}
    env.update({b"GM_T_GPU_NAME": GPU_NAME, b"GM_T_VBIOS": VBIOS, b"GM_T_PROC_NAME": NVML_PROC,
                b"GPUSIM_PID_LIVE": str(live.pid).encode()})
    return env


def gpumon(args, env, timeout=60):
    """Runs gpumon with args (str or bytes); returns (rc, stdout, stderr) as bytes."""
    p = subprocess.run([GPUMON] + list(args), env=env, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def ok(args, env, where):
    rc, out, err = gpumon(args, env)
    check_eq(rc, 0, f"{where}: exit status", err.decode(errors="replace"))
    return out


# ------------------------------------------------------------------ exporter

def prom_form(b):
    """A label value as gpumon writes it inside the quotes."""
    s = b.decode("utf-8", "replace")
    out = []
    for c in s:
        if c == "\n":
            out.append("\\n")
        elif c in '\\"':
            out.append("\\" + c)
        elif ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f:
            out.append("\ufffd")
        else:
            out.append(c)
    return "".join(out)


def test_exporter():
    with Scratch("txe") as d, Live() as live:
        env = hostile_env(d, live)
        g = Gpumon(d, env, ["--interval", "1s", "--process-metrics"])
        try:
            g.start()
            body = g.get("/metrics").body
            om = g.get("/metrics", headers={"Accept": "application/openmetrics-text"}).body
        finally:
            g.stop()
            g.cleanup()
        text = check_clean(body, "/metrics")
        rc, lint = promtool_check_metrics(text)
        check_eq((rc, lint), (0, ""), "promtool check metrics on /metrics")
        info = [lb for n, lb, _ in parse_samples(text) if n == "gpumon_gpu_info"]
        check_eq(len(info), 1, "gpumon_gpu_info series")
        check_eq(info[0].get("vbios_version"), prom_form(VBIOS), "vbios_version label")
        check_eq(info[0].get("name"), prom_form(GPU_NAME), "name label")
        procs = {lb["pid"]: lb["process"] for n, lb, _ in parse_samples(text)
                 if n == "gpumon_process_memory_used_bytes"}
        check_eq(procs.get(str(live.pid)), prom_form(LIVE_COMM), "the live process's label",
                 procs)
        check(procs.get("4194400", "").endswith(prom_form(b"A0\x1b[31m\xff")),
              "the NVML name's label (basename)", procs)
        check_openmetrics(check_clean(om, "/metrics (OpenMetrics)"), "OpenMetrics /metrics")

        rc, out, err = gpumon(["serve", "--no-config", "--print", "--names", "dcgm"], env)
        check_eq(rc, 0, "serve --print --names dcgm", err.decode(errors="replace"))
        rc, lint = promtool_check_metrics(check_clean(out, "--names dcgm"))
        bad = [line for line in lint.splitlines()
               if "snake_case" not in line and "_total" not in line and "type 'counter'" not in line]
        check(rc in (0, 3) and not bad, f"promtool on --names dcgm: exit {rc}", lint)


# ------------------------------------------------------------------ status

def test_status():
    with Scratch("txs") as d, Live() as live:
        env = hostile_env(d, live)
        utf8 = {**env, b"LC_ALL": b"C.UTF-8"}
        # a UTF-8 terminal gets U+FFFD, another one '?' (for every non-ASCII byte)
        for e, form, where in ((utf8, line_form, "UTF-8"), (env, ascii_form, "C locale")):
            for args in (["status"], ["status", "-c"]):
                what = f"{' '.join(args)} ({where})"
                text = check_clean(ok(args, e, what), what)
                lines = text.split("\n")
                check_eq(len(lines), 3, f"{what}: lines (header, one GPU, end)", text)
                want = LIVE_COMM if args == ["status"] else b" ".join(LIVE_ARGV[3:])
                check(form(want) + f"/{live.pid}(" in lines[1],
                      f"{what}: the live process's name or command line, repaired", text)
                check(lines[1].startswith("[0] " + form(GPU_NAME) + " |"), f"{what}: GPU name",
                      text)
        raw = ok(["status", "--json"], env, "status --json")
        doc = json.loads(check_clean(raw, "status --json"))
        procs = {p["pid"]: p for p in doc["gpus"][0]["processes"]}
        check_eq(procs[live.pid]["comm"], LIVE_COMM.decode("utf-8", "replace"),
                 "status --json: comm (bad bytes repaired, controls kept)")
        check_eq(doc["gpus"][0]["name"], GPU_NAME.decode("utf-8", "replace"),
                 "status --json: GPU name")
        check_eq(doc["gpus"][0]["vbios_version"], VBIOS.decode("utf-8", "replace"),
                 "status --json: VBIOS")


# ------------------------------------------------------------------ query, pmon

def test_query_pmon():
    with Scratch("txq") as d, Live() as live:
        env = hostile_env(d, live)
        fields = "pid,process_name,gpu_name,used_memory"
        out = ok(["query", f"--query-compute-apps={fields}", "--format=csv,noheader,nounits"],
                 env, "query --query-compute-apps")
        rows = list(csv.reader(io.StringIO(check_clean(out, "query-compute-apps")),
                               skipinitialspace=True))
        check_eq(len(rows), 2, "query-compute-apps rows (one per process)", rows)
        for r in rows:
            check_eq(len(r), 4, "fields in a query-compute-apps row", r)
            check(r[2].startswith("'="), "gpu_name formula cell defused", r)
            check(r[3].isdigit(), "used_memory is a number as written", r)
        by_pid = {r[0]: r for r in rows}
        check_eq(by_pid["4194400"][1], "'" + line_form(NVML_PROC), "process_name defused", rows)
        check_eq(by_pid[str(live.pid)][1], "/usr/bin/python3", "a normal name is unchanged",
                 rows)
        out = ok(["query", "--query-gpu=index,name,vbios_version,temperature.gpu",
                  "--format=csv"], env, "query --query-gpu")
        rows = list(csv.reader(io.StringIO(check_clean(out, "query-gpu")), skipinitialspace=True))
        check_eq(len(rows), 2, "query-gpu rows (header and one GPU)", rows)
        check_eq(rows[1][:3], ["0", "'" + line_form(GPU_NAME), line_form(VBIOS)],
                 "query-gpu text cells", rows)
        check(rows[1][3].isdigit(), "temperature as a number", rows)

        for fmt in ([], ["--format", "csv"]):
            out = ok(["pmon", "-c", "1"] + fmt, env, "pmon " + " ".join(fmt))
            text = check_clean(out, "pmon " + " ".join(fmt))
            data = [x for x in text.split("\n") if x and not x.startswith("#")]
            check_eq(len(data), 2, f"pmon {' '.join(fmt)}: one line per process", text)


# ------------------------------------------------------------------ agent files

def read_rows(path):
    text = check_clean(open(path, "rb").read(), path)
    return list(csv.reader(io.StringIO(text)))


def test_agent_files():
    with Scratch("txa") as d, Live() as live:
        env = hostile_env(d, live, pinned=None)
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms", "--procs"])
        try:
            a.start()
            events = a.status()["sinks"]["store"]["events"]
            rc, out, err = gpumon([b"mark", b"--no-config", b"--data-dir", data.encode(), MARK],
                                  env)
            check_eq(rc, 0, "gpumon mark", err.decode(errors="replace"))
            a.wait_for(lambda s: s["sinks"]["store"]["events"] > events, DEADLINE,
                       "the mark to arrive")
            a.wait_samples(a.status()["samples"] + 2)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "agent exit status", a.log())
        csv_dir = os.path.join(data, "csv")

        gpu = read_rows(day_files(csv_dir)[0])
        hdr = gpu[0]
        check(len(gpu) >= 3, "GPU rows", gpu)
        for r in gpu[1:]:
            check_eq(len(r), len(hdr), "cells in a GPU row", r)
            check_eq(r[hdr.index("name")], "'" + line_form(GPU_NAME), "GPU name cell", r)
            check(r[hdr.index("memory_used_mib")].isdigit(), "memory_used_mib as written", r)

        procs = read_rows(day_files(csv_dir, kind="procs")[0])
        check_eq(",".join(procs[0]), PROCS_HEADER, "processes header")
        body = procs[1:]
        check(body and len(body) % 2 == 0, "two process rows per sample", body)
        for r in body:
            check_eq(len(r), len(procs[0]), "cells in a process row", r)
            check(r[5].isdigit() and r[9].isdigit(), "pid and used_memory_mib as written", r)
        mine = [r for r in body if r[5] == str(live.pid)]
        evil = [r for r in body if r[5] == "4194400"]
        check_eq(len(mine), len(evil), "rows of each process", body)
        check(mine[0][8].startswith("'" + LIVE_ARGV[0].decode()), "command cell defused",
              mine[0])
        check(mine[0][8].endswith(line_form(b" ".join(LIVE_ARGV[3:]))),
              "command cell repaired", mine[0])
        check_eq(evil[0][7], "'" + line_form(NVML_PROC), "process_name cell", evil[0])

        ev = read_rows(day_files(csv_dir, kind="events")[0])
        marks = [r for r in ev[1:] if r[3] == "mark"]
        check_eq([r[7] for r in marks], ["'" + line_form(MARK)], "the mark's text cell", ev)

        db = os.path.join(data, "gpumon.db")
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            names = con.execute("SELECT DISTINCT name FROM procs ORDER BY name").fetchall()
            gname = con.execute("SELECT name FROM gpus").fetchall()
            text = con.execute("SELECT text FROM events WHERE type = 'mark'").fetchall()
        except sqlite3.OperationalError as e:
            raise Fail(f"the store's text is not UTF-8: {e}")
        finally:
            con.close()
        check_eq(names, [("/usr/bin/python3",), (NVML_PROC.decode("utf-8", "replace"),)],
                 "process names in the store (repaired, controls kept)")
        check_eq(gname, [(GPU_NAME.decode("utf-8", "replace"),)], "GPU name in the store")
        check_eq(text, [(MARK.decode("utf-8", "replace"),)], "mark in the store")

        base = ["report", "--no-config", "--data-dir", data, "--since", "2h"]
        rep = read_rows_text(ok(base + ["--format", "csv"], env, "report csv"), "report csv")
        h = rep[0]
        check(len(rep) >= 2, "report csv rows", rep)
        for r in rep[1:]:
            check_eq(len(r), len(h), "cells in a report row", r)
            check_eq(r[h.index("name")], "'" + line_form(GPU_NAME), "report name cell", r)
        check(any(line_form(MARK) in r[h.index("marks")] for r in rep[1:]), "report marks", rep)
        js = json.loads(check_clean(ok(base + ["--format", "json"], env, "report json"),
                                    "report json"))
        check_eq(js[0]["name"], GPU_NAME.decode("utf-8", "replace"), "report json name")
        check_clean(ok(base, env, "report table"), "report table")


def read_rows_text(out, where):
    return list(csv.reader(io.StringIO(check_clean(out, where))))


# ------------------------------------------------------------------ alerts

def test_alerts():
    with Scratch("txl") as d, Live() as live:
        env = hostile_env(d, live, pinned=None)
        conf = os.path.join(d, "a.conf")
        with open(conf, "w") as f:
            f.write("[alerts]\ndefault-rules = false\n\n[alert.warm]\n"
                    "when = temperature.gpu > 10\nfor = 10s\n")
        args = ["alerts", "test", "--to", "60", "--step", "10s", "--config", conf]
        text = check_clean(ok(args, env, "alerts test"), "alerts test")
        lines = text.split("\n")
        check_eq(len(lines), 7, "alerts test: header, one notice, blank, what is still firing "
                 "(3 lines), end", text)
        check(lines[1].endswith(f"warm on GPU 0 ({line_form(GPU_NAME)}): temperature.gpu > 10, "
                                "now 63 °C"), "the summary names the GPU (repaired)", text)
        out = check_clean(ok(args + ["--json"], env, "alerts test --json"), "alerts test --json")
        notices = [json.loads(x) for x in out.split("\n") if x]
        check_eq(len(notices), 1, "alerts test --json notices", out)
        check_eq(notices[0]["alert"]["gpu_name"], GPU_NAME.decode("utf-8", "replace"),
                 "gpu_name in the notice's JSON")


if __name__ == "__main__":
    main([test_exporter, test_status, test_query_pmon, test_agent_files, test_alerts])
