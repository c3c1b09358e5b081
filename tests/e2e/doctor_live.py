#!/usr/bin/env python3
"""doctor_live.py -- `gpumon doctor` on this machine as it is, and the
capture round trip.

 1. Without a GPU (the test machines have none; the test is skipped where
    sys/bus/pci lists an NVIDIA display device): exit 1, the pci check fails
    and says so plainly, the text points at the simulator, the checks that
    do not need a GPU still pass or fail on their own, and nothing above the
    failed pci check is a guess (modules, devnodes, nvml, gpus: unknown).
 2. --capture FILE.tar.gz, unpacked with tar, then --root on it: the same
    checks, statuses, evidence and remedies as the live run; the archive
    holds only the documented paths and no environment (a variable planted
    in the environment appears nowhere in it).
 3. --capture into a missing directory: exit 1 and an error naming the file.

Environment from meson: GPUMON, SOURCE_ROOT.
"""
import glob
import json
import os
import subprocess
import sys
import tarfile
import tempfile

GPUMON = os.environ["GPUMON"]
ALLOWED = ("proc/", "sys/", "lib/modules/", "var/lib/dkms/", "etc/modprobe.d/", "lib/modprobe.d/",
           "usr/lib/modprobe.d/", "usr/lib/", "lib/x86_64-linux-gnu/", "usr/local/nvidia/",
           "etc/prime-discrete", ".dockerenv", "run/.containerenv", "usr/bin/", "dev.list",
           "kernel.log", "usr/share/misc/pci.ids", "gpumon/nvml.txt", "gpumon/nvidia_visible_devices", "usr/lib64/")
failures = []


def doctor(args, env=None):
    e = dict(os.environ, LC_ALL="C.UTF-8")
    e.pop("GPUMON_NVML_LIB", None)
    e.update(env or {})
    return subprocess.run([GPUMON, "doctor"] + args, capture_output=True, text=True, env=e,
                          timeout=60)


def has_nvidia_gpu():
    for d in glob.glob("/sys/bus/pci/devices/*"):
        try:
            v = open(d + "/vendor").read().strip()
            c = open(d + "/class").read().strip()
        except OSError:
            continue
        if v == "0x10de" and c.startswith("0x03"):
            return True
    return False


def strip(doc):
    return [(c["id"], c["status"], c["evidence"], c["remedy"]) for c in doc["checks"]]


def main():
    if has_nvidia_gpu():
        print("SKIP: this machine has an NVIDIA GPU; the test wants one without")
        return 77
    p = doctor(["--json"])
    live = json.loads(p.stdout)
    st = {c["id"]: c for c in live["checks"]}
    if p.returncode != 1:
        failures.append(f"exit {p.returncode}, want 1")
    if st["pci"]["status"] != "fail" or "no NVIDIA" not in "\n".join(st["pci"]["evidence"]):
        failures.append(f"pci: {st['pci']}")
    for cid in ("modules", "devnodes", "nvml", "gpus", "hybrid", "version"):
        if st[cid]["status"] != "unknown":
            failures.append(f"{cid} is {st[cid]['status']} without a GPU, want unknown")
    failing = sorted(c["id"] for c in live["checks"] if c["status"] == "fail")
    if failing != ["pci"]:
        failures.append(f"failing {failing} without a GPU, want only pci")
    for c in live["checks"]:
        if c["status"] in ("pass", "unknown") and not c["evidence"]:
            failures.append(f"{c['id']} is {c['status']} without evidence")
    t = doctor([])
    if "No NVIDIA GPU here" not in t.stdout or "gpumon --sim" not in t.stdout:
        failures.append("the text does not say plainly that there is no GPU / name the "
                        "simulator:\n" + t.stdout)

    with tempfile.TemporaryDirectory() as tmp:
        arc = os.path.join(tmp, "cap.tar.gz")
        secret = "gpumon-test-secret-4e1d9"
        c = doctor(["--json", "--capture", arc], env={"GPUMON_TEST_SECRET": secret})
        if c.returncode != 1 or strip(json.loads(c.stdout)) != strip(live):
            failures.append(f"--capture changed the report (exit {c.returncode})")
        with tarfile.open(arc) as tf:
            names = tf.getnames()
            for n in names:
                if not n.startswith(ALLOWED):
                    failures.append(f"capture holds {n}, not a documented path")
            root = os.path.join(tmp, "root")
            os.mkdir(root)
        # extract with tar(1), as a user would
        subprocess.run(["tar", "-xzf", arc, "-C", root], check=True)
        for dirpath, _, files in os.walk(root):
            for f in files:
                fp = os.path.join(dirpath, f)
                if os.path.islink(fp):
                    continue
                if secret.encode() in open(fp, "rb").read():
                    failures.append(f"the environment leaked into {fp}")
        if "dev.list" not in names or "gpumon/nvml.txt" not in names:
            failures.append(f"capture lacks dev.list or gpumon/nvml.txt: {names}")
        r = doctor(["--json", "--root", root])
        replay = json.loads(r.stdout)
        if r.returncode != p.returncode:
            failures.append(f"replay exit {r.returncode}, live {p.returncode}")
        if not replay["nvml_captured"]:
            failures.append("replay did not use the captured NVML checks")
        if strip(replay) != strip(live):
            for a, b in zip(strip(live), strip(replay)):
                if a != b:
                    failures.append(f"round trip differs:\n live   {a}\n replay {b}")
        bad = doctor(["--capture", os.path.join(tmp, "no", "such", "dir.tar.gz")])
        if bad.returncode != 1 or "dir.tar.gz" not in bad.stderr:
            failures.append(f"capture to a missing dir: exit {bad.returncode}, {bad.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
