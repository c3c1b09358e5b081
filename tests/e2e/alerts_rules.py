#!/usr/bin/env python3
"""The default alert rules end to end, one scenario of scenarios/alerts/ each.

Most rules are shown with `gpumon --sim SCENARIO alerts test --step 10s`,
which samples the scenario at t = 0, 10, 20 ... s and runs the rules on
scenario time.  For each rule the test asserts the complete list of notices
(so that no other rule fires): the scenario time of the firing and of the
resolved notice, the GPU, the severity and the value.  Where the time a
condition starts or stops holding comes out of the simulator's thermal or
power model rather than from a time written in the scenario, the test also
reads the metric at the two samples around the change (`gpumon query` with
GPUSIM_TIME pinned), so the expected time is shown to follow from the data
and the rule's for/clear, not copied from gpumon's own output.

The engine's timing, in short (src/alert/engine.c): the first sample on
which `when` holds makes the alert pending at that sample's time t0; it
fires at the first sample t with t - t0 >= for; without `clear` it resolves
at the first sample on which `when` is false (with `clear`, on which clear
holds), and not before keep-firing-for has passed since `when` last held.

gpu-xid needs the NVML event thread and gpu-dead-process-memory real PIDs:
they are run in a live agent as well (see their tests).

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import subprocess
import time

from agentlib import (DEADLINE, Agent, Fail, Scratch, check, check_eq, epoch_for, event_rows,
                      gpu_rows, main, parse_time_ms, run, scenario, sim_env)

ALL_RULES = ["gpu-temperature-high", "gpu-memory-low", "gpu-power-at-limit", "gpu-throttled",
             "gpu-power-zero", "gpu-temperature-critical", "gpu-ecc-uncorrectable", "gpu-lost",
             "driver-lost", "gpu-xid", "gpu-dead-process-memory", "gpu-memory-growth",
             "gpu-input-starved"]
GiB = 1 << 30
MiB = 1 << 20


# `alerts test` replays the simulator from t=0 to --to (the thermal model's
# integrals: about 4 s of CPU for 90,400 s, 4x that under ASan); a deadline,
# not a duration: at load 36 on 2 cores the plain build took 100 s of wall
REPLAY_TIMEOUT = 400


def scn(name):
    return scenario(os.path.join("alerts", name + ".ini"))


def alerts_test(name, to, step="10s", config=None, **extra):
    """The notices of `alerts test` on scenarios/alerts/NAME.ini, as
    [(t_seconds, alert object)]."""
    args = ["alerts", "test", "--to", str(to), "--step", step, "--json"]
    args += ["--config", config] if config else ["--no-config"]
    rc, out, err = run(args, sim_env(scn(name), **extra), timeout=REPLAY_TIMEOUT)
    check_eq(rc, 0, f"alerts test on {name}: exit status", err, out)
    check_eq(err, "", f"alerts test on {name}: stderr")
    notices = []
    for line in out.splitlines():
        d = json.loads(line)
        notices.append((d["t_seconds"], d["alert"]))
    return notices


def query(name, t, field, gpu=0, **extra):
    """One metric of one GPU at pinned scenario time t, as a number (None
    when gpumon prints N/A or an error)."""
    rc, out, err = run(["query", f"--query-gpu={field}", "--format=csv,noheader,nounits",
                        "-i", str(gpu)], sim_env(scn(name), pinned=t, **extra))
    v = out.strip()
    try:
        return float(int(v, 16)) if v.startswith("0x") else float(v)
    except ValueError:
        return None


def show(notices):
    return "\n".join(f"  {t:8.1f}  {a['state']:8}  {a['rule']:26}  gpu={a['gpu']}  "
                     f"{a['value_text']}" for t, a in notices)


def expect(notices, want):
    """notices is exactly want: a list of (t, rule, state, gpu, severity,
    value, value_text); value None means any number (it is checked
    elsewhere), otherwise equal within 1e-6 relative."""
    got = [(t, a["rule"], a["state"], a["gpu"], a["severity"]) for t, a in notices]
    check_eq(got, [w[:5] for w in want], "the notices (time, rule, state, gpu, severity)",
             show(notices))
    for (t, a), w in zip(notices, want):
        check(a["repeat"] is False, f"{t}: a repeat notice", a)
        value, text = w[5], w[6]
        if value is not None:
            check(a["value"] is not None and abs(a["value"] - value) <= 1e-6 * max(1, abs(value)),
                  f"{t} {a['rule']} {a['state']}: value {a['value']!r}, want {value!r}", a)
        if text is not None:
            check_eq(a["value_text"], text, f"{t} {a['rule']} {a['state']}: value_text")
        check(a["state"] != "firing" or a["resolved_at"] is None, "firing with a resolved_at", a)
        # issue 30: every notice says how old its value was; `alerts test` reads
        # every value in each step (no 10 s cadence for the slow read groups:
        # ECC, PCIe link, ...), so 0 -- null when there is no number
        check_eq(a.get("value_age_seconds", "absent"), None if a["value"] is None else 0,
                 f"{t} {a['rule']} {a['state']}: value_age_seconds", a)
    # firing and resolved of one alert share its fingerprint and fired_at
    fired = {}
    for t, a in notices:
        key = (a["rule"], a["gpu"])
        if a["state"] == "firing":
            fired[key] = a
        else:
            f = fired.pop(key, None)
            check(f is not None, f"{t}: resolved without firing first", a)
            check_eq(a["fingerprint"], f["fingerprint"], f"{t}: fingerprint of the resolution")
            check_eq(a["fired_at_unix_ms"], f["fired_at_unix_ms"], f"{t}: fired_at")
            # alerts test places the notices on a clock that starts with the run:
            # resolved_at - fired_at is the scenario time in between
            want_ms = round((t - [tt for tt, aa in notices if aa is f][0]) * 1000)
            check_eq(a["resolved_at_unix_ms"] - a["fired_at_unix_ms"], want_ms,
                     f"{t}: resolved_at - fired_at")


def between(name, t_before, t_at, field, pred_before, pred_at, gpu=0, what=""):
    """The data change between two samples: pred_before(value at t_before)
    and pred_at(value at t_at)."""
    a = query(name, t_before, field, gpu)
    b = query(name, t_at, field, gpu)
    check(a is not None and pred_before(a) and b is not None and pred_at(b),
          f"{name}: {field} of GPU {gpu} at {t_before} s / {t_at} s is {a} / {b}; the expected "
          f"times assume {what}")


# ------------------------------------------------------------ the rules

def test_temperature_high():
    # temperature-high.ini: one L40S from 40 °C (temp_start) heating at full
    # load toward ~90 °C with thermal_tau 15 s (T = 90 - 50 e^(-t/15)): above
    # 85 °C from t = 15 ln 10 = 34.5 s, so the first sample above 85 is t = 40
    # (pending), and `for = 1m` makes it fire at 100 s (90 °C).  At 300 s
    # the load ramps down over 120 s; the temperature follows, and `clear =
    # temperature.gpu < 80` first holds at 340 s (78 °C; 82 °C at 330 s).
    between("temperature-high", 30, 40, "temperature.gpu", lambda v: v <= 85,
            lambda v: v > 85, what="the first sample above 85 °C is 40 s")
    between("temperature-high", 330, 340, "temperature.gpu", lambda v: v >= 80,
            lambda v: v < 80, what="the first sample below 80 °C is 340 s")
    expect(alerts_test("temperature-high", 900),
           [(100, "gpu-temperature-high", "firing", 0, "warning", 90, "90 °C"),
            (340, "gpu-temperature-high", "resolved", 0, "warning", 78, "78 °C")])


def test_memory_low():
    # memory-low.ini: an H100 (81559 MiB) with nothing allocated until the
    # process "hog" holds 79 GiB from 120 s to 540 s; free memory is then
    # 81559 - 1 (the workload's MiB) - 80896 (79 GiB) - reserved = 83 MiB,
    # below both 2 GiB and 10 %.  Pending at 120 s, `for = 5m`: fires at
    # 420 s with 83 MiB free; the process is gone at 540 s (end is
    # exclusive), 79.08 GiB free again: resolved at 540 s.
    free = query("memory-low", 300, "memory.free")
    check_eq(free, 83.0, "memory-low: MiB free while the hog runs")
    between("memory-low", 110, 120, "memory.free", lambda v: v > 2048, lambda v: v < 2048,
            what="the hog arrives at 120 s")
    expect(alerts_test("memory-low", 900),
           [(420, "gpu-memory-low", "firing", 0, "warning", 83 * MiB, "83.00 MiB"),
            (540, "gpu-memory-low", "resolved", 0, "warning", 80979 * MiB, "79.08 GiB")])


def test_power_at_limit():
    # power-at-limit.ini: an H100 (700 W limit) at full load that would draw
    # 125 % of its limit, so the board caps it just below 700 W (>= 99.6 %)
    # from t = 0: pending at 0, `for = 5m`: fires at 300 s.  From 400 s the
    # load ramps to 0 over 100 s; demand falls under the limit once
    # load < (700 - idle) / (875 - idle), about 78 %, i.e. after ~422 s;
    # 430 s is the first sample below 98 % (634.7 W = 90.7 %).
    between("power-at-limit", 420, 430, "power.draw", lambda v: v >= 0.98 * 700,
            lambda v: v < 0.98 * 700, what="the draw falls below 98 % of 700 W between 420 and "
            "430 s")
    notices = alerts_test("power-at-limit", 900)
    expect(notices,
           [(300, "gpu-power-at-limit", "firing", 0, "warning", None, None),
            (430, "gpu-power-at-limit", "resolved", 0, "warning", None, "90.7 %")])
    v = notices[0][1]["value"]
    check(99.6 <= v <= 100, f"power-at-limit: firing at {v} % of the limit, want 99.6-100 %")
    check_eq(notices[0][1]["value_text"], f"{v:.1f} %", "power-at-limit: value_text")


def test_throttled():
    # throttled.ini: an H100 with poor cooling (0.35) whose slowdown
    # threshold is 84 °C (temp_slowdown), from 30 °C: it reaches 84 °C
    # between 40 and 50 s and holds it by cutting power (HW slowdown, HW and
    # SW thermal slowdown).  Pending at 50 s, gpu-throttled's `for = 2m`
    # fires at 170 s.  The load ramps down from 400 s over 60 s; the board
    # stops limiting between 430 and 440 s: resolved at 440 s ("none").
    # A thermally throttled GPU reads exactly its slowdown temperature
    # (temperature.margin = 0), which is gpu-temperature-critical's second
    # condition: it fires at 50 s with no waiting.  It clears only below
    # 90 °C and 3 °C under the threshold (at most 81 °C here): 83 °C at
    # 480 s is not enough, 76 °C at 490 s is.  The threshold below 85 °C keeps
    # gpu-temperature-high out of it; no other rule fires.
    between("throttled", 40, 50, "clocks_event_reasons.active", lambda v: v == 0,
            lambda v: v == 0x68, what="thermal limiting (0x68) starts between 40 and 50 s")
    between("throttled", 430, 440, "clocks_event_reasons.active", lambda v: v == 0x68,
            lambda v: v == 0, what="thermal limiting ends between 430 and 440 s")
    between("throttled", 480, 490, "temperature.gpu", lambda v: v > 81, lambda v: v <= 81,
            what="the board reads 81 °C or less from 490 s")
    expect(alerts_test("throttled", 900),
           [(50, "gpu-temperature-critical", "firing", 0, "critical", 84, "84 °C"),
            (170, "gpu-throttled", "firing", 0, "warning", 1,
             "hw_slowdown,sw_thermal_slowdown,hw_thermal_slowdown"),
            (440, "gpu-throttled", "resolved", 0, "warning", 0, "none"),
            (490, "gpu-temperature-critical", "resolved", 0, "critical", 76, "76 °C")])


def test_power_zero():
    # power-zero.ini: an idle H100 whose idle power is 0 W, with the process
    # "stuck" on it from 60 s: `power.draw == 0 and procs.count > 0` holds
    # from 60 s, `for = 1m`: fires at 120 s.  At 235 s the load ramps to
    # 95 % in 10 s (load is a 1 s average, so the draw is above 0 from
    # 236 s): resolved at the sample at 240 s (307.8 W).
    between("power-zero", 230, 240, "power.draw", lambda v: v == 0, lambda v: v > 0,
            what="the draw leaves 0 W between 230 and 240 s")
    expect(alerts_test("power-zero", 600),
           [(120, "gpu-power-zero", "firing", 0, "warning", 0, "0.0 W"),
            (240, "gpu-power-zero", "resolved", 0, "warning", None, "307.8 W")])


def test_temperature_critical():
    # temperature-critical.ini: an RTX 4090 from 40 °C at full load with
    # cooling 0.6 heading well above 92 °C (thermal_tau 8 s); 92 °C is
    # crossed between 20 and 30 s: no `for`, it fires at the sample at 30 s
    # (93 °C).  At 50 s the load drops to 0 in one second and the board cools
    # with the same time constant: 49 °C at the sample at 60 s, resolved.
    # It is above 85 °C for less than gpu-temperature-high's minute (and
    # never at its slowdown threshold): nothing else fires.
    between("temperature-critical", 20, 30, "temperature.gpu", lambda v: v < 92,
            lambda v: v >= 92, what="92 °C is crossed between 20 and 30 s")
    between("temperature-critical", 50, 60, "temperature.gpu", lambda v: v >= 92,
            lambda v: v < 92, what="below 92 °C again between 50 and 60 s")
    expect(alerts_test("temperature-critical", 300),
           [(30, "gpu-temperature-critical", "firing", 0, "critical", 93, "93 °C"),
            (60, "gpu-temperature-critical", "resolved", 0, "critical", 49, "49 °C")])


def test_ecc_uncorrectable():
    # ecc-uncorrectable.ini: two A100s; GPU 1 gets 2 uncorrectable (and 10
    # correctable) errors at 115 s, 40 correctable ones at 600 s and 1 more
    # uncorrectable at 1495 s.  ecc.uncorrected.new is the growth since the
    # previous sample: 2 at the sample at 120 s (fires at once, "2 new"),
    # 0 at 600-610 s (correctable errors do not count), 1 at 1500 s.
    # keep-firing-for = 1h runs from the last sample with new errors: not
    # resolved at 120 + 3600 = 3720 s (the error at 1500 s renewed it), but
    # at 1500 + 3600 = 5100 s ("0 new").  GPU 0 never fires.
    notices = alerts_test("ecc-uncorrectable", 5400)
    expect(notices,
           [(120, "gpu-ecc-uncorrectable", "firing", 1, "critical", 2, "2 new"),
            (5100, "gpu-ecc-uncorrectable", "resolved", 1, "critical", 0, "0 new")])


def test_ecc_uncorrectable_keeps_firing():
    # what `alerts test` says is still firing at 3790 s: the renewed alert
    # (the closing table of the text output)
    rc, out, err = run(["alerts", "test", "--to", "3790", "--no-config"],
                       sim_env(scn("ecc-uncorrectable")), timeout=REPLAY_TIMEOUT)
    check_eq(rc, 0, "alerts test exit status", err)
    tail = out.split("still pending or firing at the end:\n", 1)[-1]
    rows = [l.split() for l in tail.splitlines()[1:] if l.strip()]
    check_eq([(r[0], r[2], r[3], r[4] + " " + r[5]) for r in rows],
             [("firing", "gpu-ecc-uncorrectable", "1", "1 new")],
             "still firing at 3790 s (renewed by the error at 1500 s)", out)


def test_gpu_lost():
    # gpu-lost.ini: GPU 1 of two A100s is lost from 100 s until 250 s.  No
    # `for`: firing at 100 s ("lost"), resolved at 250 s ("present").  GPU 1's
    # other metrics are unknown meanwhile, which starts and ends nothing.
    notices = alerts_test("gpu-lost", 400)
    expect(notices,
           [(100, "gpu-lost", "firing", 1, "critical", 1, "lost"),
            (250, "gpu-lost", "resolved", 1, "critical", 0, "present")])
    a = notices[0][1]
    check(a["uuid"] and a["uuid"].startswith("GPU-") and a["pci_bus_id"],
          "the lost GPU's identity (as last seen) is in the notice", a)
    check(a["uuid"] in a["summary"] and a["pci_bus_id"] in a["summary"], "summary", a)


def test_driver_lost():
    # driver-lost.ini: the driver is not loaded from 100 s to 250 s and does
    # not match the library from 400 s to 460 s.  driver-lost is a host rule
    # (gpu null) without `for`: firing at 100 s (driver_not_loaded),
    # resolved at 250 s, firing at 400 s (version_mismatch), resolved at
    # 460 s.  No GPU rule starts or ends on the unknown values in between.
    notices = alerts_test("driver-lost", 600)
    expect(notices,
           [(100, "driver-lost", "firing", None, "critical", 1, "driver_not_loaded"),
            (250, "driver-lost", "resolved", None, "critical", 0, "ok"),
            (400, "driver-lost", "firing", None, "critical", 1, "version_mismatch"),
            (460, "driver-lost", "resolved", None, "critical", 0, "ok")])
    for _, a in notices:
        check(a["uuid"] is None and a["gpu_name"] is None, "host scope: no GPU identity", a)


def test_spikes_fire_nothing():
    # spikes.ini: five GPUs, each with one condition true on exactly one
    # 10 s sample: GPU 2 at its power cap at 0 s, GPU 3 throttled and 89 °C
    # at 10 s, GPU 0 at 89 °C at 20 s, GPU 1 with 83 MiB free and GPU 4 at
    # 0 W with a process at 40 s.  None of them lasts a rule's `for`, and
    # none reaches 92 °C or a reported slowdown threshold (GPU 3 does not
    # report one): nothing fires, at 10 s steps nor at 1 s steps.
    expect(alerts_test("spikes", 600), [])
    expect(alerts_test("spikes", 120, step="1s"), [])


def test_spikes_are_there(tmp="/tmp"):
    # ... and the spikes are real: the same rules with `for = 0` fire on
    # exactly that sample and resolve at the next.
    with Scratch("arsp") as d:
        conf = os.path.join(d, "zero.conf")
        with open(conf, "w") as f:
            for r in ("gpu-temperature-high", "gpu-memory-low", "gpu-power-at-limit",
                      "gpu-throttled", "gpu-power-zero"):
                f.write(f"[alert.{r}]\nfor = 0\n\n")
        notices = alerts_test("spikes", 120, config=conf)
    got = sorted((t, a["rule"], a["state"], a["gpu"]) for t, a in notices)
    want = sorted([(0, "gpu-power-at-limit", "firing", 2), (10, "gpu-power-at-limit", "resolved", 2),
                   (10, "gpu-temperature-high", "firing", 3),
                   (20, "gpu-temperature-high", "resolved", 3),
                   (10, "gpu-throttled", "firing", 3), (20, "gpu-throttled", "resolved", 3),
                   (20, "gpu-temperature-high", "firing", 0),
                   (30, "gpu-temperature-high", "resolved", 0),
                   (40, "gpu-memory-low", "firing", 1), (50, "gpu-memory-low", "resolved", 1),
                   (40, "gpu-power-zero", "firing", 4), (50, "gpu-power-zero", "resolved", 4)])
    check_eq(got, want, "spikes with for = 0", show(notices))


def spawn_sleeper():
    return subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL)


def test_dead_process_memory_alerts_test():
    # dead-process-memory.ini: an H100 with "train" (always) and "orphan"
    # (30 GiB, from 60 s to 1000 s).  Their PIDs come from GPUSIM_PID_TRAIN /
    # GPUSIM_PID_ORPHAN, by default numbers above the kernel's pid_max, which
    # only the simulator's /proc view can call dead: it says "orphan" is
    # (alive = no), so without the variables the rule fires on it.
    expect(alerts_test("dead-process-memory", 1100),
           [(660, "gpu-dead-process-memory", "firing", 0, "critical", 30 * GiB, "30.00 GiB"),
            (1000, "gpu-dead-process-memory", "resolved", 0, "critical", 0, "0 B")])
    # A real process that lives: its memory is not dead, nothing fires.
    p = spawn_sleeper()
    try:
        expect(alerts_test("dead-process-memory", 1100, GPUSIM_PID_ORPHAN=p.pid), [])
    finally:
        p.kill()
        p.wait()
    # The same PID once the process has exited (and been reaped): "orphan"
    # holds 30 GiB of dead memory from 60 s, `for = 10m`: fires at 660 s;
    # the simulated process goes away at 1000 s: resolved ("0 B").
    expect(alerts_test("dead-process-memory", 1100, GPUSIM_PID_ORPHAN=p.pid),
           [(660, "gpu-dead-process-memory", "firing", 0, "critical", 30 * GiB, "30.00 GiB"),
            (1000, "gpu-dead-process-memory", "resolved", 0, "critical", 0, "0 B")])


def query_all(name, t, field, **extra):
    """One metric of every GPU at pinned scenario time t, as numbers."""
    rc, out, err = run(["query", f"--query-gpu={field}", "--format=csv,noheader,nounits"],
                       sim_env(scn(name), pinned=t, **extra))
    check_eq(rc, 0, f"query {field} at {t}", err)
    return [float(v) for v in out.split()]


def test_memory_growth():
    # memory-growth.ini, GPU 0: an H100 (80979 MiB usable) whose job holds
    # 51000 MiB at t = 0 and leaks 20 MiB/min: free = 29979 - t/3 MiB.
    # predict(memory.free, 1h, 24h) is the least-squares line through the
    # last hour of samples 24 h ahead; on a straight line that is free now
    # - 28800 MiB (20 MiB/min for 1440 min), known from 1800 s (half an
    # hour covered).  It goes below 0 between 3530 s (28802.3 MiB free) and
    # 3540 s (28799.0 MiB free); the 10-minute slope of memory.used is
    # 20 MiB/min all along.  Pending at 3540 s, `for = 15m`: fires at
    # 4440 s, with 29979 - 1480 - 28800 = -301 MiB predicted free.
    between("memory-growth", 3530, 3540, "memory.free", lambda v: v >= 28800,
            lambda v: v < 28800, what="free memory is below a day of the leak from 3540 s")
    # GPU 1 loads a 60 GiB model at 2400 s and keeps it (19538 MiB free
    # after): the hour's line points below 0 from the second sample after
    # the jump (2410 s), but the 10-minute slope is 0 once the jump has left
    # its window, at 3000 s: 590 s of pending, under the 15 minutes of
    # `for`.  Nothing else fires in the first 5000 s (no repeat: 4 h).
    check_eq(query("memory-growth", 2390, "memory.used", gpu=1),
             query("memory-growth", 0, "memory.used", gpu=1), "GPU 1 is flat before 2400 s")
    check(query("memory-growth", 2400, "memory.used", gpu=1) >= 61440, "GPU 1 at 2400 s")
    check_eq(query("memory-growth", 3000, "memory.used", gpu=1),
             query("memory-growth", 2400, "memory.used", gpu=1), "GPU 1 is flat after 2400 s")
    expect(alerts_test("memory-growth", 5000),
           [(4440, "gpu-memory-growth", "firing", 0, "warning", -301 * MiB, "-301.00 MiB")])
    # ... and the jump is there: with `for = 0` GPU 1 fires and resolves
    # (and GPU 0 fires the moment the line crosses 0).
    with Scratch("armg") as d:
        conf = os.path.join(d, "zero.conf")
        with open(conf, "w") as f:
            f.write("[alert.gpu-memory-growth]\nfor = 0\n")
        notices = alerts_test("memory-growth", 3600, config=conf)
    expect(notices,
           [(2410, "gpu-memory-growth", "firing", 1, "warning", None, None),
            (3000, "gpu-memory-growth", "resolved", 1, "warning", None, None),
            (3540, "gpu-memory-growth", "firing", 0, "warning", None, "-1024.00 KiB")])


def test_memory_growth_before_memory_low():
    # The same leak seen by gpu-memory-low: under 2 GiB free (and 10 %) from
    # 83800 s, so that rule fires 5 minutes later, at 84100 s -- 22 hours
    # after gpu-memory-growth.  Read from the data rather than run through
    # 23 hours of samples.
    between("memory-growth", 83790, 83800, "memory.free", lambda v: v >= 2048,
            lambda v: v < 2048, what="less than 2 GiB free from 83800 s")
    # The leak stops 64 MiB short of full: memory.used is flat from 89750 s,
    # the 10-minute slope is 0 from 90350 s, where gpu-memory-growth
    # resolves.  Run from 86000 s (a fresh engine: memory-low is pending at
    # once and fires at 86300 s; the windows need half an hour, so
    # memory-growth is pending from 87800 s and fires at 88700 s).
    between("memory-growth", 89740, 89750, "memory.used", lambda v: v < 80916,
            lambda v: v == 80916, what="the leak stops at 89750 s")
    check_eq(query("memory-growth", 90350, "memory.used"), 80916.0, "flat until 90350 s")
    args = ["alerts", "test", "--from", "86000", "--to", "90400", "--json", "--no-config"]
    rc, out, err = run(args, sim_env(scn("memory-growth")), timeout=REPLAY_TIMEOUT)
    check_eq(rc, 0, "alerts test from 86000 s", err)
    got = [(d["t_seconds"], d["alert"]["rule"], d["alert"]["state"], d["alert"]["gpu"])
           for d in map(json.loads, out.splitlines())]
    check_eq(got, [(86300, "gpu-memory-low", "firing", 0),
                   (88700, "gpu-memory-growth", "firing", 0),
                   (90350, "gpu-memory-growth", "resolved", 0)], "late in the leak", out)


def test_input_starved():
    # input-starved.ini: GPU 0 runs a starved job (heartbeat) from 0 to
    # 1200 s, GPU 1 a busy one, GPU 2 nothing, GPU 3 an idle notebook.
    # The rule: avg(utilization.gpu, 5m) < 50 and stddev(...) > 20 and
    # procs.count > 0, for 5m.  The windows are known from 150 s (half of
    # 5 minutes).  Computed here from the samples gpumon reads, at every
    # 10 s from 150 to 450 s, over [t - 300, t]: GPU 0 is always starved,
    # the others never; so it is pending at 150 s and fires at 450 s.  The
    # job ends at 1200 s (procs.count 0): resolved.
    util = {t: query_all("input-starved", t, "utilization.gpu") for t in range(0, 460, 10)}
    for t in range(150, 460, 10):
        for gpu in range(4):
            xs = [util[u][gpu] for u in range(max(0, t - 300), t + 1, 10)]
            avg = sum(xs) / len(xs)
            sd = (sum((x - avg) ** 2 for x in xs) / len(xs)) ** 0.5
            starved = avg < 50 and sd > 20
            check_eq(starved, gpu == 0, f"GPU {gpu} at {t} s: avg {avg:.1f}, stddev {sd:.1f}")
    zeros = sum(1 for t in util if util[t][0] == 0)
    check(10 <= zeros <= 40, f"GPU 0 reads 0 % in {zeros} of 46 samples: it alternates")
    notices = alerts_test("input-starved", 1800)
    expect(notices,
           [(450, "gpu-input-starved", "firing", 0, "warning", None, None),
            (1200, "gpu-input-starved", "resolved", 0, "warning", None, None)])
    xs = [util[u][0] for u in range(150, 451, 10)]
    check(abs(notices[0][1]["value"] - sum(xs) / len(xs)) < 1e-6,
          "the value is the 5-minute average at 450 s", notices[0][1])
    # A rule on the current value never fires on the starved GPU (its
    # utilisation does not stay below 20 for 10 minutes) -- and fires on the
    # idle notebook instead, at 600 s.
    with Scratch("aris") as d:
        conf = os.path.join(d, "now.conf")
        with open(conf, "w") as f:
            f.write("[alert.loader-starved]\nwhen = utilization.gpu < 20 and procs.count > 0\n"
                    "for = 10m\n")
        check_eq([(t, a["state"], a["gpu"]) for t, a in alerts_test("input-starved", 1200,
                                                                     config=conf)
                  if a["rule"] == "loader-starved"], [(600, "firing", 3)],
                 "the current-value rule")


# ------------------------------------------------------------ live agents

def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def wait_log(path, pred, timeout, what, agent):
    deadline = time.time() + timeout
    while time.time() < deadline:
        notices = read_log(path)
        if pred(notices):
            return notices
        check(agent.alive(), f"the agent died while waiting for {what}", agent.log())
        time.sleep(0.05)
    raise Fail(f"timed out after {timeout} s waiting for {what}: {read_log(path)}\n" + agent.log())


def sample_times(data):
    """The agent's sample times (unix ms) from its CSV, sorted."""
    return sorted({parse_time_ms(r[0]) for r in gpu_rows(os.path.join(data, "csv"))})


def fired_at_first_sample(since_ms, at_ms, wait_ms, times, what, ctx):
    """A rule whose clock started at since_ms and that acts wait_ms later
    acted at at_ms: not before wait_ms, and at the first sample after it --
    no sample between since_ms and at_ms was already wait_ms (less 1 ms of
    rounding) after since_ms.  Samples, not durations: a loaded machine
    makes samples late, never the rule (a sample the CSV dropped only makes
    this weaker)."""
    check(at_ms - since_ms >= wait_ms, f"{what} {at_ms - since_ms} ms after, want at least "
          f"{wait_ms} ms", ctx)
    late = [t - since_ms for t in times if since_ms < t < at_ms and t - since_ms >= wait_ms + 1]
    check(not late, f"{what} {at_ms - since_ms} ms after, not at the first sample {wait_ms} ms "
          f"later (samples at {late} ms)", ctx)


def agent_alerts(data, env):
    rc, out, err = run(["alerts", "--json", "--data-dir", data, "--no-config"], env)
    check_eq(rc, 0, "gpumon alerts --json: exit status", err)
    return json.loads(out)


def test_xid_agent():
    # xid.ini: Xid 13 and Xid 43 on GPU 0 at 30 and 30.5 s (application
    # errors the default rule leaves out), Xid 79 (fallen off the bus) on
    # GPU 1 at 31 s.  The agent runs the scenario at 5x from t = 15 s, so
    # the events arrive about 3 s after it starts.  gpu-xid (default,
    # keep-firing-for 15m) fires for GPU 1 only, at the event, not at the
    # next sample; a copy of it with keep-firing-for = 3s shows the
    # resolution: at the first sample 3 s (of the agent's clock) later.
    speed = 5
    epoch = epoch_for(15, speed)
    env = sim_env(scn("xid"), speed=speed, epoch=epoch)
    with Scratch("arx") as d:
        data = os.path.join(d, "data")
        conf = os.path.join(d, "gpumon.conf")
        with open(conf, "w") as f:
            f.write("[alert.xid-short]\n"
                    "when = xid > 0 and xid != 13 and xid != 31 and xid != 43 and xid != 45\n"
                    "keep-firing-for = 3s\nseverity = critical\n")
        a = Agent(data, env, ["--interval", "500ms"], config=conf)
        try:
            a.start()
            log = os.path.join(data, "alerts.jsonl")
            notices = wait_log(log, lambda n: any(x["state"] == "resolved" for x in n), 60,
                               "xid-short resolved", a)
            st = agent_alerts(data, env)
            # Xid 13/43 came first; nothing more may come: three more samples
            # (1.5 s of the agent's clock, however long they take here), then
            # a stop that delivers what is queued, then the whole log
            a.wait_samples(a.status()["samples"] + 3)
            check_eq(a.stop()[0], 0, "the agent's exit status", a.log())
            notices = read_log(log)
        finally:
            a.cleanup()
        times = sample_times(data)
        xids = [parse_time_ms(e[0]) for e in event_rows(os.path.join(data, "csv"))
                if e[3] == "xid" and e[6] == "79"]
    got = [(x["rule"], x["state"], x["gpu"], x["severity"], x["value"], x["value_text"])
           for x in notices]
    check_eq(sorted(got[:2]), sorted([("gpu-xid", "firing", 1, "critical", 79, "Xid 79"),
                                      ("xid-short", "firing", 1, "critical", 79, "Xid 79")]),
             "the first notices", notices)
    # the resolution names the Xid that fired it (not "Xid 0", the value of
    # xid at the sample that ended it: "GPU 1 reported Xid 0" said nothing)
    check_eq(got[2:], [("xid-short", "resolved", 1, "critical", 79, "Xid 79")],
             "then only the short copy resolves", notices)
    # fired at the event, not at a sample: at the time the event thread gave
    # the Xid (the events CSV has it), never before the scenario's Xid
    ev_ms = (epoch + 31 / speed) * 1000
    check_eq(len(xids), 1, "Xid 79 in the events CSV", xids)
    check(xids[0] >= ev_ms - 1, f"Xid 79 recorded {ev_ms - xids[0]:.0f} ms before the "
          "scenario has it", xids)
    for x in notices[:2]:
        check_eq(x["fired_at_unix_ms"], xids[0], f"{x['rule']} fired at (unix ms): the Xid's "
                 "time (at the event, not at a sample)", x, times)
    r = notices[2]
    fired_at_first_sample(r["fired_at_unix_ms"], r["resolved_at_unix_ms"], 3000, times,
                          "xid-short resolved", r)
    firing = [(x["rule"], x["state"], x["gpu"], x["value"]) for x in st["engine"]["alerts"]]
    check_eq(firing, [("gpu-xid", "firing", 1, "Xid 79")],
             "gpumon alerts --json after xid-short resolved: gpu-xid keeps firing (15m)", st)


def test_dead_process_memory_agent():
    # A live agent on dead-process-memory.ini (at 1x from t = 100 s, so
    # "orphan" exists) with "orphan" mapped to a real child process, and the
    # default rule with `for = 2s` (one key overridden): nothing while the
    # child lives; after it is killed and reaped the rule is pending and
    # fires 2 s (the agent's clock) later with 30 GiB.
    p = spawn_sleeper()
    env = sim_env(scn("dead-process-memory"), speed=1, epoch=epoch_for(100, 1),
                  GPUSIM_PID_ORPHAN=p.pid)
    with Scratch("ard") as d:
        data = os.path.join(d, "data")
        conf = os.path.join(d, "gpumon.conf")
        with open(conf, "w") as f:
            f.write("[alert.gpu-dead-process-memory]\nfor = 2s\n")
        a = Agent(data, env, ["--interval", "250ms"], config=conf)
        try:
            a.start(wait_samples=1)
            a.wait_samples(12)  # 3 s with the process alive
            log = os.path.join(data, "alerts.jsonl")
            check_eq(read_log(log), [], "notices while the process lives")
            check_eq(agent_alerts(data, env)["engine"]["alerts"], [], "alerts while it lives")
            p.kill()
            p.wait()
            t_kill = time.time()
            notices = wait_log(log, lambda n: len(n) >= 1, DEADLINE, "the dead-memory alert", a)
            st = agent_alerts(data, env)
            check_eq(a.stop()[0], 0, "the agent's exit status", a.log())
            times = sample_times(data)
        finally:
            a.cleanup()
            if p.poll() is None:
                p.kill()
                p.wait()
    x = notices[0]
    check_eq((x["rule"], x["state"], x["gpu"], x["severity"], x["value"], x["value_text"]),
             ("gpu-dead-process-memory", "firing", 0, "critical", 30 * GiB, "30.00 GiB"),
             "the notice", x)
    fired_at_first_sample(x["active_at_unix_ms"], x["fired_at_unix_ms"], 2000, times,
                          "fired after it became pending:", x)
    # pending from the first sample after the kill (a sample begun after it
    # cannot see the reaped process; one in flight may)
    after = [t for t in times if t_kill * 1000 + 1 < t < x["active_at_unix_ms"]]
    check(not after, f"pending only at {x['active_at_unix_ms']}, not at the first sample after "
          f"the kill ({round(t_kill * 1000)}): samples at {after}", x)
    check_eq([(s["rule"], s["state"]) for s in st["engine"]["alerts"]],
             [("gpu-dead-process-memory", "firing")], "gpumon alerts --json", st)


def test_every_default_rule_is_covered():
    rc, out, err = run(["alerts", "--markdown"], sim_env())
    check_eq(rc, 0, "alerts --markdown")
    names = [l[5:].split(" (")[0] for l in out.splitlines() if l.startswith("#### ")]
    check_eq(names, ALL_RULES, "the default rules (a new one needs a test here)")


if __name__ == "__main__":
    main([test_every_default_rule_is_covered, test_temperature_high, test_memory_low,
          test_power_at_limit, test_throttled, test_power_zero, test_temperature_critical,
          test_ecc_uncorrectable, test_ecc_uncorrectable_keeps_firing, test_gpu_lost,
          test_driver_lost, test_spikes_fire_nothing, test_spikes_are_there,
          test_dead_process_memory_alerts_test, test_memory_growth,
          test_memory_growth_before_memory_low, test_input_starved, test_xid_agent,
          test_dead_process_memory_agent])
