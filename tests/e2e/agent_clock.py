#!/usr/bin/env python3
"""The wall clock steps back under a running agent (an NTP step, a VM resume).

The agent runs with clockstep.c preloaded: its CLOCK_REALTIME is offset by
the nanoseconds written in a file, so the test steps the agent's clock, and
only the agent's, without root.

  step_back: at a 500 ms interval, the clock steps back 5 s (ten intervals:
      the samples after the step repeat the times, to the millisecond, of
      samples already written).  The agent logs the step once, with its
      size, and records it as an agent event in the CSV log and the store;
      its status counts it; the CSV log and the store hold the same rows (8
      per sample, the repeated times twice in both: none dropped), and the
      store's dup column tells a repeated row from the first.
  history_step_back: the same step under an agent with its exporter: the
      live page's /api/v1/history stays in the order sampled (seq and times
      increasing, latest after oldest), its times before the step moved by
      clock_shift_ns (-5 s), since=2s is the last two seconds and not the
      whole ring, and after=SEQ (the page's incremental fetch) gives exactly
      the samples after that sequence number, at the times a reader gets by
      moving those it has by the change of clock_shift_ns.  In headless
      chromium (skipped without it) the page, open across the step, moves
      what it has by the step: after two of its fetches past the step every
      chart has one unbroken line per GPU drawn left to right (no samples
      missed, none out of order), and it fetched with after=SEQ.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT, CLOCKSTEP_LIB (the
shim), CLOCKSTEP_ASAN_RT (the ASan runtime, when gpumon is sanitized).
"""
import collections
import json
import os
import re
import shutil
import time

from agentlib import (DEADLINE, Agent, Scratch, Skip, check, check_eq, db_integrity, db_query,
                      event_rows, gpu_rows, main, parse_time_ms, sim_env)
from exporter_lib import free_port, get

NGPU = 8
STEP_NS = -5_000_000_000


def shim_env(offset_file):
    lib = os.environ.get("CLOCKSTEP_LIB")
    if not lib or not os.path.exists(lib):
        raise Skip("the clockstep shim is not built (run through meson test)")
    preload = [p for p in (os.environ.get("CLOCKSTEP_ASAN_RT"), lib) if p]
    env = sim_env(pinned=100, LD_PRELOAD=":".join(preload),
                  GPUMON_TEST_CLOCK_OFFSET_FILE=offset_file)
    if os.environ.get("CLOCKSTEP_ASAN_RT"):
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def write_offset(path, ns):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{ns}\n")
    os.replace(tmp, path)


def test_step_back():
    with Scratch("clk") as d:
        data = os.path.join(d, "data")
        off = os.path.join(d, "offset")
        write_offset(off, 0)
        a = Agent(data, shim_env(off), ["--interval", "500ms"])
        try:
            a.start()
            st = a.wait_samples(6)
            write_offset(off, STEP_NS)
            a.wait_samples(st["samples"] + 16)
            st = a.status()
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        lines = a.log_lines()
        steps = [x for x in lines if "wall clock stepped back" in x]
        check_eq(len(steps), 1, "log lines for the step", a.log())
        check("by 5.0" in steps[0], "the log line gives the step's size", steps[0])
        check_eq(st.get("clock_steps_back"), 1, "--status clock_steps_back", st)

        csv_dir = os.path.join(data, "csv")
        rows = gpu_rows(csv_dir)
        times = [parse_time_ms(r[0]) for r in rows]
        back = [i for i in range(1, len(times)) if times[i] < times[i - 1]]
        check_eq(len(back), 1, "places where the CSV's times go back (the step)",
                 times[:: NGPU])
        check(times[back[0] - 1] - times[back[0]] > 4000, "the CSV's times go back ~5 s",
              times[back[0] - 1], times[back[0]])
        csv_keys = collections.Counter((t, r[3]) for t, r in zip(times, rows))
        repeated = sum(1 for n in csv_keys.values() if n > 1)

        db = os.path.join(data, "gpumon.db")
        check_eq(db_integrity(db), "ok", "store integrity")
        srows = db_query(db, "SELECT s.ts, g.gpu_index, s.dup FROM samples s JOIN gpus g ON "
                         "g.id = s.gpu ORDER BY s.ts, g.gpu_index, s.dup")
        store_keys = collections.Counter((ts, str(g)) for ts, g, _ in srows)
        only_csv = csv_keys - store_keys
        only_store = store_keys - csv_keys
        check(not only_csv and not only_store,
              f"CSV and store rows differ: {sum(only_csv.values())} only in the CSV (e.g. "
              f"{sorted(only_csv)[:3]}), {sum(only_store.values())} only in the store "
              f"({repeated} (time, GPU) keys repeat in the CSV)")
        # 8 rows per sample: the samples counted before the stop, and any
        # taken between that reading and SIGTERM
        check(len(rows) % NGPU == 0 and len(rows) // NGPU >= st["samples"],
              f"CSV rows: 8 per sample, {st['samples']} samples or more: got {len(rows)}")
        # a repeated (ts, gpu) is told apart by dup: 0 for the first, 1 for the next
        dups = collections.defaultdict(list)
        for ts, g, dup in srows:
            dups[(ts, g)].append(dup)
        check(all(v == list(range(len(v))) for v in dups.values()),
              "dup numbers the rows of one (ts, gpu) from 0")
        # the step is on the timeline of both files, once
        ev = [e for e in event_rows(csv_dir) if "wall clock stepped back" in e[7]]
        check_eq(len(ev), 1, "clock events in the CSV", *[e[7] for e in ev])
        sev = db_query(db, "SELECT type, code FROM events WHERE text LIKE "
                       "'wall clock stepped back%'")
        check_eq(len(sev), 1, "clock events in the store", sev)
        check(sev[0][0] == "agent" and -5100 <= sev[0][1] <= -4900,
              "the store's event: type agent, code the step in ms", sev)
        print(f"  {len(rows) // NGPU} samples, {repeated} (time, GPU) keys twice in both files")


def history(port, query):
    """The answer to /api/v1/history?...&query, read now, checked later."""
    return query, get("127.0.0.1", port, "/api/v1/history?metric=power_draw_watts&id=0" + query,
                      timeout=10)


def parse(answer):
    query, r = answer
    check_eq(r.status, 200, f"/api/v1/history?{query} status", r.text)
    doc = json.loads(r.body)
    return doc, doc["gpus"][0]


# the page, read through DevTools: its charts' lines, when it last ticked
# (the sample time the cards show), the URLs it fetched
LINES_JS = "document.querySelector('figure.chart').dataset.lines"
TICK_JS = "document.getElementById('sample-time').dataset.v"
POINTS_JS = ("JSON.stringify(Array.from(document.querySelectorAll('polyline[data-gpu]'))"
             ".map(p => [p.closest('figure').dataset.metric, p.dataset.gpu, "
             "p.getAttribute('points')]))")
URLS_JS = "performance.getEntriesByType('resource').map(e => e.name)"


def page_wait(browser, what, pred, timeout=30):
    deadline = time.monotonic() + timeout
    while not pred():
        check(time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def test_history_step_back():
    with Scratch("clkh") as d:
        data = os.path.join(d, "data")
        off = os.path.join(d, "offset")
        write_offset(off, 0)
        port = free_port()
        a = Agent(data, shim_env(off), ["--interval", "500ms", "--exporter", "--listen",
                                        f"127.0.0.1:{port}"])
        browser = None
        try:
            a.start()
            a.wait_samples(6)
            if shutil.which("chromium"):
                from live_page import DevTools
                browser = DevTools(d, "chromium-step")
                browser.open(f"http://127.0.0.1:{port}/")
                page_wait(browser, "the page's first charts",
                          lambda: browser.eval(LINES_JS) not in (None, "0"))
            before, gb = parse(history(port, ""))
            check(len(gb["time_unix_ns"]) >= 4, "samples before the step", before)
            write_offset(off, STEP_NS)
            a.wait_for(lambda s: s.get("clock_steps_back") == 1, DEADLINE, "the step to be seen")
            st = a.status()
            a.wait_samples(st["samples"] + 8)
            answers = [history(port, ""), history(port, "&since=2s"),
                       history(port, f"&after={before.get('latest_seq')}")]
            page = None
            if browser:
                # three of the page's ticks after the step: two whole fetches
                for k in range(3):
                    v = browser.eval(TICK_JS)
                    page_wait(browser, f"the page's tick {k + 1} after the step",
                              lambda: browser.eval(TICK_JS) != v)
                page = json.loads(browser.eval(POINTS_JS)), browser.eval(URLS_JS)
                # the ring as the page drew it: a sample late by over three
                # steps (a starved machine) breaks the line, and must
                page_ring = history(port, "")
            rc, _ = a.stop()
        finally:
            if browser:
                browser.close()
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        doc, g = parse(answers[0])
        t = g["time_unix_ns"]
        check(doc["latest_unix_ns"] > doc["oldest_unix_ns"], "latest after oldest", doc)
        check(all(x < y for x, y in zip(t, t[1:])), "times increase across the step", t)
        check_eq((doc["latest_unix_ns"], doc["oldest_unix_ns"]), (t[-1], t[0]),
                 "latest and oldest are the first and last times")
        recent, gr = parse(answers[1])
        check(len(gr["time_unix_ns"]) <= 6 and len(gr["time_unix_ns"]) >= 1,
              f"since=2s at 500 ms: a few samples, not the ring's {len(t)}", gr["time_unix_ns"])
        check(recent["latest_unix_ns"] - gr["time_unix_ns"][0] <= 2_100_000_000,
              "since=2s: within 2 s of the latest", gr["time_unix_ns"])
        after, ga = parse(answers[2])
        seq = g["seq"]
        check_eq(len(seq), len(t), "a seq per sample")
        check(all(x < y for x, y in zip(seq, seq[1:])), "seq increases", seq)
        shift = doc["clock_shift_ns"]
        check(-5_200_000_000 < shift < -4_800_000_000, "clock_shift_ns is the step", shift)
        check_eq(before["clock_shift_ns"], 0, "clock_shift_ns before the step")
        # the samples before the step, moved by the step: the same spacing
        old = dict(zip(gb["seq"], gb["time_unix_ns"]))
        for s_, t_ in zip(seq, t):
            if s_ in old:
                check_eq(t_, old[s_] + shift, f"sample {s_}'s time moved by clock_shift_ns")
        check_eq(gr["seq"], seq[len(seq) - len(gr["seq"]):], "since=2s: the latest samples")
        want = [x for x in seq if x > before["latest_seq"]]
        check_eq(ga["seq"][:len(want)], want, "after=SEQ: the samples after it, in order")
        check(all(x > before["latest_seq"] for x in ga["seq"]), "after=SEQ: none before it",
              ga["seq"])
        print(f"  {len(seq)} samples in the ring, clock_shift_ns {shift}, "
              f"since=2s {len(gr['seq'])}, after={before['latest_seq']} {len(ga['seq'])}")
        if page is None:
            raise Skip("chromium is not installed (the API part passed)")
        lines, urls = page
        tp = parse(page_ring)[1]["time_unix_ns"]
        steps = sorted(y - x for x, y in zip(tp, tp[1:]))
        # the page breaks a line where a step is over 3 times its median; the
        # clock step itself must not (its times are moved by clock_shift_ns)
        late = sum(1 for x, y in zip(tp, tp[1:]) if y - x > 2.5 * steps[len(steps) // 2])
        print(f"  {late} late sample(s) in the ring the page drew")
        for m in ("utilization_gpu_percent", "memory_used_bytes", "power_draw_watts",
                  "temperature_gpu_celsius", "clocks_sm_mhz"):
            ln = [x for x in lines if x[0] == m]
            check_eq(sorted(set(x[1] for x in ln)), [str(i) for i in range(NGPU)],
                     f"chart {m}: a line for each GPU")
            for i in range(NGPU):
                n = sum(1 for x in ln if x[1] == str(i))
                check(n <= 1 + late, f"chart {m}: GPU {i}'s line unbroken across the step "
                      f"({n} pieces, {late} sample(s) late by over 2.5 steps)", ln)
            for _, gpu, pts in ln:
                xs = [float(p.split(",")[0]) for p in pts.split()]
                check(len(xs) >= 2 and all(x < y for x, y in zip(xs, xs[1:])),
                      f"chart {m}: GPU {gpu}'s line drawn left to right across the step", pts)
        check(any(re.search(r"/api/v1/history\?metric=[^&]*&after=\d+$", u) for u in urls),
              "the page fetched with after=SEQ", urls)


if __name__ == "__main__":
    main([test_step_back, test_history_step_back])
