#!/usr/bin/env python3
"""The exporter's exposition formats, checked by the real parsers.

  native_lint_all_scenarios: `promtool check metrics` on `gpumon serve
      --print` for every shipped scenario at pinned times (faults.ini before,
      during each fault and after: 0, 70, 190, 215, 250, 310, 400 s), plain
      and with --hostname-label --process-metrics: exit 0 and no output at
      all (no lint).  Where --print cannot open NVML (driver not loaded,
      version mismatch, no permission) it exits 3 with an error on stderr
      and still prints what /metrics serves then (gpumon_nvml_state naming
      the state, or every gpumon_gpu_up 0; the same series as the /metrics
      of a running `serve`),
      which is linted.  Every family has one HELP and one TYPE, every name
      starts with gpumon_.
  dcgm_names_parse: --names dcgm on every scenario: promtool exits 0 or 3
      (lint only, never "error while linting"); the only lint is the one
      dcgm-exporter's own names cause (camelCase labels, counters without
      _total, "counter" in a name).  DCGM_FI_DEV_GPU_TEMP is there.
  textfile: `serve --once --textfile-dir D` writes D/gpumon.prom (mode
      0644, no temporary file left, no client timestamps) that lints clean
      and has the series of --print; with the driver gone (faults.ini at
      250 s) the file is still written (gpumon_nvml_state) and --once exits
      non-zero.  A running `serve --listen "" --textfile-dir` rewrites it.
  openmetrics: Accept: application/openmetrics-text gets
      application/openmetrics-text; version=1.0.0, and a body a small
      OpenMetrics checker accepts (ends "# EOF\\n", TYPE before samples,
      counter families without _total, samples with _total, no blank lines,
      no interleaving, unique series) with the same series and values as the
      text rendering of the same sample; both name sets.  dcgm-exporter's
      counters, which keep their names without _total, are typed "unknown"
      in OpenMetrics (a counter there must end in _total; "gauge" would be
      wrong), "counter" in the text format.
  node_exporter_textfile: prometheus-node-exporter with
      --collector.textfile.directory on the directory gpumon writes: its
      /metrics has the gpumon_* series and node_textfile_scrape_error 0.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import re
import stat
import time

from agentlib import DEADLINE, check, check_eq, main, wait_until
from exporter_lib import (SCENARIOS, Gpumon, Proc, Scratch, check_openmetrics, families, free_port,
                          get, need, parse_samples, promtool_check_metrics, serve_print, sim_env,
                          stop_all)

# pinned scenario times per scenario (the rest: 0 and 100 s)
TIMES = {
    "faults.ini": [0, 70, 190, 215, 250, 310, 400],
    "workstation.ini": [0, 45, 700],
    "inference-leak.ini": [0, 3600],
}
NO_NVML = ("Driver Not Loaded", "version mismatch", "no permission", "Insufficient Permissions")

DCGM_LINT_OK = (
    re.compile(r"^\S+ label names should be written in 'snake_case' not 'camelCase'$"),
    re.compile(r'^DCGM_\S+ counter metrics should have "_total" suffix$'),
    re.compile(r"^DCGM_\S+ metric name should not include type 'counter'$"),
)


def served_metrics(scn, pinned, args=(), headers=None):
    """/metrics of a running serve (for states --print cannot show)."""
    with Scratch("fmt") as d:
        g = Gpumon(d, sim_env(scn, pinned=pinned), ["--interval", "1s"] + list(args))
        try:
            g.start()
            r = g.get("/metrics", headers=headers)
            check_eq(r.status, 200, f"{scn}@{pinned}: /metrics status")
            return r
        finally:
            g.stop()
            g.cleanup()


def exposition(scn, t, args=()):
    """(text, where): --print's output; where --print cannot open NVML it
    must exit 3 with the error on stderr and print the series /metrics
    serves then (checked against a running serve's)."""
    where = f"{scn} at {t} s {' '.join(args)}".strip()
    rc, out, err = serve_print(sim_env(scn, pinned=t), *args)
    check(out.strip(), f"{where}: serve --print printed nothing (exit {rc})", err)
    if rc == 0:
        return out, where
    check(any(k in err for k in NO_NVML), f"{where}: serve --print failed ({rc}) for another "
          "reason than NVML being unavailable", err)
    check_eq(rc, 3, f"{where}: exit status with NVML unavailable", err)
    check(err.startswith("gpumon: error: "), f"{where}: error message format", err)
    # the driver is unavailable (gpumon_nvml_state says which way), or it
    # answers but no GPU may be opened (every gpumon_gpu_up is 0)
    samples = parse_samples(out)
    states = {lab["state"]: v for n, lab, v in samples if n == "gpumon_nvml_state"}
    up = [v for n, _, v in samples if n == "gpumon_gpu_up"]
    check(sum(states.values()) == 1 and (states.get("ok") == 0 or (up and not any(up))),
          f"{where}: neither gpumon_nvml_state nor gpumon_gpu_up shows the failure", states, up)

    def series(text):
        return {(n, tuple(sorted((k, v) for k, v in lab.items()))) for n, lab, _ in
                parse_samples(text)}
    check_eq(series(out), series(served_metrics(scn, t, args).text),
             f"{where}: --print and a running serve's /metrics differ")
    return out, where + " (NVML unavailable)"


def check_native_shape(text, where):
    helps = re.findall(r"^# HELP (\S+) ", text, re.M)
    types = re.findall(r"^# TYPE (\S+) ", text, re.M)
    check_eq(len(helps), len(set(helps)), f"{where}: HELP lines per family")
    check_eq(sorted(helps), sorted(types), f"{where}: HELP and TYPE for the same families")
    for name, _, _ in parse_samples(text):
        check(name.startswith("gpumon_"), f"{where}: a native series without gpumon_", name)
        check(name in types, f"{where}: a sample without its own TYPE", name)


def test_native_lint_all_scenarios():
    need("promtool")
    checked = 0
    for scn in SCENARIOS:
        for t in TIMES.get(scn, [0, 100]):
            text, where = exposition(scn, t)
            rc, out = promtool_check_metrics(text)
            check(rc == 0 and out == "", f"{where}: promtool check metrics: exit {rc}", out[:3000])
            check_native_shape(text, where)
            checked += 1
        # the optional labels and series, once per scenario
        t = TIMES.get(scn, [0, 100])[-1]
        text, where = exposition(scn, t, ["--hostname-label", "--process-metrics"])
        rc, out = promtool_check_metrics(text)
        check(rc == 0 and out == "", f"{where}: promtool check metrics: exit {rc}", out[:3000])
        check_native_shape(text, where)
    check(checked >= 20, f"only {checked} scenario/time pairs checked")


def test_dcgm_names_parse():
    need("promtool")
    for scn in SCENARIOS:
        t = TIMES.get(scn, [0, 100])[-1]
        text, where = exposition(scn, t, ["--names", "dcgm", "--hostname-label"])
        rc, out = promtool_check_metrics(text)
        check(rc in (0, 3), f"{where}: promtool check metrics exit {rc} (0 or 3 expected)", out)
        check("error while linting" not in out, f"{where}: does not parse", out[:3000])
        bad = [ln for ln in out.splitlines() if not any(p.match(ln) for p in DCGM_LINT_OK)]
        check(not bad, f"{where}: lint beyond what dcgm-exporter's names cause", bad[:20])
        names = {n for n, _, _ in parse_samples(text)}
        check(not any(n.startswith("gpumon_") and n not in (
            "gpumon_gpu_up", "gpumon_gpu_info", "gpumon_nvml_state") and
            not n.startswith("gpumon_exporter_") for n in names),
            f"{where}: native GPU series in the dcgm name set", sorted(names))
        if "gpumon_gpu_up" in names and any(v == 1 for n, _, v in parse_samples(text)
                                            if n == "gpumon_gpu_up"):
            check("DCGM_FI_DEV_GPU_TEMP" in names, f"{where}: no DCGM_FI_DEV_GPU_TEMP")


def check_textfile(path, where, settled=True):
    """The textfile's mode and format; with settled (no writer running), also
    that no temporary file is left beside it: a running writer has one there
    between its write and its rename."""
    text = open(path, encoding="utf-8").read()
    mode = stat.S_IMODE(os.stat(path).st_mode)
    check_eq(oct(mode), oct(0o644), f"{where}: mode of gpumon.prom")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            # name{labels} value -- a third field would be a client timestamp
            check(re.match(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+$', line),
                  f"{where}: a sample with a timestamp or bad shape", line)
    rc, out = promtool_check_metrics(text)
    check(rc == 0 and out == "", f"{where}: promtool check metrics: exit {rc}", out[:3000])
    if settled:
        check_no_leftovers(path, where)
    return text


def check_no_leftovers(path, where):
    left = [n for n in os.listdir(os.path.dirname(path)) if n != "gpumon.prom"]
    check(not left, f"{where}: files left next to gpumon.prom", left)


def series_keys(text, skip=("gpumon_exporter_",)):
    return {(n, tuple(sorted(lab.items()))) for n, lab, _ in parse_samples(text)
            if not n.startswith(skip)}


def test_textfile():
    need("promtool")
    from exporter_lib import run_gpumon
    with Scratch("tf") as d:
        tf = os.path.join(d, "tf")
        os.mkdir(tf)
        prom = os.path.join(tf, "gpumon.prom")
        for scn, t in (("h100x8-training.ini", 100), ("workstation.ini", 45),
                       ("a100-mig.ini", 100), ("faults.ini", 70)):
            env = sim_env(scn, pinned=t)
            rc, out, err = run_gpumon(["serve", "--no-config", "--data-dir",
                                       os.path.join(d, "data"), "--once", "--textfile-dir", tf],
                                      env)
            check_eq(rc, 0, f"{scn}: serve --once --textfile-dir exit status", err)
            check_eq(out, "", f"{scn}: serve --once printed on stdout")
            text = check_textfile(prom, f"{scn} textfile")
            rc, printed, err = serve_print(env)
            check_eq(series_keys(text), series_keys(printed),
                     f"{scn}: the textfile's series are those of serve --print")
        # the driver gone: the file says so, --once fails
        rc, out, err = run_gpumon(["serve", "--no-config", "--data-dir", os.path.join(d, "data"),
                                   "--once", "--textfile-dir", tf], sim_env("faults.ini",
                                                                           pinned=250))
        check(rc != 0, "serve --once with the driver not loaded exits non-zero", err)
        text = check_textfile(prom, "driver not loaded textfile")
        states = {lab["state"]: v for n, lab, v in parse_samples(text) if n == "gpumon_nvml_state"}
        check_eq(states.get("driver_not_loaded"), 1.0, "gpumon_nvml_state driver_not_loaded",
                 text)
        # a running exporter without HTTP keeps rewriting it
        g = Gpumon(d, sim_env("h100x8-training.ini", pinned=100),
                   ["--interval", "200ms", "--textfile-dir", tf], listen="")
        try:
            os.unlink(prom)
            g.start(ready=False)
            wait_until(lambda: not g.alive() or os.path.exists(prom),
                       "gpumon.prom from serve --listen ''")
            check(g.alive(), "serve --listen '' exited", g.log())
            first = os.stat(prom).st_ino
            # rewritten (a new file renamed over the old one) at a later sample
            wait_until(lambda: not g.alive() or os.stat(prom).st_ino != first,
                       "gpumon.prom rewritten at a later sample")
            check(g.alive(), "serve --listen '' exited", g.log())
            check_textfile(prom, "serve --listen '' textfile", settled=False)
            check_eq(g.stop(), 0, "serve exit status on SIGTERM", g.log())
            check_no_leftovers(prom, "serve --listen '' after SIGTERM")
        finally:
            g.cleanup()


def test_openmetrics():
    om_accept = {"Accept": "application/openmetrics-text;version=1.0.0,"
                           "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}
    for names in ("native", "dcgm"):
        with Scratch("om") as d:
            g = Gpumon(d, sim_env("h100x8-training.ini", pinned=100),
                       ["--interval", "1h", "--names", names, "--process-metrics"])
            try:
                g.start()
                # one sample (interval 1h): both renderings come from it
                om = g.get("/metrics", headers=om_accept)
                text = g.get("/metrics")
                where = f"OpenMetrics ({names})"
                check_eq(om.status, 200, f"{where}: status")
                check_eq(om.header("Content-Type"),
                         "application/openmetrics-text; version=1.0.0; charset=utf-8",
                         f"{where}: Content-Type")
                check_eq(text.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8",
                         "text: Content-Type")
                types = check_openmetrics(om.text, where)
                if names == "native":
                    # every counter of the text format is an OpenMetrics counter
                    for fam, t in families(text.text).items():
                        if t == "counter":
                            check(fam.endswith("_total"), f"text counter {fam} without _total")
                            check_eq(types.get(fam[:-6]), "counter", f"{where}: type of {fam}")
                else:
                    check("DCGM_FI_DEV_GPU_TEMP" in types, f"{where}: no DCGM_FI_DEV_GPU_TEMP")
                    # dcgm-exporter's counters keep their names without _total, which an
                    # OpenMetrics counter cannot have: "unknown" there, never "gauge"
                    dcgm_counters = [f for f, t in families(text.text).items()
                                     if t == "counter" and f.startswith("DCGM_")]
                    check("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" in dcgm_counters,
                          f"{where}: no DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter")
                    for fam in dcgm_counters:
                        check_eq(types.get(fam), "unknown", f"{where}: type of {fam}")

                def keyed(t):
                    # the scrape counter is rendered per sample, both the same
                    return {(n, tuple(sorted(lab.items())), v) for n, lab, v in
                            parse_samples("\n".join(ln for ln in t.splitlines()
                                                    if ln != "# EOF"))}
                check_eq(keyed(om.text) ^ keyed(text.text), set(),
                         f"{where}: series or values that differ between the two formats")
            finally:
                g.stop()
                g.cleanup()


def test_node_exporter_textfile():
    (ne,) = need("prometheus-node-exporter")
    with Scratch("ne") as d:
        tf = os.path.join(d, "tf")
        os.mkdir(tf)
        g = Gpumon(d, sim_env("h100x8-training.ini", pinned=100),
                   ["--interval", "500ms", "--textfile-dir", tf], listen="")
        port = free_port()
        collectors = ["--collector.disable-defaults", "--collector.textfile"]
        n = Proc([ne, f"--web.listen-address=127.0.0.1:{port}",
                  f"--collector.textfile.directory={tf}"] + collectors,
                 log=os.path.join(d, "ne.log"))
        try:
            g.start(ready=False)
            deadline = time.time() + DEADLINE
            while not os.path.exists(os.path.join(tf, "gpumon.prom")):
                check(time.time() < deadline and g.alive(), "no gpumon.prom", g.log())
                time.sleep(0.05)
            n.start()
            body = None
            deadline = time.time() + DEADLINE
            while time.time() < deadline:
                check(n.alive(), "node_exporter exited", n.log())
                try:
                    r = get("127.0.0.1", port, "/metrics", timeout=3)
                    if r.status == 200:
                        body = r.text
                        break
                except OSError:
                    pass
                time.sleep(0.1)
            check(body is not None, "node_exporter did not answer", n.log())
            samples = parse_samples("\n".join(ln for ln in body.splitlines()))
            err = [v for name, lab, v in samples if name == "node_textfile_scrape_error"]
            check_eq(err, [0.0], "node_textfile_scrape_error", n.log())
            temps = {lab.get("gpu"): v for name, lab, v in samples
                     if name == "gpumon_gpu_temperature_celsius"}
            check_eq(len(temps), 8, "gpumon_gpu_temperature_celsius series via node_exporter")
            check_eq(temps.get("5"), 89.0, "GPU 5's temperature via node_exporter")
            mtime = [lab.get("file") for name, lab, v in samples
                     if name == "node_textfile_mtime_seconds"]
            check(any(f and f.endswith("gpumon.prom") for f in mtime),
                  "node_textfile_mtime_seconds for gpumon.prom", mtime)
            check(any(name == "gpumon_gpu_up" for name, _, _ in samples), "gpumon_gpu_up")
        finally:
            stop_all(n, g)


if __name__ == "__main__":
    main([test_native_lint_all_scenarios, test_dcgm_names_parse, test_textfile, test_openmetrics,
          test_node_exporter_textfile])
