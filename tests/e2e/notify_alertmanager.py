#!/usr/bin/env python3
"""Alertmanager end to end: a real prometheus-alertmanager (Debian's, v0.25)
on loopback receives gpumon's alerts through its v2 API, and the test asks
it what it holds (GET /api/v2/alerts, /metrics).

- a firing alert arrives with gpumon's labels (alertname, severity,
  instance, hostname, gpu, uuid, name, the rule's own), annotations
  (summary, condition, value), startsAt = the firing time and endsAt about
  4 x resend ahead;
- it is re-sent every `resend` while it fires: Alertmanager's endsAt and
  updatedAt move forward, its received counter grows;
- the resolved alert is sent once with endsAt = the resolved time:
  Alertmanager 0.25 then drops it from GET /api/v2/alerts under every filter
  (active or not) and counts a received resolved alert, while another alert
  still firing stays listed;
- repeat notices (repeat = 1) are not sent (Alertmanager has its own
  repeat_interval); a resync (repeat = 2) joins the set without a POST of
  its own and goes out with the next one.
"""
import datetime
import time

from notify_lib import Alertmanager, Driver, Peer, Scratch, check, main, need_am


def parse_ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def find(alerts, **labels):
    return [a for a in alerts if all(a["labels"].get(k) == v for k, v in labels.items())]


def wait_for(what, fn, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            check(False, f"timed out waiting for {what}")
        time.sleep(0.1)


def test_firing_resend_resolved():
    need_am()
    with Scratch("na") as d:
        am = Alertmanager(d)
        drv = None
        try:
            drv = Driver(d, f"""[notify.am]
type = alertmanager
url = {am.url('/')}
resend = 2s
timeout = 5s
""")
            fired_ms = int(time.time() * 1000) - 90000
            hot = dict(rule="gpu_hot", severity="critical", gpu=3, uuid="GPU-3", host="node-a",
                       gpu_name="NVIDIA H100 80GB HBM3", summary="GPU 3 is at 91 °C",
                       condition="temperature.gpu > 85", value_text="91 °C", value=91,
                       fingerprint="aaaaaaaaaaaaaaaa", fired_ms=fired_ms,
                       **{"label.team": "ml"})
            other = dict(rule="mem_low", severity="warning", gpu=1, uuid="GPU-1", host="node-a",
                         summary="GPU 1 memory nearly full", condition="memory.free < 2GiB",
                         fingerprint="bbbbbbbbbbbbbbbb")
            received0 = am.metric('alertmanager_alerts_received_total{status="firing",version="v2"}')
            t_send = time.time()
            drv.send(**hot)
            drv.send(**other)
            drv.must_wait("am", "sent", 1)
            listed = wait_for("both alerts listed", lambda: len(am.alerts()) >= 2 and am.alerts())
            (a,) = find(listed, alertname="gpu_hot")
            want = {"alertname": "gpu_hot", "severity": "critical", "instance": "node-a",
                    "hostname": "node-a", "gpu": "3", "uuid": "GPU-3",
                    "name": "NVIDIA H100 80GB HBM3", "team": "ml"}
            check(a["labels"] == want, "labels", a["labels"])
            check(a["annotations"] == {"summary": "GPU 3 is at 91 °C",
                                       "condition": "temperature.gpu > 85", "value": "91 °C"},
                  "annotations", a["annotations"])
            check(abs(parse_ts(a["startsAt"]) - fired_ms / 1e3) < 0.002, "startsAt is the firing time",
                  a["startsAt"], fired_ms)
            ends = parse_ts(a["endsAt"])
            check(t_send + 6 < ends < time.time() + 8.5, "endsAt is about 4 x resend ahead",
                  a["endsAt"], t_send)
            check(a["status"]["state"] == "active", "active", a["status"])
            (b,) = find(listed, alertname="mem_low")
            check(b["labels"]["severity"] == "warning" and b["labels"]["gpu"] == "1",
                  "the second alert", b)

            # re-sent while firing
            sent0 = drv.stats()["am"]["sent"]
            drv.must_wait("am", "sent", sent0 + 2, timeout_s=60)
            (a2,) = find(am.alerts(), alertname="gpu_hot")
            print(f"re-sent: endsAt {a['endsAt']} -> {a2['endsAt']}, "
                  f"updatedAt {a['updatedAt']} -> {a2['updatedAt']}")
            check(parse_ts(a2["endsAt"]) >= parse_ts(a["endsAt"]) + 3, "endsAt moves forward",
                  a["endsAt"], a2["endsAt"])
            check(parse_ts(a2["updatedAt"]) > parse_ts(a["updatedAt"]), "updatedAt moves", a2)
            check(a2["startsAt"] == a["startsAt"], "startsAt stays", a2)
            received = am.metric('alertmanager_alerts_received_total{status="firing",version="v2"}')
            check(received >= (received0 or 0) + 6, "Alertmanager received the re-sends",
                  received0, received)

            # resolved: sent once with endsAt, gone from the API, counted as resolved
            resolved0 = am.metric(
                'alertmanager_alerts_received_total{status="resolved",version="v2"}') or 0
            sent1 = drv.stats()["am"]["sent"]
            res_ms = int(time.time() * 1000) - 500
            drv.send(**dict(hot, state="resolved", resolved_ms=res_ms))
            drv.must_wait("am", "sent", sent1 + 1)
            # (the default deadline: a loaded machine may take longer than the
            # firing alert's endsAt, 8 s; that it came as resolved, not as an
            # alert that expired, is Alertmanager's resolved count below)
            gone = wait_for("gpu_hot resolved", lambda: not find(am.alerts(), alertname="gpu_hot"))
            check(gone, "resolved alert dropped")
            for q in ("?active=true", "?active=false", "?active=false&silenced=true&inhibited=true"):
                check(not find(am.alerts(q), alertname="gpu_hot"),
                      f"Alertmanager 0.25 lists no resolved alert ({q})", am.alerts(q))
            check(find(am.alerts("?active=true"), alertname="mem_low"), "the other one fires on")
            resolved = am.metric(
                'alertmanager_alerts_received_total{status="resolved",version="v2"}')
            check(resolved == resolved0 + 1, "one resolved alert received", resolved0, resolved)
            # and it is not re-sent: later POSTs carry only mem_low
            drv.must_wait("am", "sent", sent1 + 2, timeout_s=60)
            check(am.metric('alertmanager_alerts_received_total{status="resolved",version="v2"}')
                  == resolved0 + 1, "the resolved alert was sent once")
            check(not find(am.alerts(), alertname="gpu_hot"), "and stays resolved")
            st = drv.stats()["am"]
            check(st["failed"] == 0 and st["last_error"] == "", "no failure", st)
            drv.stop()
        finally:
            if drv:
                drv.close()
            am.close()


def test_repeat_and_resync():
    """Besides the real Alertmanager, a second alertmanager channel posts to
    a recording server: a channel's queue is first in, first out, so once
    the third alert's POST is there, any POST of the repeat or the resync
    of their own would be there before it (no quiet second to wait)."""
    need_am()
    with Scratch("nq") as d:
        am = Alertmanager(d)
        peer = Peer()
        drv = None
        try:
            drv = Driver(d, f"""[notify.am]
type = alertmanager
url = {am.url('/api/v2/alerts')}
resend = 1h

[notify.rec]
type = alertmanager
url = {peer.url('/ok/api/v2/alerts')}
resend = 1h
""")
            drv.send(rule="first", fingerprint="1111111111111111", gpu=0)
            drv.must_wait("am", "sent", 1)
            drv.send(rule="first", fingerprint="1111111111111111", gpu=0, repeat=1)
            drv.send(rule="synced", fingerprint="2222222222222222", gpu=1, repeat=2)
            drv.send(rule="third", fingerprint="3333333333333333", gpu=2)
            reqs = wait_for("the third alert's POST to the recording server",
                            lambda: [r for r in peer.got("/ok/api/v2/alerts")
                                     if "third" in r.body] and peer.got("/ok/api/v2/alerts"))
            posted = [sorted(a["labels"]["alertname"] for a in r.json()) for r in reqs]
            check(posted == [["first"], ["first", "synced", "third"]],
                  "neither a repeat nor a resync is POSTed by itself; the resync goes out with "
                  "the next POST", posted)
            drv.must_wait("am", "sent", 2)
            names = sorted(a["labels"]["alertname"] for a in
                           wait_for("three alerts", lambda: len(am.alerts()) >= 3 and am.alerts()))
            check(names == ["first", "synced", "third"],
                  "the resynced alert went out with the next POST", names)
            drv.stop()
        finally:
            if drv:
                drv.close()
            peer.close()
            am.close()


if __name__ == "__main__":
    main([test_firing_resend_resolved, test_repeat_and_resync])
