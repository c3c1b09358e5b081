#!/usr/bin/env python3
"""GPM (Hopper and later) through the exporter, under both name sets.

Scenario gpm/unsupported.ini at a pinned time: GPU 0 an H100 with GPM, GPU 1
an H100 whose nvmlGpmSampleGet is NOT_SUPPORTED, GPU 2 an A100 (no GPM).

  native_names: `serve --print` has the 13 gpumon_gpm_* families (activities
      as _ratio 0-1, PCIe and NVLink as _bytes_per_second) with a series for
      GPU 0 only (absent, never 0, for GPUs 1 and 2), and each value is the
      `query --query-gpu=gpm.*` value of the same scenario time (percent / 100,
      MiB/s * 1048576, to the query's rounding).
  dcgm_names: `--names dcgm` has dcgm-exporter's DCGM_FI_PROF_* names for the
      same values (GR_ENGINE_ACTIVE, SM_ACTIVE, SM_OCCUPANCY,
      PIPE_TENSOR_ACTIVE, DRAM_ACTIVE, PIPE_FP64/32/16_ACTIVE as 0-1 ratios
      with their fraction; PCIE/NVLINK_TX/RX_BYTES in bytes/s), GPU 0 only,
      and promtool parses it (only dcgm-exporter's own lints).
  agent_csv: the agent at 1 s with CSV columns gpm.sm_active,gpm.nvlink_tx:
      the first sample's GPU 0 cells are empty with "not_available" (no
      interval yet, not 0), later ones have numbers; GPUs 1 and 2 are
      "not_supported" on every row.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import csv
import glob
import os
import signal
import subprocess
import tempfile
import time

from agentlib import GPUMON, check, check_eq, main
from exporter_lib import families, need, parse_samples, run_gpumon, serve_print, sim_env

SCN = "gpm/unsupported.ini"
T = 45

# (query key, native family, dcgm family, ratio?)
ROWS = [
    ("gpm.graphics_active", "gpumon_gpm_graphics_active_ratio", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", 1),
    ("gpm.sm_active", "gpumon_gpm_sm_active_ratio", "DCGM_FI_PROF_SM_ACTIVE", 1),
    ("gpm.sm_occupancy", "gpumon_gpm_sm_occupancy_ratio", "DCGM_FI_PROF_SM_OCCUPANCY", 1),
    ("gpm.integer_active", "gpumon_gpm_integer_active_ratio", None, 1),
    ("gpm.tensor_active", "gpumon_gpm_tensor_active_ratio", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 1),
    ("gpm.dram_active", "gpumon_gpm_dram_active_ratio", "DCGM_FI_PROF_DRAM_ACTIVE", 1),
    ("gpm.fp64_active", "gpumon_gpm_fp64_active_ratio", "DCGM_FI_PROF_PIPE_FP64_ACTIVE", 1),
    ("gpm.fp32_active", "gpumon_gpm_fp32_active_ratio", "DCGM_FI_PROF_PIPE_FP32_ACTIVE", 1),
    ("gpm.fp16_active", "gpumon_gpm_fp16_active_ratio", "DCGM_FI_PROF_PIPE_FP16_ACTIVE", 1),
    ("gpm.pcie_tx", "gpumon_gpm_pcie_tx_bytes_per_second", "DCGM_FI_PROF_PCIE_TX_BYTES", 0),
    ("gpm.pcie_rx", "gpumon_gpm_pcie_rx_bytes_per_second", "DCGM_FI_PROF_PCIE_RX_BYTES", 0),
    ("gpm.nvlink_tx", "gpumon_gpm_nvlink_tx_bytes_per_second", "DCGM_FI_PROF_NVLINK_TX_BYTES", 0),
    ("gpm.nvlink_rx", "gpumon_gpm_nvlink_rx_bytes_per_second", "DCGM_FI_PROF_NVLINK_RX_BYTES", 0),
]


def query_values(env):
    """{key: float} of GPU 0 from `query --format=csv,noheader,nounits`, and
    the other GPUs' cells (which must be [N/A])."""
    keys = [r[0] for r in ROWS]
    rc, out, err = run_gpumon(["query", "--query-gpu=" + ",".join(keys),
                               "--format=csv,noheader,nounits"], env)
    check_eq(rc, 0, "query exit", err)
    lines = out.splitlines()
    check_eq(len(lines), 3, "query lines", out)
    first = [c.strip() for c in lines[0].split(",")]
    for line in lines[1:]:
        check(all(c.strip() == "[N/A]" for c in line.split(",")),
              "a GPU without GPM reads [N/A]", line)
    return {k: float(v) for k, v in zip(keys, first)}


def by_name(text):
    out = {}
    for name, labels, v in parse_samples(text):
        out.setdefault(name, {})[labels.get("gpu")] = v
    return out


def compare(samples, q, col):
    for row in ROWS:
        fam = row[col]
        if fam is None:
            continue
        check(fam in samples, "family missing", fam)
        check_eq(sorted(samples[fam]), ["0"], f"{fam}: GPUs with a series")
        v = samples[fam]["0"]
        if row[3]:
            check(0 <= v <= 1, f"{fam} is a 0-1 ratio", v)
            check(abs(v - q[row[0]] / 100) <= 0.0005 + 1e-9, f"{fam} = {row[0]} / 100", v, q[row[0]])
        else:
            # query prints whole MiB/s (rounded down)
            check(0 <= v / 1048576 - q[row[0]] < 1, f"{fam} = {row[0]} MiB/s", v, q[row[0]])


def native_names():
    env = sim_env(SCN, pinned=T)
    q = query_values(env)
    rc, out, err = serve_print(env)
    check_eq(rc, 0, "serve --print exit", err)
    compare(by_name(out), q, 1)
    fams = families(out)
    for row in ROWS:
        check_eq(fams.get(row[1]), "gauge", f"{row[1]} type")


def dcgm_names():
    env = sim_env(SCN, pinned=T)
    q = query_values(env)
    rc, out, err = serve_print(env, "--names", "dcgm")
    check_eq(rc, 0, "serve --print --names dcgm exit", err)
    s = by_name(out)
    compare(s, q, 2)
    check(not any(n.startswith("gpumon_gpm_") for n in s), "no native GPM names under dcgm")
    # the activities keep their fraction (dcgm-exporter's PROF ratios are not whole numbers)
    check(s["DCGM_FI_PROF_SM_ACTIVE"]["0"] not in (0.0, 1.0), "SM_ACTIVE has a fraction",
          s["DCGM_FI_PROF_SM_ACTIVE"]["0"])
    need("promtool")
    p = subprocess.run(["promtool", "check", "metrics"], input=out.encode(), capture_output=True)
    lines = (p.stdout + p.stderr).decode(errors="replace")
    check("error while linting" not in lines, "promtool parses the dcgm set", lines)


def agent_csv():
    env = sim_env(SCN)
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.Popen([GPUMON, "agent", "--no-config", "--data-dir", d, "--interval", "1s",
                              "--no-store", "--no-exporter", "--columns",
                              "index,gpm.sm_active,gpm.nvlink_tx"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(3.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=15)
        check_eq(p.returncode, 0, "agent exit", err.decode(errors="replace"))
        files = [f for f in glob.glob(os.path.join(d, "**", "*.csv"), recursive=True)
                 if "_events_" not in f]
        check_eq(len(files), 1, "CSV files", files)
        rows = list(csv.DictReader(open(files[0], newline="")))
    gpu0 = [r for r in rows if r["gpu"] == "0"]
    check(len(gpu0) >= 3, "at least 3 samples of GPU 0", rows)
    first = gpu0[0]
    check_eq((first["gpm_sm_active_percent"], first["gpm_nvlink_tx_mibps"]), ("", ""),
             "first interval: empty cells")
    check("gpm_sm_active_percent:not_available" in first["status"], "first: not_available", first)
    for r in gpu0[1:]:
        check(50 < float(r["gpm_sm_active_percent"]) <= 100, "later: SM activity", r)
        check(float(r["gpm_nvlink_tx_mibps"]) > 1000, "later: NVLink MiB/s", r)
    for r in rows:
        if r["gpu"] != "0":
            check("gpm_sm_active_percent:not_supported" in r["status"], "no GPM: not_supported", r)


if __name__ == "__main__":
    main([native_names, dcgm_names, agent_csv])
