#!/usr/bin/env python3
"""fleet_direct.py -- `gpumon fleet` against real agents (docs/fleet.md,
"Sources" and "Node states").

  states     one agent answering, one stopped with SIGSTOP (the per-node
             deadline: timeout), a closed port (refused), a name that does
             not resolve (DNS): every state and reason in the JSON and the
             text view, the answering node intact beside the others
  hosts_file --hosts-file with comments and blank lines; a bad line is an
             error naming FILE:LINE; a host with credentials is refused
             without echoing them
  config     `fleet =` in the [fleet] section of --config FILE and of the
             default file ($CONFIGURATION_DIRECTORY/gpumon.conf); --hosts
             wins; --no-config and no hosts: a usage error
  tls_auth   an agent with TLS and basic auth: ok with --cacert, --user and
             --password-file or --password-env; "TLS" without the CA, 401
             with a wrong password; the password never in any output
"""
import os
import signal

from agentlib import Scratch, check, check_eq, main
from exporter_lib import bcrypt_hash, free_port, make_pki, need, stop_all
from fleet_lib import by_host, fleet, fleet_json, start_agents


def test_states():
    with Scratch("fs") as d:
        agents = start_agents(d, [("h100x8-training.ini", [], None),
                                  ("workstation.ini", [], None)])
        ok, hung = agents
        try:
            hung.proc.send_signal(signal.SIGSTOP)
            closed = f"127.0.0.1:{free_port()}"
            hosts = [f"127.0.0.1:{ok.port}", f"127.0.0.1:{hung.port}", closed,
                     "nosuch.invalid:9842"]
            doc, rc, err = fleet_json(["--hosts", ",".join(hosts), "--timeout", "3",
                                       "--node-timeout", "1"])
            check_eq(rc, 0, "exit status with one node answering", err)
            check_eq(doc["schema"], "gpumon.fleet/1", "schema")
            n = by_host(doc)
            check_eq([x["host"] for x in doc["nodes"]], hosts, "every node, in the given order")
            check_eq(n[hosts[0]]["state"], "ok", "the answering agent", n[hosts[0]])
            check_eq(len(n[hosts[0]]["gpus"]), 8, "its 8 GPUs")
            check_eq(n[hosts[0]]["api_schema"], "gpumon.status/1", "its API")
            check_eq(n[hosts[1]]["state"], "unreachable", "the stopped agent", n[hosts[1]])
            check_eq(n[hosts[1]]["reason"], "timeout", "the stopped agent's reason")
            check_eq(n[hosts[2]]["state"], "unreachable", "the closed port", n[hosts[2]])
            check_eq(n[hosts[2]]["reason"], "connection refused", "the closed port's reason")
            check_eq(n[hosts[3]]["state"], "unreachable", "the unknown name", n[hosts[3]])
            check(n[hosts[3]]["reason"].startswith("DNS"), "the unknown name's reason",
                  n[hosts[3]])
            for h in hosts[1:]:
                check_eq(n[h]["gpus"], [], f"{h}: no GPUs")
            rc, out, err = fleet(["--hosts", ",".join(hosts), "--timeout", "3",
                                  "--node-timeout", "1"])
            check_eq(rc, 0, "text: exit status", err)
            lines = {ln.split()[0]: ln for ln in out.splitlines()[1:] if ln and ln[0] != " "}
            check(" ok " in lines[hosts[0]] and "    8 " in lines[hosts[0]],
                  "text: the agent's line", out)
            check("unreachable  timeout" in lines[hosts[1]], "text: the stopped agent", out)
            check("connection refused" in lines[hosts[2]], "text: refused", out)
            # nobody answers: exit 1 and the reason
            rc, out, err = fleet(["--hosts", closed])
            check_eq(rc, 1, "no node answering: exit 1", out + err)
            check("no node answered" in err, "says so", err)
            hung.proc.send_signal(signal.SIGCONT)
        finally:
            hung.proc.send_signal(signal.SIGCONT)
            stop_all(*agents)


def test_hosts_file():
    with Scratch("fh") as d:
        agents = start_agents(d, [("workstation.ini", [], None)])
        try:
            path = os.path.join(d, "hosts")
            with open(path, "w") as f:
                f.write(f"# the lab\n\n  127.0.0.1:{agents[0].port}   # the workstation\n"
                        "localhost:1\n")
            doc, rc, err = fleet_json(["--hosts-file", path, "--timeout", "2"])
            check_eq([x["host"] for x in doc["nodes"]], [f"127.0.0.1:{agents[0].port}",
                                                         "localhost:1"], "hosts of the file")
            check_eq(doc["nodes"][0]["state"], "ok", "the agent")
            with open(path, "a") as f:
                f.write("bad host name\n")
            rc, out, err = fleet(["--hosts-file", path])
            check_eq(rc, 2, "a bad line is a usage error", err)
            check(f"{path}:5: host 'bad host name'" in err, "the error names FILE:LINE", err)
            rc, out, err = fleet(["--hosts", "alice:Hunter2pw@127.0.0.1:9842"])
            check_eq(rc, 2, "credentials in a host: usage error", err)
            check("Hunter2pw" not in out + err and "credentials" in err,
                  "the credentials are refused and not echoed", err)
            rc, out, err = fleet(["--hosts", "h:0"])
            check(rc == 2 and "port not 1-65535" in err, "port 0", err)
            rc, out, err = fleet([])
            check(rc == 2 and "--hosts" in err, "no nodes", err)
        finally:
            stop_all(*agents)


def test_config():
    with Scratch("fc") as d:
        agents = start_agents(d, [("workstation.ini", [], None),
                                  ("diagnose/idle.ini", [], None)])
        try:
            a, b = (f"127.0.0.1:{g.port}" for g in agents)
            cfg = os.path.join(d, "fleet.conf")
            with open(cfg, "w") as f:
                f.write(f"[fleet]\nfleet = {a}, {b}\n")
            doc, rc, err = fleet_json(["--config", cfg])
            check_eq([(x["host"], x["state"]) for x in doc["nodes"]], [(a, "ok"), (b, "ok")],
                     "the nodes of fleet =", err)
            xdg = os.path.join(d, "xdg")
            os.makedirs(os.path.join(xdg, "gpumon"))
            with open(os.path.join(xdg, "gpumon", "gpumon.conf"), "w") as f:
                f.write(f"[fleet]\nfleet = {b}\n")
            from agentlib import sim_env
            # the default file: CONFIGURATION_DIRECTORY's, whoever runs the test (root
            # reads /etc/gpumon otherwise)
            env = sim_env("workstation.ini", CONFIGURATION_DIRECTORY=os.path.join(xdg, "gpumon"))
            doc, rc, err = fleet_json([], env)
            check_eq([x["host"] for x in doc["nodes"]], [b], "the default file's fleet =", err)
            doc, rc, err = fleet_json(["--hosts", a], env)
            check_eq([x["host"] for x in doc["nodes"]], [a], "--hosts wins", err)
            rc, out, err = fleet(["--no-config"], env)
            check(rc == 2 and "fleet = " in err, "--no-config, no hosts: usage error", err)
            with open(cfg, "w") as f:
                f.write("[fleet]\nfleet = a b\n")
            rc, out, err = fleet(["--config", cfg])
            check(rc == 2 and f"{cfg}:2: host 'a b': not a host[:port]" in err,
                  "a bad host in fleet =: the file and line", err)
        finally:
            stop_all(*agents)


def test_tls_auth():
    need("openssl")
    with Scratch("ft") as d:
        pki = make_pki(d)
        password = "Fl33t-s3cret-Zq"
        h = bcrypt_hash(password)
        cfg = os.path.join(d, "web.yml")
        with open(cfg, "w") as f:
            f.write(f"tls_server_config:\n  cert_file: {pki['server_crt']}\n"
                    f"  key_file: {pki['server_key']}\nbasic_auth_users:\n  lab: {h}\n")
        pwfile = os.path.join(d, "pw")
        with open(pwfile, "w") as f:
            f.write(password + "\n")
        badfile = os.path.join(d, "bad")
        with open(badfile, "w") as f:
            f.write(password + "x\n")
        agents = start_agents(d, [("workstation.ini", ["--web-config", cfg], None)], wait=False)
        g = agents[0]
        try:
            host = f"https://127.0.0.1:{g.port}"
            outputs = []

            def run(args, env=None):
                rc, out, err = fleet(["--hosts", host, "--timeout", "5"] + args, env)
                outputs.append(out + err)
                return rc, out, err
            from agentlib import wait_until
            wait_until(lambda: run(["--cacert", pki["ca"], "--user", "lab",
                                    "--password-file", pwfile])[0] == 0, "the TLS agent")
            rc, out, err = run(["--cacert", pki["ca"], "--user", "lab", "--password-file",
                                pwfile, "--json"])
            check_eq(rc, 0, "TLS + basic auth from a file", err)
            import json
            check_eq(json.loads(out)["nodes"][0]["state"], "ok", "the node", out)
            env = dict(os.environ, FLEET_PW=password)
            rc, out, err = run(["--cacert", pki["ca"], "--user", "lab", "--password-env",
                                "FLEET_PW"], env)
            check_eq(rc, 0, "password from the environment", err)
            rc, out, err = run(["--user", "lab", "--password-file", pwfile, "--json"])
            check_eq(rc, 1, "without the CA: no node", err)
            check(json.loads(out)["nodes"][0]["reason"].startswith("TLS"),
                  "certificate verification failed", out)
            rc, out, err = run(["--cacert", pki["ca"], "--user", "lab", "--password-file",
                                badfile, "--json"])
            node = json.loads(out)["nodes"][0]
            check_eq((node["state"], node["reason"]),
                     ("unreachable", "401: unauthorized (basic auth)"), "a wrong password")
            rc, out, err = run(["--cacert", pki["ca"], "--user", "lab"])
            check(rc == 2 and "--password-file" in err, "--user without a password", err)
            rc, out, err = run(["--cacert", pki["ca"], "--insecure", "--user", "lab",
                                "--password-file", pwfile])
            check_eq(rc, 0, "--insecure", err)
            for o in outputs:
                check(password not in o, "the password is never printed", o[:500])
        finally:
            stop_all(*agents)


if __name__ == "__main__":
    main([test_states, test_hosts_file, test_config, test_tls_auth])
