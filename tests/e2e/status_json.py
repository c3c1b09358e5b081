#!/usr/bin/env python3
"""`gpumon status --json` when NVML fails (hardening point 16): the consumer
gets the document with the failure in it, never an empty stdout.

  failure_documents: no library, the driver not loaded (a scenario that
                     never loads it, and faults.ini's 240-300 s window), a
                     driver/library version mismatch; each with and without
                     -i, indented and --compact, and with --id: exit 3, one
                     document that is valid against docs/json.md's schema,
                     driver.status the documented value, driver.message the
                     error that stderr carries, no GPUs.
  no_permission:     every GPU denied (driver fine): the document shows each
                     GPU's status no_permission; exit 3.
  interval_into_failure: -i --compact on faults.ini with the clock running
                     into the driver's unload: JSON Lines, ok documents, then
                     the driver_not_loaded one last, exit 3.
  gpm:               --gpm (gpm/unsupported.ini) adds exactly the 13 gpm_*
                     keys to each GPU object of the plain document, valid
                     against the schema; GPU 0 has numbers, the GPUs without
                     GPM null with "not_supported" in unavailable; without
                     --gpm no gpm_* key appears.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import re
import time

from agentlib import ROOT, check, check_eq, main, run, sim_env

try:
    import jsonschema
except ImportError:
    jsonschema = None


def schema():
    text = open(os.path.join(ROOT, "docs", "json.md"), encoding="utf-8").read()
    for b in re.findall(r"```json\n(.*?)```", text, re.S):
        if '"$schema"' in b:
            return json.loads(b)
    raise AssertionError("no JSON Schema in docs/json.md")


SCHEMA = schema()


def documents(out, what):
    """The JSON documents of out, one after another (whitespace between)."""
    dec = json.JSONDecoder()
    docs, i = [], 0
    while True:
        while i < len(out) and out[i] in " \t\r\n":
            i += 1
        if i == len(out):
            return docs
        try:
            d, i = dec.raw_decode(out, i)
        except ValueError as e:
            check(False, f"{what}: stdout is not a stream of JSON documents: {e}", out[:2000])
        if jsonschema is not None:
            try:
                jsonschema.validate(d, SCHEMA)
            except jsonschema.ValidationError as e:
                check(False, f"{what}: a document is not valid against docs/json.md: {e.message}",
                      d)
        docs.append(d)


NO_LIB = "/nonexistent/libnvidia-ml.so.1"
FAILURES = [
    ("no library", dict(GPUMON_NVML_LIB=NO_LIB), "no_library",
     f"cannot load the NVIDIA management library {NO_LIB}"),
    ("driver never loaded", dict(scn="fault-driver-not-loaded.ini"), "driver_not_loaded",
     "the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded)"),
    ("driver unloaded", dict(scn="faults.ini", pinned=250), "driver_not_loaded",
     "the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded)"),
    ("version mismatch", dict(scn="faults.ini", pinned=310), "version_mismatch",
     "driver/library version mismatch"),
]
VARIANTS = [[], ["--compact"], ["-i", "0.2"], ["--compact", "-i", "0.2"], ["--id", "0"],
            ["--pcie", "--no-procs"]]


def env_of(kw):
    kw = dict(kw)
    lib = kw.pop("GPUMON_NVML_LIB", None)
    env = sim_env(**kw)
    if lib:
        env["GPUMON_NVML_LIB"] = lib
    return env


def test_failure_documents():
    for label, kw, status, msg in FAILURES:
        env = env_of(kw)
        for extra in VARIANTS:
            what = f"{label}: status --json {' '.join(extra)}"
            t0 = time.monotonic()
            rc, out, err = run(["status", "--json"] + extra, env, timeout=10)
            check(time.monotonic() - t0 < 5, f"{what}: took over 5 s (-i must end on failure)")
            check_eq(rc, 3, f"{what}: exit status", err)
            docs = documents(out, what)
            check_eq(len(docs), 1, f"{what}: documents on stdout", out)
            d = docs[0]
            check_eq(d["driver"]["status"], status, f"{what}: driver.status", d)
            m = d["driver"]["message"]
            check(isinstance(m, str) and m.startswith(msg), f"{what}: driver.message", d)
            check_eq(err, f"gpumon: error: {m}\n", f"{what}: stderr is the same message")
            check_eq((d["gpu_count"], d["gpus"]), (0, []), f"{what}: no GPUs", d)
            if "--compact" in extra:
                check_eq(out.count("\n"), 1, f"{what}: one line", out)


def test_no_permission():
    env = sim_env(scn="fault-no-permission.ini")
    for extra in ([], ["-i", "0.2"]):
        rc, out, err = run(["status", "--json"] + extra, env, timeout=10)
        check_eq(rc, 3, "every GPU denied: exit status", err)
        docs = documents(out, "no permission")
        check_eq(len(docs), 1, "documents", out)
        d = docs[0]
        check_eq(d["driver"]["status"], "ok", "driver.status (the driver is fine)", d)
        check_eq([g["status"] for g in d["gpus"]], ["no_permission"] * 2, "GPU statuses", d)
        check(err.startswith("gpumon: error: no permission to open any of the 2 GPUs"),
              "stderr", err)


def test_interval_into_failure():
    # faults.ini unloads the driver at t = 240: start at 238.6, real time
    env = sim_env(scn="faults.ini", speed=1, epoch=time.time() - 238.6)
    t0 = time.monotonic()
    rc, out, err = run(["status", "--json", "--compact", "-i", "0.5"], env, timeout=20)
    took = time.monotonic() - t0
    check_eq(rc, 3, "exit status", err)
    check(took < 6, f"-i ended {took:.1f} s after it started (the driver goes at 1.4 s)")
    lines = out.split("\n")
    check_eq(lines[-1], "", "stdout ends with a newline", out)
    docs = [json.loads(x) for x in lines[:-1]]  # JSON Lines: one document per line
    for d in docs:
        documents(json.dumps(d), "a refresh")
    st = [d["driver"]["status"] for d in docs]
    check(len(st) >= 2 and all(s == "ok" for s in st[:-1]) and st[-1] == "driver_not_loaded",
          "ok refreshes, then the failure last", st)
    check_eq(docs[0]["gpu_count"], 4, "GPUs while the driver is there", docs[0])
    check_eq(err, f"gpumon: error: {docs[-1]['driver']['message']}\n", "stderr")


GPM_KEYS = {"gpm_graphics_active_percent", "gpm_sm_active_percent", "gpm_sm_occupancy_percent",
            "gpm_integer_active_percent", "gpm_tensor_active_percent", "gpm_dram_active_percent",
            "gpm_fp64_active_percent", "gpm_fp32_active_percent", "gpm_fp16_active_percent",
            "gpm_pcie_tx_bytes_per_second", "gpm_pcie_rx_bytes_per_second",
            "gpm_nvlink_tx_bytes_per_second", "gpm_nvlink_rx_bytes_per_second"}


def test_gpm():
    env = sim_env(scn="gpm/unsupported.ini", pinned=45)
    rc, out, err = run(["status", "--json", "--no-procs"], env, timeout=10)
    check_eq(rc, 0, "status --json", err)
    plain = documents(out, "status --json")[0]
    rc, out, err = run(["status", "--json", "--no-procs", "--gpm"], env, timeout=10)
    check_eq(rc, 0, "status --json --gpm", err)
    gpm = documents(out, "status --json --gpm")[0]
    for a, b in zip(plain["gpus"], gpm["gpus"]):
        check(not any(k.startswith("gpm_") for k in a), "no gpm_* without --gpm", a)
        check_eq(set(b) - set(a), GPM_KEYS, f"GPU {b['index']}: keys --gpm adds")
    g0, g1, g2 = gpm["gpus"]
    check(all(isinstance(g0[k], (int, float)) for k in GPM_KEYS), "GPU 0: GPM numbers", g0)
    check(g0["gpm_sm_active_percent"] > 50, "GPU 0 trains: SM activity", g0)
    for g in (g1, g2):
        check(all(g[k] is None for k in GPM_KEYS), "no GPM: null, never 0", g)
        check(all(g["unavailable"].get(k) == "not_supported" for k in GPM_KEYS),
              "no GPM: not_supported", g["unavailable"])


if __name__ == "__main__":
    main([test_failure_documents, test_no_permission, test_interval_into_failure, test_gpm])
