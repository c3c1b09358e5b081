#!/usr/bin/env python3
"""Basic auth under a wrong-password flood (--web-config with basic_auth_users,
plain HTTP so that the flood costs bcrypt and not TLS handshakes).  bcrypt
hashes come from htpasswd or libxcrypt (skipped when neither can make one):
the flooded user's at cost 12 (about 200 ms a check on a 2020s core), the
other's at cost 10.

  wrong_password_flood: POST (never worth a bcrypt) gets 405 with
      credentials verified before and 401 with others.  A flood process keeps 16 keep-alive connections from
      127.0.0.1 busy sending wrong passwords (a new guess on every request)
      for 6 s.  Meanwhile:
        - a scraper that logged in once before the flood scrapes /metrics
          every 150 ms on its keep-alive connection: every scrape is 200,
          and at least 5 of them come while the flood still runs (with
          bcrypt on the HTTP threads a scrape took about 5 s: both threads
          wait in the bcrypt queue behind the flood's checks); its latency
          is printed, not asserted (a loaded machine);
        - a second user that never logged in before, from another address
          (127.0.0.2), gets its first 200 while the flood still runs, and
          200 for its next scrapes (answered from the cache of verified
          credentials);
        - the flood (which goes on past its 6 s until 10 guesses were
          checked, on a busy machine) gets only 401 (checked: bcrypt ran for at least 10 of
          them) or 429 (refused unchecked: too many checks waiting from
          that address) and never a 200.
      The 429s are held back a second each (at most one a second per
      connection), and the log notes the full queue once.  Afterwards the
      exporter is alive, the scraper still gets 200 and a wrong password
      still gets 401.  Then, with a new flood running: a user added to the
      file works (from 127.0.0.2) after SIGHUP, and SIGTERM stops the exporter (exit 0;
      not waiting for the flood), the checks still queued answered unchecked.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time

from agentlib import DEADLINE, check, check_eq, main, wait_until
from exporter_lib import Gpumon, Scratch, basic, bcrypt_hash, sim_env

FLOOD_S = 6.0
FLOOD_CONNECTIONS = 16

# The flood runs in its own process, so that its threads do not take the
# scraper's interpreter lock and its timings stay the exporter's.
FLOOD = r"""
import base64, http.client, json, sys, threading, time
port, n, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
counts, errors, lock = {}, [], threading.Lock()
start = time.monotonic()
def going():
    # at least `seconds`, and until 10 guesses were checked (401): a busy
    # machine checks fewer a second; never past a minute
    now = time.monotonic() - start
    with lock:
        checked = counts.get(401, 0)
    return now < 60 and (now < seconds or checked < 10)
def run(k):
    c, i = None, 0
    while going():
        i += 1
        cred = base64.b64encode(f"prometheus:guess-{k}-{i}".encode()).decode()
        try:
            if c is None:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", "/metrics", headers={"Authorization": "Basic " + cred})
            r = c.getresponse()
            r.read()
            with lock:
                counts[r.status] = counts.get(r.status, 0) + 1
            if r.getheader("Connection", "").lower() == "close":
                c.close()
                c = None
        except (OSError, http.client.HTTPException) as e:
            with lock:
                errors.append(repr(e))
            if c is not None:
                c.close()
            c = None
ts = [threading.Thread(target=run, args=(k,)) for k in range(n)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(json.dumps({"counts": counts, "errors": errors[:5], "nerrors": len(errors),
                  "seconds": time.monotonic() - start}))
"""


def env():
    return sim_env("h100x8-training.ini", pinned=100)


class Scraper:
    """GET /metrics on one keep-alive connection (reopened when closed),
    optionally from a given source address; records (status, seconds)."""

    def __init__(self, port, hdr, source=None):
        self.port, self.hdr, self.source = port, hdr, source
        self.c = None

    def get(self):
        t0 = time.monotonic()
        for attempt in range(2):
            try:
                if self.c is None:
                    self.c = http.client.HTTPConnection(
                        "127.0.0.1", self.port, timeout=30,
                        source_address=(self.source, 0) if self.source else None)
                self.c.request("GET", "/metrics", headers=self.hdr)
                r = self.c.getresponse()
                body = r.read()
                return r.status, time.monotonic() - t0, body
            except (OSError, http.client.HTTPException):
                if self.c is not None:
                    self.c.close()
                self.c = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        if self.c is not None:
            self.c.close()


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def test_wrong_password_flood():
    with Scratch("auth") as d:
        cfg = os.path.join(d, "web.yml")
        with open(cfg, "w") as f:
            f.write(f"basic_auth_users:\n  prometheus: {bcrypt_hash('right pass', cost=12)}\n"
                    f"  grafana: {bcrypt_hash('other pass')}\n")
        g = Gpumon(d, env(), ["--interval", "1s", "--web-config", cfg])
        flood = None
        try:
            g.start(ready=False)
            good = basic("prometheus", "right pass")
            deadline = time.monotonic() + DEADLINE
            scraper = Scraper(g.port, good)
            while time.monotonic() < deadline:
                try:
                    st, _, _ = scraper.get()
                    if st == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.1)
            else:
                raise AssertionError("no 200 for the right password\n" + g.log())
            check_eq(Scraper(g.port, basic("prometheus", "wrong")).get()[0], 401,
                     "a wrong password before the flood")
            # other methods cost no bcrypt: 405 with verified credentials, else 401
            for hdr, want in ((good, 405), (basic("grafana", "other pass"), 401)):
                c = http.client.HTTPConnection("127.0.0.1", g.port, timeout=10)
                c.request("POST", "/metrics", body=b"x", headers=hdr)
                check_eq(c.getresponse().status, want, "POST /metrics", hdr)
                c.close()

            flood = subprocess.Popen([sys.executable, "-c", FLOOD, str(g.port),
                                      str(FLOOD_CONNECTIONS), str(FLOOD_S)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # the flood is under way: its checks fill the queue
            wait_until(lambda: "password checks are waiting" in g.log(),
                       "the flood to fill the bcrypt queue")

            other = {}

            def newcomer():
                s = Scraper(g.port, basic("grafana", "other pass"), source="127.0.0.2")
                try:
                    st, first, _ = s.get()
                    other["first"] = (st, first)
                    other["flood_running"] = flood.poll() is None
                    other["next"] = [s.get()[:2] for _ in range(5)]
                except OSError as e:
                    other["error"] = repr(e)
                finally:
                    s.close()
            t_new = threading.Thread(target=newcomer)
            t_new.start()

            lat, statuses = [], []
            while flood.poll() is None:
                st, took, body = scraper.get()
                if flood.poll() is None:
                    statuses.append(st)
                    lat.append(took)
                if st == 200:
                    check(b"gpumon_gpu_up" in body, "a scrape without metrics", body[:200])
                time.sleep(0.15)
            t_new.join(30)
            out, err = flood.communicate(timeout=60)
            flood = None
            res = json.loads(out.decode())
            counts = {int(k): v for k, v in res["counts"].items()}
            p90, worst = percentile(lat, 0.9), max(lat)
            print(f"  scraper: {len(lat)} scrapes, median {percentile(lat, 0.5) * 1e3:.0f} ms, "
                  f"p90 {p90 * 1e3:.0f} ms, max {worst * 1e3:.0f} ms; flood: {counts}, "
                  f"{res['nerrors']} errors; newcomer: {other}")
            check(len(lat) >= 5, f"only {len(lat)} scrapes while the flood ran "
                  "(each waited behind the flood's password checks?)", sorted(lat)[-5:])
            check_eq(set(statuses), {200}, "the scraper's statuses during the flood", statuses)
            check(200 not in counts, "the flood got 200 with a wrong password", counts)
            check(set(counts) <= {401, 429}, "the flood got statuses other than 401 and 429",
                  counts)
            check(counts.get(401, 0) >= 10, "the flood's passwords were checked fewer than 10 "
                  "times (401)", counts)
            check(counts.get(429, 0) <= FLOOD_CONNECTIONS * (res["seconds"] + 1),
                  "the 429s were not held back (a second each)", counts)
            check("password checks are waiting" in g.log(), "no notice of the full queue in the "
                  "log", g.log())
            check_eq(res["nerrors"], 0, "the flood's connections failed", res["errors"])
            check("error" not in other, "the newcomer's requests failed", other)
            st, first = other["first"]
            check_eq(st, 200, "the newcomer's first status (right password)", other)
            check(other["flood_running"], f"the newcomer's first 200 came only after the flood "
                  f"(it waited {first:.2f} s)", other)
            check_eq({s for s, _ in other["next"]}, {200}, "the newcomer's next statuses", other)

            check(g.alive(), "the exporter died in the flood", g.log())
            check_eq(scraper.get()[0], 200, "the right password after the flood")
            check_eq(Scraper(g.port, basic("prometheus", "wrong")).get()[0], 401,
                     "a wrong password after the flood")

            # a reload and a stop while a flood runs: the checks still queued
            # are answered and the exporter stops cleanly
            flood = subprocess.Popen([sys.executable, "-c", FLOOD, str(g.port),
                                      str(FLOOD_CONNECTIONS), "20"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(1.0)
            with open(cfg, "a") as f:
                f.write(f"  third: {bcrypt_hash('third pass', cost=4)}\n")
            g.proc.send_signal(signal.SIGHUP)
            deadline = time.monotonic() + DEADLINE
            st = None
            while time.monotonic() < deadline and st != 200:
                st = Scraper(g.port, basic("third", "third pass"), source="127.0.0.2").get()[0]
                time.sleep(0.1)
            check_eq(st, 200, "a user added by SIGHUP during a flood", g.log())
            check_eq(scraper.get()[0], 200, "the right password after the reload")
            scraper.close()
            # the flood runs 20 s; the exporter must not wait for it
            check_eq(g.stop(timeout=15), 0, "exit status on SIGTERM during a flood", g.log())
        finally:
            if flood is not None:
                flood.kill()
                flood.communicate()
            g.cleanup()


if __name__ == "__main__":
    main([test_wrong_password_flood])
