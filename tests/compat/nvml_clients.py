#!/usr/bin/env python3
"""nvml_clients.py -- replays, call for call, how real NVML clients use the
library, against the simulator, and checks what they would show.

pynvml, gpustat and nvtop cannot be installed here (no PyPI), so this script
re-enacts their NVML traffic with ctypes, following the call sequences in
shared/reference/nvml-abi.md:

  * pynvml + gpustat (fact sheet 4 and 4.1): nvmlInitWithFlags(0); eager
    nothing, lazy dlsym per call; MemoryInfo_v2 probed by symbol with
    version 0x02000028; process lists through _v3 with the count=0/NULL
    sizing call and a count*2+5 retry; GetSamples' sizing call must succeed,
    GetProcessUtilization's must return INSUFFICIENT_SIZE; GPU_IS_LOST turns
    into a "((GPU is lost))" row.
  * nvtop (fact sheet 7): dlopen of the unversioned libnvidia-ml.so, every
    required symbol resolved up front, nvmlInit_v2, MemoryInfo_v2 with the
    wrong version 2 (FUNCTION_NOT_FOUND, then fall back to v1), processes
    _v3 -> _v2 -> v1 grown by a fixed step from 0 until success, process
    utilisation skipped when MIG is on, busIdLegacy as the device key.
  * pynvml's GPM (fact sheet 2.19, 4): nvmlGpmQueryDeviceSupport with
    version 1, nvmlGpmSampleAlloc twice, nvmlGpmSampleGet, a sleep,
    nvmlGpmSampleGet, nvmlGpmMetricsGet with pynvml's struct of
    NVML_GPM_METRIC_MAX = 98 slots, nvmlGpmSampleFree; its values are
    checked against `gpumon query --query-gpu=gpm.*` at the same pinned
    scenario time (GPUMON, the third argument); per MIG GPU instance the
    same with nvmlGpmMigSampleGet on the parent's handle, against each MIG
    entry of `gpumon status --json --gpm`.

Usage: nvml_clients.py LIB [LEGACY_LIB [GPUMON]]
LIB is build/sim/libnvidia-ml.so.1; LEGACY_LIB defaults to the legacy/
variant next to it, GPUMON to build/src/gpumon beside build/sim/.  Exit status 0 when every check passes.
"""

import ctypes as C
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.environ.get("GPUSIM_SCENARIO_DIR",
                           os.path.join(HERE, "..", "..", "scenarios"))

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_INSUFFICIENT_SIZE = 7
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18
NVML_VALUE_NOT_AVAILABLE = 0xFFFFFFFFFFFFFFFF
NVML_MEMORY_V2 = 0x02000028


class Memory(C.Structure):
    _fields_ = [("total", C.c_ulonglong), ("free", C.c_ulonglong), ("used", C.c_ulonglong)]


class MemoryV2(C.Structure):
    _fields_ = [("version", C.c_uint), ("total", C.c_ulonglong), ("reserved", C.c_ulonglong),
                ("free", C.c_ulonglong), ("used", C.c_ulonglong)]


class ProcessInfoV1(C.Structure):
    _fields_ = [("pid", C.c_uint), ("usedGpuMemory", C.c_ulonglong)]


class ProcessInfo(C.Structure):  # nvmlProcessInfo_v2_t, used by _v2 and _v3
    _fields_ = [("pid", C.c_uint), ("usedGpuMemory", C.c_ulonglong),
                ("gpuInstanceId", C.c_uint), ("computeInstanceId", C.c_uint)]


class Utilization(C.Structure):
    _fields_ = [("gpu", C.c_uint), ("memory", C.c_uint)]


class PciInfo(C.Structure):
    _fields_ = [("busIdLegacy", C.c_char * 16), ("domain", C.c_uint), ("bus", C.c_uint),
                ("device", C.c_uint), ("pciDeviceId", C.c_uint), ("pciSubSystemId", C.c_uint),
                ("busId", C.c_char * 32)]


class Value(C.Union):  # pynvml's c_nvmlValue_t (no usVal)
    _fields_ = [("dVal", C.c_double), ("uiVal", C.c_uint), ("ulVal", C.c_ulong),
                ("ullVal", C.c_ulonglong), ("sllVal", C.c_longlong)]


class Sample(C.Structure):
    _fields_ = [("timeStamp", C.c_ulonglong), ("sampleValue", Value)]


class ProcessUtilizationSample(C.Structure):
    _fields_ = [("pid", C.c_uint), ("timeStamp", C.c_ulonglong), ("smUtil", C.c_uint),
                ("memUtil", C.c_uint), ("encUtil", C.c_uint), ("decUtil", C.c_uint)]


assert C.sizeof(MemoryV2) == 40 and C.sizeof(ProcessInfo) == 24
assert C.sizeof(ProcessInfoV1) == 16 and C.sizeof(PciInfo) == 68
assert C.sizeof(ProcessUtilizationSample) == 32 and C.sizeof(Sample) == 16


class NVMLError(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Lib:
    """A pynvml-style wrapper: symbols are looked up lazily, per call."""

    def __init__(self, path):
        self.dll = C.CDLL(path)
        self.cache = {}

    def has(self, name):
        try:
            getattr(self.dll, name)
            return True
        except AttributeError:
            return False

    def fn(self, name):
        if name not in self.cache:
            f = getattr(self.dll, name)  # AttributeError = FunctionNotFound in pynvml
            f.restype = C.c_int
            self.cache[name] = f
        return self.cache[name]

    def call(self, name, *args):
        return self.fn(name)(*args)

    def check(self, name, *args):
        r = self.call(name, *args)
        if r != NVML_SUCCESS:
            raise NVMLError(r)
        return r

    def error_string(self, code):
        f = self.dll.nvmlErrorString
        f.restype = C.c_char_p
        return f(code).decode()


def set_env(scenario, t=None, **extra):
    os.environ["GPUSIM_SCENARIO"] = os.path.join(SCENARIOS, scenario)
    for k in ("GPUSIM_TIME", "GPUSIM_EPOCH", "GPUSIM_SPEED"):
        os.environ.pop(k, None)
    if t is not None:
        os.environ["GPUSIM_TIME"] = str(t)
    os.environ.update(extra)


# ------------------------------------------------------------------ pynvml


def pynvml_processes(lib, handle, symbol):
    """nvidia-ml-py's nvmlDeviceGet*RunningProcesses: count=0/NULL, then
    count*2+5 entries; SUCCESS on the first call means no processes."""
    count = C.c_uint(0)
    r = lib.call(symbol, handle, C.byref(count), None)
    if r == NVML_SUCCESS:
        return []
    if r != NVML_ERROR_INSUFFICIENT_SIZE:
        raise NVMLError(r)
    count.value = count.value * 2 + 5
    arr = (ProcessInfo * count.value)()
    lib.check(symbol, handle, C.byref(count), arr)
    return [arr[i] for i in range(count.value)]


def pynvml_samples(lib, handle, stype, last_seen=0):
    vtype = C.c_int(0)
    count = C.c_uint(0)
    lib.check("nvmlDeviceGetSamples", handle, stype, C.c_ulonglong(last_seen), C.byref(vtype),
              C.byref(count), None)
    arr = (Sample * count.value)()
    lib.check("nvmlDeviceGetSamples", handle, stype, C.c_ulonglong(last_seen), C.byref(vtype),
              C.byref(count), arr)
    assert vtype.value == 1, "samples are unsigned int"
    return [arr[i] for i in range(count.value)]


def pynvml_process_utilization(lib, handle, last_seen):
    count = C.c_uint(0)
    r = lib.call("nvmlDeviceGetProcessUtilization", handle, None, C.byref(count),
                 C.c_ulonglong(last_seen))
    if r != NVML_ERROR_INSUFFICIENT_SIZE:
        raise NVMLError(r)
    arr = (ProcessUtilizationSample * count.value)()
    lib.check("nvmlDeviceGetProcessUtilization", handle, arr, C.byref(count),
              C.c_ulonglong(last_seen))
    return [arr[i] for i in range(count.value)]


def gpustat_query(lib):
    """gpustat.core.GPUStatCollection.new_query(), NVML calls in order."""
    lib.check("nvmlInitWithFlags", 0)
    try:
        n = C.c_uint(0)
        lib.check("nvmlDeviceGetCount_v2", C.byref(n))
        gpus = []
        for i in range(n.value):
            h = C.c_void_p()
            r = lib.call("nvmlDeviceGetHandleByIndex_v2", i, C.byref(h))
            if r == NVML_ERROR_GPU_IS_LOST:
                gpus.append({"index": i, "error": "((GPU is lost))"})
                continue
            if r == 999:
                gpus.append({"index": i, "error": "((Unknown Error))"})
                continue
            if r != NVML_SUCCESS:
                raise NVMLError(r)
            g = {"index": i}
            idx = C.c_uint()
            lib.check("nvmlDeviceGetIndex", h, C.byref(idx))
            assert idx.value == i
            buf = C.create_string_buffer(96)
            lib.check("nvmlDeviceGetName", h, buf, 96)
            g["name"] = buf.value.decode()
            lib.check("nvmlDeviceGetUUID", h, buf, 96)
            g["uuid"] = buf.value.decode()

            def guarded(name, *args):
                r = lib.call(name, *args)
                return r == NVML_SUCCESS

            v = C.c_uint()
            period = C.c_uint()
            g["temperature"] = v.value if guarded("nvmlDeviceGetTemperature", h, 0,
                                                  C.byref(v)) else None
            g["fan"] = v.value if guarded("nvmlDeviceGetFanSpeed", h, C.byref(v)) else None
            if lib.has("nvmlDeviceGetMemoryInfo_v2"):
                m = MemoryV2(version=NVML_MEMORY_V2)
                lib.check("nvmlDeviceGetMemoryInfo_v2", h, C.byref(m))
            else:
                m = Memory()
                lib.check("nvmlDeviceGetMemoryInfo", h, C.byref(m))
            g["memory.used"], g["memory.total"] = m.used, m.total
            u = Utilization()
            g["utilization"] = u.gpu if guarded("nvmlDeviceGetUtilizationRates", h,
                                                C.byref(u)) else None
            g["enc"] = v.value if guarded("nvmlDeviceGetEncoderUtilization", h, C.byref(v),
                                          C.byref(period)) else None
            g["dec"] = v.value if guarded("nvmlDeviceGetDecoderUtilization", h, C.byref(v),
                                          C.byref(period)) else None
            g["power.draw"] = v.value if guarded("nvmlDeviceGetPowerUsage", h,
                                                 C.byref(v)) else None
            g["power.limit"] = v.value if guarded("nvmlDeviceGetEnforcedPowerLimit", h,
                                                  C.byref(v)) else None
            # gpustat's patched _nvmlGetFunctionPointer falls back _v3 -> _v2.
            suffix = "_v3" if lib.has("nvmlDeviceGetComputeRunningProcesses_v3") else "_v2"
            try:
                g["processes"] = (
                    pynvml_processes(lib, h, "nvmlDeviceGetComputeRunningProcesses" + suffix)
                    + pynvml_processes(lib, h, "nvmlDeviceGetGraphicsRunningProcesses" + suffix))
            except NVMLError:
                g["processes"] = None
            g["handle"] = h
            gpus.append(g)
        buf = C.create_string_buffer(80)
        driver = buf.value.decode() if lib.call("nvmlSystemGetDriverVersion", buf,
                                                80) == 0 else None
        return gpus, driver
    finally:
        lib.check("nvmlShutdown")


def test_gpustat_demo(path):
    lib = Lib(path)
    set_env("h100x8-training.ini", 300)
    gpus, driver = gpustat_query(lib)
    assert driver == "550.54.15", driver
    assert len(gpus) == 8
    for g in gpus:
        assert g["name"] == "NVIDIA H100 80GB HBM3", g["name"]
        assert g["uuid"].startswith("GPU-") and len(g["uuid"]) == 40
        assert g["fan"] is None, "datacenter boards are fanless"
        assert g["power.limit"] == 700000
        assert 0 < g["power.draw"] <= 700000
        assert g["processes"] is not None
        used = sum(p.usedGpuMemory for p in g["processes"])
        assert g["memory.used"] >= used, (g["memory.used"], used)
    assert len({g["uuid"] for g in gpus}) == 8
    assert gpus[0]["utilization"] >= 90
    assert gpus[5]["temperature"] == 89, gpus[5]["temperature"]  # held at slowdown
    assert gpus[5]["power.draw"] < 450000
    pids = sorted(p.pid for p in gpus[7]["processes"])
    assert pids == [4194304, 4194407], pids
    stale = [p for p in gpus[7]["processes"] if p.pid == 4194304][0]
    assert stale.usedGpuMemory == 30 << 30


def test_gpustat_real_pids(path):
    """A demo script passes real pids through GPUSIM_PID_RANKn."""
    lib = Lib(path)
    set_env("h100x8-training.ini", 10, GPUSIM_PID_RANK0=str(os.getpid()))
    try:
        gpus, _ = gpustat_query(lib)
    finally:
        del os.environ["GPUSIM_PID_RANK0"]
    assert gpus[0]["processes"][0].pid == os.getpid()
    lib.check("nvmlInitWithFlags", 0)
    buf = C.create_string_buffer(64)
    lib.check("nvmlSystemGetProcessName", 4194304, buf, 64)
    assert buf.value == b"python3"
    lib.check("nvmlShutdown")


def test_pynvml_heartbeat(path):
    """GPU 3's sub-second heartbeat is visible in GetSamples; its average is
    what a slow sampler would compute."""
    lib = Lib(path)
    set_env("h100x8-training.ini", 120)
    lib.check("nvmlInitWithFlags", 0)
    try:
        h = C.c_void_p()
        lib.check("nvmlDeviceGetHandleByIndex_v2", 3, C.byref(h))
        samples = pynvml_samples(lib, h, 1)  # NVML_GPU_UTILIZATION_SAMPLES
        vals = [s.sampleValue.uiVal for s in samples]
        assert len(vals) == 120
        assert max(vals) >= 90 and min(vals) == 0, vals
        mean = sum(vals) / len(vals)
        assert 20 < mean < 50, mean
        steps = {samples[i + 1].timeStamp - samples[i].timeStamp for i in range(len(vals) - 1)}
        assert steps <= {166666, 166667, 166668}, steps
        procs = pynvml_process_utilization(lib, h, 0)
        assert [p.pid for p in procs] == [4194403]
        # Already seen: NOT_FOUND (pynvml raises NVMLError_NotFound).
        count = C.c_uint(0)
        r = lib.call("nvmlDeviceGetProcessUtilization", h, None, C.byref(count),
                     C.c_ulonglong(procs[0].timeStamp))
        assert r == NVML_ERROR_NOT_FOUND, r
        # PCIe RX is high on the data-starved GPU.
        rx = C.c_uint()
        lib.check("nvmlDeviceGetPcieThroughput", h, 1, C.byref(rx))
        h0 = C.c_void_p()
        lib.check("nvmlDeviceGetHandleByIndex_v2", 0, C.byref(h0))
        rx0 = C.c_uint()
        lib.check("nvmlDeviceGetPcieThroughput", h0, 1, C.byref(rx0))
        assert rx.value > 2 * rx0.value, (rx.value, rx0.value)
    finally:
        lib.check("nvmlShutdown")



# ------------------------------------------------------------------ pynvml GPM


class GpmSupport(C.Structure):  # pynvml c_nvmlGpmSupport_t
    _fields_ = [("version", C.c_uint), ("isSupportedDevice", C.c_uint)]


class GpmMetricInfo(C.Structure):
    _fields_ = [("shortName", C.c_char_p), ("longName", C.c_char_p), ("unit", C.c_char_p)]


class GpmMetric(C.Structure):  # pynvml c_nvmlGpmMetric_t
    _fields_ = [("metricId", C.c_uint), ("nvmlReturn", C.c_uint), ("value", C.c_double),
                ("metricInfo", GpmMetricInfo)]


PYNVML_GPM_METRIC_MAX = 98  # nvidia-ml-py 12.560.30


class GpmMetricsGet(C.Structure):  # pynvml c_nvmlGpmMetricsGet_t
    _fields_ = [("version", C.c_uint), ("numMetrics", C.c_uint), ("sample1", C.c_void_p),
                ("sample2", C.c_void_p), ("metrics", GpmMetric * PYNVML_GPM_METRIC_MAX)]


# gpumon's gpm.* query keys and NVML's GPM metric ids; MiB/s for 20, 21, 60, 61
GPM_KEYS = [("gpm.graphics_active", 1), ("gpm.sm_active", 2), ("gpm.sm_occupancy", 3),
            ("gpm.integer_active", 4), ("gpm.tensor_active", 5), ("gpm.dram_active", 10),
            ("gpm.fp64_active", 11), ("gpm.fp32_active", 12), ("gpm.fp16_active", 13),
            ("gpm.pcie_tx", 20), ("gpm.pcie_rx", 21), ("gpm.nvlink_tx", 61),
            ("gpm.nvlink_rx", 60)]
GPM_RATES = {20, 21, 60, 61}


def pynvml_gpm(lib, handle, ids):
    """pynvml's GPM sequence for one GPU: {id: (nvmlReturn, value)}, or the
    NVML error of the support query / sample (pynvml would raise it)."""
    sup = GpmSupport(version=1)
    lib.check("nvmlGpmQueryDeviceSupport", handle, C.byref(sup))
    if not sup.isSupportedDevice:
        return NVML_ERROR_NOT_SUPPORTED
    s1, s2 = C.c_void_p(), C.c_void_p()
    lib.check("nvmlGpmSampleAlloc", C.byref(s1))
    lib.check("nvmlGpmSampleAlloc", C.byref(s2))
    try:
        r = lib.call("nvmlGpmSampleGet", handle, s1)
        if r != NVML_SUCCESS:
            return r
        time.sleep(0.1)
        lib.check("nvmlGpmSampleGet", handle, s2)
        mg = GpmMetricsGet(version=1, numMetrics=len(ids), sample1=s1, sample2=s2)
        for i, m in enumerate(ids):
            mg.metrics[i].metricId = m
        lib.check("nvmlGpmMetricsGet", C.byref(mg))
        return {m: (mg.metrics[i].nvmlReturn, mg.metrics[i].value) for i, m in enumerate(ids)}
    finally:
        lib.check("nvmlGpmSampleFree", s1)
        lib.check("nvmlGpmSampleFree", s2)


def test_pynvml_gpm(path, gpumon):
    """pynvml's GPM values agree with gpumon's at the same scenario time; a
    GPU without GPM is an error to pynvml and [N/A] to gpumon."""
    scn, t = "gpm/unsupported.ini", 45
    set_env(scn, t)
    env = dict(os.environ, GPUMON_NVML_LIB=path, LC_ALL="C")
    keys = ",".join(k for k, _ in GPM_KEYS)
    out = subprocess.run([gpumon, "query", "--query-gpu=index," + keys,
                          "--format=csv,noheader,nounits"], env=env, capture_output=True,
                         check=True, timeout=60).stdout.decode()
    rows = [[c.strip() for c in line.split(",")] for line in out.splitlines()]
    assert len(rows) == 3, out
    lib = Lib(path)
    lib.check("nvmlInitWithFlags", 0)
    try:
        ids = [m for _, m in GPM_KEYS]
        for i, row in enumerate(rows):
            h = C.c_void_p()
            lib.check("nvmlDeviceGetHandleByIndex_v2", i, C.byref(h))
            got = pynvml_gpm(lib, h, ids)
            if i == 0:
                assert isinstance(got, dict), got
                for (key, m), cell in zip(GPM_KEYS, row[1:]):
                    rc, v = got[m]
                    assert rc == NVML_SUCCESS, (key, rc)
                    if m in GPM_RATES:  # gpumon: whole MiB/s, rounded down
                        assert int(cell) == int(v), (key, cell, v)
                    else:  # gpumon: one decimal
                        assert abs(float(cell) - v) <= 0.05 + 1e-9, (key, cell, v)
                assert got[2][1] > 50, got[2]  # the H100 trains: SM activity is real, not 0
            else:
                assert got == NVML_ERROR_NOT_SUPPORTED, (i, got)
                assert row[1:] == ["[N/A]"] * len(GPM_KEYS), row
    finally:
        lib.check("nvmlShutdown")


def pynvml_gpm_mig(lib, parent, gi, ids):
    """pynvml's GPM sequence for one MIG GPU instance (nvmlGpmMigSampleGet on
    the parent's handle): {id: (nvmlReturn, value)}, or the NVML error of the
    support query / sample (pynvml would raise it)."""
    sup = GpmSupport(version=1)
    lib.check("nvmlGpmQueryDeviceSupport", parent, C.byref(sup))
    if not sup.isSupportedDevice:
        return NVML_ERROR_NOT_SUPPORTED
    s1, s2 = C.c_void_p(), C.c_void_p()
    lib.check("nvmlGpmSampleAlloc", C.byref(s1))
    lib.check("nvmlGpmSampleAlloc", C.byref(s2))
    try:
        r = lib.call("nvmlGpmMigSampleGet", parent, C.c_uint(gi), s1)
        if r != NVML_SUCCESS:
            return r
        time.sleep(0.1)
        lib.check("nvmlGpmMigSampleGet", parent, C.c_uint(gi), s2)
        mg = GpmMetricsGet(version=1, numMetrics=len(ids), sample1=s1, sample2=s2)
        for i, m in enumerate(ids):
            mg.metrics[i].metricId = m
        lib.check("nvmlGpmMetricsGet", C.byref(mg))
        return {m: (mg.metrics[i].nvmlReturn, mg.metrics[i].value) for i, m in enumerate(ids)}
    finally:
        lib.check("nvmlGpmSampleFree", s1)
        lib.check("nvmlGpmSampleFree", s2)


def test_pynvml_gpm_mig(path, gpumon):
    """pynvml's GPM per MIG GPU instance agrees with each MIG entry of
    `gpumon status --json --gpm` at the same scenario time (gpm/mig.ini):
    the activities to the last bit, PCIe/NVLink not supported per instance
    (null, "not_supported"); an instance the driver cannot sample (GPU 1) or
    of a GPU without GPM (GPU 2) is an error to pynvml and null to gpumon."""
    set_env("gpm/mig.ini", 60)
    env = dict(os.environ, GPUMON_NVML_LIB=path, LC_ALL="C")
    out = subprocess.run([gpumon, "status", "--json", "--gpm"], env=env, capture_output=True,
                         check=True, timeout=60).stdout.decode()
    gpus = json.loads(out)["gpus"]
    assert len(gpus) == 3, out
    lib = Lib(path)
    lib.check("nvmlInitWithFlags", 0)
    try:
        ids = [m for _, m in GPM_KEYS]
        for g in gpus:
            h = C.c_void_p()
            lib.check("nvmlDeviceGetHandleByIndex_v2", g["index"], C.byref(h))
            assert len(g["mig_devices"]) == (4, 2, 2)[g["index"]], g["mig_devices"]
            for m in g["mig_devices"]:
                got = pynvml_gpm_mig(lib, h, m["gpu_instance_id"], ids)
                where = (g["index"], m["gpu_instance_id"])
                for key, mid in GPM_KEYS:
                    jk = key.replace(".", "_") + ("_bytes_per_second" if mid in GPM_RATES
                                                  else "_percent")
                    if g["index"] != 0:
                        assert got == NVML_ERROR_NOT_SUPPORTED, (where, got)
                        assert m[jk] is None and m["unavailable"][jk] == "not_supported", \
                            (where, jk, m)
                        continue
                    rc, v = got[mid]
                    if mid in GPM_RATES:
                        assert rc == NVML_ERROR_NOT_SUPPORTED, (where, key, rc)
                        assert m[jk] is None and m["unavailable"][jk] == "not_supported", \
                            (where, jk, m)
                    else:
                        assert rc == NVML_SUCCESS, (where, key, rc)
                        assert m[jk] == v, (where, key, m[jk], v)
            if g["index"] == 0:  # instances with a job train; the others are idle, a real 0
                sm = [m["gpm_sm_active_percent"] for m in g["mig_devices"]]
                assert sm[0] > 50 and sm[2] > 50 and sm[1] == 0 and sm[3] == 0, sm
    finally:
        lib.check("nvmlShutdown")


def test_gpustat_faults(path):
    lib = Lib(path)
    set_env("faults.ini", 90)
    gpus, _ = gpustat_query(lib)
    assert gpus[1] == {"index": 1, "error": "((GPU is lost))"}, gpus[1]
    assert "name" in gpus[0] and "name" in gpus[2]
    assert lib.error_string(NVML_ERROR_GPU_IS_LOST) == "GPU is lost"

    set_env("faults.ini", 250)
    r = lib.call("nvmlInitWithFlags", 0)
    assert r == NVML_ERROR_DRIVER_NOT_LOADED, r
    assert lib.error_string(r) == "Driver Not Loaded"
    set_env("fault-version-mismatch.ini")
    r = lib.call("nvmlInitWithFlags", 0)
    assert r == NVML_ERROR_LIB_RM_VERSION_MISMATCH, r
    assert lib.error_string(r) == "Driver/library version mismatch"
    set_env("fault-no-permission.ini")
    lib.check("nvmlInitWithFlags", 0)
    n = C.c_uint()
    lib.check("nvmlDeviceGetCount_v2", C.byref(n))
    h = C.c_void_p()
    assert n.value == 2
    assert lib.call("nvmlDeviceGetHandleByIndex_v2", 0, C.byref(h)) == NVML_ERROR_NO_PERMISSION
    lib.check("nvmlShutdown")


def test_pynvml_workstation(path):
    lib = Lib(path)
    set_env("workstation.ini", 120)
    gpus, _ = gpustat_query(lib)
    g0, g1 = gpus
    assert g0["name"] == "NVIDIA GeForce RTX 4090"
    assert g1["name"] == "NVIDIA GeForce RTX 4060 Laptop GPU"
    assert g0["fan"] is not None and 30 <= g0["fan"] <= 100
    assert g1["power.draw"] is None and g1["power.limit"] is None
    names = {p.pid for p in g0["processes"]}
    assert names == {4194416, 4194417, 4194418, 4194419}, names
    lib.check("nvmlInitWithFlags", 0)
    try:
        h = g0["handle"]
        active = C.c_uint()
        lib.check("nvmlDeviceGetDisplayActive", h, C.byref(active))
        assert active.value == 1
        count = C.c_uint(0)
        r = lib.call("nvmlDeviceGetProcessUtilization", h, None, C.byref(count), C.c_ulonglong(0))
        assert r == NVML_ERROR_NOT_SUPPORTED, r
        fields = (C.c_byte * 40)()
        C.memmove(fields, C.byref(C.c_uint(82)), 4)  # NVML_FI_DEV_MEMORY_TEMP
        lib.check("nvmlDeviceGetFieldValues", h, 1, fields)
        ret = C.c_uint.from_buffer(fields, 28).value
        assert ret == NVML_ERROR_NOT_SUPPORTED, ret
    finally:
        lib.check("nvmlShutdown")
    # Before the job starts (t < 30 s) only the desktop runs, at P8.
    set_env("workstation.ini", 10)
    gpus, _ = gpustat_query(lib)
    assert {p.pid for p in gpus[0]["processes"]} == {4194416, 4194417, 4194418}
    assert gpus[0]["utilization"] == 0


# -------------------------------------------------------------------- nvtop

NVTOP_REQUIRED = [
    ("nvmlInit_v2", "nvmlInit"), ("nvmlShutdown",),
    ("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
    ("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"), ("nvmlErrorString",),
    ("nvmlDeviceGetName",), ("nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2",
                             "nvmlDeviceGetPciInfo"),
    ("nvmlDeviceGetMaxPcieLinkGeneration",), ("nvmlDeviceGetMaxPcieLinkWidth",),
    ("nvmlDeviceGetTemperatureThreshold",), ("nvmlDeviceGetClockInfo",),
    ("nvmlDeviceGetMaxClockInfo",), ("nvmlDeviceGetUtilizationRates",),
    ("nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo"),
    ("nvmlDeviceGetCurrPcieLinkGeneration",), ("nvmlDeviceGetCurrPcieLinkWidth",),
    ("nvmlDeviceGetPcieThroughput",), ("nvmlDeviceGetFanSpeed",), ("nvmlDeviceGetTemperature",),
    ("nvmlDeviceGetPowerUsage",), ("nvmlDeviceGetEnforcedPowerLimit",),
    ("nvmlDeviceGetEncoderUtilization",), ("nvmlDeviceGetDecoderUtilization",),
    ("nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2",
     "nvmlDeviceGetGraphicsRunningProcesses"),
    ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
     "nvmlDeviceGetComputeRunningProcesses"),
]


def nvtop_processes(lib, handle, base):
    """nvtop: first available of _v3, _v2, v1 with its own stride; starts at
    0 with NULL and grows by a fixed step, ignoring the returned count."""
    for suffix, struct in (("_v3", ProcessInfo), ("_v2", ProcessInfo), ("", ProcessInfoV1)):
        if lib.has(base + suffix):
            break
    size = 0
    for _ in range(100):
        count = C.c_uint(size)
        arr = (struct * size)() if size else None
        r = lib.call(base + suffix, handle, C.byref(count), arr)
        if r == NVML_SUCCESS:
            return suffix, [arr[i] for i in range(count.value)] if arr else []
        assert r == NVML_ERROR_INSUFFICIENT_SIZE, lib.error_string(r)
        size += 4
    raise AssertionError("process list never succeeded")


def nvtop_session(lib, mig_aware=True):
    for alternatives in NVTOP_REQUIRED:
        assert any(lib.has(n) for n in alternatives), alternatives
    init = "nvmlInit_v2" if lib.has("nvmlInit_v2") else "nvmlInit"
    lib.check(init)
    devices = {}
    try:
        n = C.c_uint()
        lib.check("nvmlDeviceGetCount_v2", C.byref(n))
        for i in range(n.value):
            h = C.c_void_p()
            lib.check("nvmlDeviceGetHandleByIndex_v2", i, C.byref(h))
            d = {}
            buf = C.create_string_buffer(64)
            lib.check("nvmlDeviceGetName", h, buf, 64)
            d["name"] = buf.value.decode()
            pci = PciInfo()
            lib.check("nvmlDeviceGetPciInfo_v3", h, C.byref(pci))
            key = pci.busIdLegacy.decode()
            v = C.c_uint()
            lib.check("nvmlDeviceGetMaxPcieLinkGeneration", h, C.byref(v))
            d["pcie_gen_max"] = v.value
            lib.check("nvmlDeviceGetMaxPcieLinkWidth", h, C.byref(v))
            d["pcie_width_max"] = v.value
            for name, t in (("shutdown", 0), ("slowdown", 1)):
                d["temp_" + name] = v.value if lib.call("nvmlDeviceGetTemperatureThreshold", h,
                                                        t, C.byref(v)) == 0 else None
            for name, t in (("graphics", 0), ("sm", 1), ("mem", 2)):
                lib.check("nvmlDeviceGetClockInfo", h, t, C.byref(v))
                d["clock_" + name] = v.value
                lib.check("nvmlDeviceGetMaxClockInfo", h, t, C.byref(v))
                d["clock_max_" + name] = v.value
            u = Utilization()
            r = lib.call("nvmlDeviceGetUtilizationRates", h, C.byref(u))
            d["util"] = u.gpu if r == 0 else None
            # nvtop sets version = 2, not nvmlMemory_v2: real NVML says
            # FUNCTION_NOT_FOUND and nvtop falls back to v1.
            m2 = MemoryV2(version=2)
            r = lib.call("nvmlDeviceGetMemoryInfo_v2", h, C.byref(m2)) \
                if lib.has("nvmlDeviceGetMemoryInfo_v2") else NVML_ERROR_FUNCTION_NOT_FOUND
            assert r == NVML_ERROR_FUNCTION_NOT_FOUND, r
            m = Memory()
            lib.check("nvmlDeviceGetMemoryInfo", h, C.byref(m))
            d["mem_total"], d["mem_used"] = m.total, m.used
            lib.check("nvmlDeviceGetCurrPcieLinkGeneration", h, C.byref(v))
            d["pcie_gen"] = v.value
            lib.check("nvmlDeviceGetCurrPcieLinkWidth", h, C.byref(v))
            d["pcie_width"] = v.value
            for name, c in (("tx", 0), ("rx", 1)):
                lib.check("nvmlDeviceGetPcieThroughput", h, c, C.byref(v))
                d["pcie_" + name] = v.value
            d["fan"] = v.value if lib.call("nvmlDeviceGetFanSpeed", h, C.byref(v)) == 0 else None
            lib.check("nvmlDeviceGetTemperature", h, 0, C.byref(v))
            d["temp"] = v.value
            lib.check("nvmlDeviceGetPowerUsage", h, C.byref(v))
            d["power"] = v.value
            lib.check("nvmlDeviceGetEnforcedPowerLimit", h, C.byref(v))
            d["power_limit"] = v.value
            period = C.c_uint()
            r = lib.call("nvmlDeviceGetEncoderUtilization", h, C.byref(v), C.byref(period))
            assert r in (0, NVML_ERROR_NOT_SUPPORTED)
            _, gfx = nvtop_processes(lib, h, "nvmlDeviceGetGraphicsRunningProcesses")
            suffix, comp = nvtop_processes(lib, h, "nvmlDeviceGetComputeRunningProcesses")
            d["proc_suffix"] = suffix
            d["processes"] = gfx + comp
            cur, pend = C.c_uint(), C.c_uint()
            mig = (lib.call("nvmlDeviceGetMigMode", h, C.byref(cur), C.byref(pend)) == 0
                   and cur.value == 1)
            d["mig"] = mig
            if not mig or not mig_aware:
                count = C.c_uint(0)
                r = lib.call("nvmlDeviceGetProcessUtilization", h, None, C.byref(count),
                             C.c_ulonglong(0))
                d["proc_util_sizing"] = (r, count.value)
            devices[key] = d
    finally:
        lib.check("nvmlShutdown")
    return devices


def test_nvtop_demo(path):
    unversioned = os.path.join(os.path.dirname(path), "libnvidia-ml.so")
    assert os.path.exists(unversioned), "nvtop dlopens libnvidia-ml.so first"
    lib = Lib(unversioned)
    set_env("h100x8-training.ini", 300)
    devs = nvtop_session(lib)
    assert list(devs) == ["0000:18:00.0", "0000:2A:00.0", "0000:3A:00.0", "0000:5D:00.0",
                          "0000:9A:00.0", "0000:AB:00.0", "0000:BA:00.0", "0000:DB:00.0"]
    d5 = devs["0000:AB:00.0"]
    assert d5["temp"] == d5["temp_slowdown"] == 89
    assert d5["clock_sm"] < 0.7 * d5["clock_max_sm"], d5["clock_sm"]
    assert d5["util"] >= 90
    d0 = devs["0000:18:00.0"]
    assert d0["clock_sm"] == d0["clock_max_sm"] == 1980
    assert d0["pcie_gen"] == d0["pcie_gen_max"] == 5 and d0["pcie_width"] == 16
    assert d0["fan"] is None and d0["proc_suffix"] == "_v3"
    assert d0["proc_util_sizing"] == (NVML_ERROR_INSUFFICIENT_SIZE, 1)
    for d in devs.values():
        # v1 "used" includes reserved memory; processes must fit in it.
        assert d["mem_used"] >= sum(p.usedGpuMemory for p in d["processes"])


def test_nvtop_mig(path):
    lib = Lib(path)
    set_env("a100-mig.ini", 60)
    devs = nvtop_session(lib)
    d0, d1 = list(devs.values())
    assert d0["mig"] and not d1["mig"]
    assert "proc_util_sizing" not in d0
    assert d0["util"] is None  # NOT_SUPPORTED with MIG on
    assert all(p.usedGpuMemory == NVML_VALUE_NOT_AVAILABLE for p in d0["processes"])
    assert sorted(p.gpuInstanceId for p in d0["processes"]) == [1, 3, 8]


def test_nvtop_legacy(legacy):
    """An R450-era driver: no _v3, no MemoryInfo_v2; nvtop falls back."""
    lib = Lib(legacy)
    for name in ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetMemoryInfo_v2",
                 "nvmlDeviceGetTemperatureV", "nvmlDeviceGetCurrentClocksEventReasons"):
        assert not lib.has(name), name
    set_env("h100x8-training.ini", 30)
    devs = nvtop_session(lib)
    d7 = devs["0000:DB:00.0"]
    assert d7["proc_suffix"] == "_v2"
    assert sorted(p.pid for p in d7["processes"]) == [4194304, 4194407]
    gpus, driver = gpustat_query(lib)
    assert driver == "550.54.15"  # the scenario names its driver
    assert gpus[7]["memory.used"] >= (30 << 30) + int(44.5 * (1 << 30))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    path = os.path.abspath(sys.argv[1])
    legacy = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(path), "legacy", os.path.basename(path))
    gpumon = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else os.path.join(
        os.path.dirname(os.path.dirname(path)), "src", "gpumon")
    tests = [
        ("gpustat on the demo", lambda: test_gpustat_demo(path)),
        ("gpustat with real pids", lambda: test_gpustat_real_pids(path)),
        ("pynvml sees the heartbeat", lambda: test_pynvml_heartbeat(path)),
        ("pynvml's GPM agrees with gpumon", lambda: test_pynvml_gpm(path, gpumon)),
        ("pynvml's MIG GPM agrees with gpumon", lambda: test_pynvml_gpm_mig(path, gpumon)),
        ("gpustat through faults", lambda: test_gpustat_faults(path)),
        ("pynvml on the workstation", lambda: test_pynvml_workstation(path)),
        ("nvtop on the demo", lambda: test_nvtop_demo(path)),
        ("nvtop with MIG", lambda: test_nvtop_mig(path)),
        ("nvtop and gpustat on the legacy variant", lambda: test_nvtop_legacy(legacy)),
    ]
    failed = 0
    print("1..%d" % len(tests))
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print("ok %d - %s" % (i, name))
        except Exception:  # report every failure, keep going
            failed += 1
            print("not ok %d - %s" % (i, name))
            traceback.print_exc(file=sys.stdout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
