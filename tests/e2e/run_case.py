#!/usr/bin/env python3
"""Runs one end-to-end case file: the built gpumon binary against the NVML
simulator, comparing exit status, stdout and stderr exactly.

A case file is a small header of "key: value" lines, then sections:

    # comment
    scenario: h100x8-training.ini   file under scenarios/ ("none": no GPUSIM_SCENARIO)
    time: 300                       GPUSIM_TIME (scenario seconds), default 0
    lib: sim                        sim (default), legacy, or missing (a path that does not exist)
    env: NAME=VALUE                 extra environment (repeatable); {root} in VALUE is
                                    the source tree (fixtures: {root}/tests/fixtures/...)
    spawn: 3                        start N real processes; GPUSIM_PID_RANK0.. are their PIDs
    args: query --format=csv ...    gpumon's arguments (shell-style quoting; {root} as in env)
    exit: 0                         expected exit status
    max-seconds: 5                  fail if the command runs longer (hang tests)
    min-seconds: 2                  fail if the command returns sooner
    json-schema: docs/json.md       validate stdout as JSON against the schema in that file
    xml-dtd: tests/fixtures/X.dtd   validate stdout with xmllint --dtdvalid against that DTD
                                    (also found under the DOCTYPE's SYSTEM name)
    --- stdout
    expected text
    --- stderr
    expected text

Expected text is compared line by line.  Placeholders stand for what differs
between machines: {host} (hostname), {user} (this user's name), {pid0}..{pidN}
(spawned PIDs), {iso} (ISO 8601 time with offset), {datetime} (the status
header's "YYYY-MM-DD HH:MM:SS +HH:MM"), {smitime}
(YYYY/MM/DD HH:MM:SS.mmm), {num} (a number), {*} (anything within the line).
A section that is absent is not checked; "--- stdout" followed directly by
the next section means "empty".

Environment from meson: GPUMON, SIM_LIB, SIM_LIB_LEGACY, SOURCE_ROOT.
With --update the expected sections are rewritten from the actual output
(review the diff before committing!).
"""
import json
import os
import pwd
import re
import shlex
import socket
import subprocess
import sys
import time

SECTION = re.compile(r"^--- (stdout|stderr)$")


def parse(path):
    head, sections, cur = {}, {}, None
    env = []
    with open(path, encoding="utf-8") as f:
        for raw in f.read().split("\n"):
            m = SECTION.match(raw)
            if m:
                cur = m.group(1)
                sections[cur] = []
                continue
            if cur is not None:
                sections[cur].append(raw)
                continue
            if not raw.strip() or raw.startswith("#"):
                continue
            key, _, val = raw.partition(":")
            key, val = key.strip(), val.strip()
            if key == "env":
                env.append(val)
            else:
                head[key] = val
    for k, v in sections.items():
        while v and v[-1] == "":
            v.pop()
    return head, env, sections


def placeholder_regex(line, subst):
    out, i = [], 0
    for m in re.finditer(r"\{(\w+|\*)\}", line):
        out.append(re.escape(line[i:m.start()]))
        name = m.group(1)
        if name == "*":
            out.append(".*")
        elif name == "num":
            out.append(r"-?[0-9]+(?:\.[0-9]+)?")
        elif name == "iso":
            out.append(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}")
        elif name == "datetime":
            out.append(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{2}:[0-9]{2}")
        elif name == "smitime":
            out.append(r"[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}")
        elif name in subst:
            out.append(re.escape(subst[name]))
        else:
            out.append(re.escape(m.group(0)))
        i = m.end()
    out.append(re.escape(line[i:]))
    return "^" + "".join(out) + "$"


def compare(name, want, got, subst):
    got_lines = got.split("\n")
    if got_lines and got_lines[-1] == "":
        got_lines.pop()
    errors = []
    for n in range(max(len(want), len(got_lines))):
        w = want[n] if n < len(want) else None
        g = got_lines[n] if n < len(got_lines) else None
        if w is None or g is None or not re.match(placeholder_regex(w, subst), g):
            errors.append(f"{name} line {n + 1}:\n  want: {w!r}\n  got:  {g!r}")
            if len(errors) >= 5:
                break
    return errors


def schema_from(doc_path):
    text = open(doc_path, encoding="utf-8").read()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    for b in blocks:
        if '"$schema"' in b:
            return json.loads(b)
    raise SystemExit(f"no JSON Schema block in {doc_path}")


def main():
    args = sys.argv[1:]
    update = "--update" in args
    args = [a for a in args if a != "--update"]
    case = args[0]
    root = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(case), "..", ".."))
    head, extra_env, sections = parse(case)

    env = dict(os.environ)
    for k in ("GPUSIM_SCENARIO", "GPUSIM_TIME", "GPUSIM_SPEED", "GPUSIM_EPOCH", "NO_COLOR",
              "COLUMNS"):
        env.pop(k, None)
    env.update({"TZ": "UTC", "LC_ALL": "C", "NO_COLOR": "1", "TERM": "dumb"})
    # pcie.link.gen.hostmax reads sysfs by the simulated bus ids, which may
    # exist on the machine running the tests: no sysfs unless a case gives one
    env["GPUMON_SYSFS_ROOT"] = "/nonexistent/sysfs"
    lib = head.get("lib", "sim")
    env["GPUMON_NVML_LIB"] = {"sim": os.environ.get("SIM_LIB", ""),
                              "legacy": os.environ.get("SIM_LIB_LEGACY", ""),
                              "missing": "/nonexistent/libnvidia-ml.so.1"}[lib]
    scen = head.get("scenario", "none")
    if scen != "none":
        env["GPUSIM_SCENARIO"] = os.path.join(root, "scenarios", scen)
    if "time" in head:
        env["GPUSIM_TIME"] = head["time"]
    for e in extra_env:
        k, _, v = e.partition("=")
        env[k] = v.replace("{root}", root)

    subst = {"host": socket.gethostname(), "user": pwd.getpwuid(os.getuid()).pw_name}
    spawned = []
    try:
        for n in range(int(head.get("spawn", "0"))):
            p = subprocess.Popen(["sleep", "600"])
            spawned.append(p)
            env[f"GPUSIM_PID_RANK{n}"] = str(p.pid)
            subst[f"pid{n}"] = str(p.pid)
        cmd = [os.environ["GPUMON"]] + [a.replace("{root}", root)
                                        for a in shlex.split(head.get("args", ""))]
        limit = float(head.get("max-seconds", "30"))
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, timeout=limit + 5)
        except subprocess.TimeoutExpired:
            print(f"FAIL: {' '.join(cmd)} ran over {limit + 5} s")
            return 1
        took = time.monotonic() - t0
    finally:
        for p in spawned:
            p.kill()
            p.wait()

    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    if update:
        update_case(case, out, err, r.returncode, subst)
        return 0

    errors = []
    want_exit = int(head.get("exit", "0"))
    if r.returncode != want_exit:
        errors.append(f"exit status {r.returncode}, want {want_exit}")
    if took > limit:
        errors.append(f"took {took:.2f} s, limit {limit} s")
    if "min-seconds" in head and took < float(head["min-seconds"]):
        errors.append(f"took {took:.2f} s, expected at least {head['min-seconds']} s")
    for sec, got in (("stdout", out), ("stderr", err)):
        if sec in sections:
            errors += compare(sec, sections[sec], got, subst)
    if "json-schema" in head:
        try:
            import jsonschema
        except ImportError:
            print("SKIP: python3 jsonschema is not installed")
            return 77
        try:
            doc = json.loads(out)
            jsonschema.validate(doc, schema_from(os.path.join(root, head["json-schema"])))
        except Exception as ex:  # json or schema error: report it whole
            errors.append(f"stdout is not valid against {head['json-schema']}: {ex}")
    if "xml-dtd" in head:
        errors += xml_dtd_errors(out, os.path.join(root, head["xml-dtd"]))
    if errors:
        print(f"FAIL {case}\n  command: {shlex.join(cmd)}")
        print("\n".join(errors))
        print("--- actual stdout\n" + out + "--- actual stderr\n" + err)
        return 1
    print(f"ok {case} ({took:.2f} s)")
    return 0


def xml_dtd_errors(text, dtd):
    """xmllint --noout --dtdvalid DTD on text; the DTD is also linked under
    the name the document's DOCTYPE gives, so that xmllint finds it there
    instead of warning.  Any output from xmllint is an error."""
    import shutil
    import tempfile
    xmllint = shutil.which("xmllint")
    if not xmllint:
        return ["xmllint is not installed (Debian: libxml2-utils)"]
    m = re.search(r'<!DOCTYPE \w+ SYSTEM "([^"/]+)">', text)
    with tempfile.TemporaryDirectory() as d:
        if m:
            os.symlink(os.path.abspath(dtd), os.path.join(d, m.group(1)))
        doc = os.path.join(d, "out.xml")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run([xmllint, "--noout", "--dtdvalid", os.path.abspath(dtd), doc],
                           capture_output=True, text=True, cwd=d)
    if r.returncode != 0 or r.stdout or r.stderr:
        return [f"stdout is not valid against {dtd} (xmllint exit {r.returncode}):\n"
                + r.stdout + r.stderr]
    return []


def update_case(case, out, err, code, subst):
    """Rewrites the expected sections from the actual output, turning the
    machine-specific parts back into placeholders."""
    def generalize(text):
        for k in sorted(subst, key=lambda k: -len(subst[k])):
            if subst[k]:
                text = re.sub(rf"(?<![0-9A-Za-z]){re.escape(subst[k])}(?![0-9A-Za-z])", "{" + k + "}", text)
        text = re.sub(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}", "{iso}", text)
        text = re.sub(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{2}:[0-9]{2}", "{datetime}", text)
        text = re.sub(r"[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}", "{smitime}", text)
        # JSON values that depend on the moment or on the machine running the test
        text = re.sub(r'("(?:time_unix_ns|sample_duration_seconds|elapsed_seconds|host_memory_bytes|'
                      r'start_time|cgroup|exe|cpu_percent|ns_pid|job|container_runtime|'
                      r'container_id|pod_uid|pod_qos|slurm_job|slurm_step|slurm_uid|systemd_unit)'
                      r'": ?)[^,\n]+', r"\1{*}", text)
        return text
    lines = open(case, encoding="utf-8").read().split("\n")
    keep = []
    for l in lines:
        if SECTION.match(l):
            break
        if l.startswith("exit:"):
            l = f"exit: {code}"
        keep.append(l)
    while keep and keep[-1] == "":
        keep.pop()
    body = "\n".join(keep) + "\n--- stdout\n" + generalize(out) + "--- stderr\n" + generalize(err)
    open(case, "w", encoding="utf-8").write(body)


if __name__ == "__main__":
    sys.exit(main())
