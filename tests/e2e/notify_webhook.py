#!/usr/bin/env python3
"""Webhooks end to end: the notifier (through notify_driver) POSTs to local
HTTP servers.

- the default body is the alert's JSON, with the configured header, and the
  alert log holds the same object;
- body templates for Slack, DingTalk and WeCom (企业微信) robots and a form
  body, with hostile text escaped so that the JSON stays valid;
- a server that answers 500 and then 200: retried after ~1 s and delivered;
- a DingTalk-style refusal (HTTP 200, errcode 310000) and a redirect count
  as failures;
- a server that never answers: each attempt times out, the alert is counted
  failed after its retries; with a long timeout, no send waits for the
  stuck channel (a full queue drops and counts, also for a sampler-like
  loop), the alert log and another webhook deliver meanwhile, and stop
  aborts the stuck request long before its timeout.

Timing bounds are only the behaviour's own (a backoff is waited; a stuck
request's timeout is not); the latencies are measured by make bench
(bench/test_timings.py).
"""
import time
import urllib.parse

from notify_lib import Driver, Peer, Scratch, Silent, check, main

HOSTILE = 'GPU 3 温度 "89 °C"\nline 2 & <b>\\ 🔥'


def test_json_body():
    with Scratch("nj") as d:
        peer = Peer()
        drv = None
        try:
            drv = Driver(d, f"""[notify.hook]
type = webhook
url = {peer.url('/ok')}
header = X-Gpumon-Test: yes
timeout = 5s
""")
            fired_ms = int(time.time() * 1000) - 42000
            drv.send(rule="gpu_hot", severity="critical", gpu=3, uuid="GPU-3", summary=HOSTILE,
                     value=89, value_text="89 °C", value_age_ms=7250, fired_ms=fired_ms,
                     **{"label.team": "ml"})
            drv.must_wait("hook", "sent", 1)
            drv.must_wait("log", "sent", 1)
            (r,) = peer.got("/ok")
            check(r.headers.get("Content-Type") == "application/json", "content type", r.headers)
            check(r.headers.get("X-Gpumon-Test") == "yes", "the extra header", r.headers)
            check(r.headers.get("User-Agent") == "gpumon", "user agent", r.headers)
            j = r.json()
            for k, v in (("rule", "gpu_hot"), ("state", "firing"), ("severity", "critical"),
                         ("gpu", 3), ("uuid", "GPU-3"), ("summary", HOSTILE), ("value", 89),
                         ("value_text", "89 °C"), ("value_age_seconds", 7.25),
                         ("fired_at_unix_ms", fired_ms),
                         ("resolved_at", None), ("labels", {"team": "ml"}), ("repeat", False)):
                check(j.get(k) == v, f"body field {k}: {j.get(k)!r} != {v!r}", r.body)
            check(drv.log_lines() == [j], "the alert log holds the same object",
                  drv.log_lines(), j)
            # nothing is queued: stop returns without waiting out its grace
            # (30 s; half of it is the bound, so that load cannot reach it)
            st = drv.stop(30000)
            check(st["stop_ns"] < 15e9, "stop with nothing queued waits out its 30 s grace", st)
        finally:
            if drv:
                drv.close()
            peer.close()


def test_templates():
    with Scratch("nt") as d:
        peer = Peer()
        drv = None
        ding = f"{d}/dingtalk.json"
        wecom = f"{d}/wecom.json"
        with open(ding, "w") as f:
            f.write('{"msgtype": "text",\n'
                    ' "text": {"content": "gpumon [{{state}}] {{host}} {{target}}: {{summary}}"},\n'
                    ' "at": {"isAtAll": false}}\n')
        with open(wecom, "w") as f:
            f.write('{"msgtype": "markdown",\n "markdown": {"content": '
                    '"**gpumon {{severity}}** {{rule}} on {{host}}\\n> {{summary}}\\n> value: '
                    '{{value}} since {{fired_at}}"}}\n')
        drv = None
        try:
            drv = Driver(d, f"""[notify.slack]
type = webhook
url = {peer.url('/slack')}
body = {{"text": "[{{{{state}}}}] {{{{host}}}} {{{{target}}}}: {{{{summary}}}}"}}

[notify.dingtalk]
type = webhook
url = {peer.url('/ding')}
body-file = {ding}

[notify.wecom]
type = webhook
url = {peer.url('/wecom')}
body-file = {wecom}

[notify.form]
type = webhook
url = {peer.url('/form')}
content-type = application/x-www-form-urlencoded
body = text={{{{summary}}}}&rule={{{{rule}}}}

[notify.plain]
type = webhook
url = {peer.url('/plain')}
content-type = text/plain; charset=utf-8
body = {{{{severity}}}}: {{{{summary}}}}
""")
            drv.send(rule="gpu_hot", severity="critical", gpu=3, host="node-7", summary=HOSTILE,
                     value_text="89 °C")
            for ch in ("slack", "dingtalk", "wecom", "form", "plain"):
                drv.must_wait(ch, "sent", 1)
            want = f"[firing] node-7 GPU 3: {HOSTILE}"
            (s,) = peer.got("/slack")
            check(s.json() == {"text": want}, "slack body", s.body)
            (g,) = peer.got("/ding")
            check(g.json() == {"msgtype": "text", "text": {"content": "gpumon " + want},
                               "at": {"isAtAll": False}}, "dingtalk body", g.body)
            (w,) = peer.got("/wecom")
            md = w.json()["markdown"]["content"]
            check(md.startswith(f"**gpumon critical** gpu_hot on node-7\n> {HOSTILE}\n> value: "
                                "89 °C since "), "wecom body", md)
            (fm,) = peer.got("/form")
            check(urllib.parse.parse_qs(fm.body) == {"text": [HOSTILE], "rule": ["gpu_hot"]},
                  "form body", fm.body)
            check(fm.headers.get("Content-Type") == "application/x-www-form-urlencoded",
                  "form content type", fm.headers)
            (p,) = peer.got("/plain")
            check(p.body == f"critical: {HOSTILE}", "plain body is not escaped", p.body)
            drv.stop()
        finally:
            if drv:
                drv.close()
            peer.close()


def test_retry_then_delivered():
    with Scratch("nr") as d:
        peer = Peer()
        drv = None
        try:
            drv = Driver(d, f"""[notify.flaky]
type = webhook
url = {peer.url('/flaky')}
retries = 3
""")
            drv.send(summary="retry me")
            st = drv.must_wait("flaky", "sent", 1)["flaky"]
            check(st["retries"] == 1 and st["failed"] == 0, "one retry, delivered", st)
            check(st["last_error"].startswith("HTTP 500: try again later"),
                  "the 500 is remembered in last_error", st)
            reqs = peer.got("/flaky")
            check(len(reqs) == 2, "two requests", len(reqs))
            gap = reqs[1].t - reqs[0].t
            print(f"500 then 200: retried after {gap:.2f} s")
            # The backoff is a lower bound load cannot break.  Above, the
            # bound is what a wrong backoff would give (the next steps are
            # 2 s and 4 s, a unit slip 1000 s), 30 times the 1 s wanted.
            check(gap >= 0.9, f"the retry waits the 1 s backoff (came after {gap:.2f} s)")
            check(gap < 30, f"the retry comes after the 1 s backoff, not {gap:.0f} s")
            check(reqs[0].body == reqs[1].body, "the retry sends the same body")
            drv.stop()
        finally:
            if drv:
                drv.close()
            peer.close()


def test_refusals_fail():
    with Scratch("ne") as d:
        peer = Peer()
        drv = None
        try:
            drv = Driver(d, f"""[notify.ding]
type = webhook
url = {peer.url('/errcode')}
retries = 1

[notify.moved]
type = webhook
url = {peer.url('/redirect')}
retries = 0
""")
            drv.send(summary="refused")
            st = drv.must_wait("ding", "failed", 1)
            drv.must_wait("moved", "failed", 1)
            check(st["ding"]["retries"] == 1 and st["ding"]["sent"] == 0, "retried, failed", st)
            check("HTTP 200 with errcode 310000" in st["ding"]["last_error"], "errcode", st)
            st = drv.stats()
            check(st["moved"]["last_error"] == "HTTP 302", "a redirect is not followed", st)
            check(len(peer.got("/ok")) == 0, "nothing followed the redirect")
            check(len(peer.got("/errcode")) == 2, "two attempts", len(peer.got("/errcode")))
            drv.stop()
        finally:
            if drv:
                drv.close()
            peer.close()


def test_stuck_server():
    """The stuck channel's request times out after 30 s, far beyond what any
    step here takes: what it must not do (block a send, delay another
    channel, hold up stop) would each cost that timeout.  The latencies
    themselves are measured by bench/test_timings.py (make bench)."""
    with Scratch("ns") as d:
        peer = Peer()
        silent = Silent()
        drv = None
        try:
            drv = Driver(d, f"""[notify.stuck]
type = webhook
url = {silent.url('/hook')}
timeout = 30s
retries = 2

[notify.other]
type = webhook
url = {peer.url('/ok')}
min-severity = critical
""", queue=64)
            drv.send(summary="first", severity="warning")
            silent.wait_connected()  # its first attempt now waits on the silent server
            b = drv.burst(1000, summary="burst", severity="warning")
            s = b["send_ns"]
            # a send that waited for room in the queue would wait for the
            # stuck request (30 s); a third of it is the bound
            check(s["max"] < 10e9, "a send waits for the stuck channel", s)
            st = drv.stats()
            check(st["stuck"]["dropped"] == 1000 - 64,
                  "a full queue drops and counts (64 queued, the first one in flight)", st)
            check(st["stuck"]["queue_len"] == 64, "the queue is full", st)
            # another channel and the alert log deliver while stuck is stuck:
            # before the stuck alert could have failed (30 s + 1 s + 30 s ...)
            drv.send(summary="critical one", severity="critical", fingerprint="00000000000000bb")
            st = drv.must_wait("other", "sent", 1)
            check(st["stuck"]["failed"] == 0 and st["stuck"]["sent"] == 0,
                  "the other channel delivered only once the stuck one gave up", st)
            check(st["log"]["sent"] >= 1, "the log delivers", st)
            # a sampler-like loop sending into the stuck channel: every send
            # returns (dropped, counted) instead of waiting for room
            dropped = st["stuck"]["dropped"]
            c = drv.cadence(30, 100, summary="cadence", severity="warning")
            check(c["send_ns"]["max"] < 10e9, "a send in the loop waits for the stuck channel", c)
            st = drv.stats()
            check(st["stuck"]["dropped"] - dropped == 30 and st["stuck"]["failed"] == 0,
                  "each of the loop's 30 sends is dropped and counted", st, dropped)
            # stop gives 1 s to deliver, then aborts the stuck request: well
            # before the request's own 30 s timeout (half of it is the bound)
            r = drv.stop(1000)
            check(r["stop_ns"] >= 0.9e9, "stop gives the queue its 1 s", r)
            check(r["stop_ns"] < 15e9, "stop waits for the stuck request's 30 s timeout", r)
            check("still queued at shutdown, not delivered" in drv.stderr(),
                  "what was queued is logged as lost", drv.stderr())
        finally:
            if drv:
                drv.close()
            silent.close()
            peer.close()


def test_stuck_gives_up():
    """A request that never gets an answer: 3 attempts of 1 s, 1 s and 2 s
    of backoff between them, then counted failed."""
    with Scratch("ng") as d:
        silent = Silent()
        drv = None
        try:
            drv = Driver(d, f"""[notify.stuck]
type = webhook
url = {silent.url('/hook')}
timeout = 1s
retries = 2
""")
            t0 = time.monotonic()
            drv.send(summary="first", severity="warning")
            # the lower bound is the protocol (1+1+1+2+1 s, some slack for the
            # timers); the wait's 60 s deadline catches a channel that never
            # gives up or times out
            st = drv.must_wait("stuck", "failed", 1, timeout_s=60)["stuck"]
            failed_after = time.monotonic() - t0
            print(f"stuck: counted failed after {failed_after:.1f} s: {st['last_error']}")
            check(st["retries"] == 2 and st["failed"] == 1, "retried twice, then failed", st)
            check(st["last_error"] == "timed out after 1000 ms", "the timeout is the error", st)
            check(failed_after >= 5, f"1+1+1+2+1 s to give up (took {failed_after:.1f} s)")
            drv.stop()
        finally:
            if drv:
                drv.close()
            silent.close()


if __name__ == "__main__":
    main([test_json_body, test_templates, test_retry_then_delivered, test_refusals_fail,
          test_stuck_server, test_stuck_gives_up])
