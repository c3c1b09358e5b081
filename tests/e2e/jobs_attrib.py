#!/usr/bin/env python3
"""jobs_attrib.py -- who a GPU process belongs to, on real processes.

As root: one process runs in a new PID namespace (`unshare --pid --fork`)
and is moved into a cgroup laid out as Slurm's (job 4242, step 0, uid
1001); another into one laid out as a Kubernetes pod's (Burstable, a
containerd container).  The simulator lists both as GPU processes (their
real PIDs through GPUSIM_PID_*), and every output must name them:

  status --json  ns_pid 1 for the namespaced one, job, slurm_*, pod_*, container_*
  status         the [slurm:4242.0] and [pod:2f1e3c4d] suffixes
  serve --print  gpumon_gpu_job_info with job_id / pod_uid / container_id /
                 slurm_job labels, and the same labels on the per-process series
  agent          an alert on each GPU names its job; the processes CSV's job_id
                 and ns_pid, procs.job_id and usage_1h in the store, and
                 `report --by job|user` from it

SKIP (77) when not root or when no cgroup hierarchy here takes a new group.
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentlib  # noqa: E402
from agentlib import Agent, Scratch, check, check_eq, run, sim_env  # noqa: E402

POD = "2f1e3c4d-5b6a-4789-8abc-def012345678"
CID = "0123456789abcdef" * 4
SCENARIO = """\
[machine]
seed = 3
gpus = 2

[gpu]
model = H100-SXM5-80GB
workload = steady

[process.train]
gpu = 0
pid = ${GPUSIM_PID_SLURM}
name = python3
used_memory = 2GiB

[process.infer]
gpu = 1
pid = ${GPUSIM_PID_POD}
name = tritonserver
used_memory = 3GiB
"""


class Skip(Exception):
    pass


def hierarchy():
    """A cgroup mount where root can make a group: cgroup2 first (its line
    is the one gpumon reads when it is not "/"), else a v1 one."""
    mounts = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            sep = parts.index("-")
            fstype, opts = parts[sep + 1], parts[sep + 3]
            if fstype == "cgroup2":
                mounts.insert(0, parts[4])
            elif fstype == "cgroup" and ("pids" in opts.split(",") or "name=systemd" in opts):
                mounts.append(parts[4])
    for m in mounts:
        probe = os.path.join(m, f"gpumon-probe-{os.getpid()}")
        try:
            os.mkdir(probe)
            os.rmdir(probe)
            return m
        except OSError:
            continue
    raise Skip("no cgroup hierarchy takes a new group here")


def move(pid, base, rel):
    path = os.path.join(base, rel)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "cgroup.procs"), "w") as f:
        f.write(str(pid))
    return path


def child_of(pid):
    for _ in range(100):
        for t in glob.glob(f"/proc/{pid}/task/*/children"):
            kids = open(t).read().split()
            if kids:
                return int(kids[0])
        time.sleep(0.05)
    raise AssertionError(f"unshare {pid} has no child")


def remove_tree(top):
    for d, _, _ in sorted(os.walk(top), key=lambda x: -len(x[0])):
        try:
            os.rmdir(d)
        except OSError:
            pass


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (cgroups and PID namespaces)")
        return 77
    try:
        base = hierarchy()
    except Skip as e:
        print(f"SKIP: {e}")
        return 77
    top = os.path.join(base, f"gpumon-test-{os.getpid()}")
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ns = subprocess.Popen(["unshare", "--pid", "--fork", "sleep", "120"], **quiet)
    pod = subprocess.Popen(["sleep", "120"], **quiet)
    slurm_pid = None
    try:
        slurm_pid = child_of(ns.pid)
        move(slurm_pid, top, "slurm/uid_1001/job_4242/step_0/task_0")
        move(pod.pid, top, f"kubepods/burstable/pod{POD}/{CID}")
        for pid in (slurm_pid, pod.pid):
            print(f"  /proc/{pid}/cgroup: " + open(f"/proc/{pid}/cgroup").read().replace("\n", " | "))
        check_all(slurm_pid, pod.pid)
    finally:
        if slurm_pid:  # PID 1 of its namespace: killing unshare leaves it
            try:
                os.kill(slurm_pid, 9)
            except ProcessLookupError:
                pass
        for p in (ns, pod):
            p.kill()
            p.wait()
        time.sleep(0.2)
        remove_tree(top)
    print("ok")
    return 0


def check_all(slurm_pid, pod_pid):
    with Scratch("jobs") as d:
        scn = os.path.join(d, "jobs.ini")
        with open(scn, "w") as f:
            f.write(SCENARIO)
        env = sim_env(scn, GPUSIM_PID_SLURM=str(slurm_pid), GPUSIM_PID_POD=str(pod_pid))

        rc, out, err = run(["status", "--json"], env)
        check_eq(rc, 0, "status --json", err)
        procs = {p["pid"]: p for g in json.loads(out)["gpus"] for p in g["processes"]}
        a, b = procs[slurm_pid], procs[pod_pid]
        check_eq((a["ns_pid"], a["job"], a["slurm_job"], a["slurm_step"], a["slurm_uid"]),
                 (1, "slurm:4242", "4242", "0", 1001), "the Slurm process", a)
        check_eq((a["pod_uid"], a["container_id"], a["container_runtime"]), (None, None, None),
                 "the Slurm process has no pod or container", a)
        check_eq((b["job"], b["pod_uid"], b["pod_qos"], b["container_id"], b["container_runtime"],
                  b["slurm_job"]),
                 (f"pod:{POD}", POD, "Burstable", CID, "cri", None), "the pod's process", b)
        check_eq(b["ns_pid"], pod_pid, "ns_pid outside a PID namespace is the PID", b)

        rc, out, err = run(["status"], env)
        check_eq(rc, 0, "status", err)
        check(f"/{slurm_pid}(2048M)[slurm:4242.0]" in out, "status names the Slurm job", out)
        check(f"/{pod_pid}(3072M)[pod:2f1e3c4d]" in out, "status names the pod", out)

        rc, out, err = run(["serve", "--print", "--process-metrics"], env)
        check_eq(rc, 0, "serve --print", err)
        info = [l for l in out.splitlines() if l.startswith("gpumon_gpu_job_info{")]
        check_eq(len(info), 2, "gpumon_gpu_job_info series", info)
        check(any('job_id="slurm:4242"' in l and 'slurm_job="4242"' in l and 'gpu="0"' in l
                  for l in info), "job info of the Slurm job on GPU 0", info)
        check(any(f'job_id="pod:{POD}"' in l and f'pod_uid="{POD}"' in l and
                  f'container_id="{CID[:12]}"' in l and 'gpu="1"' in l for l in info),
              "job info of the pod on GPU 1", info)
        mem = [l for l in out.splitlines() if l.startswith("gpumon_process_memory_used_bytes{")]
        check(any(f'pid="{slurm_pid}"' in l and 'job_id="slurm:4242"' in l for l in mem),
              "the per-process series carry the job", mem)
        promtool = shutil.which("promtool")
        check(promtool is not None, "promtool is not installed (scripts/install-deps.sh)")
        p = subprocess.run([promtool, "check", "metrics"], input=out, text=True,
                           capture_output=True)
        check_eq(p.returncode, 0, "promtool check metrics", p.stdout + p.stderr)

        data = os.path.join(d, "data")
        conf = os.path.join(d, "gpumon.conf")
        with open(conf, "w") as f:
            f.write("[alert.hot]\nwhen = temperature.gpu > 0\nseverity = warning\n")
        ag = Agent(data, env, ["--interval", "250ms", "--procs"], config=conf).start(
            wait_samples=4)
        ag.wait_samples(12)  # 8 more (2 s at 250 ms on an idle machine)
        check_eq(ag.stop()[0], 0, "the agent's exit status", ag.log())
        # an alert on a GPU names the job on it (the log notifier's JSON lines)
        fired = {}
        with open(os.path.join(data, "alerts.jsonl")) as f:
            for line in f:
                a = json.loads(line)
                if a["rule"] == "hot" and a["state"] == "firing":
                    fired[a["gpu"]] = a["job_id"]
        check_eq(fired, {0: "slurm:4242", 1: f"pod:{POD}"}, "the alerts' job_id")
        rows = []
        for path in glob.glob(os.path.join(data, "csv", "*_procs_*.csv")):
            rows += agentlib.read_csv(path, agentlib.PROCS_HEADER)
        hdr = agentlib.PROCS_HEADER.split(",")
        jobs = {(int(r[hdr.index("pid")]), r[hdr.index("job_id")], r[hdr.index("ns_pid")])
                for r in rows}
        check_eq(jobs, {(slurm_pid, "slurm:4242", "1"), (pod_pid, f"pod:{POD}", str(pod_pid))},
                 "the processes CSV's job_id and ns_pid")
        db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
        got = set(db.execute("SELECT pid, job_id FROM procs"))
        check_eq(got, {(slurm_pid, "slurm:4242"), (pod_pid, f"pod:{POD}")}, "procs.job_id")
        usage = {r[0]: r[1] for r in db.execute("SELECT job, sum(gpu_ms) FROM usage_1h GROUP BY job")}
        db.close()
        check_eq(sorted(usage), sorted(["slurm:4242", f"pod:{POD}"]), "usage_1h jobs", usage)
        check(all(v > 500 for v in usage.values()), "usage_1h GPU time", usage)
        rc, out, err = run(["report", "--no-config", "--data-dir", data, "--since", "2h", "--by",
                            "job", "--format", "json"], env)
        check_eq(rc, 0, "report --by job", err)
        rep = {r["job"]: r for r in json.loads(out)}
        for job, ms in usage.items():
            check(abs(rep[job]["gpu_seconds"] - ms / 1000) < 0.002, f"report --by job {job}",
                  rep[job], ms)
        check_eq(rep["slurm:4242"]["memory_peak_bytes"], 2 << 30, "the Slurm job's peak memory")
        rc, out, err = run(["report", "--no-config", "--data-dir", data, "--since", "2h", "--by",
                            "user"], env)
        check_eq(rc, 0, "report --by user", err)
        check("root" in out, "report --by user names the processes' user", out)


if __name__ == "__main__":
    sys.exit(main())
