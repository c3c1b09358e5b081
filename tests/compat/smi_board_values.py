#!/usr/bin/env python3
"""smi_board_values.py -- values that real boards print, per board (issue 28
point 9): gpumon -q and --query-gpu on the simulator must print what the
same kind of board prints under a real driver, not N/A.

Each row of CASES names a scenario, gpumon's arguments, the GPU (bus id for
-q, index for --query-gpu), the value's place and the value a real board
prints, and the source of that value (the GeForce, L40S and H100 rows of the
--query-gpu fields added for point 8 are checked the same way).  Sources:

  CAP  utkuozdemir/nvidia_gpu_exporter internal/captures/ (commit
       e656cd81a180e7e0e7862b53c9acd4c2fb0f590b): nvidia-smi -q and
       --query-gpu of a GeForce RTX 2080 SUPER and 4080 SUPER (595.71.05),
       H100 80GB HBM3 and H100 with MIG (590.48.01), L40S (595.80).
  TG   the -q -x of a GeForce board (350 W, driver 530) pasted in
       influxdata/telegraf#12996: <gpu_target_temp_min>65 C</...>,
       <gpu_target_temp_max>90 C</...>.
  A5K  the -q -x of an NVIDIA RTX A5000 (brand "NVIDIA RTX", driver
       590.44.01) in influxdata/telegraf
       plugins/inputs/nvidia_smi/testdata/dual_a5000-v13.xml: target 84 C,
       range 65-89 C.  Simulated as rtx-a5000.ini below (an Ampere workstation
       board: the RTX 4090 preset with the workstation brand; no preset is a
       workstation board).

The simulated boards are not the captured ones (an RTX 4090 and an RTX 4060
Laptop GPU for GeForce, an A100 with MIG for MIG): each row checks the value
that board class prints (GeForce: a target temperature, JPEG and OFA at 0 %
when idle; a MIG device: SRAM Uncorrectable 0 and Reserved 0 MiB;
datacenter: no target temperature), not a board's own number.

Usage: smi_board_values.py GPUMON SIMLIB
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "..", "..", "scenarios")

# (scenario, time, args, gpu, path, expected, source).  path: the -q labels
# from the GPU block down, joined by " / " (every occurrence must match, so a
# MIG device row checks each MIG device); for --query-gpu, the field name.
Q_FULL = ["-q"]
Q_GPU = ["query", "--format=csv", "--query-gpu=" + ",".join([
    "utilization.jpeg", "utilization.ofa", "pci.baseClass", "pci.subClass", "gsp.mode.current",
    "gsp.mode.default", "protected_memory.total", "protected_memory.used",
    "protected_memory.free", "ecc.errors.uncorrected.volatile.sram.parity",
    "ecc.errors.uncorrected.aggregate.sram.secded",
    "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded",
    "ecc.errors.uncorrected.aggregate.sram.other", "c2c.mode", "inforom.checksum_validation",
    "kmd_version", "gpu_recovery_action", "addressing_mode"])]
CASES = [
    # GeForce: JPEG and OFA engines answer 0 % (CAP 2080 SUPER, 4080 SUPER)
    ("workstation.ini", 45, Q_FULL, "00000000:01:00.0", "Utilization / JPEG", "0 %", "CAP"),
    ("workstation.ini", 45, Q_FULL, "00000000:01:00.0", "Utilization / OFA", "0 %", "CAP"),
    ("workstation.ini", 45, Q_FULL, "00000000:02:00.0", "Utilization / JPEG", "0 %", "CAP"),
    # GeForce: the target temperature (CAP: 84 C on both GeForce boards)
    ("workstation.ini", 45, Q_FULL, "00000000:01:00.0",
     "Temperature / GPU Target Temperature", "84 C", "CAP"),
    ("workstation.ini", 45, Q_FULL, "00000000:02:00.0",
     "Temperature / GPU Target Temperature", "84 C", "CAP"),
    # and its range (TG)
    ("workstation.ini", 45, ["-q", "-d", "SUPPORTED_GPU_TARGET_TEMP"], "00000000:01:00.0",
     "Supported GPU Target Temp / GPU Target Temp Min", "65 C", "TG"),
    ("workstation.ini", 45, ["-q", "-d", "SUPPORTED_GPU_TARGET_TEMP"], "00000000:01:00.0",
     "Supported GPU Target Temp / GPU Target Temp Max", "90 C", "TG"),
    # workstation boards too (A5K)
    ("rtx-a5000.ini", 45, Q_FULL, "00000000:18:00.0",
     "Temperature / GPU Target Temperature", "84 C", "A5K"),
    ("rtx-a5000.ini", 45, ["-q", "-d", "SUPPORTED_GPU_TARGET_TEMP"], "00000000:18:00.0",
     "Supported GPU Target Temp / GPU Target Temp Min", "65 C", "A5K"),
    ("rtx-a5000.ini", 45, ["-q", "-d", "SUPPORTED_GPU_TARGET_TEMP"], "00000000:18:00.0",
     "Supported GPU Target Temp / GPU Target Temp Max", "89 C", "A5K"),
    # datacenter boards have none (CAP H100, L40S): the model must not give
    # every board one
    ("h100x8-training.ini", 45, Q_FULL, "00000000:18:00.0",
     "Temperature / GPU Target Temperature", "N/A", "CAP"),
    ("h100x8-training.ini", 45, Q_FULL, "00000000:18:00.0", "Utilization / JPEG", "0 %", "CAP"),
    # MIG devices (CAP H100 with MIG: every MIG device)
    ("a100-mig.ini", 45, Q_FULL, "00000000:18:00.0",
     "MIG Devices / MIG Device / ECC Errors / Volatile / SRAM Uncorrectable", "0", "CAP"),
    ("a100-mig.ini", 45, Q_FULL, "00000000:18:00.0",
     "MIG Devices / MIG Device / FB Memory Usage / Reserved", "0 MiB", "CAP"),
    # a GPU with MIG on has no JPEG utilisation (CAP H100 with MIG: N/A)
    ("a100-mig.ini", 45, Q_FULL, "00000000:18:00.0", "Utilization / JPEG", "N/A", "CAP"),
    # protected memory with CC off (CAP: 0 MiB on every board)
    ("workstation.ini", 45, Q_FULL, "00000000:01:00.0",
     "Conf Compute Protected Memory Usage / Total", "0 MiB", "CAP"),
    # the --query-gpu fields of drivers 570-595 (point 8), as the captures print them
    ("workstation.ini", 45, Q_GPU, 0, "utilization.jpeg", "0 %", "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "utilization.ofa", "0 %", "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "pci.baseClass", "0x3", "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "pci.subClass", "0x0", "CAP"),  # display on
    ("workstation.ini", 45, Q_GPU, 0, "protected_memory.total", "0 MiB", "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "protected_memory.free", "0 MiB", "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "ecc.errors.uncorrected.volatile.sram.parity", "[N/A]",
     "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "c2c.mode", "[N/A]", "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "inforom.checksum_validation", "valid", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "pci.subClass", "0x2", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "gsp.mode.current", "Enabled", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "gsp.mode.default", "Enabled", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "c2c.mode", "Disabled", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "protected_memory.used", "0 MiB", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "ecc.errors.uncorrected.volatile.sram.parity", "0",
     "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "ecc.errors.uncorrected.aggregate.sram.secded", "0",
     "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0,
     "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded", "No", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "ecc.errors.uncorrected.aggregate.sram.other", "0",
     "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "utilization.jpeg", "0 %", "CAP"),
    ("a100-mig.ini", 45, Q_GPU, 0, "utilization.ofa", "[N/A]", "CAP"),  # MIG on
    ("workstation.ini", 45, Q_GPU, 0, "gpu_recovery_action", "None", "CAP"),
    ("workstation.ini", 45, Q_GPU, 0, "addressing_mode", "HMM", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "addressing_mode", "None", "CAP"),
    ("h100x8-training.ini", 45, Q_FULL, "00000000:18:00.0", "Addressing Mode", "None", "CAP"),
    ("h100x8-training.ini", 45, Q_GPU, 0, "gpu_recovery_action", "None", "CAP"),
    # kmd_version is driver_version under 595's name (CAP: equal on every board)
    ("workstation.ini", 45, Q_GPU, 1, "kmd_version", "550.107.02", "CAP"),
]


# scenarios of this test only, written to a temporary directory
OWN_SCENARIOS = {
    "rtx-a5000.ini": "[machine]\ndriver_version = 590.44.01\n"
                     "[gpu.0]\nmodel = RTX-4090\nname = NVIDIA RTX A5000\n"
                     "brand = nvidia_rtx\narchitecture = ampere\n",
}


def run(gpumon, lib, scenario, t, args, own_dir):
    path = (os.path.join(own_dir, scenario) if scenario in OWN_SCENARIOS
            else os.path.join(SCENARIOS, scenario))
    env = dict(os.environ)
    env.update({"GPUSIM_SCENARIO": path,
                "GPUSIM_SCENARIO_DIR": SCENARIOS, "GPUSIM_TIME": str(t),
                "GPUMON_NVML_LIB": lib, "TZ": "UTC", "LC_ALL": "C"})
    p = subprocess.run([gpumon] + args, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("gpumon %s on %s: exit %d: %s"
                           % (" ".join(args), scenario, p.returncode, p.stderr.strip()))
    return p.stdout


def q_values(text, bus):
    """The (path, value) pairs of one GPU block of a -q report."""
    out, stack, inside = [], [], False
    for line in text.splitlines():
        if line.startswith("GPU "):
            inside = line[4:].strip() == bus
            stack = []
            continue
        if not inside or not line.strip():
            continue
        depth = (len(line) - len(line.lstrip(" "))) // 4 - 1
        label, sep, value = line.strip().partition(":")
        label = label.strip()
        del stack[depth:]
        if sep and value.strip():
            out.append((" / ".join(stack + [label]), value.strip()))
        else:
            stack.append(label)
    return out


def query_value(text, gpu, field):
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    head = [h.split(" [")[0] for h in rows[0]]
    return rows[1 + gpu][head.index(field)]


def main():
    gpumon, lib = sys.argv[1], sys.argv[2]
    bad = 0
    cache = {}
    own = tempfile.TemporaryDirectory(prefix="gm-board-values-")
    for name, text in OWN_SCENARIOS.items():
        with open(os.path.join(own.name, name), "w", encoding="utf-8") as f:
            f.write(text)
    for scenario, t, args, gpu, path, want, src in CASES:
        key = (scenario, t, tuple(args))
        if key not in cache:
            cache[key] = run(gpumon, lib, scenario, t, args, own.name)
        text = cache[key]
        if any(a.startswith("--query-gpu") for a in args):
            got = [query_value(text, gpu, path)]
        else:
            got = [v for p, v in q_values(text, gpu) if p == path]
        where = "%s GPU %s %s (%s)" % (scenario, gpu, path, " ".join(args))
        if not got:
            print("FAIL %s: not printed; a real board prints %r [%s]" % (where, want, src))
            bad += 1
        elif any(g != want for g in got):
            print("FAIL %s: gpumon prints %r, a real board %r [%s]" % (where, got, want, src))
            bad += 1
        else:
            print("ok   %s = %r (x%d) [%s]" % (where, want, len(got), src))
    own.cleanup()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
