#!/usr/bin/env python3
"""telegraf_xml.py -- gpumon -q -x read the way Telegraf's nvidia_smi input
reads nvidia-smi's XML (issue 28 points 9 and 10).

Telegraf (influxdata/telegraf plugins/inputs/nvidia_smi/nvidia_smi.go)
picks its parser by the DOCTYPE's `nvsmi_device_vNN.dtd`: v11, v12 or v13
(schema_v13, for drivers that write DTD v13).  gpumon writes the v12 layout
and says so (docs/compat-q.md, "DTD version"), so Telegraf reads it with
schema_v12/parser.go.  The elements that parser reads, and how it converts
them (common.SetIfUsed: the first word of the text, "x" cut from the link
width, then strconv.Atoi or ParseFloat; a value that does not convert is
left out), are GPU_FIELDS and MIG_FIELDS below, copied from
schema_v12/parser.go (commit 0e497010d000a33c81b8999d8296f6bdc89fdab2).
Telegraf is not run here (no Go toolchain); this is its reading, field by
field.  Fails when

  * the DOCTYPE does not name nvsmi_device_v12.dtd (the layout written), or
    the document holds an element only the v13 layout has
    (gpu_power_readings' v13 children are not checked: both have it);
  * an element the v12 parser reads is missing from a GPU or MIG device;
  * a field in MUST_CONVERT (per scenario) would be dropped: N/A or text
    where the simulated board has the value.  Point 9's MIG fields
    (sram_uncorrectable, memory_fb_reserved: 0 on a real A100/H100) and
    GeForce's utilization_jpeg are among them.

Usage: telegraf_xml.py GPUMON SIMLIB SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

# (Telegraf field, kind, element path under <gpu>) from schema_v12/parser.go
GPU_FIELDS = [
    ("serial", "str", "serial"),
    ("vbios_version", "str", "vbios_version"),
    ("display_active", "str", "display_active"),
    ("display_mode", "str", "display_mode"),
    ("current_ecc", "str", "ecc_mode/current_ecc"),
    ("fan_speed", "int", "fan_speed"),
    ("memory_total", "int", "fb_memory_usage/total"),
    ("memory_used", "int", "fb_memory_usage/used"),
    ("memory_free", "int", "fb_memory_usage/free"),
    ("memory_reserved", "int", "fb_memory_usage/reserved"),
    ("retired_pages_multiple_single_bit", "int",
     "retired_pages/multiple_single_bit_retirement/retired_count"),
    ("retired_pages_double_bit", "int", "retired_pages/double_bit_retirement/retired_count"),
    ("retired_pages_blacklist", "str", "retired_pages/pending_blacklist"),
    ("retired_pages_pending", "str", "retired_pages/pending_retirement"),
    ("temperature_gpu", "int", "temperature/gpu_temp"),
    ("utilization_gpu", "int", "utilization/gpu_util"),
    ("utilization_memory", "int", "utilization/memory_util"),
    ("utilization_encoder", "int", "utilization/encoder_util"),
    ("utilization_decoder", "int", "utilization/decoder_util"),
    ("utilization_jpeg", "int", "utilization/jpeg_util"),
    ("utilization_ofa", "int", "utilization/ofa_util"),
    ("pcie_link_gen_current", "int", "pci/pci_gpu_link_info/pcie_gen/current_link_gen"),
    ("pcie_link_width_current", "int", "pci/pci_gpu_link_info/link_widths/current_link_width"),
    ("encoder_stats_session_count", "int", "encoder_stats/session_count"),
    ("encoder_stats_average_fps", "int", "encoder_stats/average_fps"),
    ("encoder_stats_average_latency", "int", "encoder_stats/average_latency"),
    ("fbc_stats_session_count", "int", "fbc_stats/session_count"),
    ("fbc_stats_average_fps", "int", "fbc_stats/average_fps"),
    ("fbc_stats_average_latency", "int", "fbc_stats/average_latency"),
    ("clocks_current_graphics", "int", "clocks/graphics_clock"),
    ("clocks_current_sm", "int", "clocks/sm_clock"),
    ("clocks_current_memory", "int", "clocks/mem_clock"),
    ("clocks_current_video", "int", "clocks/video_clock"),
    ("power_draw", "float", "gpu_power_readings/power_draw"),
    ("module_power_draw", "float", "module_power_readings/power_draw"),
]
# remapped_rows is mixed content in the DTD (N/A on boards without it): its
# four children are checked where the board has them (MUST_CONVERT)
REMAP_FIELDS = [
    ("remapped_rows_correctable", "int", "remapped_rows/remapped_row_corr"),
    ("remapped_rows_uncorrectable", "int", "remapped_rows/remapped_row_unc"),
    ("remapped_rows_pending", "str", "remapped_rows/remapped_row_pending"),
    ("remapped_rows_failure", "str", "remapped_rows/remapped_row_failure"),
]
MIG_FIELDS = [
    ("sram_uncorrectable", "int", "ecc_error_count/volatile_count/sram_uncorrectable"),
    ("memory_fb_total", "int", "fb_memory_usage/total"),
    ("memory_fb_reserved", "int", "fb_memory_usage/reserved"),
    ("memory_fb_used", "int", "fb_memory_usage/used"),
    ("memory_fb_free", "int", "fb_memory_usage/free"),
    ("memory_bar1_total", "int", "bar1_memory_usage/total"),
    ("memory_bar1_used", "int", "bar1_memory_usage/used"),
    ("memory_bar1_free", "int", "bar1_memory_usage/free"),
]
# elements of the v13 layout that v12 does not have (schema_v13/types.go
# against schema_v12/types.go): written only under a v13 DOCTYPE
V13_ONLY = ["c2c_mode", "platformInfo", "power_smoothing", "power_profiles", "pdi",
            "gpu_recovery_action", "edpp_multiplier", "dram_encryption_mode",
            "inforom_bbx_flush", "gpu_memory_power_readings", "capabilities",
            "clocks_event_reasons_counters"]

CORE = ["memory_total", "memory_used", "memory_free", "memory_reserved", "temperature_gpu",
        "utilization_gpu", "utilization_memory", "clocks_current_graphics", "clocks_current_sm",
        "clocks_current_memory", "pcie_link_gen_current", "pcie_link_width_current"]
# scenario -> (Telegraf fields that must convert on every GPU, on MIG devices)
MUST_CONVERT = {
    "h100x8-training.ini": (CORE + ["power_draw", "utilization_jpeg", "utilization_ofa",
                                    "remapped_rows_correctable", "remapped_rows_uncorrectable"],
                            []),
    "workstation.ini": (CORE + ["utilization_jpeg", "utilization_ofa"], []),
    "a100-mig.ini": (["memory_total", "memory_used", "temperature_gpu", "power_draw"],
                     [f for f, _, _ in MIG_FIELDS]),
}


def convert(field, kind, text):
    """The value Telegraf's common.SetIfUsed records, or None (left out)."""
    words = (text or "").split()
    if not words:
        return None
    v = words[0]
    if field == "pcie_link_width_current":
        v = v[:-1] if v.endswith("x") else v
    try:
        return int(v) if kind == "int" else float(v) if kind == "float" else v
    except ValueError:
        return None


def main():
    gpumon, lib, root = sys.argv[1], sys.argv[2], sys.argv[3]
    bad = 0
    for scenario, (must_gpu, must_mig) in MUST_CONVERT.items():
        env = dict(os.environ)
        env.update({"GPUMON_NVML_LIB": lib, "GPUSIM_TIME": "45", "TZ": "UTC", "LC_ALL": "C",
                    "GPUSIM_SCENARIO": os.path.join(root, "scenarios", scenario),
                    "GPUSIM_SCENARIO_DIR": os.path.join(root, "scenarios")})
        p = subprocess.run([gpumon, "-q", "-x"], env=env, capture_output=True, text=True,
                           timeout=120)
        if p.returncode != 0:
            print("FAIL %s: gpumon -q -x exit %d: %s" % (scenario, p.returncode, p.stderr))
            bad += 1
            continue
        m = re.search(r'<!DOCTYPE nvidia_smi_log SYSTEM "(nvsmi_device_v\d+\.dtd)">', p.stdout)
        if not m or m.group(1) != "nvsmi_device_v12.dtd":
            print("FAIL %s: DOCTYPE %s, not nvsmi_device_v12.dtd"
                  % (scenario, m.group(1) if m else "missing"))
            bad += 1
        doc = ET.fromstring(p.stdout.encode())
        gpus = doc.findall("gpu")
        if not gpus:
            print("FAIL %s: no <gpu>" % scenario)
            bad += 1
        recorded = 0
        for gi, gpu in enumerate(gpus):
            for tag in V13_ONLY:
                if gpu.find(tag) is not None:
                    print("FAIL %s GPU %d: <%s> is v13's layout under a v12 DOCTYPE"
                          % (scenario, gi, tag))
                    bad += 1
            has_remap = gpu.find("remapped_rows/remapped_row_corr") is not None
            for field, kind, path in GPU_FIELDS + (REMAP_FIELDS if has_remap else []):
                el = gpu.find(path)
                if el is None:
                    print("FAIL %s GPU %d: <%s> missing (Telegraf's %s)"
                          % (scenario, gi, path, field))
                    bad += 1
                    continue
                v = convert(field, kind, el.text)
                recorded += v is not None
                if field in must_gpu and v is None:
                    print("FAIL %s GPU %d: %s = %r: Telegraf leaves it out"
                          % (scenario, gi, field, el.text))
                    bad += 1
            for f in must_gpu:
                if f.startswith("remapped_rows") and not has_remap:
                    print("FAIL %s GPU %d: no remapped rows block" % (scenario, gi))
                    bad += 1
            for mi, dev in enumerate(gpu.findall("mig_devices/mig_device")):
                for field, kind, path in MIG_FIELDS:
                    el = dev.find(path)
                    v = convert(field, kind, el.text) if el is not None else None
                    recorded += v is not None
                    if el is None or (field in must_mig and v is None):
                        print("FAIL %s GPU %d MIG %d: %s = %r: Telegraf leaves it out"
                              % (scenario, gi, mi, field, None if el is None else el.text))
                        bad += 1
        print("%s: %d GPUs, %d fields Telegraf's v12 parser records"
              % (scenario, len(gpus), recorded))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
