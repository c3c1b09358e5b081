#!/usr/bin/env python3
"""jobs_mapping.py -- dcgm-exporter's job-mapping directory (docs/jobs.md).

A directory laid out as dcgm-exporter's --hpc-job-mapping-dir: file "0"
names Slurm job 4242, file "1" two jobs and a line that is not an id,
file "2" is a symbolic link (not followed).  The simulator lists one
process on each of GPUs 0 and 1 whose PIDs do not exist, so they carry no
job of their own.  Every output must name the mapped jobs:

  status          [slurm:4242] on GPU 0's line, [hpc:job-a] [hpc:job-b] on GPU 1's,
                  one warning naming each bad file
  status --json   hpc_jobs per GPU (null for the link's GPU), valid against docs/json.md
  serve --print   gpumon_gpu_job_info{job_id,slurm_job,source="job-mapping"}, promtool clean;
                  with --names dcgm every series of a mapped GPU once per job with
                  dcgm-exporter's hpc_job label, and the repeats under the series cap
  agent           an alert on each GPU names the mapped job; usage_1h and
                  report --by job count each GPU's time to its job; a file
                  rewritten while the agent runs is read again; the bad file
                  is warned about once, not every sample
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentlib import Agent, Scratch, check, check_eq, run, sim_env  # noqa: E402

SCENARIO = """\
[machine]
seed = 5
gpus = 3

[gpu]
model = H100-SXM5-80GB
workload = steady

[process.train]
gpu = 0
pid = 4194300
name = python3
used_memory = 2GiB

[process.infer]
gpu = 1
pid = 4194301
name = tritonserver
used_memory = 3GiB
"""


def promtool(text, allow_lint=False):
    p = subprocess.run([shutil.which("promtool"), "check", "metrics"], input=text, text=True,
                       capture_output=True)
    ok = p.returncode == 0 or (allow_lint and p.returncode == 3 and "error" not in p.stderr)
    check(ok, f"promtool check metrics: exit {p.returncode}", (p.stdout + p.stderr)[:2000])


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def main():
    check(shutil.which("promtool") is not None, "promtool is not installed")
    with Scratch("jobmap") as d:
        scn = os.path.join(d, "jobs.ini")
        write(scn, SCENARIO)
        env = sim_env(scn)
        jm = os.path.join(d, "map")
        os.mkdir(jm)
        write(os.path.join(jm, "0"), "4242\n")
        write(os.path.join(jm, "1"), "job-a\nnot an id\njob-b\n")
        os.symlink("/etc/passwd", os.path.join(jm, "2"))
        flag = ["--job-mapping-dir", jm]

        rc, out, err = run(["status", "--no-procs"] + flag, env)
        check_eq(rc, 0, "status", err)
        lines = out.splitlines()
        check(lines[1].endswith("[slurm:4242] |"), "GPU 0 names its job", lines)
        check(lines[2].endswith("[hpc:job-a] [hpc:job-b] |"), "GPU 1 names its jobs", lines)
        check(lines[3].endswith("W |"), "GPU 2 (a symbolic link) names none", lines)
        check_eq(err.count(f"job-mapping file {jm}/1: 1 line(s) are not job ids"), 1,
                 "the bad line's warning", err)
        check_eq(err.count(f"job-mapping file {jm}/2: is a symbolic link"), 1,
                 "the symbolic link's warning", err)

        rc, out, err = run(["status", "--json"] + flag, env)
        check_eq(rc, 0, "status --json", err)
        doc = json.loads(out)
        check_eq([(g["hpc_jobs"], g["hpc_jobs_dropped"]) for g in doc["gpus"]],
                 [(["4242"], 0), (["job-a", "job-b"], 0), (None, None)], "hpc_jobs")
        # null says why: the link's file cannot be read; the others are known
        check_eq([(g["unavailable"].get("hpc_jobs"), g["unavailable"].get("hpc_jobs_dropped"))
                  for g in doc["gpus"]],
                 [(None, None), (None, None), ("not_available", "not_available")],
                 "the reason of a null hpc_jobs")
        rc, out, err = run(["status", "--json"], env)
        check_eq(rc, 0, "status --json without a directory", err)
        check_eq({(g["hpc_jobs"], g["unavailable"].get("hpc_jobs"))
                  for g in json.loads(out)["gpus"]}, {(None, "not_collected")},
                 "hpc_jobs without a directory: null, not collected")
        try:
            import jsonschema
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            from run_case import schema_from
            root = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
            jsonschema.validate(doc, schema_from(os.path.join(root, "docs", "json.md")))
        except ImportError:
            print("  (python3-jsonschema not installed: schema not checked)")

        rc, out, err = run(["serve", "--print", "--no-config"] + flag, env)
        check_eq(rc, 0, "serve --print", err)
        info = sorted(l for l in out.splitlines() if l.startswith("gpumon_gpu_job_info{"))
        check_eq(len(info), 3, "gpumon_gpu_job_info series", info)
        check('gpu="0"' in info[0] and 'job_id="slurm:4242",slurm_job="4242",source="job-mapping"}'
              in info[0], "GPU 0's mapped job", info)
        check('gpu="1"' in info[1] and 'job_id="hpc:job-a",source="job-mapping"}' in info[1],
              "GPU 1's first job (no slurm_job: not a Slurm id)", info)
        promtool(out)

        rc, out, err = run(["serve", "--print", "--no-config", "--names", "dcgm"] + flag, env)
        check_eq(rc, 0, "serve --print --names dcgm", err)
        temp = [l for l in out.splitlines() if l.startswith("DCGM_FI_DEV_GPU_TEMP{")]
        pairs = [(re.search(r'gpu="(\d+)"', l).group(1),
                  (re.search(r'hpc_job="([^"]*)"', l) or [None, None])[1]) for l in temp]
        check_eq(pairs, [("0", "4242"), ("1", "job-a"), ("1", "job-b"), ("2", None)],
                 "each mapped GPU's series once per job", temp)
        check(all(l.split("}")[0].endswith(('hpc_job="4242"', 'hpc_job="job-a"',
                                            'hpc_job="job-b"', '"550.54.15"')) for l in temp),
              "hpc_job is the last label, as dcgm-exporter adds it", temp)
        promtool(out, allow_lint=True)  # dcgm-exporter's names fail the lint (camelCase)
        # the repeats (one per job beyond a GPU's first) count against
        # max-process-series: GPU 2 with 3000 ids keeps 8, 7 repeats
        os.unlink(os.path.join(jm, "2"))
        write(os.path.join(jm, "2"), "".join(f"{9000 + k}\n" for k in range(3000)))
        for cap, want in ((8, 1 + 2 + 8), (7, 1 + 2 + 1)):
            rc, out, err = run(["serve", "--print", "--no-config", "--names", "dcgm",
                                "--max-process-series", str(cap)] + flag, env)
            check_eq(rc, 0, f"serve --print --max-process-series {cap}", err)
            temp = [l for l in out.splitlines() if l.startswith("DCGM_FI_DEV_GPU_TEMP{")]
            check_eq(len(temp), want, f"GPU series with a cap of {cap} repeats", temp)
        check(f"job-mapping file {jm}/2: names 2992 more jobs than the 8 kept" in err,
              "the thousands of ids are warned about", err)
        os.unlink(os.path.join(jm, "2"))

        data = os.path.join(d, "data")
        conf = os.path.join(d, "gpumon.conf")
        write(conf, "[agent]\njob-mapping-dir = %s\n[alert.hot]\nwhen = temperature.gpu > 0\n"
              "severity = warning\n" % jm)
        ag = Agent(data, env, ["--interval", "250ms", "--procs"], config=conf).start(
            wait_samples=4)
        ag.wait_samples(8)  # samples with the first jobs (not seconds: a loaded machine)
        write(os.path.join(jm, "0"), "5000\n")  # the next job on GPU 0
        ag.wait_samples(ag.status()["samples"] + 6)
        check_eq(ag.stop()[0], 0, "the agent's exit status", ag.log())
        log = ag.log()
        check_eq(log.count(f"job-mapping file {jm}/1: 1 line(s)"), 1,
                 "the bad file is warned about once, not every sample", log)
        fired = {}
        with open(os.path.join(data, "alerts.jsonl")) as f:
            for line in f:
                a = json.loads(line)
                if a["rule"] == "hot" and a["state"] == "firing":
                    fired[a["gpu"]] = a["job_id"]
        check_eq(fired, {0: "slurm:4242", 1: "hpc:job-a", 2: None}, "the alerts' job_id")
        db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
        usage = {r[0]: r[1] for r in db.execute("SELECT job, sum(gpu_ms) FROM usage_1h GROUP BY job")}
        db.close()
        check_eq(sorted(usage), ["hpc:job-a", "slurm:4242", "slurm:5000"],
                 "usage_1h: each GPU's time to its mapped job, the rewritten file read again",
                 usage)
        check(all(v > 200 for v in usage.values()), "usage_1h GPU time", usage)
        rc, out, err = run(["report", "--no-config", "--data-dir", data, "--since", "2h", "--by",
                            "job", "--format", "json"], env)
        check_eq(rc, 0, "report --by job", err)
        rep = {r["job"]: r for r in json.loads(out)}
        check_eq(sorted(rep), sorted(usage), "report --by job names the mapped jobs", rep)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
