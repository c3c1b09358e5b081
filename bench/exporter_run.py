#!/usr/bin/env python3
"""exporter_run.py -- the exporter under wrk, beside node_exporter serving the
same payload, during a hung NVML call, and the agent's memory after it all.

    exporter_run.py --gpumon PATH --node-exporter PATH --wrk PATH --dir DIR
                    --port PORT --out JSON [--secs 30] [--threads 2]
                    [--conns 16] [--hang-secs 20] [--warmup 2]
                    [--rounds 3] [--scenario-time 120] [--doc DOC]

Environment: what scripts/bench.sh exports (GPUMON_NVML_LIB, GPUSIM_SCENARIO
= the 8-GPU training scenario, GPUSIM_PID_RANK0..7); GPUSIM_TIME is ignored:
each process gets its own clock below.

1. `gpumon agent` as deployed (CSV log, store, --procs, the exporter on
   127.0.0.1:PORT) at --interval 1s on the scenario with its clock moving
   (from --scenario-time on), so every second brings a new sample, a new
   rendering and, on the first gzip request after it, a new gzip.
2. Its /metrics body (plain text) is written to DIR/textfile/gpumon.prom and
   prometheus-node-exporter serves it on PORT+1 with only the textfile
   collector (--collector.disable-defaults --collector.textfile
   --collector.textfile.directory) and without its own Go and process
   metrics (--web.disable-exporter-metrics): the same payload plus
   node_textfile_mtime_seconds, node_textfile_scrape_error, the
   collector's two node_scrape_collector_* series, node_exporter_build_info
   and the two promhttp_metric_handler_errors_total series.  node_exporter runs on
   one core by default (--runtime.gomaxprocs=1); it gets --node-gomaxprocs
   (2: as many as the exporter's two HTTP threads) unless told otherwise.
3. wrk -tTHREADS -cCONNS -dSECS against both, plain and with
   Accept-Encoding: gzip, interleaved (gpumon plain, node_exporter plain,
   gpumon gzip, node_exporter gzip), --rounds times over, each after a
   --warmup s run that is not counted; each figure reported is the median
   of its rounds (a neighbour's burst on a shared machine spoils one round,
   not the result), with their range.  wrk's done() hook (a Lua script) prints requests, errors and
   the latency percentiles in microseconds.  The CPU time (utime + stime) of
   the server during each run is read from /proc.
4. The agent's VmRSS and VmHWM (/proc/PID/status) after all that, with its
   own sample counters (`gpumon agent --status`): samples, overruns, drops.
5. `gpumon serve --interval 1s` on scenarios/faults.ini pinned at 50 s (no
   fault) and at 130 s (every nvmlDeviceGetPowerUsage on GPU 2 hangs 5 s, so
   every sample takes 5 s and the exporter keeps serving the previous one),
   both running at once on PORT+2 and PORT+3: wrk with Accept-Encoding: gzip
   (what Prometheus sends) for --hang-secs on each in turn, --rounds times;
   the served sample's duration and how far its timestamp moved prove the
   hang.

During every wrk run the whole machine's CPU (/proc/stat: busy, idle,
steal) and wrk's own CPU (its rusage) are read beside the server's, so that
a run the machine's cores could not keep up with shows as such.

Writes one JSON object (--out) and the raw wrk outputs next to it; with
--doc, also rewrites the block between <!-- generated:exporter --> and
<!-- /generated:exporter --> in DOC (docs/BENCHMARKS.md) with the figures,
the targets and PASS/MISS.  Exit status 0, 3 when a target is missed (the
figures are written all the same), 1 when the benchmark could not run.
"""

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import urllib.request

WRK_LUA = r"""
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "bytes": %d, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, ' ..
    '"latency_us": {"mean": %.1f, "stdev": %.1f, "p50": %d, "p90": %d, "p99": %d, ' ..
    '"p999": %d, "max": %d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.stdev, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max))
end
"""


def die(msg):
    sys.exit("exporter_run: " + msg)


def cpu_split(pid):
    """(utime, stime) of all the process's threads, in clock ticks."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[11]), int(rest[12])


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "Threads"):
                out[k] = int(v.split()[0])
    return out


def machine_cpu():
    """/proc/stat's first line: (busy, idle + iowait, steal) in ticks."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (v + [0] * 8)[:8]
    return user + nice + system + irq + softirq, idle + iowait, steal


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def fetch(url, headers=None, timeout=5):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, dict(r.headers), r.read()


def wait_200(url, proc, log, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            die("%s exited (status %d) before it served %s; see %s"
                % (os.path.basename(proc.args[0]), proc.returncode, url, log))
        try:
            if fetch(url, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    die("%s did not answer 200 within %d s; see %s" % (url, timeout, log))


SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def series(body):
    """{(name, sorted labels, value)} of an exposition: node_exporter sorts
    labels and writes numbers its own way."""
    out = set()
    for line in body.decode(errors="replace").splitlines():
        m = SAMPLE_RE.match(line)
        if line and not line.startswith("#") and m:
            out.add((m.group(1), tuple(sorted(LABEL_RE.findall(m.group(2) or ""))),
                     float(m.group(3))))
    return out


def gauge(body, name):
    for line in body.decode(errors="replace").splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.split()[-1])
    return None


def sample_ts(body):
    return gauge(body, "gpumon_exporter_last_sample_timestamp_seconds")


class Runner:
    def __init__(self, a):
        self.a = a
        self.lua = os.path.join(a.dir, "done.lua")
        with open(self.lua, "w") as f:
            f.write(WRK_LUA)

    def wrk(self, name, url, gzip, secs, pid=None):
        """One wrk run; returns its figures (and the server's CPU over it)."""
        a = self.a
        cmd = [a.wrk, "-t%d" % a.threads, "-c%d" % a.conns, "-d%ds" % secs, "--latency",
               "-s", self.lua]
        if gzip:
            cmd += ["-H", "Accept-Encoding: gzip"]
        cmd.append(url)
        if a.warmup > 0:
            subprocess.run(cmd[:3] + ["-d%ds" % a.warmup] + cmd[4:], capture_output=True,
                           timeout=a.warmup + 60)
        l0 = loadavg()
        m0, w0 = machine_cpu(), children_cpu()
        t0, c0 = time.monotonic(), cpu_split(pid) if pid else (0, 0)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=secs + 60)
        wall, c1 = time.monotonic() - t0, cpu_split(pid) if pid else (0, 0)
        m1, w1 = machine_cpu(), children_cpu()
        with open(os.path.join(a.dir, "wrk-%s.txt" % name), "w") as f:
            f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
        if p.returncode != 0:
            die("wrk failed (%d) for %s: %s" % (p.returncode, name, p.stderr[-500:]))
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("WRKJSON ")]
        if not line:
            die("no WRKJSON line from wrk for %s (see wrk-%s.txt)" % (name, name))
        r = json.loads(line[-1][8:])
        r["scrapes_per_s"] = r["requests"] / (r["duration_us"] / 1e6)
        r["bytes_per_scrape"] = r["bytes"] / r["requests"] if r["requests"] else 0
        r["command"] = cmd
        if pid:
            tck = os.sysconf("SC_CLK_TCK")
            cpu_s = (sum(c1) - sum(c0)) / tck
            r["server_cpu_s"] = cpu_s
            # the kernel's part: on loopback, mostly copying the responses
            r["server_sys_pct"] = 100.0 * (c1[1] - c0[1]) / tck / wall
            r["server_cpu_pct"] = 100.0 * cpu_s / wall
            r["scrapes_per_cpu_s"] = r["requests"] / cpu_s if cpu_s else None
        r["errors_total"] = sum(r["errors"].values())
        # the machine over the run: busy % of all its cores (100 % = every
        # core busy), steal (another tenant's), and wrk's own share
        busy, idle, steal = (m1[i] - m0[i] for i in range(3))
        total = busy + idle + steal
        r["machine_busy_pct"] = 100.0 * busy / total if total else None
        r["machine_steal_pct"] = 100.0 * steal / total if total else None
        r["wrk_cpu_pct"] = 100.0 * (w1 - w0) / wall
        r["loadavg_before"], r["loadavg_after"] = l0, loadavg()
        return r


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summarize(rounds):
    """The median of each figure over the rounds (each on its own, so p99 is
    the median round's p99, not the p99 of the median-rate round), their
    range, and the CPU over all the rounds together."""
    r = {"rounds": len(rounds),
         "scrapes_per_s": median([x["scrapes_per_s"] for x in rounds]),
         "scrapes_per_s_range": [min(x["scrapes_per_s"] for x in rounds),
                                 max(x["scrapes_per_s"] for x in rounds)],
         "latency_us": {k: median([x["latency_us"][k] for x in rounds])
                        for k in rounds[0]["latency_us"]},
         "p99_us_range": [min(x["latency_us"]["p99"] for x in rounds),
                          max(x["latency_us"]["p99"] for x in rounds)],
         "errors_total": sum(x["errors_total"] for x in rounds),
         "bytes_per_scrape": median([x["bytes_per_scrape"] for x in rounds])}
    return r


def start(cmd, env, log):
    f = open(log, "w")
    return subprocess.Popen(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)


def stop(p):
    if p and p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            return p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.returncode if p else None


def status(gpumon, data_dir):
    r = subprocess.run([gpumon, "agent", "--status", "--no-config", "--data-dir", data_dir],
                       capture_output=True, text=True, timeout=30)
    try:
        return json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpumon", required=True)
    ap.add_argument("--node-exporter", required=True)
    ap.add_argument("--wrk", required=True)
    ap.add_argument("--dir", required=True, help="scratch and raw outputs (must not exist)")
    ap.add_argument("--port", type=int, required=True, help="gpumon; node_exporter gets +1")
    ap.add_argument("--out", required=True)
    ap.add_argument("--secs", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--hang-secs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--node-gomaxprocs", type=int, default=2,
                    help="node_exporter's --runtime.gomaxprocs (its default is 1)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="runs of each; the median of each figure is reported")
    ap.add_argument("--scenario-time", type=float, default=120)
    ap.add_argument("--doc", help="rewrite the generated:exporter block of this file")
    a = ap.parse_args()
    if os.path.exists(a.dir):
        die("%s exists" % a.dir)
    os.makedirs(os.path.join(a.dir, "textfile"))
    run = Runner(a)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    base_env = {k: v for k, v in os.environ.items() if k not in ("GPUSIM_TIME", "GPUSIM_EPOCH",
                                                                 "GPUSIM_SPEED")}
    res = {"threads": a.threads, "conns": a.conns, "secs": a.secs, "warmup_s": a.warmup,
           "rounds": a.rounds, "node_gomaxprocs": a.node_gomaxprocs,
           "hang_secs": a.hang_secs, "loadavg_start": loadavg(), "cores": os.cpu_count(),
           "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "cpu": cpu_model()}
    agent = node = None
    serve = []
    try:
        # 1. the agent, clock moving
        data = os.path.join(a.dir, "agent.d")
        env = dict(base_env, GPUSIM_EPOCH=str(time.time() - a.scenario_time))
        gurl = "http://127.0.0.1:%d/metrics" % a.port
        agent_cmd = [a.gpumon, "agent", "--no-config", "--data-dir", data, "--interval", "1s",
                     "--csv", "--store", "--procs", "--listen", "127.0.0.1:%d" % a.port]
        agent = start(agent_cmd, env, os.path.join(a.dir, "agent.log"))
        t_start = time.monotonic()
        wait_200(gurl, agent, os.path.join(a.dir, "agent.log"))
        res["agent"] = {"command": agent_cmd[agent_cmd.index(a.gpumon):]}
        time.sleep(3)  # a few samples: the renderings, the store's first commits
        st0 = status(a.gpumon, data)

        # 2. node_exporter on the same payload
        _, hdrs, body = fetch(gurl)
        _, zhdrs, zbody = fetch(gurl, {"Accept-Encoding": "gzip"})
        with open(os.path.join(a.dir, "textfile", "gpumon.prom.tmp"), "wb") as f:
            f.write(body)
        os.rename(os.path.join(a.dir, "textfile", "gpumon.prom.tmp"),
                  os.path.join(a.dir, "textfile", "gpumon.prom"))
        nurl = "http://127.0.0.1:%d/metrics" % (a.port + 1)
        node_cmd = [a.node_exporter, "--web.listen-address=127.0.0.1:%d" % (a.port + 1),
                    "--collector.disable-defaults", "--collector.textfile",
                    "--collector.textfile.directory=" + os.path.join(a.dir, "textfile"),
                    "--web.disable-exporter-metrics",
                    "--runtime.gomaxprocs=%d" % a.node_gomaxprocs]
        node = start(node_cmd, base_env, os.path.join(a.dir, "node_exporter.log"))
        wait_200(nurl, node, os.path.join(a.dir, "node_exporter.log"))
        _, nhdrs, nbody = fetch(nurl)
        _, nzhdrs, nzbody = fetch(nurl, {"Accept-Encoding": "gzip"})
        gl, nl = series(body), series(nbody)
        missing = gl - nl
        if missing:
            die("node_exporter does not serve gpumon's payload: %d series missing, e.g. %s"
                % (len(missing), sorted(missing)[:3]))
        res["payload"] = {
            "gpumon_bytes": len(body), "gpumon_gzip_bytes": len(zbody),
            "gpumon_gzip": zhdrs.get("Content-Encoding") == "gzip",
            "node_bytes": len(nbody), "node_gzip_bytes": len(nzbody),
            "node_gzip": nzhdrs.get("Content-Encoding") == "gzip",
            "series": len(gl), "node_extra_series": len(nl) - len(gl),
            "node_exporter_version": (lambda r: (r.stdout + r.stderr).splitlines()[0])(
                subprocess.run([a.node_exporter, "--version"], capture_output=True, text=True)),
            "wrk_version": subprocess.run([a.wrk, "-v"], capture_output=True,
                                          text=True).stdout.splitlines()[0],
        }

        # 3. throughput, interleaved, in rounds
        res["wrk_rounds"] = {}
        for rnd in range(1, a.rounds + 1):
            for enc in ("plain", "gzip"):
                for who, url, p in (("gpumon", gurl, agent), ("node_exporter", nurl, node)):
                    key = "%s-%s" % (who, enc)
                    name = "%s-%d" % (key, rnd)
                    print("exporter_run: wrk %s, %d s" % (name, a.secs), file=sys.stderr)
                    res["wrk_rounds"].setdefault(key, []).append(
                        run.wrk(name, url, enc == "gzip", a.secs, p.pid))
        res["runs"] = {k: summarize(v) for k, v in res["wrk_rounds"].items()}
        stop(node)
        node = None

        # 4. the agent's memory after the load
        st1 = status(a.gpumon, data)
        res["agent"]["memory_kib"] = proc_status(agent.pid)
        res["agent"]["uptime_s"] = time.monotonic() - t_start

        def counters(st):
            sinks = (st or {}).get("sinks", {})
            return {"samples": (st or {}).get("samples"),
                    "overruns": (st or {}).get("overruns", 0),
                    "dropped": sum(s.get("dropped", 0) for s in sinks.values()),
                    "errors": sum(s.get("errors", 0) for s in sinks.values())}
        res["agent"]["counters_start"] = counters(st0)
        res["agent"]["counters_end"] = counters(st1)
        res["agent"]["exit_status"] = stop(agent)
        agent = None

        # 5. p99 with and without a hung NVML call: both servers up at once
        # (the hung one's sampler costs nothing while it waits), their wrk
        # runs alternating, round after round
        faults = os.path.join(root, "scenarios", "faults.ini")
        hs = {}
        for i, (label, t) in enumerate((("no_hang", 50), ("hang", 130))):
            env = dict(base_env, GPUSIM_SCENARIO=faults, GPUSIM_TIME=str(t))
            port = a.port + 2 + i
            cmd = [a.gpumon, "serve", "--no-config", "--data-dir",
                   os.path.join(a.dir, "serve-%s.d" % label), "--interval", "1s",
                   "--listen", "127.0.0.1:%d" % port]
            log = os.path.join(a.dir, "serve-%s.log" % label)
            hs[label] = {"t": t, "url": "http://127.0.0.1:%d/metrics" % port, "log": log,
                         "proc": start(cmd, env, log)}
            serve.append(hs[label]["proc"])
        for h in hs.values():
            wait_200(h["url"], h["proc"], h["log"])
            h["ts0"], h["t0"] = sample_ts(fetch(h["url"])[2]), time.monotonic()
        res["hang_rounds"] = {"no_hang": [], "hang": []}
        for rnd in range(1, a.rounds + 1):
            for label, h in hs.items():
                name = "%s-%d" % (label, rnd)
                print("exporter_run: wrk %s, %d s" % (name, a.hang_secs), file=sys.stderr)
                res["hang_rounds"][label].append(
                    run.wrk(name, h["url"], True, a.hang_secs, h["proc"].pid))
        res["hang"] = {}
        for label, h in hs.items():
            body1 = fetch(h["url"])[2]
            ts1, t1 = sample_ts(body1), time.monotonic()
            r = summarize(res["hang_rounds"][label])
            r["scenario_time"] = h["t"]
            # how long the sample being served took (5 s with the hang)
            r["sample_duration_s"] = gauge(body1, "gpumon_exporter_sample_duration_seconds")
            # how far the served sample moved over all the rounds: about their
            # length without the hang; with it, in steps: a sample only after
            # each 5 s call
            r["served_sample_advance_s"] = None if h["ts0"] is None or ts1 is None \
                else ts1 - h["ts0"]
            r["served_sample_window_s"] = t1 - h["t0"]
            res["hang"][label] = r
        for p in serve:
            stop(p)
        serve = []
        res["loadavg_end"] = loadavg()
    finally:
        for p in [agent, node] + serve:
            stop(p)
    res["checks"] = checks(res)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    if a.doc:
        write_doc(a.doc, res)
    missed = [c["what"] for c in res["checks"] if not c["pass"]]
    r = res["runs"]
    print("exporter: gpumon %.0f / %.0f scrapes/s (plain / gzip), p99 %.2f / %.2f ms; "
          "node_exporter %.0f / %.0f scrapes/s; p99 with a hung NVML call %.2f ms "
          "(%.2f ms without); agent VmHWM %.1f MiB%s"
          % (r["gpumon-plain"]["scrapes_per_s"], r["gpumon-gzip"]["scrapes_per_s"],
             r["gpumon-plain"]["latency_us"]["p99"] / 1e3,
             r["gpumon-gzip"]["latency_us"]["p99"] / 1e3,
             r["node_exporter-plain"]["scrapes_per_s"], r["node_exporter-gzip"]["scrapes_per_s"],
             res["hang"]["hang"]["latency_us"]["p99"] / 1e3,
             res["hang"]["no_hang"]["latency_us"]["p99"] / 1e3,
             res["agent"]["memory_kib"]["VmHWM"] / 1024,
             "; MISS: " + "; ".join(missed) if missed else ""), file=sys.stderr)
    return 3 if missed else 0


# ---------------------------------------------------------------- targets
TARGET_RATE = 20000       # scrapes/s
TARGET_P99_MS = 5.0       # ms
TARGET_RATIO = 3.0        # gpumon / node_exporter
TARGET_HANG_FACTOR = 1.5  # hang p99 <= this x no-hang p99 ("unchanged", see BENCHMARKS.md)
TARGET_HWM_MIB = 12.0     # agent VmHWM with the exporter on


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def checks(res):
    """One entry per target: what, measured (number), target (number), pass."""
    out = []
    runs = res["runs"]
    for enc in ("plain", "gzip"):
        g, n = runs["gpumon-" + enc], runs["node_exporter-" + enc]
        ok_err = g["errors_total"] == 0
        out.append({"what": "gpumon scrapes/s, %s" % enc, "measured": g["scrapes_per_s"],
                    "target": TARGET_RATE, "pass": g["scrapes_per_s"] >= TARGET_RATE and ok_err})
        p99 = g["latency_us"]["p99"] / 1e3
        out.append({"what": "gpumon p99, %s" % enc, "measured": p99, "target": TARGET_P99_MS,
                    "pass": p99 <= TARGET_P99_MS})
        ratio = g["scrapes_per_s"] / n["scrapes_per_s"] if n["scrapes_per_s"] else float("inf")
        out.append({"what": "gpumon / node_exporter scrapes/s, %s" % enc, "measured": ratio,
                    "target": TARGET_RATIO, "pass": ratio >= TARGET_RATIO})
    h, nh = res["hang"]["hang"], res["hang"]["no_hang"]
    hp, np_ = h["latency_us"]["p99"] / 1e3, nh["latency_us"]["p99"] / 1e3
    factor = hp / np_ if np_ else float("inf")
    # the hang must really have been on: the served sample took >= 4 s
    hung = (h.get("sample_duration_s") or 0) >= 4
    out.append({"what": "p99 with a hung NVML call / without", "measured": factor,
                "target": TARGET_HANG_FACTOR,
                "pass": factor <= TARGET_HANG_FACTOR and hung and h["errors_total"] == 0})
    hwm = res["agent"]["memory_kib"]["VmHWM"] / 1024
    out.append({"what": "agent VmHWM with the exporter, after the load", "measured": hwm,
                "target": TARGET_HWM_MIB, "pass": hwm <= TARGET_HWM_MIB})
    return out


def write_doc(doc, res):
    runs, pl, hang = res["runs"], res["payload"], res["hang"]
    chk = {c["what"]: c for c in res["checks"]}

    def verdict(what):
        c = chk[what]
        return "**PASS**" if c["pass"] else "**MISS** (%.2f× the target)" % (
            c["measured"] / c["target"])

    def ms(us):
        return "%.2f ms" % (us / 1e3)

    def num(x):
        return "{:,.0f}".format(x)

    def rate(r):  # the median, and the range over the rounds
        lo, hi = r["scrapes_per_s_range"]
        return "**%s** (%s–%s)" % (num(r["scrapes_per_s"]), num(lo), num(hi))

    def p99(r):
        lo, hi = r["p99_us_range"]
        return "**%s** (%.2f–%.2f)" % (ms(r["latency_us"]["p99"]), lo / 1e3, hi / 1e3)

    la0, la1 = res["loadavg_start"], res["loadavg_end"]
    n = res["rounds"]
    lines = [
        "Last run: %s on %s (%d cores); load average %.2f / %.2f / %.2f at the start, "
        "%.2f / %.2f / %.2f at the end (the machine is shared: see the caveats, and the "
        "others' CPU below). wrk -t%d -c%d on loopback, %d rounds of %d s runs (%d s for "
        "the hang), each after a %d s warm-up, the servers interleaved; each figure is the "
        "median of its rounds, their range in brackets. 8 GPUs: %d series, %s bytes plain, "
        "%s gzip (gpumon), %s / %s (node_exporter). %s, --runtime.gomaxprocs=%d; %s."
        % (res["date"], res["cpu"], res["cores"], la0[0], la0[1], la0[2], la1[0], la1[1],
           la1[2], res["threads"], res["conns"], n, res["secs"], res["hang_secs"],
           res["warmup_s"], pl["series"], num(pl["gpumon_bytes"]), num(pl["gpumon_gzip_bytes"]),
           num(pl["node_bytes"]), num(pl["node_gzip_bytes"]), pl["node_exporter_version"],
           res["node_gomaxprocs"], pl["wrk_version"].split(" Copyright")[0]),
        "",
        "| what | gpumon | node_exporter | target | result |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for enc, note in (("gzip", "what Prometheus sends"), ("plain", "no Accept-Encoding")):
        g, ne = runs["gpumon-" + enc], runs["node_exporter-" + enc]
        lines += [
            "| scrapes/s, %s (%s) | %s | %s | ≥ %s | %s |"
            % (enc, note, rate(g), rate(ne), num(TARGET_RATE),
               verdict("gpumon scrapes/s, " + enc)),
            "| latency p99, %s (p50) | %s (p50 %s) | %s (p50 %s) | p99 ≤ %g ms | %s |"
            % (enc, p99(g), ms(g["latency_us"]["p50"]), p99(ne), ms(ne["latency_us"]["p50"]),
               TARGET_P99_MS, verdict("gpumon p99, " + enc)),
            "| gpumon / node_exporter scrapes/s, %s | **%.0f×** | | ≥ %g× | %s |"
            % (enc, chk["gpumon / node_exporter scrapes/s, " + enc]["measured"], TARGET_RATIO,
               verdict("gpumon / node_exporter scrapes/s, " + enc)),
        ]
    h, nh = hang["hang"], hang["no_hang"]
    lines += [
        "| hung NVML call (`gpumon serve`, `faults.ini`, 4 GPUs, gzip): p99 hung / not hung "
        "| %s / %s: **%.2f×** | | ≤ %g× | %s |"
        % (p99(h), p99(nh), chk["p99 with a hung NVML call / without"]["measured"],
           TARGET_HANG_FACTOR, verdict("p99 with a hung NVML call / without")),
        "| agent VmRSS / VmHWM after all the runs (CSV + store + procs + exporter) | "
        "%.1f / **%.1f MiB** | | VmHWM ≤ %g MiB | %s |"
        % (res["agent"]["memory_kib"]["VmRSS"] / 1024, res["agent"]["memory_kib"]["VmHWM"] / 1024,
           TARGET_HWM_MIB, verdict("agent VmHWM with the exporter, after the load")),
        "",
        "**Where the CPU went**, run by run in the order they ran (%% of one core; the "
        "machine has %d, so %d %% is all of it; others' is the machine's busy time less "
        "the server's and wrk's: the other tenants of a shared machine)"
        % (res["cores"], 100 * res["cores"]),
        "",
        "| run | scrapes/s | p99 | errors | server CPU (of it system) | scrapes per server "
        "CPU-second | wrk CPU "
        "| others' CPU | steal | load (1 min) before → after |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows = []
    for rnd in range(n):
        for enc in ("plain", "gzip"):
            for who in ("gpumon", "node_exporter"):
                rows.append(("%s, %s, round %d" % (who, enc, rnd + 1),
                             res["wrk_rounds"]["%s-%s" % (who, enc)][rnd]))
    for rnd in range(n):
        for label, what in (("no_hang", "`serve`, not hung"), ("hang", "`serve`, hung")):
            rows.append(("%s, gzip, round %d" % (what, rnd + 1), res["hang_rounds"][label][rnd]))
    for name, r in rows:
        spc = r.get("scrapes_per_cpu_s")
        others = r["machine_busy_pct"] * res["cores"] - r["server_cpu_pct"] - r["wrk_cpu_pct"]
        lines.append("| %s | %s | %s | %d | %.0f %% (%.0f %%) | %s | %.0f %% | %.0f %% | %.1f %% | "
                     "%.2f → %.2f |"
                     % (name, num(r["scrapes_per_s"]), ms(r["latency_us"]["p99"]),
                        r["errors_total"], r["server_cpu_pct"], r["server_sys_pct"],
                        num(spc) if spc else "–",
                        r["wrk_cpu_pct"], max(0.0, others),
                        r["machine_steal_pct"] * res["cores"],
                        r["loadavg_before"][0], r["loadavg_after"][0]))
    c1 = res["agent"]["counters_end"]
    lines += [
        "",
        "The hang was on: the sample being served took %.3f s (%.3f ms without the hang), and "
        "its timestamp moved %.0f s in %.0f s of rounds (%.0f s in %.0f s without): the sampler "
        "spends its time in 5 s calls and the exporter serves the last finished sample "
        "meanwhile. The agent took %d "
        "samples over its %.0f s with %d overruns, %d dropped snapshots and %d sink errors "
        "under the load, and exited %s on SIGTERM."
        % (h.get("sample_duration_s") or float("nan"),
           1e3 * (nh.get("sample_duration_s") or float("nan")),
           h.get("served_sample_advance_s") or 0, h["served_sample_window_s"],
           nh.get("served_sample_advance_s") or 0, nh["served_sample_window_s"],
           (c1["samples"] or 0), res["agent"]["uptime_s"], c1["overruns"], c1["dropped"],
           c1["errors"], res["agent"]["exit_status"]),
    ]
    block = "<!-- generated:exporter -->\n" + "\n".join(lines) + "\n<!-- /generated:exporter -->"
    text = open(doc).read()
    m = re.search(r"<!-- generated:exporter -->\n.*?<!-- /generated:exporter -->", text, re.S)
    if not m:
        die("no <!-- generated:exporter --> block in %s" % doc)
    open(doc, "w").write(text[:m.start()] + block + text[m.end():])


if __name__ == "__main__":
    sys.exit(main())
