#!/usr/bin/env python3
"""NVLink, application clocks and power average vs instant through the
exporter, under both name sets (issue 14).

  native_names: on the HGX H100 scenario (NVSwitch, 18 links a GPU) at a
      pinned time, `serve --print` has gpumon_nvlink_links_active (18) and
      gpumon_nvlink_links_down (0) on every GPU, the
      counters gpumon_nvlink_transmitted/received_bytes_total (the query's
      nvlink_tx_bytes/nvlink_rx_bytes, growing with scenario time), the four
      gpumon_nvlink_*_errors_total counters (0), the application clocks in
      hertz (the query's clocks.applications.* in MHz * 1e6), and both
      gpumon_power_draw_average_watts and _instant_watts (the query's
      power.draw.average / power.draw.instant); promtool accepts the page.
  pcie_only: on the 16-GPU PCIe scenario no gpumon_nvlink_* series exists
      (absent, never 0), while the application clocks and power series do.
  dcgm_names: `--names dcgm` has DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL (MiB,
      transmitted + received) and the REPLAY, RECOVERY, CRC_FLIT and CRC_DATA
      error count totals; DCGM_FI_DEV_NVLINK_BANDWIDTH_L0 is link 0's
      transmitted + received (`status --json --nvlink`, nvlinks[0]) in whole
      MiB, on every GPU.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import shutil

from agentlib import check, check_eq, main
from exporter_lib import families, parse_samples, promtool_check_metrics, run_gpumon, serve_print, \
    sim_env

T = 300


def by_name(text):
    out = {}
    for name, labels, v in parse_samples(text):
        out.setdefault(name, {})[labels.get("gpu")] = v
    return out


def query(env, keys):
    rc, out, err = run_gpumon(["query", "--query-gpu=" + ",".join(keys), "-i", "0",
                               "--format=csv,noheader,nounits"], env)
    check_eq(rc, 0, "query exit", err)
    return [float(c) for c in out.strip().split(",")]


def native_names():
    env = sim_env("h100x8-training.ini", pinned=T)
    rc, out, err = serve_print(env)
    check_eq(rc, 0, "serve --print exit", err)
    s = by_name(out)
    fams = families(out)
    check_eq(s["gpumon_nvlink_links_active"]["0"], 18.0, "links up on GPU 0")
    check_eq(len(s["gpumon_nvlink_links_active"]), 8, "every GPU has NVLink")
    check_eq(s["gpumon_nvlink_links_down"], {str(i): 0.0 for i in range(8)}, "no link down")
    tx, rx, avg, inst, gr, mem = query(env, ["nvlink_tx_bytes", "nvlink_rx_bytes",
                                             "power.draw.average", "power.draw.instant",
                                             "clocks.applications.graphics",
                                             "clocks.applications.memory"])
    for fam, mib in (("gpumon_nvlink_transmitted_bytes_total", tx),
                     ("gpumon_nvlink_received_bytes_total", rx)):
        check_eq(fams.get(fam), "counter", fam + " type")
        v = s[fam]["0"]
        check(v > 0 and abs(v / 1048576 - mib) <= 1, f"{fam} {v} is the query's {mib} MiB")
    for e in ("replay", "recovery", "crc_flit", "crc_data"):
        check_eq(s[f"gpumon_nvlink_{e}_errors_total"]["0"], 0.0, e + " errors")
    check(abs(s["gpumon_power_draw_average_watts"]["0"] - avg) < 0.01, "average power", avg)
    check(abs(s["gpumon_power_draw_instant_watts"]["0"] - inst) < 0.01, "instant power", inst)
    check(avg != inst, "average and instant differ at this time", avg, inst)
    check_eq(s["gpumon_clock_applications_graphics_hertz"]["0"], gr * 1e6, "app graphics clock")
    check_eq(s["gpumon_clock_applications_memory_hertz"]["0"], mem * 1e6, "app memory clock")
    # the counters grow with scenario time
    rc, later, err = serve_print(sim_env("h100x8-training.ini", pinned=T + 60))
    check_eq(rc, 0, "serve --print exit (later)", err)
    check(by_name(later)["gpumon_nvlink_transmitted_bytes_total"]["0"] >
          s["gpumon_nvlink_transmitted_bytes_total"]["0"], "transmitted bytes grow")
    if shutil.which("promtool"):
        prc, pout = promtool_check_metrics(out)
        check_eq(prc, 0, "promtool check metrics", pout)


def pcie_only():
    env = sim_env("a100x16-mixed.ini", pinned=T)
    rc, out, err = serve_print(env)
    check_eq(rc, 0, "serve --print exit", err)
    s = by_name(out)
    check(not any(n.startswith("gpumon_nvlink_") for n in s), "no NVLink series without NVLink",
          [n for n in s if n.startswith("gpumon_nvlink_")])
    check_eq(len(s["gpumon_clock_applications_graphics_hertz"]), 16, "app clocks on every GPU")
    check_eq(len(s["gpumon_power_draw_average_watts"]), 16, "average power on every GPU")


def dcgm_names():
    env = sim_env("h100x8-training.ini", pinned=T)
    rc, out, err = serve_print(env, "--names", "dcgm")
    check_eq(rc, 0, "serve --print --names dcgm exit", err)
    s = by_name(out)
    tx, rx = query(env, ["nvlink_tx_bytes", "nvlink_rx_bytes"])
    total = s["DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"]["0"]
    check(abs(total - (tx + rx)) <= 2, f"bandwidth total {total} MiB = tx + rx {tx + rx}")
    for e in ("REPLAY", "RECOVERY", "CRC_FLIT", "CRC_DATA"):
        check_eq(s[f"DCGM_FI_DEV_NVLINK_{e}_ERROR_COUNT_TOTAL"]["0"], 0.0, e)
    rc, js, err = run_gpumon(["status", "--json", "--nvlink"], env)
    check_eq(rc, 0, "status --json --nvlink exit", err)
    gpus = json.loads(js)["gpus"]
    l0 = s.get("DCGM_FI_DEV_NVLINK_BANDWIDTH_L0", {})
    check_eq(len(l0), len(gpus), "NVLINK_BANDWIDTH_L0 on every GPU")
    for g in gpus:
        link = g["nvlinks"][0]
        want = (link["tx_bytes"] + link["rx_bytes"]) // 1048576
        check_eq(l0[str(g["index"])], float(want), f"GPU {g['index']}: L0 = link 0 tx + rx, MiB")


if __name__ == "__main__":
    main([native_names, pcie_only, dcgm_names])
