#!/usr/bin/env python3
"""seeds_logger.py -- the seeds' pynvml logger, as a peer for the agent's CPU.

    seeds_logger.py --out CSV [--interval 1] [--count N]

The seed article 000 (section 3.3, "用 Python 的 pynvml 做更细的采集")
logs nine fields of every GPU with pynvml: time, gpu_index, util_percent,
mem_used_mib, mem_total_mib, power_w, temp_c, sm_clock_mhz, mem_clock_mhz.
This is that logger run every --interval seconds (absolute deadlines, as
gpumon's sampler keeps them), appending one CSV row per GPU per pass with
csv.DictWriter, the file opened for each pass as the article's `with open`
block does.  It stops after --count passes (0: until SIGTERM or SIGINT),
then calls nvmlShutdown.

pynvml (nvidia-ml-py) is not installable here: there is no PyPI access and
no Debian package.  pynvml is a thin ctypes wrapper, so this file stands in
for it: it loads libnvidia-ml.so.1 with ctypes.CDLL (the simulator when
GPUMON_NVML_LIB names it, as scripts/bench.sh sets it), and each pynvml
function the article calls becomes the same one C call, made the way
pynvml makes it: the function pointer looked up in a cache under a lock
(pynvml's _nvmlGetFunctionPointer), a ctypes structure or integer passed by
reference, the return code checked (_nvmlCheckReturn raises NVMLError).

  pynvml.nvmlInit()                      nvmlInit_v2
  pynvml.nvmlDeviceGetCount()            nvmlDeviceGetCount_v2
  pynvml.nvmlDeviceGetHandleByIndex(i)   nvmlDeviceGetHandleByIndex_v2
  pynvml.nvmlDeviceGetUtilizationRates   nvmlDeviceGetUtilizationRates
  pynvml.nvmlDeviceGetMemoryInfo         nvmlDeviceGetMemoryInfo (nvmlMemory_t, v1)
  pynvml.nvmlDeviceGetPowerUsage         nvmlDeviceGetPowerUsage
  pynvml.nvmlDeviceGetTemperature(h, 0)  nvmlDeviceGetTemperature (NVML_TEMPERATURE_GPU)
  pynvml.nvmlDeviceGetClockInfo(h, 1/2)  nvmlDeviceGetClockInfo (NVML_CLOCK_SM, _MEM)
  pynvml.nvmlShutdown()                  nvmlShutdown

What pynvml does besides (its _PrintableStructure field lists, the
c_nvmlDevice_t wrapper class) costs a few attribute look-ups per call and
is left out, so this peer is, if anything, a little cheaper than pynvml.
Exit status 0; 1 when NVML fails (the error names the call).
"""

import argparse
import csv
import ctypes
import os
import signal
import sys
import threading
import time
from datetime import datetime

NVML_TEMPERATURE_GPU = 0
NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2


class NVMLError(Exception):
    def __init__(self, fn, ret):
        super().__init__("%s returned %d" % (fn, ret))


class c_nvmlUtilization_t(ctypes.Structure):
    _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]


class c_nvmlMemory_t(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong),
                ("used", ctypes.c_ulonglong)]


c_nvmlDevice_t = ctypes.c_void_p

_lib = None
_lock = threading.RLock()
_fns = {}


def _fn(name):
    """pynvml's _nvmlGetFunctionPointer: a cached look-up under a lock."""
    if name in _fns:
        return _fns[name]
    with _lock:
        try:
            _fns[name] = getattr(_lib, name)
            return _fns[name]
        except AttributeError:
            raise NVMLError(name, 13)  # NVML_ERROR_FUNCTION_NOT_FOUND


def _check(name, ret):
    if ret != 0:
        raise NVMLError(name, ret)


def nvmlInit():
    global _lib
    with _lock:
        if _lib is None:
            _lib = ctypes.CDLL(os.environ.get("GPUMON_NVML_LIB") or "libnvidia-ml.so.1")
    _check("nvmlInit_v2", _fn("nvmlInit_v2")())


def nvmlShutdown():
    _check("nvmlShutdown", _fn("nvmlShutdown")())


def nvmlDeviceGetCount():
    c = ctypes.c_uint()
    _check("nvmlDeviceGetCount_v2", _fn("nvmlDeviceGetCount_v2")(ctypes.byref(c)))
    return c.value


def nvmlDeviceGetHandleByIndex(i):
    h = c_nvmlDevice_t()
    _check("nvmlDeviceGetHandleByIndex_v2",
           _fn("nvmlDeviceGetHandleByIndex_v2")(ctypes.c_uint(i), ctypes.byref(h)))
    return h


def nvmlDeviceGetUtilizationRates(h):
    u = c_nvmlUtilization_t()
    _check("nvmlDeviceGetUtilizationRates",
           _fn("nvmlDeviceGetUtilizationRates")(h, ctypes.byref(u)))
    return u


def nvmlDeviceGetMemoryInfo(h):
    m = c_nvmlMemory_t()
    _check("nvmlDeviceGetMemoryInfo", _fn("nvmlDeviceGetMemoryInfo")(h, ctypes.byref(m)))
    return m


def nvmlDeviceGetPowerUsage(h):
    p = ctypes.c_uint()
    _check("nvmlDeviceGetPowerUsage", _fn("nvmlDeviceGetPowerUsage")(h, ctypes.byref(p)))
    return p.value


def nvmlDeviceGetTemperature(h, sensor):
    t = ctypes.c_uint()
    _check("nvmlDeviceGetTemperature",
           _fn("nvmlDeviceGetTemperature")(h, ctypes.c_int(sensor), ctypes.byref(t)))
    return t.value


def nvmlDeviceGetClockInfo(h, kind):
    c = ctypes.c_uint()
    _check("nvmlDeviceGetClockInfo",
           _fn("nvmlDeviceGetClockInfo")(h, ctypes.c_int(kind), ctypes.byref(c)))
    return c.value


FIELDNAMES = ["time", "gpu_index", "util_percent", "mem_used_mib", "mem_total_mib", "power_w",
              "temp_c", "sm_clock_mhz", "mem_clock_mhz"]


def log_pass(path, device_count):
    """One pass of the article's logger: a row per GPU appended to path."""
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDNAMES)
        for i in range(device_count):
            handle = nvmlDeviceGetHandleByIndex(i)
            util = nvmlDeviceGetUtilizationRates(handle)
            memory = nvmlDeviceGetMemoryInfo(handle)
            power = nvmlDeviceGetPowerUsage(handle)
            temp = nvmlDeviceGetTemperature(handle, NVML_TEMPERATURE_GPU)
            sm_clk = nvmlDeviceGetClockInfo(handle, NVML_CLOCK_SM)
            mem_clk = nvmlDeviceGetClockInfo(handle, NVML_CLOCK_MEM)
            writer.writerow({
                "time": datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
                "gpu_index": i,
                "util_percent": util.gpu,
                "mem_used_mib": memory.used // (1024 * 1024),
                "mem_total_mib": memory.total // (1024 * 1024),
                "power_w": power / 1000.0,
                "temp_c": temp,
                "sm_clock_mhz": sm_clk,
                "mem_clock_mhz": mem_clk,
            })


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="CSV file to append to")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between passes")
    ap.add_argument("--count", type=int, default=0, help="passes (0: until SIGTERM)")
    a = ap.parse_args()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        nvmlInit()
        device_count = nvmlDeviceGetCount()
        deadline = time.monotonic()
        done = 0
        while not stop.is_set() and (a.count == 0 or done < a.count):
            log_pass(a.out, device_count)
            done += 1
            deadline += a.interval
            stop.wait(max(0.0, deadline - time.monotonic()))
        nvmlShutdown()
    except NVMLError as e:
        sys.exit("seeds_logger: NVML: %s" % e)
    except OSError as e:
        sys.exit("seeds_logger: %s: %s" % (a.out, e.strerror))


if __name__ == "__main__":
    main()
