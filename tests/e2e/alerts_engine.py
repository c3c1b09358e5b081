#!/usr/bin/env python3
"""The alert engine's behaviour end to end: hysteresis, `samples`, `for`
across a gap, repeat notices, reload with state kept, the cron state file of
`record --once`, and configuration errors.

  hysteresis: scenarios/alerts/hysteresis.ini (an L40S at 90 °C cooling
      through 86, 84, 82, 80 to 78 °C at 80-120 s): `when > 85, clear < 80,
      for 1m` fires at 60 s, keeps firing at 84/82/80 °C and resolves at
      120 s (78 °C); the same rule without clear resolves at 90 s (84 °C).
  samples, for, gaps: scenarios/alerts/gaps.ini (a process from 15 to 35 s,
      another from 45 to 95 s): a gap of one sample starts the count again.
  repeat: `repeat = 15s` at 5 s steps: repeat notices at 60, 75 and 90 s.
  reload: a running agent, SIGHUP with the rule unchanged keeps the firing
      alert (no notice); with the rule changed the old one resolves.
  cron: `record --once` five times with GPUSIM_TIME pinned: samples = 3
      fires on the third run only, the state in <data-dir>/alerts.state.
  config errors: `gpumon config check FILE` says FILE:LINE: reason.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import signal
import time

from agentlib import Agent, Fail, Scratch, check, check_eq, main, run, scenario, sim_env


def scn(name):
    return scenario(os.path.join("alerts", name + ".ini"))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def alerts_test(name, conf, to, step="10s"):
    """[(t, rule, state, gpu, repeat, value_text)] of `alerts test`."""
    rc, out, err = run(["alerts", "test", "--to", str(to), "--step", step, "--json", "--config",
                        conf], sim_env(scn(name)), timeout=60)
    check_eq(rc, 0, f"alerts test on {name}: exit status", err, out)
    res = []
    for line in out.splitlines():
        d = json.loads(line)
        a = d["alert"]
        res.append((d["t_seconds"], a["rule"], a["state"], a["gpu"], a["repeat"], a["value_text"]))
    return res


def query_temp(name, t):
    rc, out, err = run(["query", "--query-gpu=temperature.gpu", "--format=csv,noheader,nounits"],
                       sim_env(scn(name), pinned=t))
    check_eq(rc, 0, "query", err)
    return int(out.strip())


NO_DEFAULTS = "[alerts]\ndefault-rules = false\n\n"


def test_hysteresis():
    # hysteresis.ini: the L40S is at 90 °C (> 85) from t = 0, so both rules
    # are pending at 0 and fire at 60 s (for = 1m).  Its load falls from 100
    # to 79.25 % between 60 and 120 s and (thermal_tau 0.1 s) the temperature
    # follows at once: 86, 84, 82, 80, 78 °C at 80 ... 120 s.  With clear <
    # 80 the alert stays firing at 84, 82 and 80 °C (80 is not < 80) and
    # resolves at 120 s; without clear it resolves at the first sample not
    # above 85: 90 s.
    temps = {t: query_temp("hysteresis", t) for t in (60, 70, 80, 90, 100, 110, 120)}
    check_eq(temps, {60: 90, 70: 88, 80: 86, 90: 84, 100: 82, 110: 80, 120: 78},
             "hysteresis.ini's temperatures")
    with Scratch("aeh") as d:
        conf = write(os.path.join(d, "c.conf"), NO_DEFAULTS +
                     "[alert.hyst]\nwhen = temperature.gpu > 85\nclear = temperature.gpu < 80\n"
                     "for = 1m\n\n"
                     "[alert.plain]\nwhen = temperature.gpu > 85\nfor = 1m\n")
        got = alerts_test("hysteresis", conf, 300)
    check_eq(got, [(60, "hyst", "firing", 0, False, "90 °C"),
                   (60, "plain", "firing", 0, False, "90 °C"),
                   (90, "plain", "resolved", 0, False, "84 °C"),
                   (120, "hyst", "resolved", 0, False, "78 °C")], "notices")


def test_samples_and_for_across_gaps():
    # gaps.ini at 10 s steps: procs.count > 0 holds at 20, 30 (first
    # process, 15-35 s), not at 40, then at 50 ... 90 (second, 45-95 s), not
    # at 100.
    #   samples = 1: fires at 20, resolves at 40, fires at 50, resolves 100.
    #   samples = 2: fires at 30 (20, 30), resolves at 40; the count starts
    #                again at 50: fires at 60, resolves at 100.
    #   samples = 3: 20, 30 then the gap at 40 resets it; fires at 70
    #                (50, 60, 70), resolves at 100.
    #   for = 30s:   pending at 20, reset at 40, pending at 50, fires at 80
    #                (80 - 50 >= 30 s), resolves at 100.
    #   samples = 6: never six in a row: nothing.
    rules = [("s1", "samples = 1"), ("s2", "samples = 2"), ("s3", "samples = 3"),
             ("f30", "for = 30s"), ("s6", "samples = 6")]
    with Scratch("aeg") as d:
        conf = write(os.path.join(d, "c.conf"), NO_DEFAULTS + "".join(
            f"[alert.{n}]\nwhen = procs.count > 0\n{k}\n\n" for n, k in rules))
        got = alerts_test("gaps", conf, 200)
    got = sorted((t, r, s) for t, r, s, g, rep, v in got)
    want = sorted([(20, "s1", "firing"), (40, "s1", "resolved"), (50, "s1", "firing"),
                   (100, "s1", "resolved"),
                   (30, "s2", "firing"), (40, "s2", "resolved"), (60, "s2", "firing"),
                   (100, "s2", "resolved"),
                   (70, "s3", "firing"), (100, "s3", "resolved"),
                   (80, "f30", "firing"), (100, "f30", "resolved")])
    check_eq(got, want, "notices of the samples/for rules")


def test_repeat():
    # gaps.ini at 5 s steps: procs.count > 0 holds from 45 s (the second
    # process starts at 45, inclusive) to 90 s (it ends at 95, exclusive).
    # repeat = 15s: firing at 45, repeats 15 s after the previous notice at
    # 60, 75, 90; resolved at 95.  The first process (15-35 s) fires at 15,
    # repeats at 30 and resolves at 35; the second alert's repeats count from
    # its own firing, not from that.  repeat = 0: never.
    with Scratch("aer") as d:
        conf = write(os.path.join(d, "c.conf"), NO_DEFAULTS +
                     "[alert.x]\nwhen = procs.count > 0\nrepeat = 15s\n"
                     "summary = {{rule}} GPU {{gpu}}: {{value}} processes\n\n"
                     "[alert.once]\nwhen = procs.count > 0\nrepeat = 0\n")
        got = alerts_test("gaps", conf, 200, step="5s")
    check_eq([x for x in got if x[1] == "x"],
             [(15, "x", "firing", 0, False, "1"), (30, "x", "firing", 0, True, "1"),
              (35, "x", "resolved", 0, False, "0"),
              (45, "x", "firing", 0, False, "1"), (60, "x", "firing", 0, True, "1"),
              (75, "x", "firing", 0, True, "1"), (90, "x", "firing", 0, True, "1"),
              (95, "x", "resolved", 0, False, "0")], "notices of repeat = 15s")
    check_eq([(t, s, rep) for t, r, s, g, rep, v in got if r == "once"],
             [(15, "firing", False), (35, "resolved", False), (45, "firing", False),
              (95, "resolved", False)], "notices of repeat = 0")


# ------------------------------------------------------------ live agent

def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def wait(pred, timeout, what, agent):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        check(agent.alive(), f"the agent died while waiting for {what}", agent.log())
        time.sleep(0.05)
    raise Fail(f"timed out after {timeout} s waiting for {what}\n" + agent.log())


def engine_alerts(data, env):
    rc, out, err = run(["alerts", "--json", "--data-dir", data, "--no-config"], env)
    check_eq(rc, 0, "gpumon alerts --json", err)
    return json.loads(out)["engine"]["alerts"]


def test_reload_keeps_state():
    # hysteresis.ini pinned at t = 0 (90 °C): `hot` (> 85, for 0) fires on
    # the first sample.  SIGHUP with the file unchanged: the agent reloads,
    # the alert stays firing with the same firing_since and no notice is
    # written.  Then the rule's threshold changes (> 86) and SIGHUP: the old
    # alert resolves with a notice, and the new rule fires afresh at its
    # next sample (a new fired_at; `other`, unchanged, says nothing).
    # With the store on: a reload keeps the running store sink (a second
    # connection opened beside it could find the store locked under load).
    env = sim_env(scn("hysteresis"), pinned=0)
    with Scratch("aeR") as d:
        data = os.path.join(d, "data")
        conf = write(os.path.join(d, "c.conf"), NO_DEFAULTS +
                     "[alert.hot]\nwhen = temperature.gpu > 85\n\n"
                     "[alert.other]\nwhen = temperature.gpu > 80\n")
        log = os.path.join(data, "alerts.jsonl")
        a = Agent(data, env, ["--interval", "200ms"], config=conf)
        try:
            a.start()
            first = wait(lambda: len(read_log(log)) >= 2 and read_log(log), 10, "two notices", a)
            check_eq(sorted((x["rule"], x["state"]) for x in first),
                     [("hot", "firing"), ("other", "firing")], "first notices")
            before = {x["rule"]: x for x in engine_alerts(data, env)}
            n_reloads = sum("configuration reloaded" in l for l in a.log_lines())
            a.send(signal.SIGHUP)
            wait(lambda: sum("configuration reloaded" in l or "reload failed" in l
                             for l in a.log_lines()) > n_reloads, 10, "the reload", a)
            check(not any("reload failed" in l for l in a.log_lines()), "the reload failed",
                  a.log())
            s0 = a.status()["samples"]
            a.wait_samples(s0 + 5)
            check_eq(read_log(log), first, "notices after a reload with unchanged rules")
            after = {x["rule"]: x for x in engine_alerts(data, env)}
            for r in ("hot", "other"):
                check_eq((after[r]["state"], after[r]["firing_since"]),
                         (before[r]["state"], before[r]["firing_since"]),
                         f"{r} after the unchanged reload")
            # change one rule
            write(conf, NO_DEFAULTS +
                  "[alert.hot]\nwhen = temperature.gpu > 86\n\n"
                  "[alert.other]\nwhen = temperature.gpu > 80\n")
            a.send(signal.SIGHUP)
            notices = wait(lambda: len(read_log(log)) >= 4 and read_log(log), 10,
                           "the changed rule's notices", a)
            s0 = a.status()["samples"]
            a.wait_samples(s0 + 5)
            notices = read_log(log)
            final = {x["rule"]: x for x in engine_alerts(data, env)}
        finally:
            a.cleanup()
    rest = [(x["rule"], x["state"], x["repeat"], x["condition"]) for x in notices[2:]]
    check_eq(rest, [("hot", "resolved", False, "temperature.gpu > 85"),
                    ("hot", "firing", False, "temperature.gpu > 86")],
             "after changing hot: the old resolves, the new fires; other says nothing", notices)
    res, new = notices[2], notices[3]
    old = [x for x in first if x["rule"] == "hot"][0]
    check_eq(res["fired_at_unix_ms"], old["fired_at_unix_ms"], "the resolution is of the old alert")
    check(new["fired_at_unix_ms"] >= res["resolved_at_unix_ms"], "the new alert fires after", new)
    check_eq(final["other"]["firing_since"], before["other"]["firing_since"],
             "other kept its state through both reloads")
    check(final["hot"]["firing_since"] != before["hot"]["firing_since"], "hot started again",
          final)


def test_cron_state_file():
    # `record --once` five times at pinned scenario times 0, 10, 20, 30 and
    # 130 s of hysteresis.ini (90 °C, 90, 90, 90, then 78 °C): a rule with
    # samples = 3 is pending after runs 1 and 2 (the state file says so),
    # fires on run 3, says nothing on run 4 (still firing, no repeat) and
    # resolves on run 5.  Without the state file every run starts again.
    with Scratch("aec") as d:
        data = os.path.join(d, "data")
        conf = write(os.path.join(d, "c.conf"), NO_DEFAULTS +
                     "[alert.hot-3-runs]\nwhen = temperature.gpu > 85\nsamples = 3\n")
        log = os.path.join(data, "alerts.jsonl")
        state = os.path.join(data, "alerts.state")

        def once(t):
            rc, out, err = run(["record", "--once", "--config", conf, "--data-dir", data],
                               sim_env(scn("hysteresis"), pinned=t))
            check_eq(rc, 0, f"record --once at {t} s: exit status", err, out)
            return read_log(log)

        counts = []
        for i, t in enumerate((0, 10, 20, 30, 130)):
            notices = once(t)
            counts.append([(x["rule"], x["state"]) for x in notices])
            check(os.path.exists(state), f"no state file {state} after run {i + 1}")
            with open(state) as f:
                st = f.read()
            if i < 2:
                lines = [l.split() for l in st.splitlines() if l.startswith("st ")]
                check_eq([(l[2], l[5], l[6]) for l in lines], [("hot-3-runs", "1", str(i + 1))],
                         f"state file after run {i + 1} (pending, {i + 1} samples)", st)
        check_eq(counts, [[], [], [("hot-3-runs", "firing")], [("hot-3-runs", "firing")],
                          [("hot-3-runs", "firing"), ("hot-3-runs", "resolved")]],
                 "the alert log after each run")
        check_eq(read_log(log)[1]["value_text"], "78 °C", "the resolved value")
        # the state file is what carries it: without it, three more runs at
        # 90 °C count 1, 2, 3 again
        os.unlink(state)
        n = len(read_log(log))
        for t in (40, 50):
            check_eq(len(once(t)), n, f"no notice at {t} s (count started again)")
        check_eq(len(once(60)), n + 1, "fires on the third run after the state was removed")
        # a state file that cannot be read is reported and replaced
        write(state, "garbage\n")
        rc, out, err = run(["record", "--once", "--config", conf, "--data-dir", data],
                           sim_env(scn("hysteresis"), pinned=70))
        check_eq(rc, 0, "record --once with a bad state file", err)
        check("not a gpumon alert state file" in err, "the bad state file is reported", err)
        with open(state) as f:
            check(f.readline() == "gpumon-alert-state 1\n", "the state file is written again")


# ------------------------------------------------------------ config errors

BAD = [
    # (the [alert.x] body, the line the error is on, the message)
    ("when = temperature.gpu > 85\nfrobnicate = 1\n", 3,
     'unknown key "frobnicate" in [alert.x] (one of: when, clear, for, samples, keep-firing-for, '
     'repeat, severity, scope, summary, labels, enabled)'),
    ("when = temperature.gpu >> 85\n", 2,
     'expected a number (at column 18 of "temperature.gpu >> 85")'),
    ("when = temperature.gpu  >  85  foo\n", 2,
     'unexpected "foo" (conditions join comparisons with and, or, not) (at column 22 of '
     '"temperature.gpu > 85 foo")'),
    ("when = temperature.gpu > 85 and (utilization.gpu < 5\n", 2,
     'missing \')\' (at column 26 of "temperature.gpu > 85 and (utilization.gpu < 5")'),
    ("when = temperature.gpu > 85 and\n", 2,
     'condition ends too early (at column 25 of "temperature.gpu > 85 and")'),
    ("when = temperature.gpu = 85\n", 2,
     'use == to compare (at column 17 of "temperature.gpu = 85")'),
    ("when = utilization.gpu > 5 and temprature.gpu > 85\n", 2,
     'unknown metric "temprature.gpu" (see gpumon metrics, and the derived values in '
     'docs/alerts.md) (at column 25 of "utilization.gpu > 5 and temprature.gpu > 85")'),
    ("when = memory.free < 2\n", 2,
     'memory.free is a size: give the number a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB; '
     'e.g. 2GiB) (at column 15 of "memory.free < 2")'),
    # a unit after a blank is not taken, but named (it was "give the number a
    # unit" for "2 GiB", and "unexpected" for "85 C")
    ("when = memory.free < 2 GiB\n", 2,
     'memory.free is a size: write the unit right after the number (2GiB, without a blank) '
     '(at column 17 of "memory.free < 2 GiB")'),
    ("when = temperature.gpu > 85GiB\n", 2,
     'unit "GiB" does not fit temperature.gpu (C) (at column 19 of "temperature.gpu > 85GiB")'),
    ("when = temperature.gpu > 85\nseverity = page\n", 3,
     'invalid severity "page" (warning or critical)'),
    ("when = temperature.gpu > 85\nfor = 1m\nsamples = 3\n", 1,
     '[alert.x]: give either "for" or "samples", not both'),
    ("for = 1m\n", 1, '[alert.x] has no "when" condition'),
    ("when = temperature.gpu > 85\nfor = soon\n", 3,
     'invalid duration "soon" (examples: 30s, 5m, 1h)'),
    ("when = temperature.gpu > 85\nsamples = 0\n", 3, 'invalid sample count "0" (1 to 100000)'),
    ("when = xid > 0\nfor = 1m\n", 1,
     '[alert.x]: xid is true only at the instant of the event; such a rule cannot wait (drop '
     '"for"/"samples", use keep-firing-for)'),
    ("scope = host\nwhen = temperature.gpu > 85\n", 3,
     'temperature.gpu is a per-GPU value; this rule has scope = host (at column 1 of '
     '"temperature.gpu > 85")'),
    ("when = temperature.gpu > 85\nsummary = GPU {{gpu}} at {{temp}}\n", 1,
     '[alert.x] summary: unknown placeholder "{{temp}}"'),
    ("when = temperature.gpu > 85\nwhen = gpu.lost\n", 3, 'duplicate key "when" in [alert.x]'),
    ("when = name > 3\n", 2, 'name is not a number (at column 1 of "name > 3")'),
    ("when = temperature.gpu > 85\nlabels = severity=page\n", 3,
     'label "severity" is set by gpumon itself'),
    # window functions
    ("when = avg(utilization.gpu 5m) < 20\n", 2,
     'expected \',\' and a window length (e.g. avg(utilization.gpu, 5m)) (at column 21 of '
     '"avg(utilization.gpu 5m) < 20")'),
    ("when = procs.count > 0 and avg(utilization.gpu, 5 m) < 20\n", 2,
     'missing \')\' after avg(...) (at column 44 of '
     '"procs.count > 0 and avg(utilization.gpu, 5 m) < 20")'),
    ("when = slope(memory.used, 2d) > 1MiB\n", 2,
     'window length "2d" is longer than 24h (at column 20 of "slope(memory.used, 2d) > 1MiB")'),
    ("when = median(utilization.gpu, 5m) < 20\n", 2,
     'unknown function "median" (avg, min, max, stddev, slope, predict) (at column 1 of '
     '"median(utilization.gpu, 5m) < 20")'),
    ("when = predict(memory.free, 1h) < 0\n", 2,
     'expected \',\' and how far ahead (e.g. predict(memory.free, 1h, 24h)) (at column 24 of '
     '"predict(memory.free, 1h) < 0")'),
    ("scope = host\nwhen = max(driver.lost, 5m) > 0\n", 3,
     'max(): window functions are per GPU; this rule has scope = host (at column 1 of '
     '"max(driver.lost, 5m) > 0")'),
]


def test_config_errors():
    with Scratch("aee") as d:
        path = os.path.join(d, "bad.conf")
        for body, line, msg in BAD:
            write(path, "[alert.x]\n" + body)
            rc, out, err = run(["config", "check", path], sim_env())
            check_eq(err, f"{path}:{line}: {msg}\n", "config check's message", body)
            check_eq(rc, 2, "config check's exit status", body, err)
        # the error's line counts from the top of the file
        write(path, "[agent]\ninterval = 1s\n\n; a comment\n[alert.y]\nwhen = gpu.lost\n\n"
              "[alert.x]\nwhen = temperature.gpu > 85 C\n")
        rc, out, err = run(["config", "check", path], sim_env())
        check_eq(err, f'{path}:9: write the unit right after the number (85C, without a '
                 f'blank) (at column 22 of "temperature.gpu > 85 C")\n', "error on line 9")
        # and a good file passes
        write(path, "[alert.x]\nwhen = temperature.gpu > 85C and memory.free < 2GiB\n"
              "clear = temperature.gpu < 80\nsamples = 3\nseverity = critical\n"
              "labels = team=ml\n\n[alert.gpu-temperature-high]\nfor = 3m\n")
        rc, out, err = run(["config", "check", path], sim_env())
        check_eq((rc, err), (0, ""), "config check of a good file", out)


if __name__ == "__main__":
    main([test_hysteresis, test_samples_and_for_across_gaps, test_repeat, test_reload_keeps_state,
          test_cron_state_file, test_config_errors])
