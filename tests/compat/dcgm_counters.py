#!/usr/bin/env python3
"""dcgm-exporter's counter lists against `gpumon serve --names dcgm`.

tests/compat/dcgm_counters.txt is derived from dcgm-exporter's
etc/default-counters.csv and etc/dcp-metrics-included.csv (its header names
the commit): every DCGM_FI_* field, enabled or commented out, and where
gpumon exports it.

  listed: the list has dcgm-exporter's 26 enabled fields and 31 commented
      ones, each once, and says for each either a scenario or why it is
      absent (vGPU; the power InfoROM object the simulator does not answer).
  exported: `serve --print --names dcgm` with every label field asked for
      (--dcgm-label-fields) on each scenario the list names has each field
      it names for it: a family with at least one sample for the gauges and
      counters, a label on DCGM_FI_DEV_GPU_TEMP for the label fields; the
      enabled fields of the default list are all there but vGPU's.
  absent_is_absent: a field the list says is absent is on none of those
      scenarios (so the list cannot go stale in the other direction).
  no_hostname: `--no-hostname` (dcgm-exporter's flag), and the
      configuration's `hostname = false` in [exporter], leave the Hostname
      label, there by default, off every series.
  mig_instance_memory: on a GPU in MIG mode, the memory fields DCGM reads
      from the GPU instance's own NVML device (NVIDIA/DCGM
      dcgmlib/src/DcgmCacheManager.cpp: ReadAndCacheFBMemoryInfo for
      FB_TOTAL/USED/FREE/RESERVED, the DCGM_FI_DEV_BAR1_* case, both on the
      instance's handle for a DCGM_FE_GPU_I entity) are one series per GPU
      instance with that instance's values, as `gpumon -q -x` reads them
      per MIG device (a separate reading path: source/nvml_q.c and the
      sample), on an A100 and an H100 in MIG mode.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))

from agentlib import ROOT, check, check_eq, main  # noqa: E402
from exporter_lib import parse_samples, run_gpumon, serve_print, sim_env  # noqa: E402

LIST = os.path.join(ROOT, "tests", "compat", "dcgm_counters.txt")
PINNED = 100


def rows():
    out = []
    with open(LIST, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split(" ", 3)
            check(len(parts) == 4, f"{LIST}:{n}: four columns", line)
            out.append(tuple(parts) + (n,))
    return out


def exposition(scn, *extra):
    labels = ",".join(f for f, t, _, _, _ in rows() if t == "label")
    rc, out, err = serve_print(sim_env(scn, pinned=PINNED), "--names", "dcgm",
                               "--dcgm-label-fields", labels, *extra)
    check_eq(rc, 0, f"serve --print --names dcgm on {scn}", err)
    return parse_samples(out)


_cache = {}


def exported(scn):
    """(family names with samples, label names on DCGM_FI_DEV_GPU_TEMP) on scn."""
    if scn not in _cache:
        s = exposition(scn)
        fams = {name for name, _, _ in s}
        labels = set()
        for name, lab, _ in s:
            if name == "DCGM_FI_DEV_GPU_TEMP":
                labels |= set(lab)
        _cache[scn] = (fams, labels)
    return _cache[scn]


def test_listed():
    r = rows()
    names = [f for f, _, _, _, _ in r]
    check_eq(len(names), len(set(names)), "each field once")
    check_eq(sum(1 for x in r if x[2] == "enabled"), 26, "enabled fields")
    check_eq(sum(1 for x in r if x[2] == "commented"), 31, "commented-out fields")
    for f, t, state, where, n in r:
        check(t in ("gauge", "counter", "label"), f"{LIST}:{n}: type {t}")
        check(where.startswith(("absent: ", "absent-sim: ")) or where.endswith(".ini"),
              f"{LIST}:{n}: a scenario or the reason it is absent", where)
        if where.endswith(".ini"):
            check(os.path.exists(os.path.join(ROOT, "scenarios", where)),
                  f"{LIST}:{n}: scenario {where} exists")


def test_exported():
    missing = []
    for f, t, state, where, n in rows():
        if not where.endswith(".ini"):
            continue
        fams, labels = exported(where)
        have = f in labels if t == "label" else f in fams
        if not have:
            missing.append(f"{f} ({state}, {where})")
    check(not missing, "dcgm-exporter fields gpumon does not export", *missing)


def test_absent_is_absent():
    scns = sorted({w for _, _, _, w, _ in rows() if w.endswith(".ini")})
    for f, t, state, where, n in rows():
        if where.endswith(".ini"):
            continue
        for scn in scns:
            fams, labels = exported(scn)
            check(f not in fams and f not in labels,
                  f"{LIST}:{n}: {f} is said to be absent but {scn} exports it")


def test_no_hostname():
    s = exposition("h100x8-training.ini")
    check(all("Hostname" in lab for _, lab, _ in s), "Hostname on every series by default",
          [n for n, lab, _ in s if "Hostname" not in lab][:5])
    s = exposition("h100x8-training.ini", "--no-hostname")
    check(s, "series with --no-hostname")
    check(not any("Hostname" in lab for _, lab, _ in s), "no Hostname with --no-hostname")
    # the configuration key of the same name (docs/config.md: hostname)
    with tempfile.TemporaryDirectory(prefix="gpumon-dcgm-") as d:
        conf = os.path.join(d, "gpumon.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write("[exporter]\nnames = dcgm\nhostname = false\n")
        rc, out, err = run_gpumon(["serve", "--config", conf, "--print"],
                                  sim_env("h100x8-training.ini", pinned=PINNED))
        check_eq(rc, 0, "serve --config (hostname = false) --print", err)
        s = parse_samples(out)
        check(any(n.startswith("DCGM_FI_") for n, _, _ in s), "dcgm names from the file", out[:300])
        check(not any("Hostname" in lab for _, lab, _ in s), "no Hostname with hostname = false")


# DCGM field -> the element of -q -x's <mig_device> that holds the same
# NVML answer (MiB)
MIG_MEMORY = {
    "DCGM_FI_DEV_FB_TOTAL": "fb_memory_usage/total",
    "DCGM_FI_DEV_FB_USED": "fb_memory_usage/used",
    "DCGM_FI_DEV_FB_FREE": "fb_memory_usage/free",
    "DCGM_FI_DEV_FB_RESERVED": "fb_memory_usage/reserved",
    "DCGM_FI_DEV_BAR1_TOTAL": "bar1_memory_usage/total",
    "DCGM_FI_DEV_BAR1_USED": "bar1_memory_usage/used",
}


def test_mig_instance_memory():
    for scn in ("a100-mig.ini", "gpm/mig.ini"):
        env = sim_env(scn, pinned=PINNED)
        rc, out, err = run_gpumon(["-q", "-x", "-i", "0"], env)
        check_eq(rc, 0, f"gpumon -q -x -i 0 on {scn}", err)
        want = {}
        for md in ET.fromstring(out).iter("mig_device"):
            gi = md.findtext("gpu_instance_id")
            for field, path in MIG_MEMORY.items():
                text = md.findtext(path) or ""
                check(text.endswith(" MiB"), f"{scn}: MIG device GI {gi} {path}", text)
                want.setdefault((field, gi), int(text.split()[0]))
        check(len({gi for _, gi in want}) >= 2, f"{scn}: GPU 0's GPU instances in -q -x", out[:200])
        got = {}
        for name, lab, v in exposition(scn):
            if name in MIG_MEMORY and lab.get("gpu") == "0":
                check("GPU_I_ID" in lab, f"{scn}: {name} of a MIG GPU without GPU_I_ID", lab)
                key = (name, lab["GPU_I_ID"])
                check(key not in got, f"{scn}: {name} twice for GPU instance {key[1]}")
                got[key] = v
        bad = [f"{f} GPU_I_ID={gi}: exported {got.get((f, gi))}, -q -x {w}"
               for (f, gi), w in sorted(want.items()) if got.get((f, gi)) != w]
        check(not bad, f"{scn}: per-instance memory differs from the MIG device's", *bad)
        check_eq(sorted(got), sorted(want), f"{scn}: the same (field, GPU instance) pairs")


if __name__ == "__main__":
    main([test_listed, test_exported, test_absent_is_absent, test_no_hostname,
          test_mig_instance_memory])
