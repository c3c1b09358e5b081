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
  mig_names: scenario gpm/mig.ini (GPU 0 an H100 with four MIG GPU
      instances, jobs in two; GPU 1 an H100 whose nvmlGpmMigSampleGet is
      NOT_SUPPORTED; GPU 2 an A100 in MIG mode): each instance of GPU 0 has
      a series in each activity family with its MIG labels (ours: mig_uuid,
      gpu_instance_id, compute_instance_id, mig_profile; dcgm-exporter's:
      GPU_I_PROFILE, GPU_I_ID beside the parent's UUID) whose value is the
      instance's `status --json --gpm` value (idle instances a real 0), and
      none in the PCIe/NVLink families (device-wide in NVML); the instances
      of GPUs 1 and 2 have no GPM series; every label set is unique and
      promtool parses both sets.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import csv
import glob
import json
import os
import signal
import subprocess
import tempfile

from agentlib import GPUMON, check, check_eq, main, wait_until
from exporter_lib import (families, need, parse_samples, promtool_check_metrics, run_gpumon,
                          serve_print, sim_env)

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


def gpu_csv_rows(d):
    """The rows of the GPU CSV file under d (none while there is none)."""
    files = [f for f in glob.glob(os.path.join(d, "**", "*.csv"), recursive=True)
             if "_events_" not in f]
    if len(files) != 1:
        return files, []
    with open(files[0], newline="") as f:
        return files, list(csv.DictReader(f))


def agent_csv():
    env = sim_env(SCN)
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.Popen([GPUMON, "agent", "--no-config", "--data-dir", d, "--interval", "1s",
                              "--no-store", "--no-exporter", "--columns",
                              "index,gpm.sm_active,gpm.nvlink_tx"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            # three samples of GPU 0 written, however long a loaded machine takes
            wait_until(lambda: p.poll() is not None or
                       sum(r["gpu"] == "0" for r in gpu_csv_rows(d)[1]) >= 3,
                       "3 samples of GPU 0 in the CSV file")
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        check_eq(p.returncode, 0, "agent exit", err.decode(errors="replace"))
        files, rows = gpu_csv_rows(d)
        check_eq(len(files), 1, "CSV files", files)
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


MIG_SCN = "gpm/mig.ini"
MIG_T = 60


def mig_status(env):
    """GPU list of `status --json --gpm` on the MIG scenario."""
    rc, out, err = run_gpumon(["status", "--json", "--gpm"], env)
    check_eq(rc, 0, "status --json --gpm exit", err)
    return json.loads(out)["gpus"]


def json_key(query_key):
    """gpm.sm_active -> gpm_sm_active_percent / gpm.pcie_tx -> ..._bytes_per_second"""
    stem = query_key.replace(".", "_")
    return stem + ("_bytes_per_second" if stem.endswith(("_tx", "_rx")) else "_percent")


def check_mig_set(out, gpus, col, label_of):
    """The MIG series of each family in column col of ROWS, against the
    instances' JSON values; label_of(labels) -> (gpu, gpu instance id) of a
    MIG series or None for a GPU's own."""
    samples = parse_samples(out)
    seen = set()
    for name, labels, _ in samples:
        key = (name, tuple(sorted(labels.items())))
        check(key not in seen, "duplicate series", name, labels)
        seen.add(key)
    for row in ROWS:
        fam = row[col]
        if fam is None:
            continue
        mig = {}
        for name, labels, v in samples:
            if name == fam and label_of(labels) is not None:
                mig[label_of(labels)] = (labels, v)
        if not row[3]:  # PCIe, NVLink: the GPU's own, no instance has them
            check_eq(mig, {}, f"{fam}: no MIG series")
            continue
        want = {}
        for g in gpus:
            for m in g["mig_devices"]:
                v = m[json_key(row[0])]
                if v is not None:
                    want[(str(g["index"]), str(m["gpu_instance_id"]))] = (m, v)
                else:
                    check_eq(m["unavailable"].get(json_key(row[0])), "not_supported",
                             f"GPU {g['index']} MIG {m['index']} {row[0]}: why null")
        check_eq(sorted(want), [("0", "1"), ("0", "3"), ("0", "7"), ("0", "8")],
                 f"{row[0]}: instances with a value")
        check_eq(sorted(mig), sorted(want), f"{fam}: instances with a series")
        for k, (m, v) in want.items():
            labels, got = mig[k]
            check(abs(got - v / 100) <= 1e-12, f"{fam} {k} = JSON / 100", got, v)
            if col == 1:
                check_eq((labels.get("mig_uuid"), labels.get("compute_instance_id"),
                          labels.get("mig_profile")),
                         (m["uuid"], str(m["compute_instance_id"]), m["profile"]),
                         f"{fam} {k}: MIG labels")
            else:
                check_eq((labels.get("GPU_I_PROFILE"), labels.get("UUID")),
                         (m["profile"], gpus[int(k[0])]["uuid"]), f"{fam} {k}: dcgm labels")
                check("mig_uuid" not in labels, "no native MIG labels under dcgm", labels)
        busy = {k: v for k, (m, v) in want.items()}
        if row[0] == "gpm.sm_active":
            check(busy[("0", "1")] > 50 and busy[("0", "7")] > 50, "busy instances", busy)
            check(busy[("0", "3")] == 0 and busy[("0", "8")] == 0, "idle instances: 0", busy)


def mig_names():
    env = sim_env(MIG_SCN, pinned=MIG_T)
    gpus = mig_status(env)
    rc, out, err = serve_print(env)
    check_eq(rc, 0, "serve --print exit", err)
    check_mig_set(out, gpus, 1, lambda lb: (lb["gpu"], lb["gpu_instance_id"])
                  if "mig_uuid" in lb else None)
    rc, code = promtool_check_metrics(out)
    check("error while linting" not in code, "promtool parses the native set", code)
    rc, out, err = serve_print(env, "--names", "dcgm")
    check_eq(rc, 0, "serve --print --names dcgm exit", err)
    check_mig_set(out, gpus, 2, lambda lb: (lb["gpu"], lb["GPU_I_ID"])
                  if "GPU_I_ID" in lb else None)
    rc, code = promtool_check_metrics(out)
    check("error while linting" not in code, "promtool parses the dcgm set", code)


if __name__ == "__main__":
    main([native_names, dcgm_names, agent_csv, mig_names])
