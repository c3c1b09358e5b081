#!/usr/bin/env python3
"""pynvml_functions.py -- every function pynvml binds, called on every
shipped scenario, and nvitop's start-up and MIG sequence replayed.

pynvml (nvidia-ml-py) is not installable here, so pynvml_functions.txt
beside this file lists the 332 NVML functions nvidia-ml-py 12.560.30 binds
(its _nvmlGetFunctionPointer names) with, for each, either the arguments to
call it with or the reason it is intentionally absent.  For each scenario
in scenarios/*.ini and scenarios/compat/*.ini this script:

  * resolves every listed function that is not marked absent -- pynvml's
    NVMLError_FunctionNotFound is exactly a failed dlsym -- and fails on a
    missing one; it also fails when a function marked absent is exported
    (the list has gone stale);
  * calls each one (on every GPU and every MIG device for device calls)
    and fails on FUNCTION_NOT_FOUND, UNINITIALIZED, UNKNOWN or a code that
    is no nvmlReturn_t (a crash fails the whole run);
  * runs as non-root whoever runs it (GPUSIM_ROOT=0): a call marked ! (one
    that changes driver state) must answer NO_PERMISSION or NOT_SUPPORTED,
    and NO_PERMISSION on at least one scenario, so no scenario's state
    changes under the checks below;
  * checks what the issue named: DriverModel answers NOT_SUPPORTED, BAR1
    memory is answered for MIG handles, power samples are NOT_SUPPORTED
    where the power reading is, NVLink and the topology as
    docs/simulator.md describes them, and the rare queries' modelled
    answers (application-clock restriction, bridge chips, drain state,
    NVLink bandwidth mode), and the bare-metal vGPU and unit answers (no
    vGPU instance, type or manager; no S-class unit).

nvitop (XuehaiPan/nvitop, nvitop/api/device.py and libnvml.py) queries a
snapshot of every device and every MIG device at start-up; a
FUNCTION_NOT_FOUND there is logged as a traceback and an unexpected error
on a MIG device ends `nvitop --once`.  The replay makes the same calls in
the same order and fails on either.  It also applies nvitop's choice of
process-entry size to the library's symbols (32 bytes when
nvmlDeviceGetConfComputeMemSizeInfo is exported without
nvmlDeviceGetRunningProcessDetailList) and fails unless that gives the 24
bytes the _v3 calls write (test 1, before the scenarios).

Usage: pynvml_functions.py LIB
Exit status 0 when every check passes.
"""

import ctypes as C
import glob
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.environ.get("GPUSIM_SCENARIO_DIR", os.path.join(HERE, "..", "..", "scenarios"))
# The scenarios whose SXM boards reach each other through NVSwitches
# (nvlink = nvswitch): all 18 links up, the NVLink bandwidth mode answered.
NVSWITCH_SCENARIOS = {"h100x8-training.ini", "blackwell-fabric.ini"}

SUCCESS, NOT_SUPPORTED, INVALID_ARGUMENT, NO_PERMISSION, NOT_FOUND = 0, 3, 2, 4, 6
UNINITIALIZED, FUNCTION_NOT_FOUND, UNKNOWN = 1, 13, 999
BAD = {UNINITIALIZED: "UNINITIALIZED", FUNCTION_NOT_FOUND: "FUNCTION_NOT_FOUND",
       UNKNOWN: "UNKNOWN"}


def load_list():
    entries = []
    with open(os.path.join(HERE, "pynvml_functions.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, *args = line.split()
            entries.append((name, args))
    return entries


class Call:
    """Builds the ctypes arguments of one call from the list's mini-language."""

    def __init__(self, args, dev, peer, dll=None):
        self.argv = []
        self.keep = []
        self.dll = dll
        for a in args:
            self.argv.extend(self.arg(a, dev, peer))

    def out(self, ctype):
        v = ctype()
        self.keep.append(v)
        return [C.byref(v)]

    def arg(self, a, dev, peer):
        if a == "!":
            return []  # a marker, not an argument
        if a in ("D", "G", "C"):
            return [dev]
        if a == "P":
            return [peer]
        if a == "Q":
            return [pci_info(self.dll, peer, self.keep)]
        if a == "k":
            return [FORGED_UNIT]
        if a == "u":
            return self.out(C.c_uint)
        if a == "U":
            return self.out(C.c_ulonglong)
        if a == "i":
            return self.out(C.c_int)
        if a == "h":
            return self.out(C.c_void_p)
        if a == "c":
            return self.out(C.c_uint)
        if a == "0":
            return [None]
        if a.startswith("=L"):
            return [C.c_ulonglong(int(a[2:], 0))]
        if a.startswith("="):
            return [C.c_uint(int(a[1:], 0))]
        if a.startswith("s"):
            n = int(a[1:])
            b = C.create_string_buffer(n)
            self.keep.append(b)
            return [b, C.c_uint(n)]
        if a.startswith("b"):
            b = C.create_string_buffer(int(a[1:]))
            self.keep.append(b)
            return [b]
        if a.startswith("v"):
            size, ver = a[1:].split(":")
            b = C.create_string_buffer(int(size))
            C.c_uint.from_buffer(b).value = int(ver, 0)
            self.keep.append(b)
            return [b]
        if a.startswith("a"):
            n = int(a[1:])
            arr = (C.c_ulong * n)()
            self.keep.append(arr)
            return [C.c_uint(n), arr]
        if a.startswith("S"):
            return [C.c_char_p(a[1:].encode())]
        if a.startswith("f"):
            fv = FieldValue()
            fv.fieldId = int(a[1:])
            self.keep.append(fv)
            return [C.c_int(1), C.byref(fv)]
        raise ValueError("unknown argument token %r" % a)


# An nvmlUnit_t that no call returned: the address of a private buffer, so a
# library that dereferenced it would read our bytes, not crash.
_UNIT_BYTES = C.create_string_buffer(64)
FORGED_UNIT = C.c_void_p(C.addressof(_UNIT_BYTES))


class FieldValue(C.Structure):  # nvmlFieldValue_t, 40 bytes
    _fields_ = [("fieldId", C.c_uint), ("scopeId", C.c_uint), ("timestamp", C.c_longlong),
                ("latencyUsec", C.c_longlong), ("valueType", C.c_int),
                ("nvmlReturn", C.c_int), ("value", C.c_ulonglong)]


class Bar1(C.Structure):
    _fields_ = [("total", C.c_ulonglong), ("free", C.c_ulonglong), ("used", C.c_ulonglong)]


def pci_info(dll, h, keep):
    """GPU h's nvmlPciInfo_t (68 bytes; all zero without a GPU)."""
    b = C.create_string_buffer(68)
    keep.append(b)
    if h is not None:
        fn(dll, "nvmlDeviceGetPciInfo_v3")(h, b)
    return b


def fn(dll, name):
    f = getattr(dll, name)
    f.restype = C.c_int
    return f


def set_scenario(path):
    os.environ["GPUSIM_SCENARIO"] = path
    for k in ("GPUSIM_EPOCH", "GPUSIM_SPEED", "GPUSIM_FAIL"):
        os.environ.pop(k, None)
    os.environ["GPUSIM_TIME"] = "120"
    os.environ["GPUSIM_ROOT"] = "0"  # setters must not change what the checks read


def handles(dll):
    """(physical handles, [(parent index, MIG handle)])."""
    n = C.c_uint()
    if fn(dll, "nvmlDeviceGetCount_v2")(C.byref(n)) != SUCCESS:
        return [], []
    gpus, migs = [], []
    for i in range(n.value):
        h = C.c_void_p()
        if fn(dll, "nvmlDeviceGetHandleByIndex_v2")(i, C.byref(h)) != SUCCESS:
            continue
        gpus.append(h)
        count = C.c_uint()
        if fn(dll, "nvmlDeviceGetMaxMigDeviceCount")(h, C.byref(count)) != SUCCESS:
            continue
        for k in range(count.value):
            m = C.c_void_p()
            if fn(dll, "nvmlDeviceGetMigDeviceHandleByIndex")(h, k, C.byref(m)) != SUCCESS:
                break
            migs.append((i, m))
    return gpus, migs


def instances(dll, gpus, migs):
    """The GPU and compute instance handles behind the MIG devices, found by
    their ids the way nvidia-smi pairs them."""
    gis, cis = [], []
    for i, m in migs:
        gid, cid = C.c_uint(), C.c_uint()
        gi, ci = C.c_void_p(), C.c_void_p()
        if fn(dll, "nvmlDeviceGetGpuInstanceId")(m, C.byref(gid)) != SUCCESS:
            continue
        if fn(dll, "nvmlDeviceGetGpuInstanceById")(gpus[i], gid, C.byref(gi)) != SUCCESS:
            continue
        gis.append(gi)
        if fn(dll, "nvmlDeviceGetComputeInstanceId")(m, C.byref(cid)) != SUCCESS:
            continue
        if fn(dll, "nvmlGpuInstanceGetComputeInstanceById")(gi, cid, C.byref(ci)) == SUCCESS:
            cis.append(ci)
    return gis, cis


def check_symbols(dll, entries, errors):
    for name, args in entries:
        absent = args[:1] == ["absent"]
        try:
            getattr(dll, name)
            found = True
        except AttributeError:
            found = False
        if not absent and not found:
            errors.append("%s: not exported (pynvml raises NVMLError_FunctionNotFound)" % name)
        if absent and found:
            errors.append("%s: exported but listed as absent (%s): update the list"
                          % (name, args[1] if len(args) > 1 else "?"))


def call_all(dll, entries, gpus, migs, errors, denied):
    calls = 0
    devices = gpus + [m for _, m in migs]
    gis, cis = instances(dll, gpus, migs)
    for name, args in entries:
        if args[:1] in (["absent"], ["replayed"]):
            continue
        if not hasattr(dll, name):
            continue  # reported by check_symbols
        targets = (devices if "D" in args else gis if "G" in args else cis if "C" in args
                   else [None])
        for d in targets:
            c = Call(args, d, gpus[0] if gpus else None, dll)
            rc = fn(dll, name)(*c.argv)
            calls += 1
            if rc in BAD or not (0 <= rc <= 30):
                errors.append("%s(%s): returned %s" % (name, " ".join(args), BAD.get(rc, rc)))
            if "!" in args:
                if rc not in (NO_PERMISSION, NOT_SUPPORTED):
                    errors.append("%s(%s) as non-root: returned %d, expected NO_PERMISSION (4) "
                                  "or NOT_SUPPORTED (3)" % (name, " ".join(args), rc))
                if rc == NO_PERMISSION:
                    denied.add(name)
    return calls


def expect(errors, what, got, want):
    if got != want:
        errors.append("%s: got %r, expected %r" % (what, got, want))


def check_semantics(dll, scenario, gpus, migs, errors):
    u, v = C.c_uint(), C.c_uint()
    for i, h in enumerate(gpus):
        expect(errors, "GPU %d DriverModel" % i,
               fn(dll, "nvmlDeviceGetDriverModel")(h, C.byref(u), C.byref(v)), NOT_SUPPORTED)
    for i, m in migs:
        b = Bar1()
        rc = fn(dll, "nvmlDeviceGetBAR1MemoryInfo")(m, C.byref(b))
        expect(errors, "MIG device of GPU %d BAR1" % i, rc, SUCCESS)
        if rc == SUCCESS and not (0 < b.used <= b.total and b.free == b.total - b.used):
            errors.append("MIG BAR1 inconsistent: %d %d %d" % (b.total, b.used, b.free))
    # The fan control policy exists where fans do (the driver's curve, 0);
    # no S-class unit, so no host interface card.
    for i, h in enumerate(gpus):
        fans = fn(dll, "nvmlDeviceGetNumFans")(h, C.byref(u))
        policy = fn(dll, "nvmlDeviceGetFanControlPolicy_v2")(h, 0, C.byref(v))
        expect(errors, "GPU %d fan control policy" % i, (policy, v.value if policy == SUCCESS
               else None), (SUCCESS, 0) if fans == SUCCESS else (NOT_SUPPORTED, None))
        if fans == SUCCESS:
            expect(errors, "GPU %d fan %d policy" % (i, u.value),
                   fn(dll, "nvmlDeviceGetFanControlPolicy_v2")(h, u.value, C.byref(v)),
                   INVALID_ARGUMENT)
    u.value = 7
    expect(errors, "HIC count", (fn(dll, "nvmlSystemGetHicVersion")(C.byref(u), None), u.value),
           (SUCCESS, 0))
    # The rare queries (docs/simulator.md): application clocks root-only on
    # datacenter boards, no bridge chips, no GPU drained, NVLink bandwidth
    # FULL only where Hopper links are up.
    for i, h in enumerate(gpus):
        name_buf = C.create_string_buffer(96)
        fn(dll, "nvmlDeviceGetName")(h, name_buf, 96)
        geforce = b"GeForce" in name_buf.value
        u.value = 7
        expect(errors, "GPU %d application clocks restriction" % i,
               (fn(dll, "nvmlDeviceGetAPIRestriction")(h, 0, C.byref(u)), u.value),
               (NOT_SUPPORTED, 7) if geforce else (SUCCESS, 1))
        bridges = C.create_string_buffer(b"\xff" * 1028, 1028)
        expect(errors, "GPU %d bridge chips" % i,
               (fn(dll, "nvmlDeviceGetBridgeChipInfo")(h, bridges), bridges.raw[0]), (SUCCESS, 0))
        keep = []
        u.value = 7
        expect(errors, "GPU %d drain state" % i,
               (fn(dll, "nvmlDeviceQueryDrainState")(pci_info(dll, h, keep), C.byref(u)),
                u.value), (SUCCESS, 0))
    keep = []
    nowhere = pci_info(dll, None, keep)
    C.c_uint.from_buffer(nowhere, 20).value = 0xFF  # bus 0xFF: no GPU there
    expect(errors, "drain state of an empty PCI address",
           fn(dll, "nvmlDeviceQueryDrainState")(nowhere, C.byref(u)), NOT_FOUND)
    bw = fn(dll, "nvmlSystemGetNvlinkBwMode")(C.byref(u))
    expect(errors, "NVLink bandwidth mode", (bw, u.value if bw == SUCCESS else None),
           (SUCCESS, 0) if os.path.basename(scenario) in NVSWITCH_SCENARIOS
           else (NOT_SUPPORTED, None))
    check_vgpu_and_units(dll, gpus, migs, errors)
    # Every MIG device is a GPU instance with one compute instance (both
    # found by id), and the instances agree with the device.
    gis, cis = instances(dll, gpus, migs)
    expect(errors, "GPU instances found for the MIG devices", len(gis), len(migs))
    expect(errors, "compute instances found for the MIG devices", len(cis), len(migs))
    for (i, m), gi in zip(migs, gis):
        info = (C.c_ubyte * 24)()
        expect(errors, "GPU instance info", fn(dll, "nvmlGpuInstanceGetInfo")(gi, info), SUCCESS)
        parent = C.c_void_p.from_buffer(info).value
        expect(errors, "GPU instance's device is its MIG device's parent", parent, gpus[i].value)
    name = os.path.basename(scenario)
    vt, cnt = C.c_int(), C.c_uint()
    samples = fn(dll, "nvmlDeviceGetSamples")
    if name == "workstation.ini":
        # GPU 1 (the laptop) reports no power draw; GPU 0 does.
        expect(errors, "workstation GPU 1 power samples",
               samples(gpus[1], 0, C.c_ulonglong(0), C.byref(vt), C.byref(cnt), None),
               NOT_SUPPORTED)
        expect(errors, "workstation GPU 0 power samples",
               samples(gpus[0], 0, C.c_ulonglong(0), C.byref(vt), C.byref(cnt), None), SUCCESS)
    state = fn(dll, "nvmlDeviceGetNvLinkState")
    anc = fn(dll, "nvmlDeviceGetTopologyCommonAncestor")
    if name in NVSWITCH_SCENARIOS:
        for i, h in enumerate(gpus):
            expect(errors, "GPU %d NVLink 17 state" % i, (state(h, 17, C.byref(u)), u.value),
                   (SUCCESS, 1))
            expect(errors, "GPU %d NVLink 18" % i, state(h, 18, C.byref(u)), INVALID_ARGUMENT)
    if name == "h100x8-training.ini":
        fv = FieldValue(fieldId=91)
        fn(dll, "nvmlDeviceGetFieldValues")(gpus[0], 1, C.byref(fv))
        expect(errors, "NVLink link count field", (fv.nvmlReturn, fv.value & 0xFFFFFFFF),
               (SUCCESS, 18))
        for other, level in ((1, 20), (2, 40), (4, 50)):
            expect(errors, "GPU 0-%d common ancestor" % other,
                   (anc(gpus[0], gpus[other], C.byref(u)), u.value), (SUCCESS, level))
        nodes = (C.c_ulong * 1)()
        expect(errors, "GPU 5 NUMA affinity",
               (fn(dll, "nvmlDeviceGetMemoryAffinity")(gpus[5], 1, nodes, 0), nodes[0]),
               (SUCCESS, 2))
        expect(errors, "GPU 5 GPU NUMA id (not a coherent platform)",
               fn(dll, "nvmlDeviceGetNumaNodeId")(gpus[5], C.byref(u)), NOT_SUPPORTED)
    elif gpus and name not in NVSWITCH_SCENARIOS:
        expect(errors, "%s: GPU 0 NVLink (PCIe only)" % name, state(gpus[0], 0, C.byref(u)),
               NOT_SUPPORTED)
        if len(gpus) > 1:
            rc = anc(gpus[0], gpus[1], C.byref(u))
            if rc != SUCCESS or u.value not in (20, 30, 40, 50):
                errors.append("%s: GPU 0-1 common ancestor %d %d" % (name, rc, u.value))


def check_vgpu_and_units(dll, gpus, migs, errors):
    """Bare metal without a vGPU manager and without an S-class unit
    (docs/simulator.md, "vGPU and S-class units")."""
    u, v = C.c_uint(), C.c_uint()
    for i, h in enumerate(gpus):
        for name in ("nvmlDeviceGetActiveVgpus", "nvmlDeviceGetSupportedVgpus",
                     "nvmlDeviceGetCreatableVgpus"):
            u.value = 7
            expect(errors, "GPU %d %s" % (i, name), (fn(dll, name)(h, C.byref(u), None), u.value),
                   (SUCCESS, 0))
        expect(errors, "GPU %d host vGPU mode" % i,
               fn(dll, "nvmlDeviceGetHostVgpuMode")(h, C.byref(u)), NOT_SUPPORTED)
        vt = C.c_int(-1)
        u.value = 7
        expect(errors, "GPU %d vGPU utilisation" % i,
               (fn(dll, "nvmlDeviceGetVgpuUtilization")(h, C.c_ulonglong(0), C.byref(vt),
                                                        C.byref(u), None), vt.value, u.value),
               (SUCCESS, 1, 0))
        lic = C.create_string_buffer(b"\xff" * 860, 860)
        expect(errors, "GPU %d vGPU licensing" % i,
               (fn(dll, "nvmlDeviceGetGridLicensableFeatures_v4")(h, lic), lic.raw[:8]),
               (SUCCESS, bytes(8)))
        expect(errors, "GPU %d max instances of vGPU type 1" % i,
               fn(dll, "nvmlVgpuTypeGetMaxInstances")(h, 1, C.byref(u)), INVALID_ARGUMENT)
    for i, m in migs:
        expect(errors, "MIG device of GPU %d active vGPUs" % i,
               fn(dll, "nvmlDeviceGetActiveVgpus")(m, C.byref(u), None), NOT_SUPPORTED)
    supported, current = C.create_string_buffer(8), C.create_string_buffer(8)
    expect(errors, "vGPU version range", fn(dll, "nvmlGetVgpuVersion")(supported, current),
           NOT_SUPPORTED)
    for inst, want in ((0, INVALID_ARGUMENT), (1, NOT_FOUND), (0xFFFFFFFF, NOT_FOUND)):
        expect(errors, "type of vGPU instance %d" % inst,
               fn(dll, "nvmlVgpuInstanceGetType")(inst, C.byref(u)), want)
    expect(errors, "name of vGPU type 1",
           fn(dll, "nvmlVgpuTypeGetName")(1, C.create_string_buffer(96), C.byref(C.c_uint(96))),
           INVALID_ARGUMENT)
    u.value = 7
    expect(errors, "unit count", (fn(dll, "nvmlUnitGetCount")(C.byref(u)), u.value), (SUCCESS, 0))
    unit = C.c_void_p()
    expect(errors, "unit 0 handle", fn(dll, "nvmlUnitGetHandleByIndex")(0, C.byref(unit)),
           INVALID_ARGUMENT)
    for handle in (None, FORGED_UNIT):
        expect(errors, "unit info of %s" % ("NULL" if handle is None else "a forged unit"),
               fn(dll, "nvmlUnitGetUnitInfo")(handle, C.create_string_buffer(384)),
               INVALID_ARGUMENT)


# ------------------------------------------------------------------ nvitop


class NvitopTraceback(Exception):
    pass


def nvitop_query(dll, name, *args):
    """nvitop's libnvml.nvmlQuery: NOT_SUPPORTED and friends become N/A;
    a missing function is logged with a traceback (here: a failure)."""
    try:
        f = fn(dll, name)
    except AttributeError:
        raise NvitopTraceback("%s: FunctionNotFound (nvitop logs a traceback)" % name)
    rc = f(*args)
    if rc == FUNCTION_NOT_FOUND:
        raise NvitopTraceback("%s: FUNCTION_NOT_FOUND (nvitop logs a traceback)" % name)
    return rc


def nvitop_process_stride(has):
    """The process-entry size nvitop's libnvml.py settles on from the symbols
    the library has: with _v3, 32 bytes when nvmlDeviceGetConfComputeMemSizeInfo
    exists and nvmlDeviceGetRunningProcessDetailList does not (the 535.43-86
    drivers), else 24; 24 with only _v2; 16 with only v1."""
    if has("nvmlDeviceGetComputeRunningProcesses_v3"):
        if (has("nvmlDeviceGetConfComputeMemSizeInfo")
                and not has("nvmlDeviceGetRunningProcessDetailList")):
            return 32
        return 24
    if has("nvmlDeviceGetComputeRunningProcesses_v2"):
        return 24
    return 16


def check_nvitop_stride_rule():
    """The rule itself tells the symbol sets apart, so the replay's check
    can fail: MemSizeInfo without the detail list means 32 bytes."""
    v3, cc = "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetConfComputeMemSizeInfo"
    detail = "nvmlDeviceGetRunningProcessDetailList"
    cases = [({v3, cc}, 32), ({v3, cc, detail}, 24), ({v3}, 24), ({v3, detail}, 24),
             ({"nvmlDeviceGetComputeRunningProcesses_v2"}, 24), (set(), 16)]
    return [("%s -> %d, expected %d" % (sorted(syms), nvitop_process_stride(syms.__contains__), want))
            for syms, want in cases if nvitop_process_stride(syms.__contains__) != want]


def nvitop_device(dll, h, mig):
    """The attributes of nvitop's Device.as_snapshot(), in its order."""
    u, v, U = C.c_uint(), C.c_uint(), C.c_ulonglong()
    buf = C.create_string_buffer(96)
    q = lambda name, *a: nvitop_query(dll, name, h, *a)  # noqa: E731
    q("nvmlDeviceGetName", buf, 96)
    q("nvmlDeviceGetUUID", buf, 96)
    mem = C.create_string_buffer(40)
    C.c_uint.from_buffer(mem).value = 0x02000028
    q("nvmlDeviceGetMemoryInfo_v2", mem)
    bar1 = Bar1()
    rc = q("nvmlDeviceGetBAR1MemoryInfo", C.byref(bar1))
    if mig and rc != SUCCESS:
        raise RuntimeError("BAR1 on a MIG device: %d (nvitop --once crashes)" % rc)
    q("nvmlDeviceIsMigDeviceHandle", C.byref(u))
    if mig:
        q("nvmlDeviceGetGpuInstanceId", C.byref(u))
        q("nvmlDeviceGetComputeInstanceId", C.byref(u))
        parent = C.c_void_p()
        q("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", C.byref(parent))
    else:
        q("nvmlDeviceGetPciInfo_v3", C.create_string_buffer(68))
        q("nvmlDeviceGetUtilizationRates", C.create_string_buffer(8))
        q("nvmlDeviceGetEncoderUtilization", C.byref(u), C.byref(v))
        q("nvmlDeviceGetDecoderUtilization", C.byref(u), C.byref(v))
        q("nvmlDeviceGetFanSpeed", C.byref(u))
        temp = C.create_string_buffer(12)
        C.c_uint.from_buffer(temp).value = 0x0100000C
        q("nvmlDeviceGetTemperatureV", temp)
        q("nvmlDeviceGetPowerUsage", C.byref(u))
        q("nvmlDeviceGetPowerManagementLimit", C.byref(u))
        q("nvmlDeviceGetPerformanceState", C.byref(u))
        q("nvmlDeviceGetPersistenceMode", C.byref(u))
        q("nvmlDeviceGetDisplayActive", C.byref(u))
        q("nvmlDeviceGetDisplayMode", C.byref(u))
        q("nvmlDeviceGetDriverModel", C.byref(u), C.byref(v))  # the traceback of issue 14
        q("nvmlDeviceGetComputeMode", C.byref(u))
        q("nvmlDeviceGetMigMode", C.byref(u), C.byref(v))
        q("nvmlDeviceGetTotalEccErrors", 1, 0, C.byref(U))
        for clock in range(4):
            q("nvmlDeviceGetClockInfo", clock, C.byref(u))
            q("nvmlDeviceGetMaxClockInfo", clock, C.byref(u))
        q("nvmlDeviceGetPcieThroughput", 0, C.byref(u))
        q("nvmlDeviceGetPcieThroughput", 1, C.byref(u))
        q("nvmlDeviceGetCudaComputeCapability", C.byref(C.c_int()), C.byref(C.c_int()))
        links = FieldValue(fieldId=91)
        q("nvmlDeviceGetFieldValues", 1, C.byref(links))
        if links.nvmlReturn == SUCCESS:
            for link in range(links.value & 0xFFFFFFFF):
                q("nvmlDeviceGetNvLinkState", link, C.byref(u))
                fvs = (FieldValue * 2)(FieldValue(fieldId=138, scopeId=link),
                                       FieldValue(fieldId=139, scopeId=link))
                q("nvmlDeviceGetFieldValues", 2, fvs)
                if any(f.nvmlReturn != SUCCESS for f in fvs):
                    raise RuntimeError("NVLink throughput of link %d unanswered" % link)
    # Processes: the stride nvitop picks from the exported symbols (it must
    # be the 24 bytes the _v3 symbols write), the pynvml sizing call.
    stride = nvitop_process_stride(lambda name: hasattr(dll, name))
    if stride != 24:
        raise RuntimeError("nvitop would read %d-byte process entries from _v3 (24 written)"
                           % stride)
    for sym in ("nvmlDeviceGetComputeRunningProcesses_v3",
                "nvmlDeviceGetGraphicsRunningProcesses_v3"):
        cnt = C.c_uint(0)
        rc = q(sym, C.byref(cnt), None)
        if rc == 7:
            arr = C.create_string_buffer(stride * (cnt.value * 2 + 5))
            cnt.value = cnt.value * 2 + 5
            if q(sym, C.byref(cnt), arr) != SUCCESS:
                raise RuntimeError("%s failed after sizing" % sym)


def nvitop_session(dll):
    if nvitop_query(dll, "nvmlInitWithFlags", 0) != SUCCESS:
        raise RuntimeError("init failed")
    try:
        buf = C.create_string_buffer(80)
        nvitop_query(dll, "nvmlSystemGetDriverVersion", buf, 80)
        nvitop_query(dll, "nvmlSystemGetCudaDriverVersion", C.byref(C.c_int()))
        gpus, migs = handles(dll)
        for h in gpus:
            nvitop_device(dll, h, False)
        for _, m in migs:
            nvitop_device(dll, m, True)
        return len(gpus), len(migs)
    finally:
        fn(dll, "nvmlShutdown")()


# ------------------------------------------------------------------ main


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    dll = C.CDLL(os.path.abspath(sys.argv[1]))
    entries = load_list()
    scenarios = sorted(glob.glob(os.path.join(SCENARIOS, "*.ini")) + glob.glob(os.path.join(SCENARIOS, "compat", "*.ini")))
    failed = 0
    denied = set()
    print("1..%d" % (2 * len(scenarios) + 2))
    k = 1
    bad = check_nvitop_stride_rule()
    stride = nvitop_process_stride(lambda n: hasattr(dll, n))
    if bad or stride != 24:
        failed += 1
        print("not ok 1 - nvitop's process stride from this library's symbols is 24 (got %d)"
              % stride)
        for b in bad:
            print("#   stride rule: " + b)
    else:
        print("ok 1 - nvitop's process stride from this library's symbols is 24")
    for path in scenarios:
        name = os.path.basename(path)
        set_scenario(path)
        errors = []
        check_symbols(dll, entries, errors)
        note = ""
        rc = fn(dll, "nvmlInitWithFlags")(0)
        if rc == SUCCESS:
            try:
                gpus, migs = handles(dll)
                calls = call_all(dll, entries, gpus, migs, errors, denied)
                check_semantics(dll, path, gpus, migs, errors)
                note = " (%d calls on %d GPUs, %d MIG devices)" % (calls, len(gpus), len(migs))
            finally:
                fn(dll, "nvmlShutdown")()
        else:
            note = " (init fails with %d by design: symbols only)" % rc
        k += 1
        if errors:
            failed += 1
            print("not ok %d - every pynvml function on %s" % (k, name))
            for e in errors:
                print("#   " + e)
        else:
            print("ok %d - every pynvml function on %s%s" % (k, name, note))
        k += 1
        try:
            if rc == SUCCESS:
                g, m = nvitop_session(dll)
                print("ok %d - nvitop start-up on %s (%d GPUs, %d MIG devices)" % (k, name, g, m))
            else:
                print("ok %d - nvitop start-up on %s # SKIP init fails by design" % (k, name))
        except Exception:  # report every failure, keep going
            failed += 1
            print("not ok %d - nvitop start-up on %s" % (k, name))
            traceback.print_exc(file=sys.stdout)
    k += 1
    never = sorted(n for n, a in entries if "!" in a and n not in denied)
    if never:
        failed += 1
        print("not ok %d - every state-changing call answers NO_PERMISSION somewhere" % k)
        for n in never:
            print("#   %s: never NO_PERMISSION as non-root" % n)
    else:
        print("ok %d - every state-changing call answers NO_PERMISSION somewhere" % k)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
