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
  nvlink:            the NVLink keys on the HGX H100 scenario (a single
                     sample: the link states and error counters are real on
                     it, not the 10 s reuse's empty first read): 18 links up
                     on every GPU and none down, tx + rx = total, bytes equal to the
                     query's, the four error counters 0; on every PCIe-only
                     board of the other shipped scenarios each NVLink key is
                     null with not_supported, never 0; a scenario that makes
                     the error counters NOT_SUPPORTED on one GPU and the TX
                     counter on another nulls only those keys (and the total,
                     which needs TX); two links down (nvlink_down = 3,17)
                     show as 16 up and 2 down.
  nvlink_each:       --nvlink adds exactly "nvlinks" to each GPU object: on the
                     H100 scenario 18 links 0-17, up, version 4, each ending
                     at one of the four NVSwitches (E0-E3), error counters 0,
                     per-link bytes adding up to the GPU's nvlink_tx/rx_bytes;
                     two links down: "down", no traffic, error counters null
                     (not read for a link that is down); version and far end
                     NOT_SUPPORTED on one GPU: null with the reason, the
                     rest real; a PCIe-only board: []
                     with "nvlinks": "not_supported"; without --nvlink no key.
  nvlink_faults:     the calls only --nvlink makes, failed on purpose
                     (GPUSIM_FAIL; tests/e2e/fault_sweep.py sweeps the
                     document without --nvlink): version refused -> null,
                     not_permitted on every link of that GPU; far end
                     failing -> null, error; a link's state failing (2nd
                     call: link 1) -> that link's state and error counters
                     null with error, the list names the error, the other
                     links whole; GPU_IS_LOST -> the GPU is lost; the other
                     GPUs exactly as without the faults.
  power_clocks:      power_draw_average_watts and power_draw_instant_watts
                     are the query's power.draw.average / .instant, and
                     power_draw_watts is the average (nvmlDeviceGetPowerUsage
                     on Hopper); the application clocks are the query's
                     clocks.applications.* / clocks.default_applications.*;
                     a board without power readings has both power keys null
                     with not_supported.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import re
import time

from agentlib import ROOT, Scratch, check, check_eq, main, run, scenario, sim_env

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


NVLINK_KEYS = ["nvlink_links", "nvlink_links_down", "nvlink_tx_bytes", "nvlink_rx_bytes",
               "nvlink_total_bytes", "nvlink_replay_errors", "nvlink_recovery_errors",
               "nvlink_crc_flit_errors", "nvlink_crc_data_errors"]
NVLINK_ERRORS = NVLINK_KEYS[5:]


def status_doc(env, what):
    rc, out, err = run(["status", "--json", "--no-procs"], env, timeout=10)
    check_eq(rc, 0, f"{what}: status --json", err)
    docs = documents(out, what)
    check_eq(len(docs), 1, f"{what}: documents", out)
    return docs[0]


def query_row(env, gpu, keys):
    """The query's CSV values of GPU gpu for keys (nounits), as text."""
    rc, out, err = run(["query", "--query-gpu=" + ",".join(keys), "-i", str(gpu),
                        "--format=csv,noheader,nounits"], env, timeout=10)
    check_eq(rc, 0, "query", err)
    return [c.strip() for c in out.strip().split(",")]


def test_nvlink():
    env = sim_env(scn="h100x8-training.ini", pinned=300)
    d = status_doc(env, "H100 NVSwitch")
    check_eq(len(d["gpus"]), 8, "GPUs")
    for g in d["gpus"]:
        what = f"H100 GPU {g['index']}"
        missing = [k for k in NVLINK_KEYS if k not in g]
        check(not missing, f"{what}: NVLink keys missing from status --json: {missing}", g)
        check_eq((g["nvlink_links"], g["nvlink_links_down"]), (18, 0),
                 f"{what}: links up (NV18), none down", g)
        check(not any(k in g["unavailable"] for k in NVLINK_KEYS),
              f"{what}: no NVLink key unavailable", g["unavailable"])
        tx, rx, tot = g["nvlink_tx_bytes"], g["nvlink_rx_bytes"], g["nvlink_total_bytes"]
        check(all(isinstance(v, int) and v > 0 for v in (tx, rx, tot)),
              f"{what}: NVLink byte counters are whole numbers > 0 (training traffic)", g)
        check_eq(tot, tx + rx, f"{what}: total = tx + rx")
        check(all(g[k] == 0 for k in NVLINK_ERRORS), f"{what}: error counters 0", g)
    # the same counters as the query (which the exporter's tests pin)
    qtx, qrx = query_row(env, 0, ["nvlink_tx_bytes", "nvlink_rx_bytes"])
    g0 = d["gpus"][0]
    check_eq((g0["nvlink_tx_bytes"] // 1048576, g0["nvlink_rx_bytes"] // 1048576),
             (int(float(qtx)), int(float(qrx))), "GPU 0: status --json bytes = the query's MiB")

    # PCIe-only boards: no NVLink, said so, never 0
    for scn in ("a100x16-mixed.ini", "a100-mig.ini", "workstation.ini", "inference-leak.ini",
                "flags.ini", "many-processes.ini"):
        d = status_doc(sim_env(scn=scn, pinned=120), scn)
        for g in d["gpus"]:
            what = f"{scn} GPU {g['index']}"
            check(all(k in g and g[k] is None for k in NVLINK_KEYS),
                  f"{what}: a PCIe-only board shows NVLink values",
                  {k: g.get(k) for k in NVLINK_KEYS})
            check(all(g["unavailable"].get(k) == "not_supported" for k in NVLINK_KEYS),
                  f"{what}: NVLink keys not_supported", g["unavailable"])

    # one call of the group NOT_SUPPORTED: only its keys go null
    text = open(scenario("h100x8-training.ini"), encoding="utf-8").read()
    text += ("\n[gpu.1]\nunsupported = nvmlDeviceGetNvLinkErrorCounter\n"
             "\n[gpu.2]\nunsupported = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX\n"
             "\n[gpu.4]\nnvlink_down = 3,17\n")
    with Scratch("nvl") as tmp:
        path = os.path.join(tmp, "nvlink-partial.ini")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        d = status_doc(sim_env(scn=path, pinned=300), "partial NVLink")
    g1, g2 = d["gpus"][1], d["gpus"][2]
    check_eq(g1["nvlink_links"], 18, "GPU 1: links still up", g1)
    check(all(g1[k] is None and g1["unavailable"].get(k) == "not_supported"
              for k in NVLINK_ERRORS), "GPU 1: error counters null, not_supported", g1)
    check(g1["nvlink_tx_bytes"] > 0, "GPU 1: throughput still there", g1)
    check_eq((g2["nvlink_tx_bytes"], g2["nvlink_total_bytes"]), (None, None),
             "GPU 2: tx and total null", g2)
    check_eq(g2["unavailable"].get("nvlink_tx_bytes"), "not_supported", "GPU 2: tx reason")
    check(g2["nvlink_rx_bytes"] > 0 and g2["nvlink_links"] == 18, "GPU 2: rx and links", g2)
    # two links down: counted, and the traffic still flows over the others
    g4 = d["gpus"][4]
    check_eq((g4["nvlink_links"], g4["nvlink_links_down"]), (16, 2), "GPU 4: links up, down", g4)
    check(g4["nvlink_tx_bytes"] > 0 and g4["nvlink_replay_errors"] == 0, "GPU 4: counters", g4)
    check_eq(d["gpus"][5]["nvlink_links_down"], 0, "GPU 5: none down")


def test_nvlink_each():
    text = open(scenario("h100x8-training.ini"), encoding="utf-8").read()
    text += ("\n[gpu.4]\nnvlink_down = 3,17\n"
             "\n[gpu.6]\nunsupported = nvmlDeviceGetNvLinkVersion,"
             "nvmlDeviceGetNvLinkRemotePciInfo_v2\n")
    with Scratch("nve") as tmp:
        path = os.path.join(tmp, "nvlink-down.ini")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        env = sim_env(scn=path, pinned=300)
        plain = status_doc(env, "without --nvlink")
        rc, out, err = run(["status", "--json", "--no-procs", "--nvlink"], env, timeout=10)
        check_eq(rc, 0, "status --json --nvlink", err)
        d = documents(out, "status --json --nvlink")[0]
    for a, b in zip(plain["gpus"], d["gpus"]):
        check("nvlinks" not in a, "no nvlinks without --nvlink", a)
        check_eq(set(b) - set(a), {"nvlinks"}, f"GPU {b['index']}: keys --nvlink adds")
    for g in d["gpus"]:
        what = f"H100 GPU {g['index']}"
        links = g["nvlinks"]
        check_eq([x["link"] for x in links], list(range(18)), f"{what}: links 0-17")
        down = {3, 17} if g["index"] == 4 else set()
        check_eq({x["link"] for x in links if x["state"] == "down"}, down, f"{what}: links down")
        for x in links:
            lw = f"{what} link {x['link']}"
            if g["index"] == 6:  # the driver gives neither: null, said why, the rest real
                check_eq((x["version"], x["remote_pci_bus_id"], x["state"]), (None, None, "up"),
                         f"{lw}: version and far end unsupported", x)
                check_eq(x["unavailable"], {"version": "not_supported",
                                            "remote_pci_bus_id": "not_supported"},
                         f"{lw}: reasons")
                continue
            check_eq(x["version"], 4, f"{lw}: NVLink 4")
            check_eq(x["remote_pci_bus_id"], "00000000:E%d:00.0" % (x["link"] % 4),
                     f"{lw}: far end (NVSwitch)")
            if x["link"] in down:
                check_eq((x["tx_bytes"], x["rx_bytes"]), (0, 0), f"{lw}: no traffic", x)
                check(all(x[k] is None and x["unavailable"][k] == "not_available"
                          for k in ("replay_errors", "recovery_errors", "crc_flit_errors",
                                    "crc_data_errors")), f"{lw}: counters not read", x)
            else:
                check(x["tx_bytes"] > 0 and x["rx_bytes"] > 0, f"{lw}: traffic", x)
                check_eq((x["replay_errors"], x["crc_data_errors"], x["unavailable"]), (0, 0, {}),
                         f"{lw}: counters", x)
        # each link's counter is whole KiB of the sum: they add up to it less rounding
        for k in ("tx", "rx"):
            s = sum(x[f"{k}_bytes"] for x in links)
            check(0 <= g[f"nvlink_{k}_bytes"] - s <= 1024 * len(links),
                  f"{what}: per-link {k} bytes add up to nvlink_{k}_bytes", (s, g))
    # a PCIe-only board: an empty list that says why
    rc, out, err = run(["status", "--json", "--no-procs", "--nvlink"],
                       sim_env(scn="workstation.ini", pinned=120), timeout=10)
    check_eq(rc, 0, "workstation --nvlink", err)
    for g in documents(out, "workstation --nvlink")[0]["gpus"]:
        check_eq((g["nvlinks"], g["unavailable"].get("nvlinks")), ([], "not_supported"),
                 f"PCIe GPU {g['index']}: no links, not_supported")


def test_nvlink_faults():
    base_env = sim_env(scn="h100x8-training.ini", pinned=300)
    rc, out, err = run(["status", "--json", "--no-procs", "--nvlink"], base_env, timeout=10)
    check_eq(rc, 0, "status --json --nvlink", err)
    base = documents(out, "without faults")[0]
    env = dict(base_env, GPUSIM_FAIL=",".join([
        "nvmlDeviceGetNvLinkVersion@1:*:NVML_ERROR_NO_PERMISSION",
        "nvmlDeviceGetNvLinkRemotePciInfo_v2@2:*:NVML_ERROR_UNKNOWN",
        "nvmlDeviceGetNvLinkRemotePciInfo_v2@3:*:NVML_ERROR_GPU_IS_LOST",
        "nvmlDeviceGetNvLinkState@4:2:NVML_ERROR_UNKNOWN"]))
    rc, out, err = run(["status", "--json", "--no-procs", "--nvlink"], env, timeout=10)
    check_eq(rc, 0, "status --json --nvlink with faults", err)
    got = documents(out, "with faults")[0]
    g1, g2, g3, g4 = (got["gpus"][i] for i in (1, 2, 3, 4))
    for x in g1["nvlinks"]:
        check_eq((x["version"], x["unavailable"]), (None, {"version": "not_permitted"}),
                 f"GPU 1 link {x['link']}: version refused", x)
    check(all(x["state"] == "up" and x["tx_bytes"] > 0 for x in g1["nvlinks"]),
          "GPU 1: the rest real", g1["nvlinks"])
    for x in g2["nvlinks"]:
        check_eq((x["remote_pci_bus_id"], x["unavailable"]),
                 (None, {"remote_pci_bus_id": "error"}), f"GPU 2 link {x['link']}: far end", x)
    check_eq((g3["status"], g3["nvlinks"], g3["unavailable"].get("nvlinks")), ("lost", [], None),
             "GPU 3: lost, no links (like its MIG devices and processes)", g3)
    l1 = g4["nvlinks"][1]
    check_eq((l1["state"], l1["replay_errors"], l1["unavailable"].get("state")),
             (None, None, "error"), "GPU 4 link 1: state failed", l1)
    check_eq(g4["unavailable"].get("nvlinks"), "error", "GPU 4: the list names the error")
    check_eq(len(g4["nvlinks"]), 18, "GPU 4: every link listed")
    check(all(x["state"] == "up" and x["unavailable"] == {}
              for x in g4["nvlinks"] if x["link"] != 1), "GPU 4: the other links whole", g4)
    check_eq(g4["nvlink_links"], None, "GPU 4: the count is not known", g4)
    # a simulated process's start (docs/simulator.md) is each run's own
    # session start, not the pinned scenario time: left out of the comparison
    def steady(g):
        g = dict(g)
        g["processes"] = [{k: v for k, v in p.items() if k not in ("start_time",
                                                                     "elapsed_seconds")}
                          for p in g["processes"]]
        return g
    for i in (0, 5, 6, 7):
        a, b = steady(base["gpus"][i]), steady(got["gpus"][i])
        check_eq(b, a, f"GPU {i}: as without the faults")


def test_power_clocks():
    env = sim_env(scn="h100x8-training.ini", pinned=300)
    d = status_doc(env, "H100")
    keys = ["power.draw", "power.draw.average", "power.draw.instant",
            "clocks.applications.graphics", "clocks.applications.memory",
            "clocks.default_applications.graphics", "clocks.default_applications.memory"]
    jkeys = ["power_draw_watts", "power_draw_average_watts", "power_draw_instant_watts",
             "clocks_applications_graphics_mhz", "clocks_applications_memory_mhz",
             "clocks_default_applications_graphics_mhz", "clocks_default_applications_memory_mhz"]
    for g in d["gpus"]:
        what = f"H100 GPU {g['index']}"
        q = query_row(env, g["index"], keys)
        for k, qk, qv in zip(jkeys, keys, q):
            v = g.get(k)
            check(isinstance(v, (int, float)), f"{what}: {k} is a number", g)
            check(abs(v - float(qv)) < 0.006, f"{what}: {k} {v} is the query's {qk} {qv}")
        check_eq(g["power_draw_watts"], g["power_draw_average_watts"],
                 f"{what}: power.draw is the 1 s average on Hopper")
    # the laptop GPU of the workstation reads no power at all
    d = status_doc(sim_env(scn="workstation.ini", pinned=120), "workstation")
    g = d["gpus"][1]
    for k in ("power_draw_watts", "power_draw_average_watts", "power_draw_instant_watts"):
        check(g[k] is None and g["unavailable"].get(k) == "not_supported",
              f"laptop GPU: {k} null, not_supported", g)
    check(isinstance(g["clocks_applications_graphics_mhz"], int), "laptop GPU: app clock", g)


if __name__ == "__main__":
    main([test_failure_documents, test_no_permission, test_interval_into_failure, test_gpm,
          test_nvlink, test_nvlink_each, test_nvlink_faults, test_power_clocks])
