#!/usr/bin/env python3
"""fleet_run.py -- `gpumon fleet` at scale: 1000 replayed nodes, 64 real
agents behind a real Prometheus, `fleet top` in tmux (docs/BENCHMARKS.md,
"Fleet").

    fleet_run.py --gpumon PATH --simlib PATH --dir DIR --out JSON [--doc FILE]
                 [--nodes 1000] [--agents 64] [--runs 5] [--keys 10]

1. --agents real `gpumon serve` processes on the simulator (nine shipped
   scenarios in turn, the clock pinned), each on a free loopback port.
   Their /api/v1/status and /api/v1/alerts are recorded: the documents the
   replaying server answers with.
2. Prometheus (Debian's `prometheus`, skipped without it) scrapes 16 of
   them, then (its configuration reloaded) all of them.  At each size the
   queries of one `fleet --prometheus` are counted from Prometheus' own
   query log, and at 64 --runs runs of `fleet --prometheus` give the wall
   time (target: 1 s).
3. The agents and Prometheus stopped, bench/fleet_replay.py answers as
   --nodes agents on as many ports (1-50 ms latency; 5 % refused, 5 %
   accept and never answer).  --runs runs each of `fleet --hosts-file` and
   `fleet --hosts-file --json` with the defaults (--timeout 2) and with
   --timeout 1.5, and of the same without the hung nodes: wall, user+sys
   CPU and max RSS of the process (os.wait4), CPU per node; every run's
   JSON must mark exactly the refused and the hung nodes, and every other
   node with its document's state and GPU count (targets: 2 s, 100 MiB).
   The peer: curl 7.x's --parallel (--parallel-max 1000, --compressed, -m 2)
   fetching the same two paths of every node, the same measures.
4. `fleet top` over the same nodes in a 200x50 tmux pane: the time to its
   first screen and to its first round, then --keys sort keys sent while
   rounds are under way (the hung nodes hold every round for --timeout):
   the time until the screen shows the new sort (target: 200 ms); then
   its CPU (utime+stime of every thread) over 3 whole rounds: per round
   and per node per round.

Writes --out (JSON) and, with --doc, the block between
<!-- generated:fleet --> and <!-- /generated:fleet -->.  Exit status 0,
3 when a target is missed, 1 when a run failed.  No result is asserted
about time anywhere else: the tests assert behaviour.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIOS = ["h100x8-training.ini", "workstation.ini", "a100x16-mixed.ini",
             "diagnose/idle.ini", "diagnose/gpu-lost.ini", "fault-driver-not-loaded.ini",
             "inference-leak.ini", "hostile-names.ini", "a100-mig.ini"]
TARGET_WALL_S = 2.0
TARGET_RSS_MIB = 100
TARGET_PROM_S = 1.0
TARGET_KEY_MS = 200
ROUNDS = 3  # fleet top's rounds whose CPU is measured
LOG = []


def die(msg):
    sys.exit("fleet_run: " + msg)


def say(msg):
    print("fleet_run: " + msg, file=sys.stderr, flush=True)


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return re.sub(r"\s+", " ", line.split(":", 1)[1]).strip()
    except OSError:
        pass
    return "unknown CPU"


def commit():
    def git(*args):
        return subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True,
                              text=True).stdout.strip()
    c = git("rev-parse", "--short", "HEAD") or "unknown"
    return c + (" (with uncommitted changes)" if git("status", "--porcelain",
                                                     "--untracked-files=no") else "")


def free_port():
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


def wait_until(pred, what, timeout=120, step=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(step)
    die("%s: not within %d s" % (what, timeout))


def measure(argv, env=None, stdout_path=None):
    """Runs argv; returns (exit status, stdout bytes, stderr bytes, wall s,
    user+sys CPU s, max RSS MiB) of that process alone (wait4)."""
    out = open(stdout_path, "w+b") if stdout_path else tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    err.seek(0)
    o, e = out.read(), err.read()
    out.close()
    err.close()
    return p.returncode, o, e, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def sim_env(simlib, scn=None, pinned=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPUSIM_TIME", "GPUSIM_SPEED", "GPUSIM_EPOCH", "GPUSIM_SCENARIO",
                        "XDG_CONFIG_HOME")}
    env.update({"GPUMON_NVML_LIB": simlib, "LC_ALL": "C", "NO_COLOR": "1", "TZ": "UTC"})
    if scn:
        env["GPUSIM_SCENARIO"] = os.path.join(ROOT, "scenarios", scn)
    if pinned is not None:
        env["GPUSIM_TIME"] = str(pinned)
    return env


# ---------------------------------------------------------------- the real agents
class Agent:
    def __init__(self, gpumon, simlib, d, i):
        self.i, self.scn = i, SCENARIOS[i % len(SCENARIOS)]
        self.data = os.path.join(d, "a%d" % i)
        self.env = sim_env(simlib, self.scn, pinned=100)
        self.gpumon, self.logpath = gpumon, os.path.join(d, "a%d.log" % i)
        self.proc = None

    def start(self):
        self.port = free_port()
        with open(self.logpath, "w") as log:
            self.proc = subprocess.Popen(
                [self.gpumon, "serve", "--no-config", "--data-dir", self.data, "--listen",
                 "127.0.0.1:%d" % self.port, "--interval", "2s", "--no-diagnose"],
                env=self.env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def ready(self):
        if self.proc.poll() is not None:
            return None
        try:
            return http_get("http://127.0.0.1:%d/api/v1/status" % self.port, 2)[0] == 200
        except (OSError, ValueError):
            return False

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_agents(a, d):
    """Starts them all, then waits for each; one whose port was taken
    between free_port() and its bind is started again on a fresh port."""
    os.makedirs(d)
    agents = [Agent(a.gpumon, a.simlib, d, i) for i in range(a.agents)]
    for g in agents:
        g.start()
    deadline = time.monotonic() + 180
    for g in agents:
        tries = 0
        while True:
            r = g.ready()
            if r:
                break
            if r is None:
                tries += 1
                if tries == 3:
                    die("agent %d (%s) exited (see %s)" % (g.i, g.scn, g.logpath))
                g.start()
            if time.monotonic() >= deadline:
                die("agent %d (%s) never answered (see %s)" % (g.i, g.scn, g.logpath))
            time.sleep(0.2)
    return agents


def record(agents, docs):
    os.makedirs(docs)
    for k, g in enumerate(agents):
        for path, name in (("/api/v1/status", "status"), ("/api/v1/alerts", "alerts")):
            st, body = http_get("http://127.0.0.1:%d%s" % (g.port, path), 10)
            if st != 200:
                die("agent %d: %s answered %d" % (g.i, path, st))
            with open(os.path.join(docs, "%s-%d.json" % (name, k)), "wb") as f:
                f.write(body)


# ---------------------------------------------------------------- Prometheus
def prometheus_part(a, d, agents, res):
    prom_bin = shutil.which("prometheus")
    if not prom_bin:
        res["prometheus"] = {"skipped": "prometheus is not installed (scripts/install-deps.sh)"}
        return
    cfg = os.path.join(d, "prometheus.yml")
    qlog = os.path.join(d, "query.log")
    port = free_port()
    url = "http://127.0.0.1:%d" % port

    def write_cfg(n):
        targets = ["127.0.0.1:%d" % g.port for g in agents[:n]]
        with open(cfg + ".tmp", "w") as f:
            f.write("global:\n  scrape_interval: 2s\n  scrape_timeout: 1s\n"
                    "  query_log_file: %s\nscrape_configs:\n  - job_name: gpumon\n"
                    "    static_configs:\n      - targets: %s\n" % (qlog, json.dumps(targets)))
        os.rename(cfg + ".tmp", cfg)

    def count(q):
        try:
            st, body = http_get(url + "/api/v1/query?query=" + urllib.request.quote(q), 5)
            return len(json.loads(body)["data"]["result"])
        except (OSError, ValueError, KeyError):
            return -1

    def queries():
        try:
            with open(qlog) as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    write_cfg(16)
    plog = open(os.path.join(d, "prometheus.log"), "w")
    prom = subprocess.Popen([prom_bin, "--config.file=" + cfg,
                             "--storage.tsdb.path=" + os.path.join(d, "tsdb"),
                             "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                            stdout=plog, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    out = {"sizes": {}}
    try:
        env = sim_env(a.simlib)
        for n in (16, len(agents)):
            if n != 16:
                write_cfg(n)
                prom.send_signal(signal.SIGHUP)
            wait_until(lambda: prom.poll() is not None or
                       count('up{job="gpumon"} == 1') == n and
                       count("gpumon_exporter_last_sample_timestamp_seconds") == n,
                       "Prometheus scraping %d agents" % n, timeout=180, step=0.5)
            if prom.poll() is not None:
                die("prometheus exited %d (see %s)" % (prom.returncode, plog.name))
            time.sleep(3)  # two more scrapes: every series of every target in
            argv = [a.gpumon, "fleet", "--prometheus", url, "--json"]
            runs = []
            for r in range(a.runs if n != 16 else 1):
                q0 = queries()
                rc, o, e, wall, cpu, rss = measure(argv, env)
                time.sleep(0.5)  # the query log is written after the answer
                q = queries() - q0
                if rc != 0:
                    die("fleet --prometheus exit %d: %s" % (rc, e.decode(errors="replace")))
                nodes = json.loads(o)["nodes"]
                if len(nodes) != n or any(x["state"] not in ("ok", "driver") for x in nodes):
                    die("fleet --prometheus over %d agents listed %d nodes, states %s"
                        % (n, len(nodes), sorted({x["state"] for x in nodes})))
                runs.append({"wall_s": wall, "cpu_s": cpu, "rss_mib": rss, "queries": q})
            out["sizes"][str(n)] = runs
    finally:
        prom.send_signal(signal.SIGTERM)
        try:
            prom.wait(30)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()
        plog.close()
    big = out["sizes"][str(len(agents))]
    out["wall_s_median"] = statistics.median(r["wall_s"] for r in big)
    out["queries"] = {k: v[0]["queries"] for k, v in out["sizes"].items()}
    out["version"] = subprocess.run([prom_bin, "--version"], capture_output=True,
                                    text=True).stdout.split("\n")[0]
    res["prometheus"] = out


# ---------------------------------------------------------------- 1000 nodes
def expected(man, docs):
    want = {}
    states = []
    for k in range(len(os.listdir(docs)) // 2):
        with open(os.path.join(docs, "status-%d.json" % k)) as f:
            doc = json.load(f)
        states.append(("ok" if doc["driver"]["status"] == "ok" else "driver", len(doc["gpus"])))
    for p, kind, k in zip(man["ports"], man["kind"], man["doc"]):
        h = "127.0.0.1:%d" % p
        if kind == "dead":
            want[h] = ("unreachable", "connection refused", None)
        elif kind == "hung":
            want[h] = ("unreachable", "timeout", None)
        else:
            want[h] = (states[k][0], None, states[k][1])
    return want


def check_json(o, hosts, want, what):
    """Dies unless every node is as want says; a live node that did not
    answer in time (the replaying server shares the loaded machine) is
    counted, not fatal.  Returns that count."""
    nodes = json.loads(o)["nodes"]
    if [x["host"] for x in nodes] != hosts:
        die("%s: the nodes are not the %d hosts in order" % (what, len(hosts)))
    late = 0
    for x in nodes:
        st, why, ngpu = want[x["host"]]
        if ngpu is not None and (x["state"], x["reason"]) == ("unreachable", "timeout"):
            late += 1
            continue
        got = (x["state"], x["reason"] if st == "unreachable" else None,
               len(x["gpus"]) if ngpu is not None else None)
        if got != (st, why, ngpu):
            die("%s: %s is %s, want %s" % (what, x["host"], got, (st, why, ngpu)))
    return late


def check_text(o, hosts, want, what):
    """check_json for the text view."""
    lines = {ln.split()[0]: ln for ln in o.decode(errors="replace").splitlines()
             if ln.startswith("127.0.0.1:")}
    if set(lines) != set(hosts):
        die("%s: %d node lines for %d hosts" % (what, len(lines), len(hosts)))
    late = 0
    for h in hosts:
        st, why, ngpu = want[h]
        f = lines[h].split(None, 2)
        if ngpu is not None and f[1:] == ["unreachable", "timeout"]:
            late += 1
            continue
        if f[1] != st or (why and not f[2].startswith(why)):
            die("%s: %s reads %r, want %s %s" % (what, h, lines[h][:120], st, why or ""))
    return late


def summarize(runs, nodes):
    med = lambda k: statistics.median(r[k] for r in runs)  # noqa: E731
    return {"runs": runs, "wall_s": med("wall_s"), "wall_s_max": max(r["wall_s"] for r in runs),
            "cpu_s": med("cpu_s"), "rss_mib": max(r["rss_mib"] for r in runs),
            "cpu_us_per_node": med("cpu_s") / nodes * 1e6, "nodes": nodes,
            "late_max": max(r.get("late", 0) for r in runs)}


def scale_part(a, d, docs, res):
    man_path = os.path.join(d, "manifest.json")
    rlog = open(os.path.join(d, "replay.log"), "w")
    replay = subprocess.Popen([sys.executable, os.path.join(HERE, "fleet_replay.py"), "--docs",
                               docs, "--nodes", str(a.nodes), "--manifest", man_path],
                              stdout=rlog, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        wait_until(lambda: os.path.exists(man_path) or replay.poll() is not None,
                   "the replaying server's ports", timeout=120)
        if replay.poll() is not None:
            die("fleet_replay.py exited %d (see %s)" % (replay.returncode, rlog.name))
        with open(man_path) as f:
            man = json.load(f)
        want = expected(man, docs)
        hosts = ["127.0.0.1:%d" % p for p in man["ports"]]
        nohung = [h for h, k in zip(hosts, man["kind"]) if k != "hung"]
        hf = os.path.join(d, "hosts.txt")
        hf2 = os.path.join(d, "hosts-nohung.txt")
        with open(hf, "w") as f:
            f.write("\n".join(hosts) + "\n")
        with open(hf2, "w") as f:
            f.write("\n".join(nohung) + "\n")
        env = sim_env(a.simlib)
        cases = [("text", [], hf, hosts), ("json", ["--json"], hf, hosts),
                 ("json-t1.5", ["--json", "--timeout", "1.5"], hf, hosts),
                 ("json-nohung", ["--json"], hf2, nohung)]
        out = {"nodes": a.nodes, "dead": man["kind"].count("dead"),
               "hung": man["kind"].count("hung"), "docs": len(os.listdir(docs)) // 2,
               "latency_ms": [min(man["latency_ms"]), max(man["latency_ms"])], "cases": {}}
        # one warm-up run: the page cache, the module's first load
        measure([a.gpumon, "fleet", "--hosts-file", hf, "--json"], env)
        for name, extra, hfile, hl in cases:
            runs = []
            for r in range(a.runs):
                rc, o, e, wall, cpu, rss = measure(
                    [a.gpumon, "fleet", "--hosts-file", hfile] + extra, env)
                if rc != 0:
                    die("fleet %s exit %d: %s" % (name, rc, e.decode(errors="replace")[-500:]))
                late = (check_json if extra else check_text)(o, hl, want, "fleet " + name)
                runs.append({"wall_s": wall, "cpu_s": cpu, "rss_mib": rss, "late": late})
            out["cases"][name] = summarize(runs, len(hl))
            say("%s: median %.3f s wall, %.3f s CPU, %.1f MiB" %
                (name, out["cases"][name]["wall_s"], out["cases"][name]["cpu_s"],
                 out["cases"][name]["rss_mib"]))
        # the peer: curl --parallel over the same two paths of every node
        curl = shutil.which("curl")
        if curl:
            cfg = os.path.join(d, "curl.cfg")
            with open(cfg, "w") as f:
                for h in hosts:
                    for p in ("/api/v1/status", "/api/v1/alerts"):
                        f.write('url = "http://%s%s"\noutput = "/dev/null"\n' % (h, p))
            runs = []
            for r in range(a.runs):
                rc, o, e, wall, cpu, rss = measure(
                    [curl, "-s", "--parallel", "--parallel-max", "1000", "--compressed",
                     "-m", "2", "-K", cfg], env)
                runs.append({"wall_s": wall, "cpu_s": cpu, "rss_mib": rss, "rc": rc})
            out["curl"] = summarize(runs, len(hosts))
            out["curl"]["version"] = subprocess.run([curl, "--version"], capture_output=True,
                                                    text=True).stdout.split("\n")[0]
        if shutil.which("tmux"):
            out["top"] = top_part(a, d, hf, env)
        else:
            out["top"] = {"skipped": "tmux is not installed"}
        res["scale"] = out
    finally:
        replay.send_signal(signal.SIGTERM)
        try:
            replay.wait(30)
        except subprocess.TimeoutExpired:
            replay.kill()
            replay.wait()
        rlog.close()


# ---------------------------------------------------------------- fleet top
def top_part(a, d, hf, env):
    sock = os.path.join(d, "tmux.sock")
    script = os.path.join(d, "top.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nexport TERM=screen LANG=C.UTF-8 LC_ALL=C.UTF-8\n"
                "exec %s fleet top --hosts-file %s\n" % (a.gpumon, hf))
    os.chmod(script, 0o755)

    def tmux(*args):
        return subprocess.run(["tmux", "-S", sock, "-f", "/dev/null"] + list(args),
                              capture_output=True, text=True, env=env)

    def screen():
        return tmux("capture-pane", "-p", "-t", "t").stdout

    out = {}
    t0 = time.monotonic()
    tmux("new-session", "-d", "-s", "t", "-x", "200", "-y", "50", script)
    try:
        def seen(pat, timeout=60):
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                s = screen()
                if re.search(pat, s):
                    return time.monotonic(), s
                time.sleep(0.005)
            die("fleet top: never saw %r:\n%s" % (pat, screen()))
        t1, _ = seen(r"gpumon fleet top")
        t2, s = seen(r"round 1 ")
        out["first_screen_s"] = t1 - t0
        out["first_round_s"] = t2 - t0
        m = re.search(r"(\d+) not answering", s)
        out["not_answering"] = int(m.group(1)) if m else None
        keys = [("u", "utilisation"), ("n", "list order"), ("w", "power"), ("p", "problems"),
                ("f", "free")]
        lat = []
        for i in range(a.keys):
            k, word = keys[i % len(keys)]
            time.sleep(0.3)
            r0 = re.search(r"round (\d+) ", screen())
            ts = time.monotonic()
            tmux("send-keys", "-t", "t", k)
            te, s = seen(r"sort: " + word)
            r1 = re.search(r"round (\d+) ", s)
            lat.append({"key": k, "ms": (te - ts) * 1000,
                        "round_before": int(r0.group(1)) if r0 else None,
                        "round_after": int(r1.group(1)) if r1 else None})
        out["keys"] = lat
        out["key_ms_median"] = statistics.median(x["ms"] for x in lat)
        out["key_ms_max"] = max(x["ms"] for x in lat)
        # keys answered within a round (the same round number before and
        # after): the screen did not wait for the round to end
        out["keys_within_round"] = sum(1 for x in lat if x["round_before"] == x["round_after"])
        # CPU per refresh: the process's utime+stime (every thread) over
        # ROUNDS whole rounds, the screen redrawn between them as it is
        pid = int(tmux("display-message", "-p", "-t", "t", "#{pane_pid}").stdout.strip())
        r0 = int(re.search(r"round (\d+) ", seen(r"round \d+ ")[1]).group(1))
        _, s = seen(r"round %d " % (r0 + 1))
        c0 = cpu_ticks(pid)
        _, s = seen(r"round %d " % (r0 + 1 + ROUNDS), timeout=60 + 10 * ROUNDS)
        c1 = cpu_ticks(pid)
        out["round_cpu_ms"] = (c1 - c0) * 1000 / os.sysconf("SC_CLK_TCK") / ROUNDS
        out["rounds_measured"] = ROUNDS
        tmux("send-keys", "-t", "t", "q")
    finally:
        tmux("kill-server")
    return out


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])


def fmt_block(res):
    sc = res.get("scale", {})
    pr = res.get("prometheus", {})
    rows = ["| what | measured | target | result |", "| --- | ---: | ---: | ---: |"]
    ok = True

    def row(what, meas, target="", result=None):
        nonlocal ok
        if result is not None:
            ok = ok and result
        rows.append("| %s | %s | %s | %s |" % (what, meas, target,
                                               "" if result is None else
                                               "**PASS**" if result else "**MISS**"))
    c = sc.get("cases", {})
    for name, short, label in (
            ("text", "text", "`fleet --hosts-file` (text), defaults (--timeout 2)"),
            ("json", "--json", "`fleet --hosts-file --json`, defaults (--timeout 2)"),
            ("json-t1.5", "--timeout 1.5", "`fleet --hosts-file --json --timeout 1.5`")):
        if name not in c:
            continue
        x = c[name]
        row("%s: median wall of %d runs (max)" % (label, len(x["runs"])),
            "%.3f s (%.3f s)" % (x["wall_s"], x["wall_s_max"]), "≤ %.0f s" % TARGET_WALL_S,
            x["wall_s"] <= TARGET_WALL_S)
        row("… %s: CPU (user+sys); per node" % short,
            "%.0f ms; %.0f µs" % (x["cpu_s"] * 1000, x["cpu_us_per_node"]))
        row("… %s: max RSS" % short, "%.1f MiB" % x["rss_mib"], "≤ %d MiB" % TARGET_RSS_MIB,
            x["rss_mib"] <= TARGET_RSS_MIB)
        row("… %s: live nodes read as `timeout` (the replaying server late), the most in a run"
            % short, "%d" % x["late_max"])
    if "json-nohung" in c:
        x = c["json-nohung"]
        row("the same (--json) over the %d nodes without the hung ones: wall; CPU per node; "
            "live nodes late" % x["nodes"],
            "%.3f s; %.0f µs; %d" % (x["wall_s"], x["cpu_us_per_node"], x["late_max"]))
    if "curl" in sc:
        x, j = sc["curl"], c.get("json")
        row("peer: `curl --parallel --parallel-max 1000 --compressed -m 2`, the same 2 paths "
            "of %d nodes: wall; CPU; max RSS" % x["nodes"],
            "%.3f s; %.0f ms; %.1f MiB" % (x["wall_s"], x["cpu_s"] * 1000, x["rss_mib"]))
        if j:
            row("gpumon / curl: wall; CPU; RSS", "%.2f; %.2f; %.2f" % (
                j["wall_s"] / x["wall_s"], j["cpu_s"] / x["cpu_s"] if x["cpu_s"] else 0,
                j["rss_mib"] / x["rss_mib"]))
    t = sc.get("top", {})
    if "first_screen_s" in t:
        row("`fleet top` over %d nodes in tmux 200x50: first screen; first round" % sc["nodes"],
            "%.2f s; %.2f s" % (t["first_screen_s"], t["first_round_s"]))
        row("… a sort key to the screen showing it, %d keys during rounds: median (max)"
            % len(t["keys"]), "%.0f ms (%.0f ms)" % (t["key_ms_median"], t["key_ms_max"]),
            "≤ %d ms" % TARGET_KEY_MS, t["key_ms_max"] <= TARGET_KEY_MS)
        row("… keys answered inside a round (the same round number before and after)",
            "%d of %d" % (t["keys_within_round"], len(t["keys"])))
        row("… CPU per round (every thread, %d rounds); per node per round"
            % t["rounds_measured"], "%.0f ms; %.0f µs" % (
                t["round_cpu_ms"], t["round_cpu_ms"] * 1000 / sc["nodes"]))
    elif t:
        row("`fleet top`", "not measured: " + t["skipped"])
    if "sizes" in pr:
        q = pr["queries"]
        n = max(int(k) for k in q)
        row("`fleet --prometheus --json`, %d agents: median wall of %d runs" % (
            n, len(pr["sizes"][str(n)])), "%.3f s" % pr["wall_s_median"],
            "≤ %.0f s" % TARGET_PROM_S, pr["wall_s_median"] <= TARGET_PROM_S)
        row("… queries (Prometheus' query log) at %s agents" % " vs ".join(sorted(q, key=int)),
            " vs ".join(str(q[k]) for k in sorted(q, key=int)), "the same",
            len(set(q.values())) == 1)
    elif pr:
        row("`fleet --prometheus`", "not measured: " + pr["skipped"])
    head = ("Last run: %s on %s (%d cores), commit %s; load average %s at the start, %s at "
            "the end; %s s in all. %d replayed nodes (%d documents recorded from %d real `gpumon serve` "
            "agents on %d scenarios; %d refused, %d hung; latency %.0f-%.0f ms a port)%s.\n\n"
            % (res["date"], res["cpu"], res["cores"], res["commit"],
               " / ".join("%.2f" % x for x in res["loadavg_start"]),
               " / ".join("%.2f" % x for x in res["loadavg_end"]), res["seconds"],
               sc.get("nodes", 0), sc.get("docs", 0), res["agents"],
               min(res["agents"], len(SCENARIOS)), sc.get("dead", 0), sc.get("hung", 0),
               *(sc.get("latency_ms") or [0, 0]),
               "; %s" % pr["version"] if "version" in pr else ""))
    return head + "\n".join(rows) + "\n", ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpumon", required=True)
    ap.add_argument("--simlib", required=True)
    ap.add_argument("--dir", required=True, help="scratch and raw outputs (must not exist)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--doc")
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--agents", type=int, default=64)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keys", type=int, default=10)
    a = ap.parse_args()
    a.gpumon = os.path.abspath(a.gpumon)
    a.simlib = os.path.abspath(a.simlib)
    a.dir = os.path.abspath(a.dir)  # Prometheus resolves paths from its configuration's
    if a.agents < 16:
        die("--agents: at least 16 (Prometheus' queries are counted at 16 and at --agents)")
    if os.path.exists(a.dir):
        die("%s exists" % a.dir)
    os.makedirs(a.dir)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    t_start = time.monotonic()
    res = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "cpu": cpu_model(),
           "cores": os.cpu_count(), "loadavg_start": loadavg(), "agents": a.agents,
           "nofile": [soft, hard], "commit": commit()}
    docs = os.path.join(a.dir, "docs")
    say("%d agents, recording their documents" % a.agents)
    agents = start_agents(a, os.path.join(a.dir, "agents"))
    try:
        record(agents, docs)
        say("Prometheus over 16 and %d agents" % a.agents)
        prometheus_part(a, a.dir, agents, res)
    finally:
        for g in agents:
            g.stop()
    say("%d replayed nodes" % a.nodes)
    scale_part(a, a.dir, docs, res)
    res["loadavg_end"] = loadavg()
    res["seconds"] = round(time.monotonic() - t_start)
    block, ok = fmt_block(res)
    res["pass"] = ok
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print(block)
    if a.doc:
        text = open(a.doc).read()
        pat = r"<!-- generated:fleet -->\n.*?<!-- /generated:fleet -->"
        if not re.search(pat, text, re.S):
            die("no <!-- generated:fleet --> block in %s" % a.doc)
        text = re.sub(pat, lambda m: "<!-- generated:fleet -->\n" + block +
                      "<!-- /generated:fleet -->", text, flags=re.S)
        with open(a.doc, "w") as f:
            f.write(text)
    sys.exit(0 if ok else 3)


if __name__ == "__main__":
    main()
