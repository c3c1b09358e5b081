#!/usr/bin/env python3
"""gpumon -q with -l/-lms against the simulator: the report repeats whole
(banner, header, the sections asked for) on the loop's cadence, -x repeats
whole XML documents, -f keeps every report in the file, and SIGINT ends the
loop with exit status 0 and nothing on stderr.  Each report of a loop, of
-q and of `query --query-gpu`, reads its values afresh: nvidia-smi's forms
have no place for an age, so a value the agent would read only every 10 s
(power management) is read again for every report
(GPUSIM_TRACE counts the calls; issue 30).

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.environ["SOURCE_ROOT"]
GPUMON = os.environ["GPUMON"]


def env_for(scenario):
    env = dict(os.environ)
    for k in ("GPUSIM_TIME", "GPUSIM_SPEED", "GPUSIM_EPOCH"):
        env.pop(k, None)
    env.update({"GPUMON_NVML_LIB": os.environ["SIM_LIB"], "TZ": "UTC", "LC_ALL": "C",
                "GPUSIM_SCENARIO": os.path.join(ROOT, "scenarios", scenario)})
    return env


def run_for(args, seconds):
    p = subprocess.Popen([GPUMON] + args, env=env_for("workstation.ini"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(seconds)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"{args} did not stop within 5 s of SIGINT")
    return p.returncode, out.decode(), err.decode()


def check(cond, msg, *ctx):
    if not cond:
        print("FAIL:", msg)
        for c in ctx:
            print(c)
        sys.exit(1)


def test_text():
    rc, out, err = run_for(["-q", "-d", "PERFORMANCE", "-i", "1", "-lms", "250"], 1.1)
    check(rc == 0 and err == "", f"exit {rc} after SIGINT, stderr {err!r}")
    n = out.count("==============NVSMI LOG==============")
    # 250 ms cadence for 1.1 s: reports at 0, .25, .5, .75, 1.0 (4 or 5 with start-up)
    check(4 <= n <= 5, f"{n} reports in 1.1 s at 250 ms", out)
    check(out.count("    Performance State                     : P8\n") == n,
          "each report has the section", out)
    check(out.count("GPU 00000000:02:00.0\n") == n and "00000000:01:00.0" not in out,
          "each report has the GPU -i chose, and only it", out)
    check("FB Memory Usage" not in out, "-d keeps only its sections", out)


def test_xml_file():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "q.xml")
        rc, out, err = run_for(["-q", "-x", "-d", "MEMORY", "-l", "0.3", "-f", path], 0.8)
        check(rc == 0 and out == "" and err == "", f"exit {rc}, stdout {out!r}, stderr {err!r}")
        text = open(path, encoding="utf-8").read()
    n = text.count("<?xml version=\"1.0\" ?>\n")
    check(n >= 2, f"{n} XML documents in the file after 0.8 s at 0.3 s", text)
    check(text.count("</nvidia_smi_log>\n") == n, "each document is whole", text)


def reports_read_afresh(args, marker, fn, want):
    """Runs gpumon ARGS -f FILE until FILE has `want` reports (each counted
    by marker; a generous deadline, not a sleep), then SIGINT; returns
    (reports, calls of fn for GPU 0)."""
    with tempfile.TemporaryDirectory() as d:
        path, trace = os.path.join(d, "out"), os.path.join(d, "trace")
        env = env_for("workstation.ini")
        env["GPUSIM_TRACE"] = trace
        p = subprocess.Popen([GPUMON] + args + ["-f", path], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        text = ""
        while time.monotonic() < deadline and p.poll() is None:
            text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            if text.count(marker) >= want:
                break
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        check(p.returncode == 0 and err == b"", f"{args}: exit {p.returncode}, stderr {err!r}")
        text = open(path, encoding="utf-8").read()
        n = text.count(marker)
        check(n >= want, f"{args}: {n} reports within 60 s, want {want}", text)
        lines = open(trace, encoding="utf-8").read().split("\n")
    return n, sum(1 for ln in lines if ln == fn + "@0")


def test_fresh_each_report():
    for args, marker, fn in (
            (["query", "--query-gpu=index,power.management", "--format=csv,noheader", "-i", "0",
              "-lms", "200"], "\n", "nvmlDeviceGetPowerManagementMode"),
            (["-q", "-d", "POWER", "-i", "0", "-lms", "200"],
             "==============NVSMI LOG==============", "nvmlDeviceGetPowerManagementMode")):
        n, calls = reports_read_afresh(args, marker, fn, 3)
        # the file may hold a report more than the calls counted (it is read
        # after SIGINT), never fewer calls than reports but that one
        check(calls >= n - 1 and calls >= 3,
              f"{' '.join(args)}: {fn} called {calls} times for {n} reports (a held value "
              "shown as fresh)")


def main():
    test_text()
    test_xml_file()
    test_fresh_each_report()
    print("ok smiq_loop")


if __name__ == "__main__":
    main()
