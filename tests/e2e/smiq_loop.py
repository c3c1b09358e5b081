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
import threading
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


def check(cond, msg, *ctx):
    if not cond:
        print("FAIL:", msg)
        for c in ctx:
            print(c)
        sys.exit(1)


def run_until(args, marker, want, path=None):
    """Runs gpumon ARGS until its output (stdout, or the file PATH) holds
    `want` reports, each counted by marker (a generous deadline, not a
    sleep), then SIGINT.  Returns (exit status, output, stderr, seconds from
    the first report to the want-th, seconds from the start to the exit): a
    loop is never faster than its cadence, however loaded the machine."""
    started = time.monotonic()
    p = subprocess.Popen([GPUMON] + args, env=env_for("workstation.ini"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = []
    reader = threading.Thread(target=lambda: got.extend(iter(lambda: p.stdout.read1(65536), b"")),
                              daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    first = span = None
    while time.monotonic() < deadline and p.poll() is None:
        if path:
            text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        else:
            text = b"".join(list(got)).decode()
        n = text.count(marker)
        if n >= 1 and first is None:
            first = time.monotonic()
        if n >= want:
            span = time.monotonic() - first
            break
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"{args} did not stop within 30 s of SIGINT")
    lived = time.monotonic() - started
    reader.join(timeout=30)
    err = p.stderr.read().decode()
    stdout = b"".join(got).decode()
    out = open(path, encoding="utf-8").read() if path else stdout
    check(span is not None, f"{args}: {out.count(marker)} reports within 60 s, want {want}", out)
    # with -f the reports go to the file only
    check(not path or stdout == "", f"{args}: stdout with -f", stdout)
    return p.returncode, out, err, span, lived


def test_text():
    banner = "==============NVSMI LOG=============="
    rc, out, err, span, lived = run_until(["-q", "-d", "PERFORMANCE", "-i", "1", "-lms", "250"],
                                          banner, 4)
    check(rc == 0 and err == "", f"exit {rc} after SIGINT, stderr {err!r}")
    n = out.count(banner)
    # reports 2, 3 and 4 come at least 250 ms apart each (a slower machine
    # only spreads them)
    check(span >= 0.7, f"4 reports at -lms 250 within {span:.3f} s of the first", out)
    # SIGINT lands when it lands (a loaded machine may let more reports
    # through first), but never more than the cadence allows in the time the
    # loop ran: one at once, then one each 250 ms
    check(4 <= n <= 1 + lived / 0.25, f"{n} reports in {lived:.3f} s at -lms 250, want 4 or "
          "more, never more than the cadence allows", out)
    check(out.count("    Performance State                     : P8\n") == n,
          "each report has the section", out)
    check(out.count("GPU 00000000:02:00.0\n") == n and "00000000:01:00.0" not in out,
          "each report has the GPU -i chose, and only it", out)
    check("FB Memory Usage" not in out, "-d keeps only its sections", out)


def test_xml_file():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "q.xml")
        rc, out, err, span, _ = run_until(["-q", "-x", "-d", "MEMORY", "-l", "0.3", "-f", path],
                                          "<?xml version=\"1.0\" ?>\n", 2, path)
        check(rc == 0 and err == "", f"exit {rc}, stderr {err!r}")
        check(span >= 0.25, f"2 documents at -l 0.3 within {span:.3f} s of the first", out)
    n = out.count("<?xml version=\"1.0\" ?>\n")
    check(n >= 2, f"{n} XML documents in the file", out)
    check(out.count("</nvidia_smi_log>\n") == n, "each document is whole", out)


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
