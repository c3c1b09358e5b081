#!/usr/bin/env python3
"""fleet_top.py -- `gpumon fleet top` in a real terminal (tmux; skipped
without it) against real agents on loopback (docs/fleet.md).

  agents     three real agents (the demo node, a node with a lost GPU, a
             workstation) and a fake node whose host and GPU names hold
             ESC sequences, BEL, invalid UTF-8 and a bidi override: every
             node ok in the list, the hostile names as U+FFFD (the pane's
             title untouched), the sort keys (power and free memory give the
             order the agents' own /api/v1/status values give), Enter opens
             a node's GPUs with their names; then one agent stopped with
             SIGSTOP: the rounds go on, the stopped node is marked
             unreachable (timeout) with its last GPUs kept and their age
             growing, its cells 'x', first under the problems sort; q gives
             the terminal back
  usage      --interval 0, a Prometheus that does not answer, no terminal:
             refused, saying why
  grid       125 fake nodes of 8 GPUs (1000 GPUs) on 200x50: one cell per
             GPU, the grid in under 10 lines, the node list under it;
             resized to 100x40, the same cells on more lines; SIGTERM gives
             the terminal back
"""
import json
import os
import re
import shlex
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import top_lib  # noqa: E402
from agentlib import Scratch, check, check_eq, main  # noqa: E402
from exporter_lib import get, stop_all  # noqa: E402
from fleet_hostile import Fake, status_doc  # noqa: E402
from fleet_lib import fleet, start_agents  # noqa: E402


class FleetTop(top_lib.Top):
    """gpumon fleet top in a tmux pane of cols x rows."""

    def __init__(self, cols, rows, args):
        import tempfile
        self.dir = tempfile.mkdtemp(prefix="gpumon-ftop-")
        self.sock = os.path.join(self.dir, "tmux.sock")
        self.stty = os.path.join(self.dir, "stty.txt")
        term = "tmux-256color" if top_lib._has_terminfo("tmux-256color") else "screen"
        script = os.path.join(self.dir, "run.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n")
            f.write(f"export TERM={term} LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC\n")
            f.write(f"echo {top_lib.MARKER}\n")
            f.write(" ".join(shlex.quote(a) for a in [top_lib.GPUMON, "fleet", "top"] + args))
            f.write("\necho EXIT=$?\n")
            f.write(f"stty -a > {shlex.quote(self.stty)}.tmp 2>&1\n")
            f.write(f"mv {shlex.quote(self.stty)}.tmp {shlex.quote(self.stty)}\n")
            f.write("exec sleep 600\n")
        os.chmod(script, 0o755)
        self.tmux("new-session", "-d", "-s", "t", "-x", str(cols), "-y", str(rows), script)
        self.wait_for("gpumon fleet top", what="the view to start")

    def round(self):
        m = re.search(r"round (\d+) ", self.screen())
        return int(m.group(1)) if m else 0

    def wait_round(self, n, what):
        deadline = time.monotonic() + top_lib.WAIT_S
        while time.monotonic() < deadline:
            if self.round() >= n:
                return
            time.sleep(0.1)
        top_lib.fail(f"never saw round {n} ({what})", self.screen())

    def row(self, host):
        """The node list's row of host (the grid never holds a ':')."""
        for line in self.lines():
            if line.startswith(host + " "):
                return line.split()
        return None

    def list_hosts(self):
        return [line.split()[0] for line in self.lines() if line.startswith("127.0.0.1:")]

    def wait_row(self, host, pred, what):
        deadline = time.monotonic() + top_lib.WAIT_S
        r = None
        while time.monotonic() < deadline:
            r = self.row(host)
            if r and pred(r):
                return r
            time.sleep(0.1)
        top_lib.fail(f"{host}: never {what} (row {r})", self.screen())


def api_sums(port):
    r = get("127.0.0.1", port, "/api/v1/status")
    gpus = json.loads(r.body)["gpus"]
    power = [g.get("power_draw_watts") for g in gpus]
    free = [g.get("memory_free_bytes") for g in gpus]
    return (sum(p for p in power if p is not None) if any(p is not None for p in power) else None,
            sum(f for f in free if f is not None) if any(f is not None for f in free) else None)


def order_by(hosts, vals):
    """The list's order under a sort key: larger first, unknown last, ties
    in list order."""
    idx = {h: i for i, h in enumerate(hosts)}
    return sorted(hosts, key=lambda h: (vals[h] is None, -(vals[h] or 0), idx[h]))


def test_agents():
    top_lib.skip_without_tmux()
    evil = "\x1b[2J\x1b]0;pwned\x07ev\u202eil"
    raw = json.dumps(status_doc(hostname="host" + evil, gpu_name="GPU" + evil),
                     ensure_ascii=False).encode().replace(b"ev", b"\xff\xfeev")
    fake = Fake("ok", raw)
    with Scratch("ftop") as d:
        agents = start_agents(d, [("h100x8-training.ini", [], {"pinned": 100}),
                                  ("diagnose/gpu-lost.ini", [], {"pinned": 100}),
                                  ("workstation.ini", [], {"pinned": 100})])
        stopped = agents[2]
        t = None
        try:
            hosts = [f"127.0.0.1:{g.port}" for g in agents] + [fake.host]
            t = FleetTop(200, 50, ["--hosts", ",".join(hosts), "--interval", "0.5",
                                   "--timeout", "3"])
            for h in hosts:
                t.wait_row(h, lambda r: r[1] == "ok", "ok")
            check_eq([len(r) > 2 and r[2] for r in map(t.row, hosts)], ["8", "4", "2", "1"],
                     "GPUs per node", t.screen())
            s = t.screen()
            check("\ufffd" in t.row(fake.host)[-1] and "host" in t.row(fake.host)[-1],
                  "the hostile host name escaped in its row", s)
            check("\u202e" not in s and "pwned" not in t.fmt("#{pane_title}"),
                  "no bidi override on screen, the pane's title untouched", s)

            # sort keys against the agents' own values (pinned: they hold still)
            sums = {h: api_sums(g.port) for h, g in zip(hosts, agents)}
            sums[fake.host] = (None, 90)
            for key, what, col in (("w", "power", 0), ("f", "free memory", 1)):
                t.keys(key)
                t.wait_for(f"sort: {what}", what=f"the {what} sort")
                want = order_by(hosts, {h: sums[h][col] for h in hosts})
                deadline = time.monotonic() + top_lib.WAIT_S
                while t.list_hosts() != want and time.monotonic() < deadline:
                    time.sleep(0.1)
                check_eq(t.list_hosts(), want, f"the list sorted by {what}", sums, t.screen())

            # Enter opens the first node of the list order: the demo node's 8 GPUs
            t.keys("n")
            t.wait_for("sort: list order", what="list order")
            t.keys("Enter")
            s = t.wait_for((f"node {hosts[0]}", "NVIDIA H100"), what="the node's GPUs")
            check_eq(s.count("NVIDIA H100"), 8, "the demo node's 8 GPUs", s)
            t.keys("Escape")
            t.wait_for("Enter node's GPUs", what="back to the list")

            # the hostile node's GPU names, escaped
            t.keys("End", "Enter")
            s = t.wait_for(f"node {fake.host}", what="the hostile node's GPUs")
            check("GPU\ufffd[2J" in s and "\u202e" not in s, "the GPU name escaped", s)
            t.keys("Escape")
            t.wait_for("Enter node's GPUs", what="back to the list")

            # a node stopped: the rounds go on, it is marked, its values kept
            stopped.proc.send_signal(signal.SIGSTOP)
            sh = hosts[2]
            r = t.wait_row(sh, lambda r: r[1] == "unreachable", "unreachable")
            check_eq(r[2], "2", "the stopped node's last GPUs kept", t.screen())
            check("timeout" in r, "the stopped node's reason", r)
            n = t.round()
            t.wait_round(n + 2, "rounds go on with a node stopped")
            for h in hosts[:2]:
                check_eq(t.row(h)[1], "ok", f"{h} stays ok beside the stopped node", t.screen())

            def age(r):
                m = re.match(r"(\d+)([smh])$", r[8])
                return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[m.group(2)] if m else -1
            t.wait_row(sh, lambda r: age(r) >= 5, "its values' age growing")
            grid = "\n".join(t.lines()[2:6])
            check("xx" in grid, "the stopped node's two cells 'x' in the grid", t.screen())
            t.keys("p")
            t.wait_for("sort: problems", what="the problems sort")
            check_eq(t.list_hosts()[0], sh, "the stopped node first under problems", t.screen())

            t.keys("q")
            code, stty = t.wait_exit()
            t.check_restored(code, stty)
        finally:
            if stopped.proc and stopped.proc.poll() is None:
                stopped.proc.send_signal(signal.SIGCONT)
            if t:
                t.close()
            stop_all(*agents)
            fake.close()


def test_grid():
    top_lib.skip_without_tmux()
    body = json.dumps(status_doc(ngpu=8)).encode()
    fakes = []
    t = None
    try:
        for _ in range(125):
            fakes.append(Fake("ok", body))
        hosts = [f.host for f in fakes]
        t = FleetTop(200, 50, ["--hosts", ",".join(hosts), "--interval", "1", "--timeout", "10"])
        t.wait_for("125 nodes  1000 GPUs: 1000 busy", what="1000 GPUs")
        lines = t.lines()
        grid = [ln for ln in lines[2:] if ln and set(ln) <= set("#. !~x?")]
        # a node late in a round on a loaded machine shows 'x' cells: count them all
        cells = sum(len(ln.replace(" ", "")) for ln in grid)
        check_eq(cells, 1000, "a cell per GPU in the grid", t.screen())
        check(len(grid) <= 10, f"the grid in {len(grid)} lines", t.screen())
        check(any(ln.startswith("NODE ") for ln in lines), "the node list under the grid",
              t.screen())
        check(any(ln.startswith(hosts[0] + " ") for ln in lines), "the first node's row",
              t.screen())

        # resized to 100x40: the same cells rewrapped on twice the lines
        t.tmux("resize-window", "-t", "t", "-x", "100", "-y", "40")

        def narrow():
            ls = t.lines()
            g = [ln for ln in ls[2:] if ln and set(ln) <= set("#. !~x?")]
            ok = len(ls) <= 41 and max(len(ln) for ln in ls) <= 100 and \
                sum(len(ln.replace(" ", "")) for ln in g) == 1000
            return g if ok and any(ln.startswith("NODE ") for ln in ls) else None
        deadline = time.monotonic() + top_lib.WAIT_S
        g2 = narrow()
        while not g2 and time.monotonic() < deadline:
            time.sleep(0.1)
            g2 = narrow()
        check(g2 and len(g2) > len(grid), "the grid rewrapped at 100 columns", t.screen())

        # SIGTERM gives the terminal back too
        pid = t.top_pid()
        check(pid is not None, "the fleet top process", t.screen())
        os.kill(pid, signal.SIGTERM)
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        if t:
            t.close()
        for f in fakes:
            f.close()



def test_usage():
    """Usage errors (exit 2) and no terminal (exit 1), each saying why."""
    cases = [(["--hosts", "127.0.0.1:1", "--interval", "0"], 2, "invalid --interval '0'"),
             (["--prometheus", "http://127.0.0.1:1"], 1,
              "Prometheus http://127.0.0.1:1: connection refused"),
             (["--hosts", "127.0.0.1:1"], 1, "fleet top: needs a terminal")]
    for args, want, msg in cases:
        rc, out, err = fleet(["top"] + args)
        check_eq(rc, want, f"exit status of fleet top {args}", err)
        check(msg in err, f"fleet top {args}: says {msg!r}", err)
        check_eq(out, "", f"fleet top {args}: nothing on stdout")


if __name__ == "__main__":
    main([test_usage, test_agents, test_grid])
