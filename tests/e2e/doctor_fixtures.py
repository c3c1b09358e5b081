#!/usr/bin/env python3
"""doctor_fixtures.py -- `gpumon doctor --root` on every fixture tree of
tests/fixtures/doctor/make-fixtures.sh (built into a temporary directory),
and the simulator's fault scenarios driving the NVML-level checks.

Each case: the exact set of failing checks and of warnings, a phrase of each
failing check's remedy, the same verdicts in --json as in the text, and the
exit code.  Then README's "My GPUs disappeared" block must be doctor's text
output on the nouveau-bound fixture, exactly.

Environment from meson: GPUMON, SOURCE_ROOT.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

GPUMON = os.environ["GPUMON"]
SRC = os.environ["SOURCE_ROOT"]
SC = os.path.join(SRC, "scenarios")
H100 = "h100x8-training.ini"

# fixture, scenario, GPUSIM_TIME, {failing check: remedy phrase}, warnings, exit
CASES = [
    ("healthy", H100, 0, {}, set(), 0),
    ("driver-not-installed", H100, 0,
     {"modules": "until the 'build' check is fixed",
      "build": "the NVIDIA driver is not installed"}, {"pci"}, 1),
    ("module-not-loaded", H100, 0, {"modules": "sudo modprobe nvidia"}, {"pci"}, 1),
    ("nouveau-bound", H100, 0,
     {"pci": "blacklist nouveau", "modules": "nouveau is loaded"}, set(), 1),
    ("kernel-upgraded", H100, 0,
     {"modules": "until the 'build' check is fixed", "build": "sudo dkms autoinstall"},
     {"pci"}, 1),
    ("version-mismatch", H100, 0,
     {"version": "sudo reboot", "kernel-log": "reboot after a driver upgrade"}, set(), 1),
    ("devnodes-missing", H100, 0, {"devnodes": "sudo nvidia-modprobe -c=0 -u"}, set(), 1),
    ("devnodes-permissions", H100, 0, {"devnodes": "usermod -aG video"}, set(), 1),
    ("secureboot-unsigned", H100, 0,
     {"modules": "until the 'secureboot' check is fixed", "secureboot": "mokutil --import"},
     {"pci"}, 1),
    ("container-no-devices", H100, 0,
     {"devnodes": "--gpus all", "container": "--gpus all"}, set(), 1),
    ("laptop-dgpu-suspended", H100, 0,
     {"modules": "until the 'hybrid' check is fixed", "hybrid": "sudo prime-select nvidia"},
     {"pci"}, 1),
    # faults.ini: GPU 1 is lost from t = 60 to 120
    ("fell-off-bus", "faults.ini", 70,
     {"kernel-log": "fell off the bus", "gpus": "a GPU fell off the bus"}, set(), 1),
    # flags.ini: GPU 7 waits for a row remap, GPU 6 has persistence off
    ("row-remap-pending", "flags.ini", 0, {"gpus": "a reset is required"}, {"kernel-log"}, 1),
    # the simulator's faults drive the NVML-level checks on a healthy tree
    ("healthy", "fault-driver-not-loaded.ini", 0, {"nvml": "sudo modprobe nvidia"}, set(), 1),
    ("healthy", "fault-version-mismatch.ini", 0, {"nvml": "reboot after the driver upgrade"},
     set(), 1),
    ("healthy", "fault-no-permission.ini", 0, {"gpus": "device-nodes check"}, set(), 1),
]

failures = []


def run(args, scenario, t, cwd):
    env = dict(os.environ, GPUSIM_TIME=str(t), LC_ALL="C.UTF-8")
    return subprocess.run([GPUMON, "--sim", os.path.join(SC, scenario), "doctor"] + args,
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def check_case(fx, case):
    name, scenario, t, fails, warns, code = case
    tag = f"{name} ({scenario})"
    args = ["--root", name, "--user", "1000:1000"]
    p = run(args + ["--json"], scenario, t, fx)
    if p.returncode != code:
        failures.append(f"{tag}: exit {p.returncode}, want {code}; stderr {p.stderr!r}")
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        failures.append(f"{tag}: --json is not JSON: {e}")
        return
    got_fail = {c["id"] for c in doc["checks"] if c["status"] == "fail"}
    got_warn = {c["id"] for c in doc["checks"] if c["status"] == "warn"}
    if got_fail != set(fails):
        failures.append(f"{tag}: failing {sorted(got_fail)}, want {sorted(fails)}")
    if got_warn != warns:
        failures.append(f"{tag}: warnings {sorted(got_warn)}, want {sorted(warns)}")
    if doc["failed"] != len(got_fail):
        failures.append(f"{tag}: \"failed\" {doc['failed']}, {len(got_fail)} checks failed")
    for c in doc["checks"]:
        if c["id"] in fails and fails[c["id"]] not in (c["remedy"] or ""):
            failures.append(f"{tag}: {c['id']} remedy {c['remedy']!r} lacks {fails[c['id']]!r}")
        if c["status"] == "fail" and not c["remedy"]:
            failures.append(f"{tag}: {c['id']} fails without a remedy")
        if c["status"] == "pass" and c["remedy"] is not None:
            failures.append(f"{tag}: {c['id']} passes with a remedy")
    # the text says the same
    p2 = run(args, scenario, t, fx)
    if p2.returncode != code:
        failures.append(f"{tag}: text exit {p2.returncode}, want {code}")
    text_fail = set(re.findall(r"^FAIL  (\S+)", p2.stdout, re.M))
    if text_fail != set(fails):
        failures.append(f"{tag}: text shows failing {sorted(text_fail)}")
    for rem in fails.values():
        if rem not in p2.stdout:
            failures.append(f"{tag}: text lacks remedy {rem!r}")


def readme_block():
    """The README block between the doctor markers: its command lines (the
    "$ " lines) and the output shown after them; (None, None) if absent."""
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- BEGIN doctor nouveau-bound -->\n```\n((?:\$ [^\n]*\n)+)(.*?)```\n"
                  r"<!-- END doctor -->", text, re.S)
    if not m:
        return None, None
    return [line[2:] for line in m.group(1).splitlines()], m.group(2)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        fx = os.path.join(tmp, "fx")
        subprocess.run(["sh", os.path.join(SRC, "tests/fixtures/doctor/make-fixtures.sh"), fx],
                       check=True)
        for case in CASES:
            check_case(fx, case)
        # README: doctor's output on a broken fixture, exactly (no NVML needed:
        # the lower checks fail, so NVML is "unknown" whatever the library)
        # The block's commands run as written, from the top of a checkout
        # with gpumon on the PATH: the fixtures are made by the block itself
        # (a fresh clone has none), in a directory under this test's own.
        cmds, want = readme_block()
        if cmds is None:
            failures.append("README.md has no doctor nouveau-bound block")
        elif cmds[-1] != "gpumon doctor --root nouveau-bound":
            failures.append(f"README.md's doctor block ends with {cmds[-1]!r}")
        else:
            script = "set -e\n" + "\n".join(cmds) + "\n"
            env = dict(os.environ, LC_ALL="C.UTF-8", TMPDIR=tmp,
                       PATH=os.path.dirname(os.path.abspath(GPUMON)) + ":" + os.environ["PATH"])
            p = subprocess.run(["bash", "-c", script], cwd=SRC, capture_output=True, text=True,
                               env=env)
            if p.returncode != 1:
                failures.append(f"README.md's doctor block: exit {p.returncode}, want 1 "
                                f"(one failing check); stderr: {p.stderr}")
            if p.stdout != want:
                failures.append("README.md's doctor block is stale; now:\n" + p.stdout)
        # the agent's DynamicUser is in no group: 0660 root:video shuts it out
        p = run(["--root", "devnodes-permissions", "--json"], H100, 0, fx)
        dn = [c for c in json.loads(p.stdout)["checks"] if c["id"] == "devnodes"][0]
        if not any("agent's service user" in e and "cannot open 2" in e for e in dn["evidence"]):
            failures.append(f"devnodes-permissions: no word on the agent's user: {dn['evidence']}")
        p = run(["--root", "healthy", "--json"], H100, 0, fx)
        dn = [c for c in json.loads(p.stdout)["checks"] if c["id"] == "devnodes"][0]
        if any("agent's service user" in e for e in dn["evidence"]):
            failures.append("healthy: the agent's user is said to be shut out of 0666 nodes")
        # hostile text from outside: a kernel log line with a terminal escape,
        # a C1 control and a byte that is not UTF-8 must reach neither the
        # terminal nor JSON as such
        hostile = os.path.join(fx, "healthy")
        with open(os.path.join(hostile, "kernel.log"), "ab") as f:
            f.write(b"[ 9.1] NVRM: evil \x1b[2J\x1b]0;owned\x07 \xc2\x9b31m \xff end\n")
        for extra in ([], ["--json"]):
            p = run(["--root", "healthy", "--user", "1000:1000"] + extra, H100, 0, fx)
            raw = p.stdout.encode("utf-8", "surrogateescape")
            if b"\x1b" in raw or b"\x07" in raw or b"\xc2\x9b" in raw:
                failures.append(f"hostile kernel log line reached the output {extra}")
            if "evil" not in p.stdout:
                failures.append(f"hostile kernel log line not shown at all {extra}")
            if extra:
                json.loads(p.stdout)
        # bad usage
        p = subprocess.run([GPUMON, "doctor", "--root", os.path.join(fx, "nope")],
                           capture_output=True, text=True)
        if p.returncode != 2 or "--root" not in p.stderr or "nope" not in p.stderr:
            failures.append(f"--root on a missing dir: exit {p.returncode}, {p.stderr!r}")
        p = subprocess.run([GPUMON, "doctor", "--user", "x"], capture_output=True, text=True)
        if p.returncode != 2 or "--user" not in p.stderr:
            failures.append(f"--user x: exit {p.returncode}, {p.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(CASES)} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
