#!/usr/bin/env python3
"""The agent's live page and its JSON API, end to end (~60 s; docs/api.md).

`gpumon agent` on the 8-GPU simulator (h100x8-training.ini at scenario
second 120, where GPU 5 sits at its 89 C slowdown temperature, so the
default rule gpu-temperature-critical fires), with one more process on GPU 0
whose NVML name is hostile HTML with an escape sequence:

  api: /api/v1/status is `gpumon status --json`'s document (the same keys
      for every GPU and process, the same values at the same scenario time);
      /api/v1/alerts lists gpu-temperature-critical firing on GPU 5;
      /api/v1/history has 8 GPUs, the asked metrics, times that increase,
      and its latest values equal /api/v1/status's; every live response
      carries the strict CSP and nosniff; bad parameters are 400 with a JSON
      error naming the parameter, unknown paths 404, other methods 405 (JSON
      under /api/), and nothing changes state.
  auth: with basic auth in the web config, the page, its assets and every
      API endpoint answer 401 without the password and 200 with it, as
      /metrics does.
  hostile: the hostile process name is escaped in the page (no element made
      of it, no control character) and reads back exactly (less the control
      character's repair) from the API's JSON.
  history_store: with the scenario clock running, the history's samples
      equal the SQLite store's rows at the same milliseconds (utilisation,
      power in centiwatts, temperature, SM clock, memory in MiB).
  flood: wrk on /api/v1/status (2 threads, 16 connections, 10 s; after a
      2 s warm-up) reaches thousands of requests while the agent samples
      every 100 ms: no overrun, no skipped deadline, every sample on its
      100 ms grid (at most 50 ms late); /api/v1/history and /api/v1/alerts
      in the mix as well; VmRSS grows by less than 2 MiB, descriptors and
      threads do not grow (as tests/e2e/exporter_load.py measures /metrics).
  browser: Debian's chromium (headless) loads the page: 8 GPU cards whose
      numbers equal `gpumon status --json`, the firing alert listed, every
      chart an SVG with a line per GPU after the script ran, no console
      message, no request but to 127.0.0.1 (the net log), no URL to another
      host in the DOM; with JavaScript off the same numbers are there (no
      charts).  Skipped (77) without chromium.
  pictures: (issue 26) the agent at 0.5 s with its diagnosis every second;
      once gpu-temperature-critical fires and /api/v1/status's "diagnosis"
      names a cause, the page in chromium (DevTools): GPU 5's card is
      marked firing with the rule on it, cards without an alert are not
      marked, each card's diagnosis is the API's; every chart's y ticks
      step by 1, 2 or 5 times a power of ten; the series colours are
      src/core/nice.c's palette; and the page's niceTicks gives the ticks of
      tests/unit/fixtures/nice/ticks.txt (the C one's table).
  layout: a one-GPU agent whose GPU is named `evil<U+202E>txt.exe` and
      whose process is named with U+202E and 150 unbroken characters, the
      page in chromium at 800 x 600 (DevTools, tests/e2e/cdp.py) once the
      script has filled the cards: no U+202E in the drawn names (the
      script's clean() replaces bidi controls as the server does), "txt"
      drawn left of "exe", the names compute unicode-bidi: isolate, and the
      page is no wider than the window.  Skipped (77) without chromium.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import html.parser
import json
import os
import re
import shutil
import sqlite3
import subprocess
import time

from agentlib import (DEADLINE, GPUMON, ROOT, Fail, Scratch, Skip, check, check_eq, gpu_rows,
                      main, parse_time_ms, scenario, sim_env, wait_until)
from exporter_lib import Gpumon, basic, bcrypt_hash, need

PINNED = 120
HOSTILE = b"<script>alert(1)</script><img src=x onerror=alert(2)>\x1b[2J"
HOSTILE_LINE = HOSTILE.decode().replace("\x1b", "\ufffd")  # gm_text_line's repair
EXTRA = b"""
[process.hostile]
gpu = 0
pid = 4194499
name = ${GM_T_PROC_NAME}
used_memory = 1GiB
"""


def live_env(d, pinned=PINNED, **kw):
    """sim_env on a copy of h100x8-training.ini with the hostile process."""
    path = os.path.join(d, "live.ini")
    with open(scenario("h100x8-training.ini"), "rb") as f:
        text = f.read()
    with open(path, "wb") as f:
        f.write(text + EXTRA)
    env = {k.encode(): v.encode() for k, v in sim_env(path, pinned=pinned, **kw).items()}
    env[b"GM_T_PROC_NAME"] = HOSTILE
    return env


def status_cli(env):
    p = subprocess.run([GPUMON, "status", "--json"], env=env, capture_output=True, timeout=30)
    check_eq(p.returncode, 0, "gpumon status --json exit status", p.stderr)
    return json.loads(p.stdout)


def get_json(g, path, status=200):
    r = g.get(path)
    check_eq(r.status, status, f"{path} status", r.text)
    check_eq(r.header("Content-Type"), "application/json", f"{path} Content-Type")
    return json.loads(r.body), r


def check_live_headers(r, where):
    csp = r.header("Content-Security-Policy") or ""
    check("default-src 'self'" in csp and "script-src 'self'" in csp, f"{where}: CSP", csp)
    check("unsafe-inline" not in csp and "unsafe-eval" not in csp, f"{where}: CSP allows inline",
          csp)
    check_eq(r.header("X-Content-Type-Options"), "nosniff", f"{where}: nosniff")


def wait_alert(g, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while True:
        doc, _ = get_json(g, "/api/v1/alerts")
        firing = [a for a in doc["alerts"] if a["state"] == "firing"]
        if any(a["rule"] == "gpu-temperature-critical" and a["gpu"] == 5 for a in firing):
            return doc
        check(time.monotonic() < deadline, "gpu-temperature-critical never fired on GPU 5", doc)
        time.sleep(0.2)


def agent(d, env, interval="1s", extra=()):
    g = Gpumon(d, env, ["--interval", interval] + list(extra), cmd="agent")
    g.start()
    return g


def wait_history(g, n, what):
    """Waits until every GPU's in-memory history holds at least n samples."""
    def enough():
        h = get_json(g, "/api/v1/history?metric=utilization_gpu_percent&since=10m")[0]
        return h["gpus"] and all(len(x["time_unix_ns"]) >= n for x in h["gpus"])
    wait_until(enough, what)


def no_time(doc):
    """A status document without what differs from one sample to the next."""
    doc = dict(doc)
    for k in ("time", "time_unix_ns", "sample_duration_seconds"):
        doc.pop(k)
    return doc


# ------------------------------------------------------------ page cache

def metric_value(text, name):
    """The value of the one sample of series name in /metrics text."""
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise Fail(f"no {name} in /metrics")


def test_page_cache():
    """The page (/) is rendered once per sample, as /metrics is: two
    requests in one sample get byte-identical bodies and the exporter's
    count of page renderings (gpumon_exporter_page_renders_total, as of
    each sample's publication) moves by one.  The two requests count as one
    sample's when /api/v1/status has that sample's time before and after
    them; a pair that straddles a sample is tried again."""
    with Scratch("live-cache") as d:
        env = live_env(d)
        g = agent(d, env, interval="1s", extra=["--no-alerts"])
        try:
            deadline = time.monotonic() + DEADLINE
            seen = set()
            while True:
                check(time.monotonic() < deadline, "no two page requests within one sample")

                def new_sample():
                    m = g.get("/metrics").text
                    t = metric_value(m, "gpumon_exporter_last_sample_timestamp_seconds")
                    return (t, m) if t not in seen else None
                t0, m0 = wait_until(new_sample, "a new sample on /metrics")
                seen.add(t0)
                before = get_json(g, "/api/v1/status")[0]["time_unix_ns"]
                p1, p2 = g.get("/"), g.get("/")
                after = get_json(g, "/api/v1/status")[0]["time_unix_ns"]
                if before != after or abs(before / 1e9 - t0) > 1e-3:
                    continue  # not one sample's, or not the one /metrics served
                check_eq((p1.status, p2.status), (200, 200), "GET / status")
                check(p1.body == p2.body, "two requests in one sample got different pages")
                t1, m1 = wait_until(new_sample, "the next sample on /metrics")
                seen.add(t1)
                r0 = metric_value(m0, "gpumon_exporter_page_renders_total")
                r1 = metric_value(m1, "gpumon_exporter_page_renders_total")
                check_eq(r1 - r0, 1, "page renderings for two requests in one sample")
                return
        finally:
            g.stop()


# ------------------------------------------------------------------ api

def test_api():
    with Scratch("live") as d:
        env = live_env(d)
        g = agent(d, env)
        try:
            st, r = get_json(g, "/api/v1/status")
            check_live_headers(r, "/api/v1/status")
            cli = status_cli(env)
            check_eq(st["schema"], "gpumon.status/1", "schema")
            check_eq(st["gpu_count"], 8, "gpu_count")
            check_eq(sorted(st), sorted(cli), "the document's keys")
            for a, b in zip(st["gpus"], cli["gpus"]):
                # the agent's API adds its running diagnosis (docs/api.md)
                check(isinstance(a.get("diagnosis"), list) or a.get("diagnosis") is None,
                      f"GPU {a['index']}'s diagnosis in the API", a.get("diagnosis"))
                check_eq(sorted(set(a) - {"diagnosis", "value_ages_seconds"}), sorted(b),
                         f"GPU {a['index']}'s keys")
                # and the ages of the slow groups' values, which status --json
                # reads afresh (docs/json.md): every real ECC, PCIe link and
                # setting value has one, no fast value has
                ages = a.get("value_ages_seconds")
                check(isinstance(ages, dict), f"GPU {a['index']}: no value_ages_seconds", a)
                for k in ("ecc_corrected_volatile", "pcie_link_gen_current", "persistence_mode"):
                    check(a[k] is None or (k in ages and ages[k] >= 0),
                          f"GPU {a['index']}: no age of {k}", ages)
                check("temperature_gpu_celsius" not in ages, "a fast value has an age", ages)
                check("value_ages_seconds" not in b, "status --json has ages", b)
                check_eq(len(a["processes"]), len(b["processes"]), f"GPU {a['index']} processes")
                for pa, pb in zip(a["processes"], b["processes"]):
                    check_eq(sorted(pa), sorted(pb), "a process's keys")
                for k in ("name", "uuid", "utilization_gpu_percent", "memory_used_bytes",
                          "power_draw_watts", "temperature_gpu_celsius", "clocks_sm_mhz",
                          "clocks_memory_mhz", "clocks_event_reasons_active_names"):
                    check_eq(a[k], b[k], f"GPU {a['index']} {k}: the API and status --json")
            # the cached document is the same object until the next sample
            r2 = g.get("/api/v1/status")
            check(json.loads(r2.body)["time_unix_ns"] >= st["time_unix_ns"], "time goes back")
            head = g.get("/api/v1/status", method="HEAD")
            check_eq((head.status, head.body), (200, b""), "HEAD /api/v1/status")

            al = wait_alert(g)
            check_eq(al["schema"], "gpumon.alerts/1", "alerts schema")
            check(al["enabled"] is True and al["count"] == len(al["alerts"]), "alerts count", al)
            a5 = [a for a in al["alerts"] if a["gpu"] == 5][0]
            for k, t in (("rule", str), ("severity", str), ("state", str), ("uuid", str),
                         ("name", str), ("condition", str), ("value", str),
                         ("active_since", str), ("firing_since", str), ("samples", int)):
                check(isinstance(a5[k], t), f"alert {k} is not {t.__name__}", a5)
            check_eq(a5["severity"], "critical", "severity")
            # issue 30: how old the value was when the rule took it; the GPU's
            # temperature is read every sample (a slow read group's, such as
            # the ECC counts, may be up to 10 s old)
            check_eq(a5.get("value_age_seconds", "absent"), 0, "alert value_age_seconds", a5)

            wait_history(g, 3, "three samples in the ring")
            h, r = get_json(g, "/api/v1/history?metric=utilization_gpu_percent,power.draw"
                            "&since=10m")
            check_live_headers(r, "/api/v1/history")
            check_eq((h["schema"], h["source"], h["window_seconds"]),
                     ("gpumon.history/1", "memory", 3600), "history header")
            check_eq(h["metrics"], ["utilization_gpu_percent", "power_draw_watts"], "metrics")
            check_eq([x["index"] for x in h["gpus"]], list(range(8)), "history GPUs")
            st = get_json(g, "/api/v1/status")[0]
            for x in h["gpus"]:
                t = x["time_unix_ns"]
                check(len(t) >= 3 and t == sorted(set(t)), "history times", t)
                for m in h["metrics"]:
                    check_eq(len(x["values"][m]), len(t), f"{m} has a value per time")
                stg = st["gpus"][x["index"]]
                if t[-1] == st["time_unix_ns"]:
                    check_eq(x["values"]["power_draw_watts"][-1], stg["power_draw_watts"],
                             "the latest power in history and status")
                check_eq(x["uuid"], stg["uuid"], "uuid")
            h2 = get_json(g, f"/api/v1/history?id=3&since=@{h['gpus'][0]['time_unix_ns'][-2]}")[0]
            check_eq([x["index"] for x in h2["gpus"]], [3], "id=3")
            check_eq(h2["gpus"][0]["time_unix_ns"][0], h["gpus"][0]["time_unix_ns"][-1],
                     "since=@T starts after T")
            check(len(h2["metrics"]) >= 8, "no metric= gives every kept metric", h2["metrics"])
            # docs/api.md lists every kept metric, and only those
            with open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8") as f:
                doc = f.read()
            para = doc.split("The last hour from the agent's memory", 1)[1]
            para = para.split("at most 3,600 samples", 1)[0]
            listed = re.findall(r"`([a-z_]+)`", para)
            check_eq(sorted(listed), sorted(h2["metrics"]),
                     "the kept metrics docs/api.md lists (/api/v1/history)")

            # bad parameters: 400 naming them
            for q, param in (("metric=nope", "metric"), ("metric=pcie_link_gen_current", "metric"),
                             ("since=2h", "since"), ("since=5", "since"), ("since=@x", "since"),
                             ("after=-1", "after"), ("after=1&after=2", "after"),
                             ("id=9", "id"), ("id=x", "id"), ("id=1&id=2", "id"),
                             ("metrics=utilization.gpu", "metrics"), ("metric", "metric")):
                e, r = get_json(g, "/api/v1/history?" + q, 400)
                check_eq((e["status"], e["parameter"]), (400, param), f"?{q}", e)
                check(param in e["error"] or "GPU" in e["error"], f"?{q}: the message", e)
                check_live_headers(r, f"400 for ?{q}")
            for path in ("/api/v1/status?x=1", "/api/v1/alerts?since=1h"):
                e, _ = get_json(g, path, 400)
                check(e["parameter"] in ("x", "since"), f"{path}", e)
            for path in ("/api/v1/nope", "/api/v1/status/", "/api/v2/status", "/api/"):
                e, _ = get_json(g, path, 404)
                check_eq(e["status"], 404, path)
            for method in ("POST", "PUT", "DELETE", "PATCH"):
                for path in ("/api/v1/status", "/api/v1/history", "/api/v1/alerts"):
                    r = g.get(path, method=method)
                    check_eq(r.status, 405, f"{method} {path}")
                    check_eq(r.header("Allow"), "GET, HEAD", f"{method} {path}: Allow")
                    check_eq(json.loads(r.body)["status"], 405, f"{method} {path}: JSON")
            for path, ctype in (("/static/live.css", "text/css"),
                                ("/static/live.js", "text/javascript"),
                                ("/static/favicon.svg", "image/svg+xml")):
                r = g.get(path)
                check_eq(r.status, 200, path)
                check(r.header("Content-Type").startswith(ctype), f"{path} type", r.headers)
                check_live_headers(r, path)
            for path in ("/static/", "/static/nope.js", "/static/../metrics"):
                check_eq(g.get(path).status, 404, path)
            r = g.get("/")
            check_eq(r.status, 200, "/")
            check_live_headers(r, "/")
            # GPU 7's dead pid: marked in its row, as status and top mark it;
            # the live ranks are not (the simulator's /proc view)
            page = r.body.decode()
            check(re.search(r'<tr class="gone"><td data-k="pid">4194304</td><td data-k="user">'
                            r'N/A</td><td data-k="name">\[gone\] python3</td>', page),
                  "the dead process's row marked gone", page[-3000:])
            check_eq(page.count('<tr class="gone">'), 1, "rows marked gone")
            check_eq(g.stop(), 0, "exit status on SIGTERM", g.log())
        finally:
            g.cleanup()


def test_auth():
    with Scratch("lva") as d:
        env = live_env(d)
        cfg = os.path.join(d, "web.yml")
        with open(cfg, "w") as f:
            f.write(f"basic_auth_users:\n  viewer: {bcrypt_hash('right pass', cost=4)}\n")
        g = Gpumon(d, env, ["--interval", "1s", "--web-config", cfg], cmd="agent")
        try:
            g.start(ready=False)
            ok = basic("viewer", "right pass")
            deadline = time.monotonic() + DEADLINE
            while True:
                try:
                    if g.get("/api/v1/status", headers=ok).status == 200:
                        break
                except OSError:
                    pass
                check(time.monotonic() < deadline and g.alive(), "not ready with auth", g.log())
                time.sleep(0.1)
            for path in ("/", "/static/live.js", "/api/v1/status", "/api/v1/alerts",
                         "/api/v1/history?since=10s", "/api/v1/nope", "/metrics"):
                r = g.get(path)
                check_eq(r.status, 401, f"{path} without the password")
                check(b"gpumon.status" not in r.body and b"utilization" not in r.body,
                      f"{path}: data in a 401", r.body[:200])
                check_eq(g.get(path, headers=basic("viewer", "wrong")).status, 401,
                         f"{path} with a wrong password")
                want = 404 if path == "/api/v1/nope" else 200
                check_eq(g.get(path, headers=ok).status, want, f"{path} with the password")
        finally:
            g.cleanup()


def test_hostile():
    with Scratch("lvh") as d:
        env = live_env(d)
        g = agent(d, env)
        try:
            st, _ = get_json(g, "/api/v1/status")
            names = [p["name"] for p in st["gpus"][0]["processes"]]
            check(HOSTILE.decode() in names, "the hostile name reads back from the API", names)
            page = g.get("/").text
            check("<script>alert" not in page and "<img" not in page,
                  "the hostile name made elements in the page")
            check("\x1b" not in page, "an escape character in the page")
            esc = (HOSTILE_LINE.replace("&", "&amp;").replace("<", "&lt;")
                   .replace(">", "&gt;"))
            check(esc in page, "the hostile name, escaped, is in the page", esc)
            check(not re.search(r"<script(?![^>]*src=\"/static/live\.js\")", page),
                  "an inline script in the page")
            check(not re.search(r"\son[a-z]+=", page.replace(esc, "")),
                  "an inline event handler in the page")
            check(" style=" not in page, "an inline style in the page")
        finally:
            g.cleanup()


# ------------------------------------------------------- history vs store

def test_history_store():
    with Scratch("lvs") as d:
        env = live_env(d, pinned=None, speed=1.0, epoch=time.time() - 60)
        g = agent(d, env, interval="500ms")
        try:
            wait_history(g, 6, "six samples in the ring")
            h, _ = get_json(g, "/api/v1/history?metric=utilization_gpu_percent,power_draw_watts,"
                            "temperature_gpu_celsius,clocks_sm_mhz,memory_used_bytes&id=0,5")
            check_eq(g.stop(), 0, "exit status", g.log())
        finally:
            g.cleanup()
        db = sqlite3.connect(os.path.join(g.data_dir, "gpumon.db"))
        rows = {}
        for ts, gi, u, p, t, c, m in db.execute(
                "SELECT s.ts, g.gpu_index, util_gpu_pct, power_cw, temp_c, clk_sm_mhz, "
                "mem_used_mib FROM samples s JOIN gpus g ON g.id = s.gpu"):
            rows[(ts, gi)] = (u, p, t, c, m)
        matched = 0
        for x in h["gpus"]:
            v = x["values"]
            for i, tn in enumerate(x["time_unix_ns"]):
                key = (tn // 1000000, x["index"])
                check(key in rows, f"history sample {key} not in the store", sorted(rows)[:5])
                want = rows[key]
                got = (v["utilization_gpu_percent"][i], want[1],
                       v["temperature_gpu_celsius"][i], v["clocks_sm_mhz"][i],
                       v["memory_used_bytes"][i] // 1048576)
                check_eq(got, want, f"GPU {x['index']} at {tn}: history and store")
                # the history has the watts to 3 decimals, the store centiwatts
                # rounded from the full value: they agree within one centiwatt
                cw = v["power_draw_watts"][i] * 100
                check(abs(cw - want[1]) <= 1, f"GPU {x['index']} at {tn}: power {cw / 100} W "
                      f"in the history, {want[1]} cW in the store")
                matched += 1
        check(matched >= 10, f"only {matched} samples compared")
        powers = {p for x in h["gpus"] for p in x["values"]["power_draw_watts"]}
        check(len(powers) > 2, "the values do not change: nothing compared", powers)
        print(f"  {matched} history samples equal to the store's rows")


# ----------------------------------------------------------------- flood

LUA = """local n = 0
local paths = {"/api/v1/status", "/api/v1/status", "/api/v1/status", "/api/v1/alerts",
               "/api/v1/history?metric=utilization_gpu_percent&since=10s&id=0"}
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n % #paths) + 1])
end
"""


def test_flood():
    (w,) = need("wrk")
    with Scratch("lvf") as d:
        env = live_env(d)
        # AddressSanitizer's quarantine is RSS growth by design (exporter_load.py)
        env[b"ASAN_OPTIONS"] = b":".join(filter(None, [env.get(b"ASAN_OPTIONS", b""),
                                                       b"quarantine_size_mb=0",
                                                       b"thread_local_quarantine_size_kb=0"]))
        g = agent(d, env, interval="100ms")
        try:
            script = os.path.join(d, "api.lua")
            with open(script, "w") as f:
                f.write(LUA)
            # warm-up: allocator arenas, connections, the ring's first growth
            subprocess.run([w, "-t2", "-c16", "-d2s", "-s", script, g.url + "/"],
                           capture_output=True, timeout=60)
            rss0 = g.rss_kib()
            fds0 = len(os.listdir(f"/proc/{g.pid}/fd"))
            threads0 = len(os.listdir(f"/proc/{g.pid}/task"))
            flood_t0 = time.time()
            p = subprocess.run([w, "-t2", "-c16", "-d10s", "-s", script, g.url + "/"],
                               capture_output=True, timeout=60)
            flood_t1 = time.time()
            out = p.stdout.decode(errors="replace")
            check_eq(p.returncode, 0, "wrk exit status", out, p.stderr)
            m = re.search(r"(\d+) requests in ([\d.]+)s", out)
            check(m is not None and "Socket errors" not in out and "Non-2xx" not in out,
                  "wrk's answers", out)
            n = int(m.group(1))
            # how many, and the sampler's cadence beside them, are measured by
            # make bench (the "api" section of docs/BENCHMARKS.md: requests/s,
            # samples missing from the grid, overruns, lateness), not here:
            # on a loaded machine they say how busy it is
            check(n > 0, "no API requests answered", out)
            rss1 = g.rss_kib()
            check(rss1 - rss0 < 2048, f"VmRSS grew by {rss1 - rss0} kB under the flood")
            deadline = time.monotonic() + DEADLINE
            while len(os.listdir(f"/proc/{g.pid}/fd")) > fds0 + 2:
                check(time.monotonic() < deadline, "open file descriptors grew under the flood")
                time.sleep(0.1)
            check(len(os.listdir(f"/proc/{g.pid}/task")) <= threads0, "threads grew")
            check_eq(g.stop(), 0, "exit status", g.log())
        finally:
            g.cleanup()
        times = [parse_time_ms(r[0]) / 1000 for r in gpu_rows(os.path.join(g.data_dir, "csv"))]
        check(all(b >= a for a, b in zip(times, times[1:])), "sample times go back")
        during = sorted({t for t in times if flood_t0 < t < flood_t1})
        # the sampler does not wait for the API: it samples through the flood
        check(len(during) >= 3, f"{len(during)} samples during the {flood_t1 - flood_t0:.1f} s "
              "of the flood at 100 ms")
        print(f"  {n} API requests in 10 s; {len(during)} samples at 100 ms meanwhile; "
              f"VmRSS {rss0} -> {rss1} kB")


# --------------------------------------------------------------- browser

class Dom(html.parser.HTMLParser):
    """A small DOM of the dumped page: (tag, attrs, children, text)."""
    VOID = {"meta", "link", "br", "img", "input", "hr", "source", "wbr"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = {"tag": "#root", "attrs": {}, "children": [], "text": ""}
        self.stack = [self.root]
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        n = {"tag": tag, "attrs": dict(attrs), "children": [], "text": ""}
        self.stack[-1]["children"].append(n)
        if tag not in self.VOID:
            self.stack.append(n)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1]["children"].append({"tag": tag, "attrs": dict(attrs), "children": [],
                                           "text": ""})

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        for n in self.stack[1:]:
            n["text"] += data


def walk(n):
    yield n
    for c in n["children"]:
        yield from walk(c)


def has_class(n, c):
    return c in n["attrs"].get("class", "").split()


def chromium(url, d, js=True, budget=12000):
    exe = shutil.which("chromium")
    netlog = os.path.join(d, f"net-{js}.json")
    args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--disable-default-apps", "--mute-audio",
            f"--user-data-dir={os.path.join(d, 'chromium')}",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            f"--log-net-log={netlog}", "--enable-logging=stderr", "--v=0",
            f"--virtual-time-budget={budget}", "--dump-dom"]
    if not js:
        args.append("--blink-settings=scriptEnabled=false")
    p = subprocess.run(args + [url], capture_output=True, timeout=120,
                       env=dict(os.environ, HOME=d))
    err = p.stderr.decode(errors="replace")
    check_eq(p.returncode, 0, "chromium exit status", err[-3000:])
    return p.stdout.decode(), err, net_requests(netlog)


class DevTools:
    """Headless chromium driven over the DevTools protocol
    (--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4),
    one page: open(url) navigates and waits for the load event (script
    execution disabled when js is false), eval(expr) is Runtime.evaluate's
    value, dom() the page's outerHTML (the DOM domain needs no script)."""

    def __init__(self, d, tag, timeout=60):
        exe = shutil.which("chromium")
        to_chr = os.pipe()    # chromium reads fd 3
        from_chr = os.pipe()  # chromium writes fd 4

        def fds():
            a, b = os.dup(to_chr[0]), os.dup(from_chr[1])
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.p = subprocess.Popen([exe, "--headless", "--no-sandbox", "--disable-gpu",
                                   "--no-first-run", f"--user-data-dir={os.path.join(d, tag)}",
                                   "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                                   "--remote-debugging-pipe", "about:blank"],
                                  preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=d))
        os.close(to_chr[0])
        os.close(from_chr[1])
        self.wr, self.rd = to_chr[1], from_chr[0]
        self.buf = b""
        self.n = 0
        self.sess = None
        self.timeout = timeout

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, method, params=None):
        self.n += 1
        m = {"id": self.n, "method": method, "params": params or {}}
        if self.sess:
            m["sessionId"] = self.sess
        os.write(self.wr, json.dumps(m).encode() + b"\0")
        return self.n

    def wait(self, pred):
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                check("error" not in m, "DevTools error", m)
                if pred(m):
                    return m
            check(time.monotonic() < deadline, "chromium (DevTools) did not answer in time")
            chunk = os.read(self.rd, 1 << 16)
            check(chunk, "chromium closed the DevTools pipe")
            self.buf += chunk

    def call(self, method, params=None):
        i = self.send(method, params)
        return self.wait(lambda m: m.get("id") == i)["result"]

    def open(self, url, js=True):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.sess = self.call("Target.attachToTarget",
                              {"targetId": target, "flatten": True})["sessionId"]
        if not js:
            self.call("Emulation.setScriptExecutionDisabled", {"value": True})
        self.call("Page.enable")
        self.send("Page.navigate", {"url": url})
        self.wait(lambda m: m.get("method") == "Page.loadEventFired")

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        check("exceptionDetails" not in r, f"{expr}: an exception", r)
        return r["result"].get("value")

    def dom(self):
        root = self.call("DOM.getDocument")["root"]["nodeId"]
        return self.call("DOM.getOuterHTML", {"nodeId": root})["outerHTML"]

    def close(self):
        if self.wr is None:
            return
        try:
            self.sess = None
            self.send("Browser.close")
        except OSError:
            pass
        os.close(self.wr)
        os.close(self.rd)
        self.wr = self.rd = None
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def chromium_nojs_dom(url, d, timeout=60):
    """The page's DOM with JavaScript off.  Headless chromium's --dump-dom
    reads the DOM with a script, which --blink-settings=scriptEnabled=false
    stops (it prints nothing), so this drives it over the DevTools protocol:
    Emulation.setScriptExecutionDisabled, Page.navigate, then
    DOM.getOuterHTML once the load event has fired."""
    with DevTools(d, "chromium-nojs", timeout) as b:
        b.open(url, js=False)
        return b.dom()


def net_requests(netlog):
    """(url, initiator) of every request in chromium's net log.  The page's
    requests have its origin as initiator; the browser's own (update checks,
    network time, dictionaries: "not an origin") cannot leave either, as the
    resolver rules answer every name but 127.0.0.1 with NOTFOUND."""
    with open(netlog, errors="replace") as f:
        d = json.load(f)
    start = d["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [(e["params"]["url"], e["params"].get("initiator")) for e in d["events"]
            if e["type"] == start and e.get("params", {}).get("url")]


def card_values(dom):
    cards = [n for n in walk(dom.root) if n["tag"] == "article" and has_class(n, "gpu")]
    out = []
    for c in cards:
        vals = {}
        for n in walk(c):
            k = n["attrs"].get("data-k")
            if k and n["tag"] == "span":
                vals[k] = (n["attrs"].get("data-v"), n["text"])
        procs = [n["text"] for n in walk(c) if n["tag"] == "td" and n["attrs"].get("data-k") ==
                 "name"]
        out.append((int(c["attrs"]["data-index"]), vals, procs))
    return out


def fmt(key, v):
    """The page's text for a value (docs/api.md)."""
    if v is None:
        return "N/A"
    if key.endswith("_bytes"):
        return f"{v // 1048576} MiB"
    if key.endswith("_watts"):
        return f"{v:.2f} W"
    unit = {"_percent": " %", "_celsius": " \u00b0C", "_mhz": " MHz"}
    for s, u in unit.items():
        if key.endswith(s):
            return f"{round(v)}{u}"
    return str(v)


def check_cards(dom, status, where):
    cards = card_values(dom)
    check_eq([c[0] for c in cards], list(range(8)), f"{where}: the GPU cards")
    for idx, vals, procs in cards:
        gj = status["gpus"][idx]
        for k in ("utilization_gpu_percent", "utilization_memory_percent", "memory_used_bytes",
                  "memory_total_bytes", "power_draw_watts", "power_limit_watts",
                  "temperature_gpu_celsius", "clocks_sm_mhz", "clocks_memory_mhz"):
            check(k in vals, f"{where}: GPU {idx} has no {k}", vals)
            dv, text = vals[k]
            want = gj[k]
            check_eq(json.loads(dv), want, f"{where}: GPU {idx} {k} (data-v)")
            check_eq(text, fmt(k, want), f"{where}: GPU {idx} {k} (text)")
        names = gj["clocks_event_reasons_active_names"]
        check_eq(vals["clocks_event_reasons_active_names"][1],
                 ", ".join(names) if names else "none", f"{where}: GPU {idx} throttle reasons")
        # the dead process's marker, as status and top show it (issue 26)
        want_procs = [("[%s] " % p["host_state"] if p["host_state"] in ("gone", "zombie") else "")
                      + (p["name"] or p["comm"] or "N/A") for p in gj["processes"]]
        want_procs = [n.replace("\x1b", "\ufffd") for n in want_procs]
        check_eq(procs, want_procs, f"{where}: GPU {idx} process names")


def test_browser():
    if not shutil.which("chromium"):
        raise Skip("chromium is not installed")
    with Scratch("lvb") as d:
        env = live_env(d)
        g = agent(d, env)
        try:
            wait_alert(g)
            wait_history(g, 3, "three samples of history (lines, not points)")
            url = g.url + "/"
            cli = status_cli(env)
            text, err, urls = chromium(url, d)
            dom = Dom(text)
            check_cards(dom, cli, "with JavaScript")
            alerts = [n for n in walk(dom.root) if n["tag"] == "li" and has_class(n, "alert")]
            check(any(has_class(a, "firing") and "gpu-temperature-critical" in a["text"] and
                      "GPU 5" in a["text"] for a in alerts), "the firing alert is shown",
                  [a["text"] for a in alerts])
            figs = [n for n in walk(dom.root) if n["tag"] == "figure" and has_class(n, "chart")]
            check_eq(len(figs), 5, "charts")
            for f in figs:
                lines = [n for n in walk(f) if n["tag"] == "polyline"]
                check(len(lines) == 8, f"chart {f['attrs'].get('data-metric')}: "
                      f"{len(lines)} lines, want one per GPU")
                for ln in lines:
                    pts = ln["attrs"].get("points", "").split()
                    check(len(pts) >= 2 and all(re.fullmatch(r"[\d.]+,[\d.]+", p) for p in pts),
                          "a line without points", ln["attrs"])
            state = [n for n in walk(dom.root) if n["attrs"].get("id") == "live-state"]
            check(state and state[0]["text"].startswith("(live"), "the script's state",
                  state and state[0]["text"])
            console = [ln for ln in err.splitlines()
                       if "CONSOLE" in ln or "Uncaught" in ln or "Refused to" in ln]
            check(not console, "console messages", "\n".join(console))
            origin = f"http://127.0.0.1:{g.port}"
            page = [u for u, ini in urls if ini == origin]
            outside = sorted(u for u in page if not u.startswith(origin + "/"))
            check(not outside, "the page's requests that left 127.0.0.1", outside)
            check(len(page) >= 6, "the page's requests (assets and API)", page)
            check(any(u.endswith("/api/v1/history?metric=utilization_gpu_percent,memory_used_bytes,"
                                 "power_draw_watts,temperature_gpu_celsius,clocks_sm_mhz&since=1h")
                      for u in page), "the script asked for the history", page)
            for n in walk(dom.root):
                for a in ("src", "href", "action"):
                    v = n["attrs"].get(a)
                    check(v is None or v.startswith("/"), f"a URL to elsewhere: {a}={v}")

            # without JavaScript: the server's numbers, no charts
            dom = Dom(chromium_nojs_dom(url, d))
            check_cards(dom, cli, "without JavaScript")
            check(not any(n["tag"] == "polyline" for n in walk(dom.root)),
                  "charts drawn with JavaScript off")
            check(any(n["tag"] == "li" and has_class(n, "firing") for n in walk(dom.root)),
                  "the firing alert without JavaScript")
            check_eq(g.stop(), 0, "exit status", g.log())
        finally:
            g.cleanup()


def nice_step(s):
    import math
    m = s / 10 ** math.floor(math.log10(s) + 1e-9)
    return any(abs(m - k) < 1e-6 for k in (1, 2, 5))


def nice_cases():
    """tests/unit/fixtures/nice/ticks.txt: [[min, max, steps, "ticks"], ...]."""
    path = os.path.join(os.environ.get("SOURCE_ROOT", "."), "tests", "unit", "fixtures", "nice",
                        "ticks.txt")
    cases = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        left, want = line.split("->")
        a, b, n = left.split()
        cases.append([float(a), float(b), int(n), want.strip()])
    check(len(cases) >= 15, "the nice ticks table", cases)
    return cases


def palette():
    """src/core/nice.c's palette as rgb() strings, in series order."""
    path = os.path.join(os.environ.get("SOURCE_ROOT", "."), "src", "core", "nice.c")
    hexes = re.findall(r'\{"#([0-9A-Fa-f]{6})"', open(path).read())
    check_eq(len(hexes), 8, "colours in src/core/nice.c")
    return ["rgb(%d, %d, %d)" % tuple(int(h[i:i + 2], 16) for i in (0, 2, 4)) for h in hexes]


def test_pictures():
    import cdp
    cdp.chromium_exe()  # Skip early without chromium
    with Scratch("lvp") as d:
        env = live_env(d)
        g = agent(d, env, interval="0.5s", extra=("--diagnose-window", "1m",
                                                   "--diagnose-every", "1s"))
        try:
            wait_alert(g, timeout=30)
            deadline = time.monotonic() + 90
            while True:
                st, _ = get_json(g, "/api/v1/status")
                diag = {x["index"]: x.get("diagnosis") for x in st["gpus"]}
                if any(diag.values()):
                    break
                check(time.monotonic() < deadline, "no cause in /api/v1/status's diagnosis", diag)
                time.sleep(0.5)
            cases = nice_cases()
            with cdp.Page(g.url + "/", d, width=1280, height=1600) as p:
                deadline = time.monotonic() + 60
                while not p.eval('(document.getElementById("live-state") || {}).textContent'
                                 '.startsWith("(live")'):
                    check(time.monotonic() < deadline, "the page's script never updated it")
                    time.sleep(0.3)
                got = p.eval("""(function (cases) {
                  const N = window.gpumonNice;
                  const cards = {};
                  for (const c of document.querySelectorAll("article.gpu")) {
                    const dg = c.querySelector('[data-k="diagnosis"]');
                    cards[c.dataset.index] = {
                      alert: c.dataset.alert === undefined ? null : c.dataset.alert,
                      diag: dg ? dg.textContent : null,
                      alerts: Array.from(c.querySelectorAll("ul.card-alerts li"))
                        .map(function (e) { return e.textContent; })
                    };
                  }
                  const ticks = Array.from(document.querySelectorAll("figure.chart"))
                    .map(function (f) {
                      return Array.from(f.querySelectorAll("svg text.yt"))
                        .map(function (e) { return e.textContent; });
                    });
                  const strokes = [];
                  for (let i = 0; i < 8; i++) {
                    const e = document.querySelector("figure.chart polyline.s" + i);
                    strokes.push(e ? getComputedStyle(e).stroke : null);
                  }
                  const nice = !N ? null : cases.map(function (c) {
                    const t = N.ticks(c[0], c[1], c[2]), out = [];
                    for (let k = 0; k < t.n; k++) out.push(N.label(t, N.tick(t, k)));
                    return out.join(" ");
                  });
                  return { cards: cards, ticks: ticks, strokes: strokes, nice: nice };
                })(""" + json.dumps(cases) + ")")
                png_dir = os.environ.get("GM_TEST_PNG_DIR")
                if png_dir:
                    p.screenshot(os.path.join(png_dir, "live-pictures.png"))
            st2, _ = get_json(g, "/api/v1/status")
            al, _ = get_json(g, "/api/v1/alerts")
            check(got["nice"] is not None, "the page's script has no niceTicks (window.gpumonNice)")
            check_eq(got["nice"], [c[3] for c in cases], "the page's ticks for the C table's cases")
            check_eq(got["strokes"], palette(), "the series colours against src/core/nice.c")
            check_eq(len(got["ticks"]), 5, "charts with y ticks", got["ticks"])
            for t in got["ticks"]:
                v = [float(x) for x in t]
                steps = {round(b - a, 9) for a, b in zip(v, v[1:])}
                check(len(v) >= 2 and len(steps) == 1 and nice_step(steps.pop()),
                      f"y ticks {t}: not a 1-2-5 run")
            c5 = got["cards"].get("5")
            check(c5 and c5["alert"] == "firing" and
                  any("gpu-temperature-critical" in x for x in c5["alerts"]),
                  "GPU 5's card is not marked firing with its rule", c5)
            alerted = {a["gpu"] for a in al["alerts"]}
            for idx, c in got["cards"].items():
                if int(idx) not in alerted:
                    check_eq((c["alert"], c["alerts"]), ("", []), f"GPU {idx}'s card marked")
                want = set()
                for doc in (st, st2):
                    dg = [x for x in doc["gpus"] if x["index"] == int(idx)][0]["diagnosis"]
                    want.add("not running" if dg is None else ", ".join(dg) if dg else "none")
                check(c["diag"] in want, f"GPU {idx}'s diagnosis on its card", c["diag"], want)
            check(any(c["diag"] not in ("none", "not running") for c in got["cards"].values()),
                  "no card shows a cause", got["cards"])
            check_eq(g.stop(), 0, "exit status", g.log())
        finally:
            g.cleanup()


LAYOUT_SCN = """\
[gpu.0]
model = H100-SXM5-80GB
name = evil\u202etxt.exe

[process.rlo]
gpu = 0
pid = 4194497
name = job\u202egnp.sh-""" + "W" * 150 + "\n"


def test_layout():
    import cdp
    cdp.chromium_exe()  # Skip early without chromium
    with Scratch("lvl") as d:
        path = os.path.join(d, "rlo.ini")
        with open(path, "w", encoding="utf-8") as f:
            f.write(LAYOUT_SCN)
        g = agent(d, sim_env(path, pinned=PINNED))
        try:
            deadline = time.monotonic() + 30
            while True:
                st, _ = get_json(g, "/api/v1/status")
                if st["gpus"] and st["gpus"][0]["processes"]:
                    break
                check(time.monotonic() < deadline, "no process in /api/v1/status", st)
                time.sleep(0.2)
            names = [p["name"] for p in st["gpus"][0]["processes"]]
            check(any("\u202e" in n for n in names), "the API keeps the process's name", names)
            with cdp.Page(g.url + "/", d, width=800, height=600) as p:
                deadline = time.monotonic() + 60
                while not p.eval('(document.getElementById("live-state") || {}).textContent'
                                 '.startsWith("(live")'):
                    check(time.monotonic() < deadline, "the page's script never updated it")
                    time.sleep(0.3)
                got = p.eval("""(function () {
                  const de = document.documentElement;
                  const gname = document.querySelector("#gpu-0 h2 .name");
                  const pname = document.querySelector('#gpu-0 td[data-k="name"]');
                  const left = function (node, s) {
                    const t = node.firstChild, i = t.data.indexOf(s);
                    if (i < 0) return null;
                    const r = document.createRange();
                    r.setStart(t, i); r.setEnd(t, i + s.length);
                    return r.getBoundingClientRect().left;
                  };
                  const iso = function (e) { return e ? getComputedStyle(e).unicodeBidi : null; };
                  return {
                    scroll: de.scrollWidth, client: de.clientWidth,
                    gname: gname ? gname.textContent : null,
                    pname: pname ? pname.textContent : null,
                    iso: [iso(gname), iso(pname), iso(document.getElementById("host"))],
                    txt: gname ? left(gname, "txt") : null,
                    exe: gname ? left(gname, "exe") : null,
                    ptxt: pname ? left(pname, "gnp") : null,
                    psh: pname ? left(pname, "sh-") : null
                  };
                })()""")
                png_dir = os.environ.get("GM_TEST_PNG_DIR")
                if png_dir:
                    p.screenshot(os.path.join(png_dir, "live-layout.png"))
            for k in ("gname", "pname"):
                check(got[k] and "\u202e" not in got[k], f"{k}: a bidi control drawn", got)
            check(got["pname"].startswith("job") and got["pname"].endswith("WWWW"),
                  "the process's name", got)
            check_eq(got["iso"], ["isolate"] * 3, "unicode-bidi of the GPU, process and host names")
            check(got["txt"] is not None and got["exe"] is not None and got["txt"] < got["exe"],
                  "the GPU's name drawn reversed", got)
            check(got["ptxt"] is not None and got["psh"] is not None and got["ptxt"] < got["psh"],
                  "the process's name drawn reversed", got)
            check(got["scroll"] <= got["client"],
                  f"the page is {got['scroll']} px wide in an {got['client']} px window", got)
            check_eq(g.stop(), 0, "exit status", g.log())
        finally:
            g.cleanup()


if __name__ == "__main__":
    main([test_api, test_auth, test_hostile, test_history_store, test_page_cache, test_flood,
          test_browser, test_pictures, test_layout])
