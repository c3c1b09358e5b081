#!/usr/bin/env python3
"""The exporter's HTTP endpoints, listen addresses and optional series.

  endpoints: / is an HTML page linking /metrics and /healthz; an unknown
      path is 404; POST/PUT/DELETE/OPTIONS are 405 with Allow: GET, HEAD
      (a POST body is discarded, the connection still answers); HEAD
      /metrics is 200 with the GET's headers and no body bytes on the wire;
      /metrics is text/plain; version=0.0.4, or OpenMetrics for
      Prometheus's own Accept header; gzip for Accept-Encoding: gzip,
      decompressing to the plain body; every answer has
      X-Content-Type-Options: nosniff; /healthz is 200 "ok: ...".
  driver_not_loaded: fault-driver-not-loaded.ini (and
      fault-version-mismatch.ini): /healthz is 503 and names the state and
      the reason; /metrics is 200 with gpumon_nvml_state{state=...} 1 and
      no GPU series.
  ipv6: --listen [::1]:PORT serves /metrics over IPv6 loopback (skipped
      where the machine has none).
  bad_listen: --listen values that are not ADDR:PORT (a port out of range,
      a host name, no port, junk) exit 1 or 2 at once with
      "gpumon: error: listen ..." quoting the value; a port in use exits
      non-zero with an error naming the address.
  process_metrics: with --process-metrics and the training scenario's
      ranks pointed at 8 spawned processes (GPUSIM_PID_RANK0..7; a symlink
      to sleep named train_rank, whose argv holds a fake API key), each rank
      has gpumon_process_memory_used_bytes and
      gpumon_process_sm_utilization_ratio on its GPU labelled pid, process
      (train_rank, the process name) and user (the current user) besides the
      GPU labels, the command line never appears; GPU 7's dead pid 4194304
      has no user label; gpumon_exporter_process_series_dropped is 0.
      --max-process-series 3 keeps 3 series per family and the gauge says 6
      (9 processes); without --process-metrics there are no process series.
  xid_errors: scenarios/alerts/xid.ini run live (Xid 13 and 43 on GPU 0,
      79 on GPU 1, at scenario 30-31 s): once the events are in, the next
      sample's rendering has gpumon_xid_errors_total 1 for each
      {gpu, xid} with the GPU's uuid, name and pci_bus_id labels, no other
      Xid series, gpumon_exporter_xid_events_dropped_total 0; with --names
      dcgm, DCGM_FI_DEV_XID_ERRORS is each GPU's last Xid (43, 79).
      Before any Xid there is no gpumon_xid_errors_total.
  hostname_label: --hostname-label puts hostname="<gethostname>" on every
      native series and Hostname= on every dcgm one; without it the native
      set has none, the dcgm set still has Hostname= on every series (the
      default of dcgm-exporter's 4.5-4.8 releases), and --no-hostname
      (dcgm-exporter's flag) takes it off.
  reload_listen: `serve --config FILE`, then SIGHUP after changing listen:
      a free port moves the listener there; a port in use or an invalid
      port is a failed reload that must leave the running listener serving
      (docs/config.md: an invalid new file is logged and the old settings
      kept).
  keep_alive: one HTTP/1.1 connection carries GET /metrics, HEAD /metrics,
      GET /healthz, a gzip GET and GET / one after the other (no
      "Connection: close", the same socket throughout); a 404 keeps it open
      too; a POST is answered 405 and that connection closes.
  negotiation: Accept and Accept-Encoding are read with their q-values:
      gzip;q=0, *;q=0 and a gzip ranked below identity get the plain body,
      x-gzip, * and GZIP get gzip; OpenMetrics only when
      application/openmetrics-text ranks above the text format (or equal and
      first): ;q=0 refuses it, Prometheus 2's and 3's headers get it, */*,
      a quoted ',' or ';' in a parameter and a bare unknown type do not
      confuse it.
  reload_transaction: `serve --config FILE` with a web config (extra
      headers, no TLS): a SIGHUP with nothing changed keeps an open
      keep-alive connection serving (the listener is not restarted); a
      changed header is served on that same connection after the next
      SIGHUP; a reload to a port in use that also switches --names dcgm and
      hostname-label fails as a whole: the running port keeps serving the
      native names without a hostname label.
  config_check: `gpumon config check` refuses listen = a port out of range,
      a host name, a missing port, junk, "" (quotes are part of a value in
      the file: the message says to leave it empty), and a web-config file
      that does not exist, each as FILE:LINE: reason with exit 2 (and `serve` refuses the
      same values as flags); [::1]:9842, :9842 and an existing web config
      pass.
  serve_print_no_nvml: `serve --print` without a usable NVML (driver not
      loaded, no library) prints what /metrics would serve
      (gpumon_nvml_state names the state, no GPU series), says why on
      stderr and exits 3.
  serve_help: `serve --help` describes the exporter (/metrics, --listen,
      --print), not the recording agent.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import gzip
import http.client
import os
import pwd
import re
import signal
import socket
import subprocess
import time

from agentlib import DEADLINE, Skip, check, check_eq, epoch_for, main
from exporter_lib import (Gpumon, Scratch, get, has_ipv6_loopback, parse_samples, run_gpumon,
                          serve_print, sim_env, stop_all)

TRAINING = ("h100x8-training.ini", 100)
PROM_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
               "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def raw(port, request, timeout=5):
    """Sends request bytes, returns everything the server sends until it closes."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(request)
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
    finally:
        s.close()


def test_endpoints():
    with Scratch("http") as d:
        g = Gpumon(d, sim_env(*TRAINING[:1], pinned=TRAINING[1]), ["--interval", "1h"])
        try:
            g.start()
            check(f"exporter http://127.0.0.1:{g.port})" in g.log(),
                  "the start-up line names the exporter's http:// address", g.log())
            r = g.get("/")
            check_eq(r.status, 200, "/ status")
            check(r.header("Content-Type").startswith("text/html"), "/ Content-Type", r.headers)
            check('href="/metrics"' in r.text and 'href="/healthz"' in r.text,
                  "/ links /metrics and /healthz", r.text)
            for path in ("/nope", "/metrics/", "/metricsx", "/healthz/x", "/index.html"):
                r = g.get(path)
                check_eq(r.status, 404, f"{path} status")
                check(b"gpumon_" not in r.body, f"{path}: metrics in a 404")
            for method in ("POST", "PUT", "DELETE", "OPTIONS", "PATCH"):
                for path in ("/metrics", "/", "/nope"):
                    r = g.get(path, method=method)
                    check_eq(r.status, 405, f"{method} {path} status")
                    check_eq(r.header("Allow"), "GET, HEAD", f"{method} {path} Allow header")
            # a POST with a body: answered 405, the body is not taken for a request
            ans = raw(g.port, b"POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 11\r\n"
                              b"Connection: close\r\n\r\nhello world")
            check(ans.startswith(b"HTTP/1.1 405"), "POST with a body", ans[:200])
            check(ans.count(b"HTTP/1.1 ") == 1, "the POST body was parsed as a request", ans)
            # GET and HEAD
            getr = g.get("/metrics")
            check_eq(getr.status, 200, "GET /metrics")
            check_eq(getr.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8",
                     "GET /metrics Content-Type")
            head = g.get("/metrics", method="HEAD")
            check_eq(head.status, 200, "HEAD /metrics")
            check_eq(head.body, b"", "HEAD /metrics body")
            check_eq(head.header("Content-Type"), getr.header("Content-Type"), "HEAD Content-Type")
            if head.header("Content-Length") is not None:
                check_eq(int(head.header("Content-Length")), len(getr.body), "HEAD Content-Length")
            ans = raw(g.port, b"HEAD /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            hdr, _, rest = ans.partition(b"\r\n\r\n")
            check(hdr.startswith(b"HTTP/1.1 200"), "raw HEAD status", hdr)
            check_eq(rest, b"", "bytes after the headers of a HEAD answer")
            # gzip
            gz = g.get("/metrics", headers={"Accept-Encoding": "gzip, deflate"})
            check_eq(gz.header("Content-Encoding"), "gzip", "Content-Encoding", gz.headers)
            check(len(gz.body) < len(getr.body) / 3, "gzip does not compress")
            check_eq(gzip.decompress(gz.body), getr.body, "gunzipped body == plain body")
            check("Accept-Encoding" in (gz.header("Vary") or ""), "Vary: Accept-Encoding")
            plain = g.get("/metrics", headers={"Accept-Encoding": "identity"})
            check_eq(plain.header("Content-Encoding"), None, "identity: no Content-Encoding")
            check_eq(plain.body, getr.body, "identity body")
            # OpenMetrics for Prometheus's Accept header, gzipped too
            om = g.get("/metrics", headers={"Accept": PROM_ACCEPT, "Accept-Encoding": "gzip"})
            check_eq(om.header("Content-Type"),
                     "application/openmetrics-text; version=1.0.0; charset=utf-8", "OM type")
            check(gzip.decompress(om.body).endswith(b"# EOF\n"), "OM body ends with # EOF")
            txt = g.get("/metrics", headers={"Accept": "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"})
            check(txt.header("Content-Type").startswith("text/plain"), "text for a text Accept")
            for r in (getr, head, gz, om, g.get("/"), g.get("/nope"),
                      g.get("/metrics", method="POST")):
                check_eq(r.header("X-Content-Type-Options"), "nosniff", "nosniff", r.headers)
            h = g.get("/healthz")
            check_eq(h.status, 200, "/healthz")
            check(h.text.startswith("ok: latest sample "), "/healthz text", h.text)
            check(h.header("Content-Type").startswith("text/plain"), "/healthz Content-Type")
            check(g.alive(), "the exporter died", g.log())
        finally:
            g.stop()
            g.cleanup()
        check_eq(g.proc.returncode, 0, "exit status on SIGTERM", g.log())


def test_driver_not_loaded():
    for scn, state, words in (("fault-driver-not-loaded.ini", "driver_not_loaded",
                               "driver is not loaded"),
                              ("fault-version-mismatch.ini", "version_mismatch", "mismatch")):
        with Scratch("drv") as d:
            g = Gpumon(d, sim_env(scn, pinned=10), ["--interval", "1s"])
            try:
                g.start()
                h = g.get("/healthz")
                check_eq(h.status, 503, f"{scn}: /healthz status", h.text)
                check(h.text.startswith(f"unhealthy: {state}: ") and words in h.text,
                      f"{scn}: /healthz names the state and the reason", h.text)
                # liveness ("is the process serving") stays 200 on driver loss:
                # Kubernetes' livenessProbe uses it, and a restart cannot help
                lv = g.get("/livez")
                check_eq(lv.status, 200, f"{scn}: /livez status", lv.text)
                check(lv.text.startswith("ok: serving"), f"{scn}: /livez text", lv.text)
                check(lv.header("Content-Type").startswith("text/plain"),
                      f"{scn}: /livez Content-Type")
                m = g.get("/metrics")
                check_eq(m.status, 200, f"{scn}: /metrics status")
                states = {lab["state"]: v for n, lab, v in parse_samples(m.text)
                          if n == "gpumon_nvml_state"}
                check_eq(states.get(state), 1.0, f"{scn}: gpumon_nvml_state{{state={state}}}")
                check_eq(sum(states.values()), 1.0, f"{scn}: exactly one NVML state is 1", states)
                gpu = [n for n, lab, _ in parse_samples(m.text) if "gpu" in lab]
                check_eq(gpu, [], f"{scn}: GPU series while NVML is unavailable")
                check(g.alive(), f"{scn}: the exporter exited", g.log())
            finally:
                g.stop()
                g.cleanup()


def test_ipv6():
    if not has_ipv6_loopback():
        raise Skip("this machine has no IPv6 loopback (::1)")
    with Scratch("v6") as d:
        from exporter_lib import free_port
        port = free_port(socket.AF_INET6, "::1")
        g = Gpumon(d, sim_env(TRAINING[0], pinned=TRAINING[1]), ["--interval", "1s"],
                   listen=f"[::1]:{port}", host="::1", port=port)
        try:
            g.start()
            r = get("::1", port, "/metrics")
            check_eq(r.status, 200, "GET http://[::1]:PORT/metrics")
            check("gpumon_gpu_up" in r.text, "metrics over IPv6")
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=2)
                s.close()
                v4 = True
            except OSError:
                v4 = False
            check(not v4, "[::1] also accepts IPv4 connections on 127.0.0.1")
        finally:
            g.stop()
            g.cleanup()


def test_bad_listen():
    env = sim_env(TRAINING[0], pinned=TRAINING[1])
    with Scratch("badl") as d:
        for value in ("127.0.0.1:99999", "127.0.0.1:0", "localhost:9842", "127.0.0.1",
                      "[::1]9842", "127.0.0.1:http", "1.2.3.4.5:80", ":"):
            # fails (a serve that kept running would meet the timeout)
            rc, out, err = run_gpumon(["serve", "--no-config", "--data-dir",
                                       os.path.join(d, "data"), "--listen", value], env,
                                      timeout=DEADLINE)
            check(rc in (1, 2), f"--listen {value!r}: exit status {rc} (1 or 2 expected)", err)
            check(re.search(r'^gpumon: error: .*listen.*' + re.escape(f'"{value}"'), err, re.M),
                  f"--listen {value!r}: the message does not quote the value", err)
            check(len(err.strip().splitlines()) <= 2, f"--listen {value!r}: a long message", err)
        # a port in use
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        try:
            rc, out, err = run_gpumon(["serve", "--no-config", "--data-dir",
                                       os.path.join(d, "data"), "--listen",
                                       f"127.0.0.1:{port}"], env, timeout=15)
            check(rc != 0, "serve on a port in use", err)
            check(re.search(r"^gpumon: error: .*127\.0\.0\.1:%d" % port, err, re.M),
                  "the error names the address in use", err)
            check("in use" in err, "the error says the address is in use", err)
        finally:
            s.close()


def test_reload_listen():
    """SIGHUP with a new listen address: a good one moves the listener; a
    port in use or an invalid one is logged as a failed reload and, as
    docs/config.md promises ("if the new file is invalid it logs why and
    keeps the old settings"), the exporter keeps serving where it was."""
    from exporter_lib import Proc, free_port
    from agentlib import GPUMON
    env = sim_env(TRAINING[0], pinned=TRAINING[1])
    with Scratch("rl") as d:
        conf = os.path.join(d, "gpumon.conf")

        def write(listen):
            with open(conf + ".tmp", "w") as f:
                f.write(f"[agent]\ninterval = 1s\ndata-dir = {d}/data\ncsv = false\n"
                        f"store = false\n[exporter]\nlisten = {listen}\n")
            os.rename(conf + ".tmp", conf)

        def status(port):
            try:
                return get("127.0.0.1", port, "/metrics", timeout=2).status
            except OSError as e:
                return type(e).__name__

        def reload_and_wait(p, what):
            n = p.log().count("reload")
            p.proc.send_signal(1)  # SIGHUP
            deadline = time.time() + DEADLINE
            while p.log().count("reload") == n and time.time() < deadline:
                time.sleep(0.05)
            check(p.log().count("reload") > n, f"{what}: no reload line in the log", p.log())
            time.sleep(0.2)

        p1, p3 = free_port(), free_port()
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        write(f"127.0.0.1:{p1}")
        p = Proc([GPUMON, "serve", "--config", conf], env, log=os.path.join(d, "log"))
        try:
            p.start()
            deadline = time.time() + DEADLINE
            while status(p1) != 200 and time.time() < deadline:
                time.sleep(0.05)
            check_eq(status(p1), 200, "before the reload", p.log())
            # a good new address: the listener moves
            write(f"127.0.0.1:{p3}")
            reload_and_wait(p, "a new port")
            check_eq(status(p3), 200, "the new port after SIGHUP", p.log())
            check(status(p1) != 200, "the old port still answers after moving", p.log())
            for bad in (f"127.0.0.1:{busy.getsockname()[1]}", "127.0.0.1:99999"):
                write(bad)
                reload_and_wait(p, f"listen = {bad}")
                check("reload failed" in p.log(), f"listen = {bad}: not reported", p.log())
                check(p.alive(), f"listen = {bad}: the agent exited", p.log())
                check_eq(status(p3), 200, f"after a failed reload to listen = {bad}, the running "
                         f"listener (127.0.0.1:{p3}) is gone although the log says 'keeping the "
                         "running configuration'", p.log())
                write(f"127.0.0.1:{p3}")
                reload_and_wait(p, "back to the running port")
        finally:
            busy.close()
            p.stop()
            p.cleanup()


def spawn_ranks(d, n=8):
    link = os.path.join(d, "train_rank")
    os.symlink(subprocess.check_output(["sh", "-c", "command -v sleep"]).decode().strip(), link)
    procs = []
    for i in range(n):
        procs.append(subprocess.Popen([f"python3 train.py --rank {i} --api-key=hunter2-SECRET",
                                       "600"], executable=link))
    return procs


def process_series(text):
    return [(n, lab, v) for n, lab, v in parse_samples(text) if n.startswith("gpumon_process_")]


def test_process_metrics():
    me = pwd.getpwuid(os.getuid()).pw_name
    with Scratch("proc") as d:
        procs = spawn_ranks(d)
        try:
            extra = {f"GPUSIM_PID_RANK{i}": p.pid for i, p in enumerate(procs)}
            env = sim_env(TRAINING[0], pinned=TRAINING[1], **extra)
            g = Gpumon(d, env, ["--interval", "1s", "--process-metrics"])
            try:
                g.start()
                text = g.get("/metrics").text
            finally:
                g.stop()
                g.cleanup()
            check("hunter2" not in text and "train.py" not in text and "--rank" not in text,
                  "the command line leaked into the metrics")
            ps = process_series(text)
            fams = {n for n, _, _ in ps}
            check_eq(fams, {"gpumon_process_memory_used_bytes",
                            "gpumon_process_sm_utilization_ratio"}, "process families")
            for i, p in enumerate(procs):
                mine = [(n, lab, v) for n, lab, v in ps if lab.get("pid") == str(p.pid)]
                check_eq(len(mine), 2, f"rank {i} (pid {p.pid}): one series per family", ps)
                for n, lab, v in mine:
                    check_eq(lab.get("gpu"), str(i), f"rank {i}: gpu label")
                    check_eq(lab.get("process"), "train_rank", f"rank {i}: process label")
                    check_eq(lab.get("user"), me, f"rank {i}: user label")
                    check_eq(set(lab), {"gpu", "uuid", "name", "pci_bus_id", "pid", "process",
                                        "user"}, f"rank {i}: label names")
                    if n == "gpumon_process_memory_used_bytes":
                        check(v > 1 << 30, f"rank {i}: memory {v}")
                    else:
                        check(0 <= v <= 1, f"rank {i}: SM utilisation ratio {v}")
            dead = [lab for n, lab, _ in ps if lab.get("pid") == "4194304"]
            check(dead and all(lab["gpu"] == "7" and "user" not in lab for lab in dead),
                  "GPU 7's dead pid 4194304: on GPU 7 without a user label", dead)
            dropped = [v for n, _, v in parse_samples(text)
                       if n == "gpumon_exporter_process_series_dropped"]
            check_eq(dropped, [0.0], "gpumon_exporter_process_series_dropped")
            # the cap
            rc, out, err = serve_print(env, "--process-metrics", "--max-process-series", "3")
            check_eq(rc, 0, "serve --print --max-process-series 3", err)
            ps = process_series(out)
            for fam in ("gpumon_process_memory_used_bytes", "gpumon_process_sm_utilization_ratio"):
                check_eq(len([1 for n, _, _ in ps if n == fam]), 3, f"{fam} series with a cap of 3")
            dropped = [v for n, _, v in parse_samples(out)
                       if n == "gpumon_exporter_process_series_dropped"]
            check_eq(dropped, [6.0], "gpumon_exporter_process_series_dropped with a cap of 3")
            # off by default
            rc, out, err = serve_print(env)
            check_eq(rc, 0, "serve --print", err)
            check_eq(process_series(out), [], "process series without --process-metrics")
            check("gpumon_exporter_process_series_dropped" not in out,
                  "the dropped gauge without --process-metrics")
        finally:
            for p in procs:
                p.kill()
                p.wait()


def test_hostname_label():
    host = socket.gethostname()
    env = sim_env(TRAINING[0], pinned=TRAINING[1])
    for names, key, other in (("native", "hostname", "Hostname"), ("dcgm", "Hostname", "hostname")):
        rc, out, err = serve_print(env, "--names", names, "--hostname-label")
        check_eq(rc, 0, f"--names {names} --hostname-label", err)
        samples = parse_samples(out)
        check(len(samples) > 100, f"--names {names}: too few samples")
        bad = [(n, lab) for n, lab, _ in samples if lab.get(key) != host or other in lab]
        check(not bad, f"--names {names}: series without {key}={host!r} (or with {other})",
              bad[:5])
        rc, out, err = serve_print(env, "--names", names)
        check_eq(rc, 0, f"--names {names}", err)
        samples = parse_samples(out)
        if names == "dcgm":
            bad = [(n, lab) for n, lab, _ in samples if lab.get(key) != host or other in lab]
            check(not bad, f"--names dcgm: series without the default {key}={host!r}", bad[:5])
            rc, out, err = serve_print(env, "--names", names, "--no-hostname")
            check_eq(rc, 0, "--names dcgm --no-hostname", err)
            samples = parse_samples(out)
            check(len(samples) > 100, "--names dcgm --no-hostname: too few samples")
        with_label = [n for n, lab, _ in samples if "hostname" in lab or "Hostname" in lab]
        check_eq(with_label, [], f"--names {names}: hostname labels without --hostname-label "
                 "(native) or with --no-hostname (dcgm)")


def test_xid_errors():
    speed = 5.0
    # scenario t = 26 s in 1 s; the Xids arrive at 30-31 s, about 1 s later
    env = sim_env("alerts/xid.ini", speed=speed, epoch=epoch_for(26, speed, lead=1.0))
    with Scratch("xid") as d:
        g = Gpumon(d, env, ["--interval", "250ms"])
        dc = Gpumon(d, env, ["--interval", "250ms", "--names", "dcgm"])
        try:
            g.start()
            dc.start()
            early = parse_samples(get(g.host, g.port).body.decode())
            check_eq([x for x in early if x[0] == "gpumon_xid_errors_total"], [],
                     "Xid series before any Xid (scenario t < 30 s)")
            want = {("0", "13"): 1.0, ("0", "43"): 1.0, ("1", "79"): 1.0}
            deadline = time.time() + DEADLINE
            while True:
                samples = parse_samples(get(g.host, g.port).body.decode())
                got = {(lab["gpu"], lab["xid"]): v for n, lab, v in samples
                       if n == "gpumon_xid_errors_total"}
                if got == want or time.time() > deadline:
                    break
                time.sleep(0.2)
            check_eq(got, want, "gpumon_xid_errors_total by (gpu, xid)", g.log()[-2000:])
            ids = {lab["gpu"]: (lab.get("uuid"), lab.get("name"), lab.get("pci_bus_id"))
                   for n, lab, _ in samples if n == "gpumon_gpu_up"}
            for n, lab, _ in samples:
                if n == "gpumon_xid_errors_total":
                    check(all(ids[lab["gpu"]]), "GPU identity labels of the Xid series", lab)
                    check_eq((lab.get("uuid"), lab.get("name"), lab.get("pci_bus_id")),
                             ids[lab["gpu"]], f"labels of GPU {lab['gpu']}'s Xid series")
            dropped = [v for n, _, v in samples if n == "gpumon_exporter_xid_events_dropped_total"]
            check_eq(dropped, [0.0], "gpumon_exporter_xid_events_dropped_total")
            deadline = time.time() + DEADLINE
            while True:
                last = {lab["gpu"]: v for n, lab, v in parse_samples(get(dc.host, dc.port).body.decode())
                        if n == "DCGM_FI_DEV_XID_ERRORS"}
                if last == {"0": 43.0, "1": 79.0} or time.time() > deadline:
                    break
                time.sleep(0.2)
            check_eq(last, {"0": 43.0, "1": 79.0}, "DCGM_FI_DEV_XID_ERRORS: each GPU's last Xid")
        finally:
            stop_all(g, dc)


def test_keep_alive():
    with Scratch("ka") as d:
        g = Gpumon(d, sim_env(TRAINING[0], pinned=TRAINING[1]), ["--interval", "1h"])
        try:
            g.start()
            c = http.client.HTTPConnection("127.0.0.1", g.port, timeout=5)
            try:
                where = None
                for method, path, hdrs, status in (
                        ("GET", "/metrics", {}, 200), ("HEAD", "/metrics", {}, 200),
                        ("GET", "/healthz", {}, 200),
                        ("GET", "/metrics", {"Accept-Encoding": "gzip"}, 200),
                        ("GET", "/nope", {}, 404), ("GET", "/", {}, 200),
                        ("GET", "/metrics", {}, 200)):
                    c.request(method, path, headers=hdrs)
                    r = c.getresponse()
                    r.read()
                    what = f"{method} {path} {hdrs or ''}"
                    check_eq(r.status, status, f"{what}: status")
                    check((r.getheader("Connection") or "").lower() != "close",
                          f"{what}: answered with Connection: close (no keep-alive)",
                          r.getheaders())
                    check(c.sock is not None, f"{what}: the server closed the connection")
                    here = c.sock.getsockname()
                    check(where is None or here == where,
                          f"{what}: a new connection ({here}, was {where})")
                    where = here
            finally:
                c.close()
            # other methods are refused before their body is read: that connection closes
            c = http.client.HTTPConnection("127.0.0.1", g.port, timeout=5)
            try:
                c.request("POST", "/metrics", body=b"x" * 100)
                r = c.getresponse()
                r.read()
                check_eq(r.status, 405, "POST status")
            finally:
                c.close()
            check(g.alive(), "the exporter died", g.log())
        finally:
            g.stop()
            g.cleanup()


def test_negotiation():
    enc_cases = [
        ("gzip", True), ("gzip;q=0", False), ("gzip; q=0.0", False), ("gzip;q=0, identity", False),
        ("identity;q=1, gzip;q=0.5", False), ("identity;q=0.5, gzip;q=1", True),
        ("*", True), ("*;q=0", False), ("x-gzip", True), ("GZIP", True),
        ("deflate, br", False), ("gzip;q=0.001", True), ("deflate;q=1, gzip;q=0.8", True),
        ("*;q=0.5, gzip;q=0", False), ("", False),
    ]
    om = "application/openmetrics-text"
    acc_cases = [
        (f"{om};version=1.0.0", True), (f"{om};q=0", False),
        (f"{om};version=1.0.0;q=0,text/plain;version=0.0.4;q=0.5", False),
        (f"text/plain;q=0.5, {om};q=0.6", True), (f"text/plain, {om}", False),
        (f"{om}, text/plain", True), ("*/*", False), ("application/json", False),
        ("text/plain;version=0.0.4", False),
        (PROM_ACCEPT, True),  # Prometheus 2
        (f"{om};version=1.0.0;escaping=allow-utf-8;q=0.5,{om};version=0.0.1;q=0.4,"
         "text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,"
         "*/*;q=0.1", True),  # Prometheus 3
        (f'{om};foo="a,b;q=0";q=0.9, text/plain;q=0.1', True),
        (f'text/plain;q=0.9, {om};bar="x, text/plain";q=0.2', False),
    ]
    with Scratch("neg") as d:
        g = Gpumon(d, sim_env(TRAINING[0], pinned=TRAINING[1]), ["--interval", "1h"])
        try:
            g.start()
            plain = g.get("/metrics").body
            for value, want in enc_cases:
                r = g.get("/metrics", headers={"Accept-Encoding": value})
                got = r.header("Content-Encoding") == "gzip"
                check_eq(got, want, f"Accept-Encoding: {value!r} -> gzip", r.headers)
                check_eq(gzip.decompress(r.body) if got else r.body, plain,
                         f"Accept-Encoding: {value!r}: the body")
            for value, want in acc_cases:
                r = g.get("/metrics", headers={"Accept": value})
                got = r.header("Content-Type").startswith(om)
                check_eq(got, want, f"Accept: {value!r} -> OpenMetrics", r.headers)
                check_eq(r.body.endswith(b"# EOF\n"), want, f"Accept: {value!r}: # EOF")
        finally:
            g.stop()
            g.cleanup()


def test_reload_transaction():
    from exporter_lib import Proc, free_port
    from agentlib import GPUMON
    env = sim_env(TRAINING[0], pinned=TRAINING[1])
    with Scratch("rt") as d:
        conf, web = os.path.join(d, "gpumon.conf"), os.path.join(d, "web.yml")

        def write(path, text):
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.rename(path + ".tmp", path)

        def write_conf(listen, extra=""):
            write(conf, f"[agent]\ninterval = 1h\ndata-dir = {d}/data\ncsv = false\n"
                        f"store = false\n[exporter]\nlisten = {listen}\nweb-config = {web}\n"
                        + extra)

        def reload(p, what):
            n = p.log().count("reload")
            p.proc.send_signal(signal.SIGHUP)
            deadline = time.time() + DEADLINE
            while p.log().count("reload") == n and time.time() < deadline:
                time.sleep(0.05)
            check(p.log().count("reload") > n, f"{what}: no reload line in the log", p.log())
            time.sleep(0.2)

        port = free_port()
        write(web, "http_server_config:\n  headers:\n    X-Frame-Options: deny\n")
        write_conf(f"127.0.0.1:{port}")
        p = Proc([GPUMON, "serve", "--config", conf], env, log=os.path.join(d, "log"))
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        c = None
        try:
            p.start()
            deadline = time.time() + DEADLINE
            while time.time() < deadline:
                try:
                    if get("127.0.0.1", port, "/healthz", timeout=2).status == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.05)
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

            def scrape(what):
                try:
                    c.request("GET", "/metrics")
                    r = c.getresponse()
                    body = r.read()
                except (OSError, http.client.HTTPException) as e:
                    check(False, f"{what}: the open connection failed: {e!r}", p.log())
                check_eq(r.status, 200, f"{what}: status")
                check(c.sock is not None, f"{what}: the connection was closed")
                return r, body.decode()

            r, _ = scrape("before the reloads")
            check_eq(r.getheader("X-Frame-Options"), "deny", "the web config's header")
            sock = c.sock.getsockname()
            reload(p, "nothing changed")
            check("reload failed" not in p.log(), "a reload of the same files failed", p.log())
            r, _ = scrape("after a SIGHUP with nothing changed")
            check_eq(c.sock.getsockname(), sock, "the connection after a reload without changes")
            write(web, "http_server_config:\n  headers:\n    X-Frame-Options: sameorigin\n")
            reload(p, "a new header")
            r, _ = scrape("after a SIGHUP with a new header")
            check_eq(c.sock.getsockname(), sock, "the connection after a header change")
            check_eq(r.getheader("X-Frame-Options"), "sameorigin", "the new header after SIGHUP")
            # a failed reload changes nothing, not even the settings that were valid
            write_conf(f"127.0.0.1:{busy.getsockname()[1]}", "names = dcgm\nhostname-label = true\n")
            reload(p, "a port in use")
            check("reload failed" in p.log(), "the failed reload is not reported", p.log())
            r, text = scrape("after the failed reload")
            check("gpumon_gpu_up{" in text and "DCGM_FI_" not in text and "hostname=" not in text,
                  "a failed reload applied part of the new settings (names, hostname-label)",
                  text[:300])
            check_eq(r.getheader("X-Frame-Options"), "sameorigin", "header after the failed reload")
        finally:
            if c:
                c.close()
            busy.close()
            p.stop()
            p.cleanup()


def test_config_check():
    env = sim_env(TRAINING[0], pinned=TRAINING[1])
    with Scratch("cc") as d:
        web = os.path.join(d, "web.yml")
        with open(web, "w") as f:
            f.write("# nothing: plain HTTP\n")
        bad = [
            ("listen = 127.0.0.1:99999",
             'invalid listen address "127.0.0.1:99999": invalid port "99999" (1 to 65535)'),
            ("listen = 127.0.0.1:0",
             'invalid listen address "127.0.0.1:0": invalid port "0" (1 to 65535)'),
            ("listen = localhost:9842",
             'invalid listen address "localhost:9842": "localhost" is not a numeric IPv4 or IPv6 '
             'address'),
            ("listen = 127.0.0.1",
             'invalid listen address "127.0.0.1": expected ADDRESS:PORT (or :PORT for every '
             'interface)'),
            ("listen = [::1]9842", 'invalid listen address "[::1]9842": expected [ADDRESS]:PORT'),
            ("listen = garbage", 'invalid listen address "garbage": expected ADDRESS:PORT (or '
                                 ':PORT for every interface)'),
            (f"web-config = {d}/missing.yml",
             f'web-config "{d}/missing.yml": No such file or directory'),
            ('listen = ""', 'invalid listen address "": for no HTTP server leave the value empty '
                            '("listen =")'),
        ]
        for line, reason in bad:
            path = os.path.join(d, "bad.conf")
            with open(path, "w") as f:
                f.write(f"[agent]\ninterval = 5s\n\n[exporter]\n{line}\n")
            rc, out, err = run_gpumon(["config", "check", path], env)
            check_eq((rc, out, err), (2, "", f"{path}:5: {reason}\n"),
                     f"config check with {line!r} (status, stdout, stderr)")
            key, _, value = line.partition(" = ")
            rc, out, err = run_gpumon(["serve", "--no-config", "--data-dir",
                                       os.path.join(d, "data"), f"--{key}", value], env)
            check_eq((rc, err.splitlines()[0] if err else ""),
                     (2, f"gpumon: error: --{key}: {reason}"), f"serve --{key} {value}")
        for line in ("listen = [::1]:9842", "listen = :9842", "listen = 0.0.0.0:1",
                     "listen =", f"web-config = {web}"):
            path = os.path.join(d, "good.conf")
            with open(path, "w") as f:
                f.write(f"[exporter]\n{line}\n")
            rc, out, err = run_gpumon(["config", "check", path], env)
            check_eq((rc, out, err), (0, "", ""), f"config check with {line!r}")


def test_serve_print_no_nvml():
    for what, env, state in (
            ("driver not loaded", sim_env("fault-driver-not-loaded.ini", pinned=10),
             "driver_not_loaded"),
            ("no library", dict(sim_env(TRAINING[0], pinned=10),
                                GPUMON_NVML_LIB="/nonexistent/libnvidia-ml.so.1"), "no_library")):
        rc, out, err = serve_print(env)
        check_eq(rc, 3, f"{what}: exit status of serve --print", err)
        samples = parse_samples(out)
        states = {lab["state"]: v for n, lab, v in samples if n == "gpumon_nvml_state"}
        check_eq(states.get(state), 1.0, f"{what}: gpumon_nvml_state{{state={state}}}", out)
        check_eq(sum(states.values()), 1.0, f"{what}: one state is 1", states)
        check_eq([n for n, lab, _ in samples if "gpu" in lab], [], f"{what}: GPU series")
        check(err.startswith("gpumon: error: "), f"{what}: no error on stderr", err)


def test_serve_help():
    rc, out, err = run_gpumon(["serve", "--help"], sim_env(TRAINING[0], pinned=10))
    check_eq(rc, 0, "serve --help exit status", err)
    intro = out.split("\n\n")[1]
    check("exporter" in intro and "/metrics" in intro and "--print" in out and
          "--listen" in intro, "serve --help does not describe the exporter", out[:800])
    check("recording agent" not in intro, "serve --help describes the recording agent", intro)


if __name__ == "__main__":
    main([test_endpoints, test_driver_not_loaded, test_ipv6, test_bad_listen, test_process_metrics,
          test_hostname_label, test_xid_errors, test_reload_listen, test_keep_alive, test_negotiation,
          test_reload_transaction, test_config_check, test_serve_print_no_nvml, test_serve_help])
