#!/usr/bin/env python3
"""Fault sweep: every NVML function gpumon calls, failed on purpose, through
every output (suite e2e; about 250 runs of four commands, each of which
waits about 0.1 s for its samples: the four commands of a run, and several
runs, go side by side, so that the sweep waits for them together).

The list of functions is not kept here: a run of each output under
GPUSIM_TRACE (docs/simulator.md) names every function gpumon calls and on
which GPU.  Each of them is then failed with GPUSIM_FAIL on one GPU (the
five that name no GPU -- nvmlSystemGet*, nvmlDeviceGetCount -- everywhere)
with NVML_ERROR_NOT_SUPPORTED, NO_PERMISSION, UNKNOWN and GPU_IS_LOST (the
last only where it means something: on a GPU), at the same pinned scenario
time as a run without faults.  Four outputs are compared with that run:

  - `gpumon status --json --pcie --gpm`: every value that differs is null, with
    the error's reason under "unavailable" (not_supported, not_permitted,
    error, gpu_lost); a GPU's status changes only to the error's (lost,
    no_permission, error); MIG devices and processes keep their places, or
    "unavailable" names the list with the reason (MIG devices: then none;
    processes: those of the lists NVML gave);
  - `gpumon query --query-gpu=<every field> --format=csv`: exactly the
    fields whose JSON value became null changed, each to the text for the
    error ([N/A], [Insufficient Permissions], [Unknown Error], [GPU is lost]);
  - `gpumon query --query-compute-apps=<every field>`: likewise per process,
    and a GPU whose process list was not read whole is named on stderr;
  - `gpumon serve --print --process-metrics` (the exposition /metrics
    serves): exactly the series of the values that became null are absent
    (gpumon_gpu_up 0 for a GPU that is down); nothing else changes, labels
    included (a label goes only with its value).

Every other value, of the faulted GPU and of every other GPU, must stay
exactly as without the fault.  nvmlDeviceGetCount failing is the exception:
no GPU can be shown, every command says why and exits 3.  A fault that
changes nothing in any output proves nothing: functions whose failure is
invisible by design would be listed in INVISIBLE (one is today), and the
sweep fails if another one changes nothing.  A function called several
times per GPU (thresholds, clocks, ECC counters) is also failed at its 2nd
call only, which must change some, not more, of what failing every call
changes.

Faults are batched: a run fails up to three (function, error) pairs, each on
its own GPU and each with a different error, leaving three GPUs untouched, so
a fault that leaks onto another GPU shows either there or with the wrong
reason.  The target GPU of a function is one where failing it everywhere
(the first pass, with NVML_ERROR_UNKNOWN) made a difference.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import concurrent.futures
import csv
import io
import itertools
import json
import os
import re
import subprocess

from agentlib import DEADLINE, GPUMON, Fail, Scratch, check, main, sim_env

T = 100  # pinned scenario time: every run sees the same instant

# Six GPUs of four generations so that every function answers somewhere:
# fans and a display (RTX 4090), page retirement (V100), row remapping and
# HBM temperature (H100), MIG (A100), GPM per MIG instance (H100 4), ECC
# errors, processes of every type, NVLink through NVSwitches (the SXM boards).
SCENARIO = """\
[machine]
driver_version = 550.54.15
cuda_version = 12.4
seed = 11
gpus = 6
nvlink = nvswitch

[gpu]
model = H100-SXM5-80GB
workload = steady
util = 90%
enc_util = 12
dec_util = 7
memory_used = 20GiB
pcie_replays_per_hour = 30

[gpu.1]
model = RTX-4090
display_active = on

[gpu.2]
model = V100-SXM2-32GB
memory_used = 8GiB

[gpu.3]
model = A100-SXM4-80GB
mig = 3g.40gb, 1g.10gb

[gpu.4]
model = H100-SXM5-80GB
workload = thermal
mig = 3g.40gb, 1g.10gb

; The processes are gone in the simulator's /proc view (alive = no): their
; /proc facts (start time, elapsed) would follow the clock, not the pinned
; scenario time, and this sweep compares NVML values between runs.
[process.a]
gpu = 0
pid = 4194400
name = python3
used_memory = 10GiB
alive = no

[process.b]
gpu = 1
pid = 4194401
type = compute+graphics
name = Xorg
used_memory = 1GiB
alive = no

[process.c]
gpu = 2, 5
pid = 4194402
name = trainer
used_memory = 4GiB
alive = no

[process.d]
gpu = 3
mig = 1
pid = 4194403
name = notebook
used_memory = 3GiB
alive = no

[fault.ecc2]
type = ecc
gpu = 2
at = 10
corrected = 6
uncorrected = 2

[fault.ecc0]
type = ecc
gpu = 0
at = 10
corrected = 3
uncorrected = 1
"""

# error -> (JSON reason, query texts, GPU status when the GPU is down, NVML's text)
ERRORS = {
    # ("N/A" without brackets: nvidia-smi's text for a few fields, e.g. temperature.memory)
    "NVML_ERROR_NOT_SUPPORTED": ("not_supported", ("[N/A]", "[Not Supported]", "N/A"), "error",
                                 "Not Supported"),
    "NVML_ERROR_NO_PERMISSION": ("not_permitted", ("[Insufficient Permissions]",),
                                 "no_permission", "Insufficient Permissions"),
    "NVML_ERROR_UNKNOWN": ("error", ("[Unknown Error]",), "error", "Unknown Error"),
    "NVML_ERROR_GPU_IS_LOST": ("gpu_lost", ("[GPU is lost]",), "lost", "GPU is lost"),
}
GPU_ERRORS = list(ERRORS)
HOST_ERRORS = GPU_ERRORS[:3]  # a call that names no GPU cannot lose one

# Functions whose failure no output shows, by design (with why).  The sweep
# fails if one of them starts to show, or another shows nothing.
INVISIBLE = {
    "nvmlGpmSampleFree": "called only as gpumon closes NVML, after every output is written",
}

# Functions that answer NOT_SUPPORTED on every GPU a Linux host can have
# (so a NOT_SUPPORTED failure cannot change what they show): every other
# error is still checked.
ALWAYS_NOT_SUPPORTED = {
    "nvmlDeviceGetDriverModel_v2": "the driver model is a Windows notion",
    "nvmlDeviceGetGpuOperationMode": "GPU operation modes are a GK110-era feature: no preset has one",
    "nvmlDeviceGetDramEncryptionMode": "DRAM encryption is Blackwell and later: no preset has it",
    "nvmlDeviceGetHostname_v1": "a GPU's own hostname is Blackwell and later: no preset has it",
    "nvmlDeviceGetPlatformInfo": "rack-scale platform information is Blackwell and later: no "
    "preset has it",
}

# Defects the sweep found that are not fixed yet: (function, regular
# expression of the problem, what is wrong).  A problem that matches is
# reported but does not fail the sweep; an entry that matches nothing fails
# it (remove the entry with the fix).
KNOWN_DEFECTS = []

# JSON keys computed from another value: they follow it.
DERIVED = {
    "clocks_event_reasons_active_names": "clocks_event_reasons",
    "throttle": "clocks_event_reasons",
}

# Prometheus families that are not a registry metric of their own.
PROM_FOLLOWS = {
    "gpumon_gpu_info": "uuid",  # a GPU without a UUID has no info series
    "gpumon_clock_event_reason_active": "clocks_event_reasons",
    "gpumon_clock_event_reason_seconds_total": "clocks_event_reasons",
}
# Labels that carry a value (the GPU's identity on every series, facts on
# gpumon_gpu_info, instance ids on MIG series), by the JSON key of the value:
# such a label goes when its value does, and the series stays.
VALUE_LABELS = {
    "*": {"uuid": "uuid", "name": "name", "pci_bus_id": "pci_bus_id"},
    "gpumon_gpu_info": {"serial": "serial", "vbios_version": "vbios_version",
                        "compute_cap": "compute_cap", "driver_version": "driver_version",
                        "cuda_version": "cuda_driver_version", "nvml_version": "nvml_version"},
    "gpumon_mig_memory_": {"mig_uuid": "mig_devices.{#}.uuid",
                    "gpu_instance_id": "mig_devices.{#}.gpu_instance_id",
                    "compute_instance_id": "mig_devices.{#}.compute_instance_id",
                    "mig_profile": "mig_devices.{#}.profile"},
    # a GPM family: the GPU's series and those of its MIG GPU instances
    "gpumon_gpm_": {"mig_uuid": "mig_devices.{#}.uuid",
                    "gpu_instance_id": "mig_devices.{#}.gpu_instance_id",
                    "compute_instance_id": "mig_devices.{#}.compute_instance_id",
                    "mig_profile": "mig_devices.{#}.profile"},
    "gpumon_process_": {"process": "processes.{pid}.name"},
}


def value_labels(name):
    out = dict(VALUE_LABELS["*"])
    for prefix, labels in VALUE_LABELS.items():
        if prefix != "*" and name.startswith(prefix):
            out.update(labels)
    return out


# ------------------------------------------------------------------ running


class Outputs:
    """The four outputs of one run of gpumon at scenario time T, with each
    command's exit status and stderr (rc and err, by command name)."""

    def __init__(self):
        self.status = self.query = self.apps = self.prom = None
        self.rc, self.err = {}, {}


# Runs side by side: each command mostly waits for its samples (the
# pinned scenario's 0.1 s between two), so more than the machine's cores.
PARALLEL = max(4, 2 * (os.cpu_count() or 1))


def gpumon_start(args, env):
    return subprocess.Popen([GPUMON] + args, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def gpumon_wait(p, args, env):
    try:
        out, err = p.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Fail(f"gpumon {' '.join(args)} (GPUSIM_FAIL={env.get('GPUSIM_FAIL')}) did not end "
                   f"within {DEADLINE} s")
    if p.returncode < 0 or p.returncode > 3:
        raise Fail(f"gpumon {' '.join(args)} (GPUSIM_FAIL={env.get('GPUSIM_FAIL')}) died: "
                   f"status {p.returncode}, {err}")
    return p.returncode, out, err


def gpumon(args, env):
    return gpumon_wait(gpumon_start(args, env), args, env)


def in_parallel(fn, items):
    """[fn(x) for x in items], PARALLEL at a time, in order."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=PARALLEL) as ex:
        return list(ex.map(fn, items))


def parse_csv(text):
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    return [dict(zip(rows[0], r)) for r in rows[1:]]


SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


MIG_LABELS = ("mig_uuid", "gpu_instance_id", "compute_instance_id", "mig_profile")


def is_mig_series(name, ident):
    """Whether a series is a MIG device's: every gpumon_mig_memory_* one, and
    a GPM series with the MIG labels (the GPU's own has none)."""
    return name.startswith("gpumon_mig_memory_") or \
        (name.startswith("gpumon_gpm_") and any(k in ident for k in MIG_LABELS))


def parse_prom(text):
    """{(family, gpu, other labels): (identity labels, value)}; the
    exporter's own series (gpumon_exporter_*) are left out."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise Fail(f"not a sample line: {line!r}")
        name, labels, value = m.group(1), dict(LABEL.findall(m.group(2) or "")), m.group(3)
        if name.startswith("gpumon_exporter_"):
            continue
        vl = value_labels(name)
        ident = {k: labels.pop(k) for k in list(labels) if k in vl}
        gpu = labels.pop("gpu", None)
        if is_mig_series(name, ident):
            # every label of a MIG device's series is a value: mig_key()
            # names the series by the device's index
            labels["#"] = str(sum(1 for k in out if k[0] == name and k[1] == gpu and
                                  any(a == "#" for a, _ in k[2])))
        key = (name, gpu, tuple(sorted(labels.items())))
        if key in out:
            raise Fail(f"series twice: {line!r}")
        out[key] = (ident, value)
    return out


class Run:
    def __init__(self, scratch, scn, fields, app_fields):
        self.scratch, self.scn = scratch, scn
        self.fields, self.app_fields = fields, app_fields
        self.count = itertools.count(1)  # thread-safe in CPython
        self.n = 0

    def outputs(self, fail=None, trace=None, trace_status_only=None):
        env = sim_env(self.scn, pinned=T)
        env.pop("GPUSIM_FAIL", None)
        env.pop("GPUSIM_TRACE", None)
        if fail:
            env["GPUSIM_FAIL"] = fail
        if trace_status_only:
            # the calls of `status --json` alone, to count them
            env["GPUSIM_TRACE"] = trace_status_only
            gpumon(["status", "--json", "--pcie", "--gpm"], env)
        if trace:
            env["GPUSIM_TRACE"] = trace
        n = next(self.count)
        self.n = max(self.n, n)
        data = os.path.join(self.scratch, f"d{n}")
        o = Outputs()
        cmds = {
            "status": (["status", "--json", "--pcie", "--gpm"], json.loads),
            "query": (["query", "--query-gpu=" + ",".join(self.fields), "--format=csv"],
                      parse_csv),
            "apps": (["query", "--query-compute-apps=" + ",".join(self.app_fields),
                      "--format=csv"], parse_csv),
            "prom": (["serve", "--no-config", "--print", "--process-metrics", "--data-dir",
                      data], parse_prom),
        }
        procs = {what: gpumon_start(args, env) for what, (args, _) in cmds.items()}
        for what, (args, parse) in cmds.items():
            rc, out, err = gpumon_wait(procs[what], args, env)
            o.rc[what], o.err[what] = rc, err
            setattr(o, what, parse(out) if out else None)
        return o


# ----------------------------------------------------------------- registry


NOSTATUS = set()


def registry():
    """From the registry (`gpumon metrics --markdown`): every name of a GPU
    field (nvidia-smi keys, CSV column, JSON key) -> its JSON key, the same
    for process fields, and native Prometheus sample name -> JSON key.
    NOSTATUS collects the keys of metrics that `status --json` leaves out
    (the registry says "Not in `status --json`"): for them `query` is the
    witness of a change (compare_outputs)."""
    md = gpumon(["metrics", "--markdown"], dict(os.environ))[1]
    gpu, proc, prom = {}, {}, {}
    table = None
    for line in md.splitlines():
        if line.startswith("## "):
            table = proc if "process" in line.lower() else gpu
            continue
        if table is None or not line.startswith("| ") or line.startswith("| nvidia-smi"):
            continue
        cells = [re.findall(r"`([^`]+)`", c) for c in line.strip("|").split("|")]
        if not cells[1]:
            continue
        js = cells[1][0]
        if "Not in `status --json`" in line:
            NOSTATUS.add(js)
        for k in cells[0] + cells[1] + cells[2]:
            table.setdefault(k, js)
        if table is gpu and cells[3]:
            prom[cells[3][0]] = js
    return gpu, proc, prom


def query_fields(kind):
    """The fields `gpumon query --help-query-KIND` lists, one name each."""
    text = gpumon(["query", f"--help-query-{kind}"], dict(os.environ))[1]
    return re.findall(r'^"([^"]+)"', text, re.M)


# ------------------------------------------------------------------ checking


class Case:
    """One fault: calls `when` (a GPUSIM_FAIL call number) of function fn
    fail with error on GPU gpu (None: on every GPU, and calls without one)."""

    def __init__(self, fn, error, gpu, when="*"):
        self.fn, self.error, self.gpu, self.when = fn, error, gpu, when

    def rule(self):
        at = "" if self.gpu is None else f"@{self.gpu}"
        return f"{self.fn}{at}:{self.when}:{self.error}"

    def __str__(self):
        return self.rule()


def item_changes(base, got, reason, where, problems):
    """Keys of dict got that differ from base (a value, or the reason it is
    missing): each must be null with reason under "unavailable".  An object
    without an "unavailable" map (a MIG device) can only say null.  Returns
    the set of changed keys."""
    changed = set()
    reasons = "unavailable" in base
    bu, gu = base.get("unavailable", {}), got.get("unavailable", {})
    for k in sorted(set(base) | set(got)):
        if k in ("unavailable", "processes", "mig_devices", "status", "error"):
            continue
        if base.get(k) == got.get(k) and bu.get(k) == gu.get(k):
            continue
        if k in DERIVED:
            changed.add(k)
            continue
        if got.get(k) is None and (gu.get(k) == reason or not reasons):
            changed.add(k)
            continue
        problems.append(f"{where}: {k} {base.get(k)!r} -> {got.get(k)!r} "
                        f"(unavailable: {gu.get(k)!r}, want null and {reason!r})")
    for k, v in gu.items():
        if bu.get(k) != v and k not in changed and k not in ("processes", "mig_devices"):
            problems.append(f"{where}: unavailable.{k} {bu.get(k)!r} -> {v!r} but the value "
                            f"did not change")
    for k in DERIVED:
        if k in changed and DERIVED[k] not in changed:
            problems.append(f"{where}: {k} changed though {DERIVED[k]} did not")
    return changed


def lost_values(base, got):
    """Whether a GPU object lost a value it had (not just a reason that
    changed), its MIG devices or processes included."""
    for k, v in base.items():
        if k in ("processes", "mig_devices"):
            if len(got.get(k, [])) != len(v) or any(lost_values(a, b)
                                                     for a, b in zip(v, got.get(k, []))):
                return True
        elif k != "unavailable" and v is not None and got.get(k) is None:
            return True
    return False


def check_json(base, got, faults, problems):
    """Returns {gpu index: set of changed keys} and whether the host changed."""
    changed = {}
    host = False
    for k in base:
        if k in ("gpus", "time", "time_unix_ns", "sample_duration_seconds"):
            continue
        if base[k] != got.get(k):
            host_faults = [c for c in faults if c.gpu is None]
            if not host_faults:
                problems.append(f"json {k}: {base[k]!r} -> {got.get(k)!r} without a host fault")
            host = True
    if len(got["gpus"]) != len(base["gpus"]):
        if not any(c.fn.startswith("nvmlDeviceGetCount") for c in faults):
            problems.append(f"json: {len(base['gpus'])} GPUs -> {len(got['gpus'])}")
        return changed, True
    for bg, gg in zip(base["gpus"], got["gpus"]):
        i = bg["index"]
        mine = [c for c in faults if c.gpu == i or c.gpu is None]
        where = f"json gpu {i}"
        if not mine:
            if bg != gg:
                diff = sorted(k for k in set(bg) | set(gg) if bg.get(k) != gg.get(k))
                problems.append(f"{where} changed without a fault of its own: {diff}")
            continue
        reasons = {ERRORS[c.error][0] for c in mine}
        reason = reasons.pop() if len(reasons) == 1 else None
        ch = item_changes(bg, gg, reason, where, problems)
        if gg["status"] != bg["status"]:
            want = {ERRORS[c.error][2] for c in mine}
            if gg["status"] not in want:
                problems.append(f"{where}: status {bg['status']} -> {gg['status']} "
                                f"(want one of {sorted(want)})")
            ch.add("status")
        down = gg["status"] != "ok"
        for part, ident in (("mig_devices", "index"), ("processes", "pid")):
            bl, gl = bg[part], gg[part]
            said = gg["unavailable"].get(part)
            if said is not None and (said != reason or (part == "mig_devices" and gl)):
                problems.append(f"{where}: {part} {[x[ident] for x in gl]}, unavailable "
                                f"{said!r} (want {reason!r}, and no MIG devices)")
            if part == "processes" and said == reason:
                # not read whole: what NVML did give is shown (the graphics
                # processes when the compute list failed), nothing made up
                if not {x[ident] for x in gl} <= {x[ident] for x in bl}:
                    problems.append(f"{where}: processes {[x[ident] for x in gl]} not among "
                                    f"{[x[ident] for x in bl]}")
                ch.add(part)
                ch.add("processes.*")
                continue
            if [x[ident] for x in bl] != [x[ident] for x in gl]:
                # a list that could not be read is empty, and says why (or
                # its GPU is down); a GPU that says it does not support MIG
                # has no MIG devices
                no_mig = part == "mig_devices" and \
                    gg["unavailable"].get("mig_mode_current") == "not_supported"
                if gl == [] and (down or said == reason or no_mig):
                    ch.add(part)
                else:
                    problems.append(f"{where}: {part} {[x[ident] for x in bl]} -> "
                                    f"{[x[ident] for x in gl]} (unavailable: {said!r})")
                continue
            for bx, gx in zip(bl, gl):
                c2 = item_changes(bx, gx, reason, f"{where} {part} {bx[ident]}", problems)
                if c2:
                    ch.add(part)
                    ch.update(f"{part}.{bx[ident]}.{k}" for k in c2)
        changed[i] = ch
    if host:
        for k in ("driver_version", "cuda_driver_version", "nvml_version"):
            if base["driver"][k] != got["driver"][k]:
                for ch in changed.values():
                    ch.add(k)
    return changed, host


def absent_text_ok(cell, error):
    return cell in ERRORS[error][1]


def check_query(base, got, faults, smi_json, jchanged, problems):
    if len(base) != len(got):
        return
    for brow, grow in zip(base, got):
        i = int(brow["index"])
        mine = [c for c in faults if c.gpu == i or c.gpu is None]
        ch = jchanged.get(i, set())
        for f, bcell in brow.items():
            if f.startswith("timestamp"):
                continue
            gcell = grow.get(f)
            key = smi_json.get(f.split(" [")[0])
            if bcell == gcell:
                if key in ch and key not in DERIVED:
                    problems.append(f"query gpu {i} {f}: still {gcell!r} though JSON "
                                    f"{key} became null")
                continue
            if not mine:
                problems.append(f"query gpu {i} {f}: {bcell!r} -> {gcell!r} without a fault "
                                f"of its own")
            elif key not in ch and "status" not in ch:
                problems.append(f"query gpu {i} {f}: {bcell!r} -> {gcell!r} though JSON {key} "
                                f"did not change")
            elif not any(absent_text_ok(gcell, c.error) for c in mine):
                problems.append(f"query gpu {i} {f}: {bcell!r} -> {gcell!r}, want "
                                f"{[ERRORS[c.error][1] for c in mine]}")


def check_apps(base, got, faults, gpu_of, smi_json, proc_json, jchanged, problems):
    def keyed(rows):
        # (pid, GPU): one process may use several GPUs; the GPU is found by
        # whichever of its identifying cells is there
        out = {}
        for r in rows:
            gpus = {gpu_of.get((f, r.get(f))) for f in ("gpu_bus_id", "gpu_uuid", "gpu_serial")}
            gpus.discard(None)
            if len(gpus) != 1:
                problems.append(f"query-compute-apps: row {r} names no GPU, or several")
                continue
            out[(r["pid"], gpus.pop())] = r
        return out
    bk, gk = keyed(base), keyed(got)
    for k in sorted(set(bk) | set(gk)):
        i = k[1]
        mine = [c for c in faults if c.gpu == i or c.gpu is None]
        ch = jchanged.get(i, set())
        if k not in gk or k not in bk:
            if k in gk or "processes" not in ch:
                problems.append(f"query-compute-apps: process {k} "
                                f"{'vanished' if k not in gk else 'appeared'}")
            continue
        for f, bcell in bk[k].items():
            if f.startswith("timestamp"):
                continue
            gcell = gk[k].get(f)
            if bcell == gcell:
                continue
            name = f.split(" [")[0]
            jkey = f"processes.{k[0]}.{proc_json[name]}" if name in proc_json else \
                smi_json.get(name)
            if "processes.*" in ch and name in proc_json:
                continue  # a list not read whole: a C+G process may show as G
            if jkey not in ch and "status" not in ch:
                problems.append(f"query-compute-apps {k} {f}: {bcell!r} -> {gcell!r} though "
                                f"JSON {jkey} did not change")
            elif not any(absent_text_ok(gcell, c.error) for c in mine):
                problems.append(f"query-compute-apps {k} {f}: {bcell!r} -> {gcell!r}, want "
                                f"{[ERRORS[c.error][1] for c in mine]}")


def mig_key(prom, status):
    """prom with each MIG device's series named by the device's index in
    status --json (the one whose uuid, instance ids and profile are its
    labels), so a label that goes, or a device's series that go, do not
    make other series."""
    out = {}
    for (name, gpu, rest), (ident, value) in prom.items():
        if is_mig_series(name, ident):
            for m in status["gpus"][int(gpu)]["mig_devices"]:
                want = {"mig_uuid": m["uuid"], "gpu_instance_id": m["gpu_instance_id"],
                        "compute_instance_id": m["compute_instance_id"],
                        "mig_profile": m["profile"]}
                mine = {k: v for k, v in ident.items() if k in want}
                if mine == {k: str(v) for k, v in want.items() if v is not None}:
                    rest = (("#", str(m["index"])),)
                    break
            # else the exporter read what status --json could not (it reads
            # no PCIe throughput): the series keeps its place in the family
        out[(name, gpu, rest)] = (ident, value)
    return out


def check_prom(base, got, faults, prom_json, status, jchanged, problems):
    gpus = {str(g["index"]): g for g in status["gpus"]}
    for k in sorted(set(base) | set(got), key=str):
        name, gpu, rest = k
        i = int(gpu) if gpu is not None else None
        mine = [c for c in faults if (i is not None and c.gpu == i) or c.gpu is None]
        ch = jchanged.get(i, set())
        where = f"prom {name}{{gpu={gpu}{''.join(f',{a}={b}' for a, b in rest)}}}"
        if k not in base:
            problems.append(f"{where}: a new series {got[k][1]}")
            continue
        bident, bval = base[k]
        if k not in got:
            if not mine:
                problems.append(f"{where}: absent without a fault of its own")
                continue
            down = gpus.get(gpu, {}).get("status", "ok") != "ok"
            fam = name
            src = prom_json.get(fam) or PROM_FOLLOWS.get(fam)
            mig = dict(rest).get("#")
            if mig is not None and fam.startswith("gpumon_gpm_"):
                # a MIG device's GPM value: that device's key in status --json
                src = f"mig_devices.{mig}.{src}"
            if down or (src in ch) or \
                    (fam.startswith("gpumon_mig_memory_") and "mig_devices" in ch) or \
                    (mig is not None and "mig_devices" in ch and
                     not any(c.startswith("mig_devices.") for c in ch)) or \
                    (fam.startswith("gpumon_process_") and "processes" in ch):
                continue
            if gpu is None and any(c.gpu is None for c in faults):
                continue
            problems.append(f"{where}: absent though JSON {src} did not change")
            continue
        gident, gval = got[k]
        # a GPU that is down says so in gpumon_gpu_up; no other value changes
        if gval != bval and not (name == "gpumon_gpu_up" and gval == "0" and "status" in ch):
            problems.append(f"{where}: {bval} -> {gval}")
        if gident != bident:
            vl = value_labels(name)
            for lbl in set(bident) | set(gident):
                if bident.get(lbl) == gident.get(lbl):
                    continue
                jkey = vl[lbl].format(**bident, **dict(rest))
                if lbl in gident or jkey not in ch:
                    problems.append(f"{where}: label {lbl} {bident.get(lbl)!r} -> "
                                    f"{gident.get(lbl)!r} (JSON {jkey} did not change)")


# ------------------------------------------------------------------- the test


def traced_functions(run, scratch):
    """{function: {GPU index (None: no GPU): calls in one `status --json`}},
    from GPUSIM_TRACE of a run of every output."""
    trace = os.path.join(scratch, "trace")
    run.outputs(trace=trace, trace_status_only=os.path.join(scratch, "trace-status"))
    calls = {}
    with open(trace) as f:
        for line in f:
            fn, _, gpu = line.split()[0].partition("@")
            calls.setdefault(fn, {}).setdefault(int(gpu) if gpu else None, 0)
    with open(os.path.join(scratch, "trace-status")) as f:
        for line in f:
            fn, _, gpu = line.split()[0].partition("@")
            calls[fn][int(gpu) if gpu else None] += 1
    return calls


def compare(run, base, faults, reg):
    got = run.outputs(",".join(c.rule() for c in faults))
    problems = []
    jchanged, host = compare_outputs(base, got, faults, reg, problems)
    return got, jchanged, host, problems


def check_no_gpus(got, faults, problems):
    """nvmlDeviceGetCount failed: no GPU can be shown.  Every command says
    why on stderr and exits 3 (NVML unavailable); status --json still prints
    its document, which says why (docs/json.md, "When NVML fails"), and the
    exposition still comes, with gpumon_nvml_state{state="error"} 1 and no
    GPU series."""
    c = faults[0]
    want = f"gpumon: error: nvmlDeviceGetCount failed: {ERRORS[c.error][3]}\n"
    for what in ("status", "query", "apps", "prom"):
        if (got.rc[what], got.err[what]) != (3, want):
            problems.append(f"{c} {what}: exit {got.rc[what]}, stderr {got.err[what]!r}; want 3 "
                            f"and {want!r}")
    if got.query is not None or got.apps is not None:
        problems.append(f"{c}: query printed something")
    st = got.status or {}
    want_doc = ({"status": "error", "message": want[len("gpumon: error: "):-1]}, 0, [])
    if ({k: st.get("driver", {}).get(k) for k in ("status", "message")}, st.get("gpu_count"),
            st.get("gpus")) != want_doc:
        problems.append(f"{c} status --json: {st.get('driver')}, {st.get('gpu_count')} GPUs; "
                        f"want {want_doc}")
    state = {k[2][0][1]: v[1] for k, v in (got.prom or {}).items()
             if k[0] == "gpumon_nvml_state"}
    gpu_series = [k for k in (got.prom or {}) if k[1] is not None]
    if state.get("error") != "1" or gpu_series:
        problems.append(f"{c} prom: nvml_state {state}, GPU series {gpu_series[:3]}")


def compare_outputs(base, got, faults, reg, problems):
    """Checks got against base for faults; returns {GPU: changed JSON keys}
    and whether host-level JSON changed."""
    smi_json, proc_json, prom_json = reg
    if any(c.fn.startswith("nvmlDeviceGetCount") for c in faults):
        check_no_gpus(got, faults, problems)
        return {}, True
    # a GPU whose process list could not be read has no rows to say it in
    lists = "".join(f"gpumon: warning: GPU {g['index']}: the process list could not be read "
                    f"whole ({ERRORS[c.error][3]}); processes may be missing\n"
                    for g in (got.status or {"gpus": []})["gpus"]
                    for c in faults if c.gpu in (g["index"], None)
                    if g["unavailable"].get("processes"))
    for what in ("status", "query", "apps", "prom"):
        want = lists if what == "apps" else ""
        if got.rc[what] != 0 or got.err[what] != want:
            problems.append(f"{what}: exit {got.rc[what]}, stderr {got.err[what]!r}, want 0 and "
                            f"{want!r}")
            return {}, True
    jchanged, host = check_json(base.status, got.status, faults, problems)
    # metrics status --json leaves out: a changed query cell is the change
    # (check_query still wants it to read as one of the faults' errors)
    if len(base.query) == len(got.query):
        for brow, grow in zip(base.query, got.query):
            for f, bcell in brow.items():
                key = smi_json.get(f.split(" [")[0])
                if key in NOSTATUS and grow.get(f) != bcell:
                    jchanged.setdefault(int(brow["index"]), set()).add(key)
    check_query(base.query, got.query, faults, smi_json, jchanged, problems)
    gpu_of = {}
    for g in base.status["gpus"]:
        for f, k in (("gpu_bus_id", "pci_bus_id"), ("gpu_uuid", "uuid"), ("gpu_serial", "serial")):
            if g.get(k):
                gpu_of[(f, g[k])] = g["index"]
    check_apps(base.apps, got.apps, faults, gpu_of, smi_json, proc_json, jchanged, problems)
    check_prom(mig_key(base.prom, base.status), mig_key(got.prom, got.status), faults, prom_json,
               got.status, jchanged, problems)
    return jchanged, host


def known_defects(problems):
    """Takes out the problems of KNOWN_DEFECTS (printed), and adds one for an
    entry that matched nothing."""
    left, hits = [], [0] * len(KNOWN_DEFECTS)
    for p in problems:
        for k, (fn, pattern, _) in enumerate(KNOWN_DEFECTS):
            if fn in p and re.search(pattern, p):
                hits[k] += 1
                break
        else:
            left.append(p)
    for (fn, _, why), n in zip(KNOWN_DEFECTS, hits):
        if n:
            print(f"  known defect, {n} problems: {fn}: {why}")
        else:
            left.append(f"known defect no longer seen (remove it): {fn}: {why}")
    return left


def pack(cases, per_run=3):
    """Runs of up to per_run cases: distinct GPUs, distinct errors."""
    runs = []
    for c, choices in sorted(cases, key=lambda x: len(x[1])):
        for r in runs:
            used = {x.gpu for x in r}
            if len(r) < per_run and all(x.error != c.error for x in r):
                free = [g for g in choices if g not in used]
                if free:
                    r.append(Case(c.fn, c.error, free[0]))
                    break
        else:
            runs.append([Case(c.fn, c.error, choices[0])])
    return runs


def test_fault_sweep():
    with Scratch("sweep") as d:
        scn = os.path.join(d, "sweep.ini")
        with open(scn, "w") as f:
            f.write(SCENARIO)
        reg = registry()
        smi_json, proc_json, _ = reg
        qfields, afields = query_fields("gpu"), query_fields("compute-apps")
        unknown = [f for f in qfields if f not in smi_json] + \
            [f for f in afields if f not in proc_json and f not in smi_json]
        check(not unknown, "query fields the registry does not name", unknown)
        run = Run(d, scn, qfields, afields)
        base = run.outputs()
        check(len(base.status["gpus"]) == 6 and all(g["status"] == "ok" for g in base.status["gpus"]),
              "the baseline has 6 GPUs, all ok", base.status["gpus"])
        again = run.outputs()
        problems = []
        compare_outputs(base, again, [], reg, problems)
        check(not problems, "two runs without faults at the same scenario time differ", problems)

        calls = traced_functions(run, d)
        check(len(calls) > 40, f"the trace names {len(calls)} functions", sorted(calls))
        check(set(INVISIBLE) <= set(calls), "INVISIBLE names functions gpumon does not call",
              sorted(set(INVISIBLE) - set(calls)))
        # pass 1: each function failed on every GPU, to learn where it shows
        shows, target = {}, {}
        probes = in_parallel(lambda fn: compare(run, base, [Case(fn, "NVML_ERROR_UNKNOWN", None)],
                                                reg), sorted(calls))
        for fn, (got, jchanged, host, p) in zip(sorted(calls), probes):
            problems += [f"[{fn}:*:UNKNOWN] {x}" for x in p]
            shows[fn] = sorted(i for i, ch in jchanged.items() if ch)
            # GPUs where a value went (not just a reason that changed):
            # there every error shows, NOT_SUPPORTED included
            real = [i for i in shows[fn]
                    if lost_values(base.status["gpus"][i], got.status["gpus"][i])]
            target[fn] = real or shows[fn]
            visible = bool(shows[fn]) or host
            if fn in INVISIBLE and visible:
                problems.append(f"{fn} is listed as invisible but its failure shows on GPUs "
                                f"{shows[fn]}")
            elif fn not in INVISIBLE and not visible:
                problems.append(f"{fn}: failing every call changes no output")
        # pass 2: every error, on one GPU where the function shows
        cases, host_cases = [], []
        for fn in sorted(calls):
            on_gpu = [g for g in target[fn] if g in calls[fn]]
            if None in calls[fn] and not on_gpu:
                host_cases += [[Case(fn, e, None)] for e in HOST_ERRORS]
                continue
            if not on_gpu:
                continue
            # spread the errors over the GPUs where it shows
            for k, e in enumerate(GPU_ERRORS):
                choices = on_gpu[k % len(on_gpu):] + on_gpu[:k % len(on_gpu)]
                cases.append((Case(fn, e, None), choices))
        runs = pack(cases) + host_cases
        results = in_parallel(lambda faults: compare(run, base, faults, reg), runs)
        for faults, (_, jchanged, _, p) in zip(runs, results):
            problems += [f"[{','.join(map(str, faults))}] {x}" for x in p]
            for c in faults:
                if c.fn in ALWAYS_NOT_SUPPORTED and c.error == "NVML_ERROR_NOT_SUPPORTED":
                    continue
                if c.gpu is not None and not jchanged.get(c.gpu):
                    problems.append(f"{c}: no visible change on GPU {c.gpu}")
        # pass 3: a function called several times per GPU and sample (a
        # threshold, a clock, an ECC counter each) fails at its 2nd call
        # only: less changes than when every call fails, but something
        thirds = []  # (fn, the first GPU where it is called twice)
        for fn in sorted(calls):
            for g in target[fn]:
                if calls[fn].get(g, 0) >= 2:
                    thirds.append((fn, g))
                    break
        nth = len(thirds)

        def every_and_one(fg):
            fn, g = fg
            return (compare(run, base, [Case(fn, "NVML_ERROR_UNKNOWN", g)], reg),
                    compare(run, base, [Case(fn, "NVML_ERROR_UNKNOWN", g, "2")], reg))
        for (fn, g), ((_, every, _, _), (_, jchanged, _, p)) in zip(
                thirds, in_parallel(every_and_one, thirds)):
            one = Case(fn, "NVML_ERROR_UNKNOWN", g, "2")
            problems += [f"[{one}] {x}" for x in p]
            # (the same for a list, which is whole or nothing)
            if not jchanged.get(g) or not jchanged[g] <= every.get(g, set()):
                problems.append(f"{one}: changes {sorted(jchanged.get(g, []))}, want some "
                                f"of {sorted(every.get(g, []))}")
        print(f"  {len(calls)} functions, {sum(len(r) for r in runs)} faults in {len(runs)} runs "
              f"after {len(calls)} probes, {nth} faults of one call; {run.n} runs of the four "
              f"outputs")
        if os.environ.get("SWEEP_ALL"):
            print("\n".join(problems))
        problems = known_defects(problems)
        check(not problems, f"{len(problems)} problems:\n  " + "\n  ".join(problems[:60]))


if __name__ == "__main__":
    main([test_fault_sweep])
