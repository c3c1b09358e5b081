#!/usr/bin/env python3
"""TLS, client certificates and basic auth (--web-config, the exporter-toolkit
format), with a PKI made by openssl at test time: a CA, a server
certificate for 127.0.0.1 and localhost (subjectAltName), a client
certificate signed by the CA and one signed by another CA.  bcrypt hashes
come from `htpasswd -nbBC 10` (apache2-utils) or, without it, from
libxcrypt; a test that needs one is skipped when neither is there.

  basic_auth_over_tls: the start-up line says "exporter https://ADDR"; the
      right user and password get 200 over TLS
      (Python's client and curl, by IP and by name); a wrong password, an
      unknown user, an empty password, another scheme and garbage get 401
      with WWW-Authenticate: Basic and one short body that names nothing;
      no credentials get 401 on every path (/, /metrics, /healthz,
      unknown); an unknown user takes about as long as a wrong password
      (bcrypt against a dummy hash: no user enumeration by timing).
  plain_http_to_tls_port: plain HTTP to the TLS port fails at once (curl
      reports an error, no HTTP 200, no hang) and the exporter keeps serving
      TLS afterwards.
  mutual_tls: with client_auth_type RequireAndVerifyClientCert, a client
      without a certificate and one with a certificate from another CA are
      refused (TLS failure or 403); the CA's client certificate gets 200.
  bad_web_config: files with a YAML error, an unknown key, a plain-text
      password, a missing certificate file, an unknown client_auth_type or a
      client CA missing for RequireAndVerifyClientCert: serve exits non-zero
      at start with "gpumon: error: FILE:LINE: reason" and nothing listening.
  config_check_web_config: `gpumon config check FILE` whose [exporter]
      web-config names a file with an unknown key, a plain-text password, a
      missing certificate or key file, or 100000 levels of '[' exits 2 with
      exactly "WEBFILE:LINE: reason" within 5 s; a good one passes silently,
      and with exporter = false the web config is not read.
  sighup_reload: a user added to the file works after SIGHUP (and the old
      one still does); a broken file on the next SIGHUP is logged with its
      FILE:LINE and the running configuration is kept, still serving.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import re
import signal
import ssl
import subprocess
import time

from agentlib import DEADLINE, Fail, check, check_eq, main
from exporter_lib import (Gpumon, Scratch, basic, bcrypt_hash, get, make_pki, need, run_gpumon,
                          sim_env, tls_context)



def env():
    return sim_env("h100x8-training.ini", pinned=100)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def wait_tls(g, ctx, headers=None, timeout=DEADLINE):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        check(g.alive(), f"gpumon exited ({g.proc.returncode})", g.log())
        try:
            r = get("127.0.0.1", g.port, "/metrics", tls=ctx, headers=headers, timeout=3)
            last = r.status
            if r.status == 200:
                return r
        except (OSError, ssl.SSLError) as e:
            last = e
        time.sleep(0.1)
    raise Fail(f"no 200 over TLS within {timeout} s (last {last!r})\n" + g.log())


def curl(*args, timeout=10, max_time=5):
    (c,) = need("curl")
    p = subprocess.run([c, "-sS", "--max-time", str(max_time)] + list(args), capture_output=True,
                       timeout=timeout + max_time)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def test_basic_auth_over_tls():
    with Scratch("tls") as d:
        pki = make_pki(d)
        h = bcrypt_hash("s3cret pass")
        cfg = write(os.path.join(d, "web.yml"), f"""tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: {h}
""")
        g = Gpumon(d, env(), ["--interval", "1s", "--web-config", cfg])
        try:
            g.start(ready=False)
            ctx = tls_context(pki["ca"])
            good = basic("prometheus", "s3cret pass")
            r = wait_tls(g, ctx, good)
            check("gpumon_gpu_up" in r.text, "metrics over TLS with basic auth", r.text[:300])
            check(f"exporter https://127.0.0.1:{g.port})" in g.log() and "http://" not in g.log(),
                  "the start-up line names the exporter's https:// address", g.log())
            for path in ("/", "/healthz"):
                check_eq(get("127.0.0.1", g.port, path, tls=ctx, headers=good).status, 200,
                         f"{path} with credentials")
            bodies = set()
            for what, hdr in (("wrong password", basic("prometheus", "s3cret pasS")),
                              ("unknown user", basic("grafana", "s3cret pass")),
                              ("empty password", basic("prometheus", "")),
                              ("not basic", {"Authorization": "Bearer s3cret"}),
                              ("garbage", {"Authorization": "Basic !!!"}),
                              ("no credentials", {})):
                r = get("127.0.0.1", g.port, "/metrics", tls=ctx, headers=hdr)
                check_eq(r.status, 401, f"{what}: status", r)
                wa = r.header("WWW-Authenticate") or ""
                check(wa.startswith("Basic"), f"{what}: WWW-Authenticate", r.headers)
                check(len(r.body) < 64 and not re.search(rb"(?i)password|user|prometheus|grafana|"
                                                         rb"bcrypt|hash", r.body),
                      f"{what}: the 401 body gives details away", r.body)
                bodies.add(r.body)
            check_eq(len(bodies), 1, "one 401 body for every kind of failure", bodies)
            # An unknown user costs a bcrypt check too (no user enumeration by
            # timing).  Measured as the agent's CPU time, not the answer's wall
            # time: a loaded machine stretches wall time at random, while the
            # bcrypt work itself is the same.
            def cpu_s():
                with open(f"/proc/{g.proc.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            # The answer without credentials costs the TLS handshake and no
            # bcrypt: subtracted, what is left is the password check.
            spent = {"none": 0.0, "known": 0.0, "unknown": 0.0}
            for i in range(6):
                for who, hdr in (("none", {}), ("known", basic("prometheus", "wrong")),
                                 ("unknown", basic("nobody", "wrong"))):
                    t0 = cpu_s()
                    check_eq(get("127.0.0.1", g.port, "/metrics", tls=ctx, headers=hdr).status,
                             401, "status while timing")
                    spent[who] += cpu_s() - t0
            known, unknown = spent["known"] - spent["none"], spent["unknown"] - spent["none"]
            check(known > 0, "six wrong passwords cost the agent no more CPU time than six requests "
                  f"without credentials ({spent}): no bcrypt check?")
            check(unknown > 0.5 * known, f"six unknown users cost the agent {unknown * 1e3:.0f} ms "
                  f"of CPU for the password check, six wrong passwords {known * 1e3:.0f} ms: "
                  "users can be enumerated")
            for path in ("/", "/healthz", "/nope", "/metrics?x=1"):
                check_eq(get("127.0.0.1", g.port, path, tls=ctx).status, 401,
                         f"{path} without credentials")
            # curl, by IP (SAN IP) and by name (SAN DNS)
            for host in ("127.0.0.1", "localhost"):
                rc, out, err = curl("--cacert", pki["ca"], "-u", "prometheus:s3cret pass",
                                    "-o", "/dev/null", "-w", "%{http_code}",
                                    f"https://{host}:{g.port}/metrics")
                if host == "localhost" and rc == 7:
                    continue  # localhost resolves to ::1 only here; the exporter listens on v4
                check(rc == 0 and out == "200", f"curl https://{host}: rc {rc}, {out}", err)
            check_eq(g.stop(), 0, "exit status on SIGTERM", g.log())
        finally:
            g.cleanup()


def test_plain_http_to_tls_port():
    """The server closes a plain HTTP connection on its TLS port instead of
    waiting for its connection timeout: that timeout is 60 s here, and the
    bound is half of it (a loaded machine never takes that long to close)."""
    with Scratch("plain") as d:
        pki = make_pki(d)
        cfg = write(os.path.join(d, "web.yml"), "tls_server_config:\n  cert_file: server.crt\n"
                                                "  key_file: server.key\n")
        g = Gpumon(d, env(), ["--interval", "1s", "--web-config", cfg,
                              "--connection-timeout", "60s"])
        try:
            g.start(ready=False)
            ctx = tls_context(pki["ca"])
            wait_tls(g, ctx)
            for _ in range(3):
                t0 = time.monotonic()
                rc, out, err = curl("-o", "/dev/null", "-w", "%{http_code}",
                                    f"http://127.0.0.1:{g.port}/metrics", max_time=45)
                took = time.monotonic() - t0
                check(rc != 0 or out not in ("200",), "plain HTTP to the TLS port got an answer",
                      rc, out, err)
                check(rc != 28 and took < 30,
                      f"plain HTTP to the TLS port waited {took:.1f} s for the 60 s timeout",
                      rc, err)
            # a raw request line, too: the server closes instead of waiting
            import socket
            s = socket.create_connection(("127.0.0.1", g.port), timeout=30)
            try:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                data = s.recv(4096)
                check(not data.startswith(b"HTTP/1.1 200"), "plain HTTP answered with 200", data)
            except ConnectionResetError:
                pass
            except socket.timeout:
                raise Fail("a raw plain request waited 30 s for the 60 s connection timeout")
            finally:
                s.close()
            check(g.alive(), "the exporter died after plain HTTP on its TLS port", g.log())
            r = get("127.0.0.1", g.port, "/metrics", tls=ctx)
            check_eq(r.status, 200, "TLS still served after the plain HTTP attempts")
            rc, out, err = curl("--cacert", pki["ca"], "-o", "/dev/null", "-w", "%{http_code}",
                                f"https://127.0.0.1:{g.port}/healthz")
            check(rc == 0 and out == "200", "curl over TLS afterwards", rc, out, err)
        finally:
            g.stop()
            g.cleanup()


def refused(port, ctx, what):
    """A request that must fail the handshake or get 403."""
    try:
        r = get("127.0.0.1", port, "/metrics", tls=ctx, timeout=5)
    except (ssl.SSLError, ConnectionResetError, BrokenPipeError, ConnectionAbortedError) as e:
        return f"TLS failure: {e}"
    check_eq(r.status, 403, f"{what}: status (a TLS failure or 403 expected)", r)
    check("gpumon_" not in r.text, f"{what}: the 403 carries metrics")
    return "403"


def test_mutual_tls():
    with Scratch("mtls") as d:
        pki = make_pki(d)
        other = os.path.join(d, "other")
        os.mkdir(other)
        opki = make_pki(other)
        cfg = write(os.path.join(d, "web.yml"), """tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
""")
        g = Gpumon(d, env(), ["--interval", "1s", "--web-config", cfg])
        try:
            g.start(ready=False)
            good = tls_context(pki["ca"], pki["client_crt"], pki["client_key"])
            r = wait_tls(g, good)
            check("gpumon_gpu_up" in r.text, "metrics with the client certificate")
            how = refused(g.port, tls_context(pki["ca"]), "no client certificate")
            how2 = refused(g.port, tls_context(pki["ca"], opki["client_crt"], opki["client_key"]),
                           "a client certificate from another CA")
            print(f"  no certificate: {how}; foreign certificate: {how2}")
            rc, out, err = curl("--cacert", pki["ca"], "-o", "/dev/null", "-w", "%{http_code}",
                                f"https://127.0.0.1:{g.port}/metrics")
            check(rc != 0 or out == "403", "curl without a client certificate", rc, out, err)
            rc, out, err = curl("--cacert", pki["ca"], "--cert", pki["client_crt"], "--key",
                                pki["client_key"], "-o", "/dev/null", "-w", "%{http_code}",
                                f"https://127.0.0.1:{g.port}/metrics")
            check(rc == 0 and out == "200", "curl with the client certificate", rc, out, err)
            check(g.alive(), "the exporter died after refusing clients", g.log())
            check_eq(get("127.0.0.1", g.port, "/metrics", tls=good).status, 200,
                     "still serving the good client")
        finally:
            g.stop()
            g.cleanup()


BAD_CONFIGS = [
    ("yaml error", "tls_server_config:\n  cert_file: [a\n", None),
    ("unknown key", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                    "tls_sever_config: {}\n", 4),
    ("plain-text password", "basic_auth_users:\n  alice: hunter2\n", 2),
    ("missing certificate", "tls_server_config:\n  cert_file: nope.crt\n  key_file: server.key\n",
     2),
    ("unknown client_auth_type", "tls_server_config:\n  cert_file: server.crt\n"
                                 "  key_file: server.key\n  client_auth_type: Sometimes\n", 4),
    ("client CA missing", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                          "  client_auth_type: RequireAndVerifyClientCert\n", None),
]


def test_bad_web_config():
    need("openssl")
    with Scratch("badwc") as d:
        make_pki(d)
        for what, text, line in BAD_CONFIGS:
            cfg = write(os.path.join(d, "bad.yml"), text)
            rc, out, err = run_gpumon(["serve", "--no-config", "--data-dir", os.path.join(d, "x"),
                                       "--listen", "127.0.0.1:1", "--web-config", cfg], env(),
                                      timeout=20)
            check(rc != 0, f"{what}: serve started with a bad web config", err)
            m = re.search(r"^gpumon: error: (\S*bad\.yml):(\d+): \S", err, re.M)
            check(m is not None, f"{what}: no 'gpumon: error: FILE:LINE: reason'", err)
            if line is not None:
                check_eq(int(m.group(2)), line, f"{what}: line of the error", err)
            check("hunter2" not in err, f"{what}: the message repeats a password", err)


def test_config_check_web_config():
    need("openssl")
    with Scratch("ccwc") as d:
        make_pki(d)
        conf = os.path.join(d, "gpumon.conf")
        web = os.path.join(d, "web.yml")
        tls = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        bad = [
            ("unknown key", tls + "tls_sever_config: {}\n",
             f'{web}:4: unknown key "tls_sever_config" (expected tls_server_config, '
             'http_server_config or basic_auth_users)'),
            ("plain-text password", "basic_auth_users:\n  alice: hunter2\n",
             f'{web}:2: basic_auth_users: user "alice": not a bcrypt hash (those start with '
             '$2y$, $2b$ or $2a$); make one with: htpasswd -nBC 10 "" | tr -d \':\\n\''),
            ("missing certificate", "tls_server_config:\n  cert_file: nope.crt\n"
                                    "  key_file: server.key\n",
             f'{web}:2: cert_file "{d}/nope.crt": No such file or directory'),
            ("missing key", "tls_server_config:\n  cert_file: server.crt\n  key_file: nope.key\n",
             f'{web}:3: key_file "{d}/nope.key": No such file or directory'),
            ("nested 100000 deep", "[" * 100000,
             f"{web}:1: nested deeper than 64 levels (lists and mappings)"),
        ]
        write(conf, f"[exporter]\nweb-config = {web}\n")
        for what, text, msg in bad:
            write(web, text)
            rc, out, err = run_gpumon(["config", "check", conf], env(), timeout=60)
            check_eq((rc, out, err), (2, "", msg + "\n"),
                     f"config check with a web config: {what} (status, stdout, stderr)")
            check("hunter2" not in err, f"{what}: the message repeats a password", err)
        write(web, tls + f"basic_auth_users:\n  alice: {bcrypt_hash('pw', cost=4)}\n")
        rc, out, err = run_gpumon(["config", "check", conf], env())
        check_eq((rc, out, err), (0, "", ""), "config check with a good web config")
        # the exporter off: the agent does not read the web config, nor does the check
        write(web, "basic_auth_users:\n  alice: hunter2\n")
        write(conf, f"[agent]\nexporter = false\n\n[exporter]\nweb-config = {web}\n")
        rc, out, err = run_gpumon(["config", "check", conf], env())
        check_eq((rc, out, err), (0, "", ""), "config check, exporter off, bad web config")


def test_sighup_reload():
    with Scratch("hup") as d:
        pki = make_pki(d)
        ha, hb = bcrypt_hash("alice pw"), bcrypt_hash("bob pw")
        cfg = os.path.join(d, "web.yml")
        head = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        write(cfg, head + f"basic_auth_users:\n  alice: {ha}\n")
        g = Gpumon(d, env(), ["--interval", "1s", "--web-config", cfg])
        try:
            g.start(ready=False)
            ctx = tls_context(pki["ca"])
            alice, bob = basic("alice", "alice pw"), basic("bob", "bob pw")
            wait_tls(g, ctx, alice)
            check_eq(get("127.0.0.1", g.port, tls=ctx, headers=bob).status, 401, "bob before")
            write(cfg, head + f"basic_auth_users:\n  alice: {ha}\n  bob: {hb}\n")
            g.proc.send_signal(signal.SIGHUP)
            deadline = time.time() + 60  # generous: a loaded machine
            st = None
            while time.time() < deadline:
                try:
                    st = get("127.0.0.1", g.port, tls=ctx, headers=bob, timeout=3).status
                except (OSError, ssl.SSLError) as e:
                    st = e
                if st == 200:
                    break
                time.sleep(0.1)
            check_eq(st, 200, "bob after SIGHUP", g.log())
            check_eq(get("127.0.0.1", g.port, tls=ctx, headers=alice).status, 200, "alice after")
            # a broken file: reported, the running configuration kept
            write(cfg, head + "basic_auth_users:\n  carol: not-a-hash\n")
            g.proc.send_signal(signal.SIGHUP)
            deadline = time.time() + 60  # generous: a loaded machine
            while time.time() < deadline and "web.yml:5" not in g.log():
                time.sleep(0.1)
            check(re.search(r"reload failed.*web\.yml:5: ", g.log()) is not None,
                  "the broken file's FILE:LINE in the log", g.log())
            # served after the failed reload (not a fixed pause: these
            # requests are answered by the process that logged it, or fail)
            for who, hdr in (("alice", alice), ("bob", bob)):
                check_eq(get("127.0.0.1", g.port, tls=ctx, headers=hdr).status, 200,
                         f"{who} after the failed reload", g.log())
            check(g.alive(), "the exporter died on a broken web config", g.log())
            check_eq(get("127.0.0.1", g.port, tls=ctx, headers=basic("carol", "x")).status, 401,
                     "carol (only in the broken file)")
            check_eq(g.stop(), 0, "exit status", g.log())
        finally:
            g.cleanup()


if __name__ == "__main__":
    main([test_basic_auth_over_tls, test_plain_http_to_tls_port, test_mutual_tls,
          test_bad_web_config, test_config_check_web_config, test_sighup_reload])
