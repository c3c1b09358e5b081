#!/usr/bin/env python3
"""`gpumon run -- CMD` on the simulator (docs/run.md).

The scenario scenarios/run-jobs.ini gives each of its four GPUs a process
whose pid is read from $GPUSIM_RUN_DIR/gpuN.pid (`pid_file`,
docs/simulator.md): a script "opens" GPU N by writing its own pid there and
closes it by exiting.  GPU 3 also runs someone else's process (a pid no
real process has), which is never the run's.

  test_tree:    a script forks two children, one of which daemonises
                (double fork + setsid: reparented to gpumon, the
                subreaper), which open GPUs 0 and 2 and end; the script
                exits 5.  The summary lists exactly GPUs 0 and 2, with the
                children's pids; exit status 5; CMD's stdout passes through
                unchanged with the JSON after it.
  test_status:  exit statuses 0 and 3, and a command killed by SIGTERM:
                143 with "signal": 15; without NVML the command still runs,
                its status comes back and the summary says why it has no
                samples.
  test_signals: SIGINT and SIGTERM sent to gpumon reach the child (it traps
                them and writes a file) and its exit status comes back.
  test_exec:    127 for a command that does not exist, 126 for one that is
                not executable, with one message and nothing on stdout;
                125 for gpumon's own bad options, the command not run.
  test_agent:   with an agent running, the run's start and end marks (task
                and a hostile argument made safe) are in its store, and the
                summary's average utilisation and energy of GPU 0 equal
                what the store recorded over the summary's period, within
                tolerances derived from the sampling (see the test).
  test_json:    --json-file and --json have the documented keys; values
                that are not real are null (GPU 3: no energy counter, so
                energy is integrated from power and says so).
  test_hostside: the host side of the run's process (the simulator's host
                view, GPUSIM_HOST_ROOT = GPUMON_HOST_ROOT) in the summary's
                evidence: input-starved, CPU-bound with no workers.
  test_csv:     --csv writes a header and one row per GPU per sample, the
                run's pids in the rows of the GPUs they use; a symbolic
                link planted at the path is refused (exit 125, the command
                not run, the link's target not created).
"""
import csv
import datetime
import json
import os
import signal
import stat
import subprocess
import time

from agentlib import (DEADLINE, GPUMON, Agent, Fail, Scratch, check, check_eq, db_query, main, run,
                      scenario, sim_env)

SCN = scenario("run-jobs.ini")


def env_for(d, **kw):
    return sim_env(SCN, GPUSIM_RUN_DIR=d, **kw)


def write_script(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


# A child that opens GPU $1: writes its pid to gpu$1.pid (and to $2 when
# given), holds the GPU $3 seconds, exits.
OPEN = 'sh -c \'echo $$ > "$GPUSIM_RUN_DIR/gpu{gpu}.pid"; {extra}sleep {hold}\''


def opener(gpu, hold, extra=""):
    return OPEN.format(gpu=gpu, hold=hold, extra=extra)


def test_tree():
    with Scratch("rtree") as d:
        daemon_pid = os.path.join(d, "daemon.pid")
        script = write_script(os.path.join(d, "job.sh"), f"""
{opener(0, 1.2)} &
# a daemon: double fork and a new session, its parent gone at once
( setsid {opener(2, 1.0, f'echo $$ > {daemon_pid}; ')} & ) &
wait
sleep 0.6
echo "job: done"
exit 5
""")
        p = subprocess.run([GPUMON, "run", "--no-config", "--json", "--interval", "50ms", "--data-dir",
                            os.path.join(d, "none"), "--", script], env=env_for(d),
                           capture_output=True, text=True, timeout=60)
        check_eq(p.returncode, 5, "exit status passed through", p.stderr)
        head, _, doc = p.stdout.partition("\n")
        check_eq(head, "job: done", "CMD's stdout first, unchanged", p.stdout)
        s = json.loads(doc)
        check_eq(s["gpus_used"], [0, 2], "the GPUs the tree used", p.stdout)
        check_eq([g["index"] for g in s["gpus"]], [0, 2], "one block per GPU used", p.stdout)
        with open(daemon_pid) as f:
            dpid = int(f.read())
        check(dpid in s["gpus"][1]["pids"], f"the daemonised child {dpid} followed", p.stdout)
        check_eq(s["exit_status"], 5, "exit_status", doc)
        check(s["signal"] is None, "no signal", doc)
        check("no agent runs at" in p.stderr, "says that no agent runs", p.stderr)
        for g in s["gpus"]:
            check(0 < g["in_use_s"] <= s["duration_s"] + 1e-3, "in_use_s within the run", doc)


def test_status():
    with Scratch("rst") as d:
        for body, want, sig in (("exit 0\n", 0, None), ("exit 3\n", 3, None),
                                ("kill -TERM $$\nsleep 5\n", 143, 15)):
            script = write_script(os.path.join(d, "s.sh"), body)
            p = subprocess.run([GPUMON, "run", "--no-config", "--json", "--data-dir", os.path.join(d, "none"),
                                "--", script], env=env_for(d), capture_output=True, text=True,
                               timeout=30)
            check_eq(p.returncode, want, f"exit status of {body!r}", p.stderr)
            s = json.loads(p.stdout)
            check_eq((s["exit_status"], s["signal"]), (want, sig), "in the summary", p.stdout)
            check_eq(s["gpus_used"], [], "no GPU used", p.stdout)
        # stderr a pipe nobody reads: the summary is lost, the status is not
        r, w = os.pipe()
        os.close(r)
        p = subprocess.run([GPUMON, "run", "--no-config", "--data-dir", os.path.join(d, "none"), "--", "sh",
                            "-c", "exit 6"], env=env_for(d), stderr=w, timeout=30)
        os.close(w)
        check_eq(p.returncode, 6, "the status with a closed stderr (no death by SIGPIPE)")
        # without NVML the command still runs and its status comes back
        env = env_for(d)
        env["GPUMON_NVML_LIB"] = os.path.join(d, "no-such-libnvidia-ml.so.1")
        p = subprocess.run([GPUMON, "run", "--no-config", "--json", "--data-dir", os.path.join(d, "none"),
                            "--", "sh", "-c", "exit 4"], env=env, capture_output=True, text=True,
                           timeout=30)
        check_eq(p.returncode, 4, "exit status without NVML", p.stderr)
        s = json.loads(p.stdout)
        check_eq((s["samples"], s["gpus"]), (0, []), "no samples, no GPUs", p.stdout)
        check("no-such-libnvidia-ml" in s["nvml_error"], "nvml_error says why", p.stdout)
        check("gpumon: warning: no GPU samples: cannot load" in p.stderr, "said on stderr",
              p.stderr)


def test_signals():
    with Scratch("rsig") as d:
        for sig, name in ((signal.SIGINT, "INT"), (signal.SIGTERM, "TERM")):
            got = os.path.join(d, f"got-{name}")
            ready = os.path.join(d, f"ready-{name}")
            script = write_script(os.path.join(d, f"trap-{name}.sh"), f"""
trap 'echo {name} > {got}; kill $! 2>/dev/null; exit 42' {name}
touch {ready}
sleep 30 >/dev/null 2>&1 &
wait
""")
            # as from a terminal: SIGINT not ignored (a shell ignores it in
            # the background jobs of a script, and a signal ignored on entry
            # cannot be trapped by sh: gpumon keeps dispositions, as env(1))
            p = subprocess.Popen([GPUMON, "run", "--no-config", "--data-dir", os.path.join(d, "none"), "--",
                                  script], env=env_for(d), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            deadline = time.time() + DEADLINE
            while not os.path.exists(ready) and time.time() < deadline:
                time.sleep(0.02)
            check(os.path.exists(ready), f"the script started ({name})")
            p.send_signal(sig)
            try:
                out, err = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                raise Fail(f"gpumon run did not end after SIG{name}")
            check(os.path.exists(got), f"SIG{name} reached the child", err)
            check_eq(p.returncode, 42, f"the child's status after SIG{name}", err)
            check("exit status 42" in err, "the summary says so", err)


def test_exec():
    with Scratch("rexe") as d:
        noexec = os.path.join(d, "plain.txt")
        with open(noexec, "w") as f:
            f.write("not a program\n")
        for cmd, want, why in ((os.path.join(d, "missing"), 127, "No such file or directory"),
                               ("gpumon-no-such-command-xyz", 127, "No such file or directory"),
                               (noexec, 126, "Permission denied")):
            rc, out, err = run(["run", "--no-config", "--", cmd, "a"], env_for(d))
            check_eq(rc, want, f"exit status for {cmd}", err)
            check_eq(out, "", "nothing on stdout")
            check_eq(err, f"gpumon: error: cannot run '{cmd}': {why}\n", "one message")
        # gpumon's own bad options: 125, the command not run
        ran = os.path.join(d, "ran")
        for args, msg in ((["--task", ".bad/x"], "--task: invalid task"),
                          (["--interval", "5ms"], "--interval 5ms is below the minimum of 10ms"),
                          (["--bogus"], "unknown option --bogus")):
            rc, out, err = run(["run"] + args + ["--", "touch", ran], env_for(d))
            check_eq(rc, 125, f"exit status for {args}", err)
            check(err.startswith("gpumon: error: " + msg), "the message", err)
            check(not os.path.exists(ran), "the command not run")


def test_agent():
    with Scratch("ragt") as d:
        data = os.path.join(d, "data")
        env = env_for(d, epoch=time.time() - 100)
        a = Agent(data, env, ["--interval", "100ms", "--no-alerts"])
        try:
            a.start(wait_samples=3)
            script = write_script(os.path.join(d, "job.sh"), f"""
{opener(0, 3)} &
{opener(1, 2)} &
wait
""")
            hostile = "evil\n\x1b[2J\udcff,\"quoted\""
            summary = os.path.join(d, "summary.json")
            p = subprocess.run([GPUMON.encode(), b"run", b"--no-config", b"--task", b"runtest", b"--data-dir",
                                data.encode(), b"--json-file", summary.encode(), b"--",
                                script.encode(), os.fsencode(hostile)],
                               env=env, capture_output=True, timeout=60)
            err = p.stderr.decode(errors="replace")
            check_eq(p.returncode, 0, "exit status", err)
            check("no agent" not in err, "the agent was found", err)
            check(b"\x1b" not in p.stderr and b"\xff" not in p.stderr,
                  "no raw control or invalid byte on stderr", err)
            a.stop()
        finally:
            a.cleanup()
        with open(summary) as f:
            s = json.load(f)
        check_eq(s["marks"], "marked", "marks sent", s)
        db = os.path.join(data, "gpumon.db")
        marks = db_query(db, "SELECT e.ts, e.text, t.name FROM events e JOIN tasks t ON "
                         "t.id = e.task WHERE e.type = 'mark' ORDER BY e.ts")
        check_eq(len(marks), 2, "two marks", marks)
        (t0, start_text, task0), (t1, end_text, task1) = marks
        check_eq((task0, task1), ("runtest", "runtest"), "the marks' task", marks)
        safe = "evil\ufffd\ufffd[2J\ufffd,\"quoted\""
        check_eq(start_text, f"run start: {script} {safe}", "the start mark, made safe", marks)
        check_eq(end_text, f"run end: exit 0: {script} {safe}", "the end mark", marks)
        check_eq(s["command"], [script, "evil\n\x1b[2J\ufffd,\"quoted\""],
                 "JSON keeps the arguments, escaped (invalid bytes as U+FFFD)", s)
        g0 = [g for g in s["gpus"] if g["index"] == 0][0]
        # the summary's own period: its first sample (start) to its last (end)
        ms = [int(datetime.datetime.fromisoformat(s[k]).timestamp() * 1000)
              for k in ("start", "end")]
        check(t0 - 1000 <= ms[0] <= t0 and t1 - 1000 <= ms[1] <= t1,
              "the marks follow the summary's start and end", (ms, t0, t1))
        rows = db_query(db, "SELECT s.ts, s.util_gpu_pct, s.energy_mj, s.power_cw FROM samples s "
                        "JOIN gpus g ON g.id = s.gpu WHERE g.gpu_index = 0 AND s.ts BETWEEN ? "
                        "AND ? ORDER BY s.ts", tuple(ms))
        check(len(rows) >= 15, f"the store sampled the run ({len(rows)} rows)", rows)
        util = [r[1] for r in rows if r[1] is not None]
        store_avg = sum(util) / len(util)
        # Utilisation: both means are over >= 15 samples of the same steady
        # series (90 % with a spread of about +-1 point from sample to
        # sample), taken at instants up to one interval apart: they differ by
        # the noise of the mean, well under 1 point; 1.5 points allowed.
        check(abs(store_avg - g0["utilization_gpu_avg_percent"]) <= 1.5,
              f"average utilisation: store {store_avg:.2f} %, summary "
              f"{g0['utilization_gpu_avg_percent']} %", rows)
        # Energy: the store's counter between its first and last sample
        # inside the summary's period, whose counter runs from its first
        # sample (start) to its last (end).  The store's first row is at most
        # one agent interval (0.1 s) after start, its last at most one before
        # end, so the store's period is shorter by at most 0.2 s; the
        # difference is at most 0.2 s at the highest power the store saw
        # (plus 10 % for an agent tick that a loaded machine delays).
        e_store = (rows[-1][2] - rows[0][2]) / 1000.0 / 3600.0
        pmax = max(r[3] for r in rows) / 100.0
        tol = pmax * 0.22 / 3600.0
        check_eq(g0["energy_source"], "counter", "GPU 0 has an energy counter", g0)
        check(abs(e_store - g0["energy_wh"]) <= tol,
              f"energy: store {e_store:.5f} Wh, summary {g0['energy_wh']:.5f} Wh, "
              f"tolerance {tol:.5f} Wh", rows)
        check_eq(s["gpus_used"], [0, 1], "GPUs used", s)
        print(f"  GPU 0 over {len(rows)} store rows: utilisation store {store_avg:.2f} %, summary "
              f"{g0['utilization_gpu_avg_percent']} %; energy store {e_store:.5f} Wh, summary "
              f"{g0['energy_wh']:.5f} Wh (tolerance {tol:.5f} Wh)")


JSON_KEYS = {"schema", "command", "task", "start", "end", "duration_s", "exit_status", "signal",
             "interval_s", "samples", "marks", "data_dir", "nvml_error", "gpus_used",
             "diagnosis_points", "gpus"}
GPU_KEYS = {"index", "uuid", "name", "in_use_s", "pids", "energy_wh", "energy_source",
            "utilization_gpu_avg_percent", "utilization_gpu_peak_percent",
            "utilization_samples", "memory_used_avg_bytes", "memory_used_peak_bytes",
            "memory_total_bytes", "throttled_s", "reasons_known_s", "verdict", "findings"}
REASONS = {"applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
           "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
           "display_clock_setting"}


def test_json():
    with Scratch("rjs") as d:
        script = write_script(os.path.join(d, "job.sh"), f"{opener(2, 2)} &\n"
                              f"{opener(3, 2)} &\nwait\n")
        jf = os.path.join(d, "s.json")
        p = subprocess.run([GPUMON, "run", "--no-config", "--json", "--json-file", jf, "--data-dir",
                            os.path.join(d, "none"), "--", script], env=env_for(d),
                           capture_output=True, text=True, timeout=60)
        check_eq(p.returncode, 0, "exit status", p.stderr)
        s = json.loads(p.stdout)
        with open(jf) as f:
            check_eq(json.load(f), s, "--json-file holds the same document")
        check_eq(set(s), JSON_KEYS, "top-level keys", s)
        check_eq(s["schema"], "gpumon.run/1", "schema", s)
        check_eq(s["gpus_used"], [2, 3], "GPUs used (not GPU 3's other process alone)", s)
        for g in s["gpus"]:
            check_eq(set(g), GPU_KEYS, "GPU keys", g)
            check_eq(set(g["throttled_s"]), REASONS, "reasons (gpu_idle is no throttling)", g)
        g2, g3 = s["gpus"]
        check_eq(g2["energy_source"], "counter", "GPU 2 energy from the counter", g2)
        check_eq(g3["energy_source"], "power", "GPU 3: integrated from power.draw", g3)
        check(g3["energy_wh"] > 0, "GPU 3 energy from power", g3)
        check(g2["throttled_s"]["sw_power_cap"] > 0.5 * s["duration_s"],
              "GPU 2 power-capped most of the run", g2)
        check(s["diagnosis_points"] >= 10, "enough points for a diagnosis", s)
        check(isinstance(g2["findings"], list), "findings evaluated", g2)
        check(s["nvml_error"] is None, "NVML answered", s)


def test_hostside():
    """The host side in the summary: a job on scenarios/run-starved.ini whose
    process (the run's own) has one core pinned and no workers; the summary
    names input-starved with the host side in its evidence."""
    with Scratch("rhs") as d:
        host = os.path.join(d, "host")
        script = write_script(os.path.join(d, "job.sh"), f"{opener(0, 4)}\n")
        env = sim_env(scenario("run-starved.ini"), GPUSIM_RUN_DIR=d, GPUSIM_HOST_ROOT=host,
                      GPUMON_HOST_ROOT=host)
        p = subprocess.run([GPUMON, "run", "--no-config", "--json", "--data-dir",
                            os.path.join(d, "none"), "--", script], env=env,
                           capture_output=True, text=True, timeout=60)
        check_eq(p.returncode, 0, "exit status", p.stderr)
        s = json.loads(p.stdout)
        check_eq(s["gpus_used"], [0], "GPU 0 used", s)
        g = s["gpus"][0]
        pid = g["pids"][0]
        found = [f for f in g["findings"] or [] if f["cause"] == "input-starved"]
        check(len(found) == 1, "input-starved found from the host side", g)
        ev = found[0]["evidence"]
        check(ev.startswith("feeder CPU-bound (num_workers=0") and f"pid {pid} at " in ev
              and "0 workers" in ev,
              "the evidence names the feeding process, no workers, CPU-bound", ev)
        check("no burst-and-gap pattern" in ev, "steady, not a heartbeat", ev)
        # the text summary (stderr) prints the same evidence
        p = subprocess.run([GPUMON, "run", "--no-config", "--data-dir", os.path.join(d, "none"),
                            "--", script], env=env, capture_output=True, text=True, timeout=60)
        check_eq(p.returncode, 0, "exit status (text)", p.stderr)
        check("num_workers=0" in p.stderr + p.stdout, "the text summary has the host side",
              p.stderr)


def test_csv():
    with Scratch("rcsv") as d:
        script = write_script(os.path.join(d, "job.sh"), f"{opener(1, 1.0)}\n")
        out = os.path.join(d, "samples.csv")
        p = subprocess.run([GPUMON, "run", "--no-config", "--csv", out, "--data-dir", os.path.join(d, "none"),
                            "--", script], env=env_for(d), capture_output=True, text=True,
                           timeout=60)
        check_eq(p.returncode, 0, "exit status", p.stderr)
        with open(out, newline="") as f:
            rows = list(csv.DictReader(f))
        with open(out) as f:
            check_eq(f.readline().strip(), "time,elapsed_s,gpu,uuid,in_use,run_pids,"
                     "utilization_gpu_percent,memory_used_mib,memory_total_mib,power_draw_w,"
                     "energy_j,clocks_event_reasons,status", "header")
        check(len(rows) % 4 == 0 and len(rows) >= 4 * 8, f"4 rows a sample ({len(rows)})")
        used = [r for r in rows if r["in_use"] == "1"]
        check(used and all(r["gpu"] == "1" for r in used), "only GPU 1 in use", used)
        check(all(r["run_pids"] for r in used), "its pid named", used)
        g3 = [r for r in rows if r["gpu"] == "3"]
        check(all(r["energy_j"] == "" and "energy" in r["status"] for r in g3),
              "GPU 3's energy absent and said so", g3[:2])
        check(all(r["status"] == "ok" for r in rows if r["gpu"] == "0"), "GPU 0 whole", rows[:2])
        # a symbolic link planted at the path: refused, nothing run
        target = os.path.join(d, "target")
        link = os.path.join(d, "link.csv")
        os.symlink(target, link)
        ran = os.path.join(d, "ran")
        rc, o, e = run(["run", "--no-config", "--csv", link, "--", "touch", ran], env_for(d))
        check_eq(rc, 125, "refused: gpumon's own failure", e)
        check_eq(e, f"gpumon: error: cannot create {link}: it is a symbolic link (refused)\n",
                 "the message")
        check(not os.path.exists(target) and not os.path.exists(ran),
              "neither the target created nor the command run")
        check(stat.S_ISLNK(os.lstat(link).st_mode), "the link left alone")


if __name__ == "__main__":
    main([test_tree, test_status, test_signals, test_exec, test_agent, test_json, test_csv,
          test_hostside])
