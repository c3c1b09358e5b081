#!/usr/bin/env python3
"""jobs_attrib.py -- who a GPU process belongs to, on real processes.

As root: one process of uid 1001 runs in a new PID namespace (`unshare
--pid --fork`) and is moved into a cgroup laid out as Slurm's (job 4242,
step 0, uid 1001); another into one laid out as a Kubernetes pod's
(Burstable, a containerd container).  Three more, on GPU 2, imitate them
where their managers do not own the path (issue 23 point 3,
docs/security.md "Job attribution"): Slurm's layout under a user's
delegated subtree (user@1001.service), the pod's under a scope of that
subtree, and job 4242's directory entered by a process of uid 1002.  The
simulator lists all as GPU processes (their real PIDs through
GPUSIM_PID_*), and every output must name the real ones' jobs and charge
the imitations to their user (user:1001, unit:run-r7.scope, user:1002):

  status --json  ns_pid 1 for the namespaced one, job, slurm_*, pod_*, container_*
  status         the [slurm:4242.0], [pod:2f1e3c4d] and [user:1001] suffixes
  serve --print  gpumon_gpu_job_info with job_id / pod_uid / container_id /
                 slurm_job labels, and the same labels on the per-process series
  agent          an alert on each GPU names its job in the alert log and in an
                 exec hook's GPUMON_ALERT_JOB_ID; the processes CSV's job_id
                 and ns_pid, procs.job_id and usage_1h in the store, and
                 `report --by job|user` from it

gpumon runs in a cgroup namespace rooted at the test's own group, so that
the groups made below it are at the top of the paths it reads, where
Slurm and the kubelet make theirs.

SKIP (77) when not root or when no cgroup hierarchy here takes a new group.
"""
import glob
import json
import os
import re
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
gpus = 3

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

[process.fake_job]
gpu = 2
pid = ${GPUSIM_PID_FAKE_JOB}
name = python3
used_memory = 5GiB

[process.fake_pod]
gpu = 2
pid = ${GPUSIM_PID_FAKE_POD}
name = python3
used_memory = 5GiB

[process.other_uid]
gpu = 2
pid = ${GPUSIM_PID_OTHER_UID}
name = python3
used_memory = 5GiB
"""
USER_TREE = "user.slice/user-1001.slice/user@1001.service"
# the imitations: (GPUSIM_PID_ name, uid, cgroup below the test's group, the job key they get)
FAKES = [
    ("FAKE_JOB", 1001, f"{USER_TREE}/app.slice/slurm/uid_1001/job_4242/step_0", "user:1001"),
    ("FAKE_POD", 1001, f"{USER_TREE}/app.slice/run-r7.scope/kubepods/burstable/pod"
     "2f1e3c4d-5b6a-4789-8abc-def012345678/" + "0123456789abcdef" * 4, "unit:run-r7.scope"),
    ("OTHER_UID", 1002, "slurm/uid_1001/job_4242/step_1", "user:1002"),
]


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


def as_uid(uid, argv):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"] + argv


def in_namespace(top, d, gpumon):
    """A gpumon that enters the group top and a cgroup namespace rooted there
    before it starts (the tests run it in place of the binary gpumon): the
    groups made below top are then at the top of the paths it reads."""
    path = os.path.join(d, "gpumon-cgns")
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
echo $$ > '{top}/cgroup.procs' || exit 125
exec unshare --cgroup -- '{gpumon}' "$@"
""")
    os.chmod(path, 0o755)
    return path


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
    ns = subprocess.Popen(["unshare", "--pid", "--fork"] + as_uid(1001, ["sleep", "120"]), **quiet)
    pod = subprocess.Popen(["sleep", "120"], **quiet)
    fakes = [subprocess.Popen(as_uid(uid, ["sleep", "120"]), **quiet) for _, uid, _, _ in FAKES]
    slurm_pid = None
    real_gpumon = agentlib.GPUMON
    try:
        os.makedirs(top, exist_ok=True)
        slurm_pid = child_of(ns.pid)
        move(slurm_pid, top, "slurm/uid_1001/job_4242/step_0/task_0")
        move(pod.pid, top, f"kubepods/burstable/pod{POD}/{CID}")
        for p, (_, _, rel, _) in zip(fakes, FAKES):
            move(p.pid, top, rel)
        for pid in [slurm_pid, pod.pid] + [p.pid for p in fakes]:
            print(f"  /proc/{pid}/cgroup: " + open(f"/proc/{pid}/cgroup").read().replace("\n", " | "))
        with Scratch("jobsns") as d:
            agentlib.GPUMON = in_namespace(top, d, real_gpumon)
            check_all(slurm_pid, pod.pid, {name: p.pid for p, (name, _, _, _) in zip(fakes, FAKES)})
    finally:
        agentlib.GPUMON = real_gpumon
        if slurm_pid:  # PID 1 of its namespace: killing unshare leaves it
            try:
                os.kill(slurm_pid, 9)
            except ProcessLookupError:
                pass
        for p in [ns, pod] + fakes:
            p.kill()
            p.wait()
        time.sleep(0.2)
        remove_tree(top)
    print("ok")
    return 0


def check_all(slurm_pid, pod_pid, fake_pids):
    fake_job = {fake_pids[name]: job for name, _, _, job in FAKES}
    with Scratch("jobs") as d:
        scn = os.path.join(d, "jobs.ini")
        with open(scn, "w") as f:
            f.write(SCENARIO)
        env = sim_env(scn, GPUSIM_PID_SLURM=str(slurm_pid), GPUSIM_PID_POD=str(pod_pid),
                      **{f"GPUSIM_PID_{k}": str(v) for k, v in fake_pids.items()})

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
        for pid, job in fake_job.items():
            f = procs[pid]
            check_eq((f["job"], f["slurm_job"], f["slurm_uid"], f["pod_uid"], f["container_id"]),
                     (job, None, None, None, None), "an imitation is its user's own", f)

        rc, out, err = run(["status"], env)
        check_eq(rc, 0, "status", err)
        check(f"/{slurm_pid}(2048M)[slurm:4242.0]" in out, "status names the Slurm job", out)
        check(f"/{pod_pid}(3072M)[pod:2f1e3c4d]" in out, "status names the pod", out)
        for pid in fake_job:  # status's suffix names containers, pods and Slurm jobs only
            check(f"/{pid}(5120M) " in out or f"/{pid}(5120M)\n" in out,
                  f"status names no job for {pid}", out)

        rc, out, err = run(["serve", "--print", "--process-metrics"], env)
        check_eq(rc, 0, "serve --print", err)
        info = [l for l in out.splitlines() if l.startswith("gpumon_gpu_job_info{")]
        got = sorted(re.search(r'job_id="([^"]*)"', l).group(1) + "@" +
                     re.search(r'gpu="([^"]*)"', l).group(1) for l in info)
        check_eq(got, sorted(["slurm:4242@0", f"pod:{POD}@1"] +
                             [job + "@2" for job in fake_job.values()]),
                 "gpumon_gpu_job_info series", info)
        check(not any('gpu="2"' in l and ('slurm_job="4' in l or 'pod_uid="2' in l) for l in info),
              "no job or pod on GPU 2", info)
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
            f.write("[alert.hot]\nwhen = temperature.gpu > 0\nseverity = warning\n"
                    "[notify.hook]\ntype = exec\ncommand = sh -c 'echo \"$GPUMON_ALERT_GPU "
                    f"$GPUMON_ALERT_JOB_ID\" >> {d}/hook.out'\n")
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
        want = {0: "slurm:4242", 1: f"pod:{POD}", 2: "user:1001"}
        check_eq(fired, want, "the alerts' job_id")
        hooked = {}
        deadline = time.time() + 30
        while len(hooked) < 3 and time.time() < deadline:
            if os.path.exists(f"{d}/hook.out"):
                for line in open(f"{d}/hook.out"):
                    gpu, _, job = line.strip().partition(" ")
                    hooked[int(gpu)] = job
            time.sleep(0.1)
        check_eq(hooked, want, "the hook's GPUMON_ALERT_JOB_ID")
        rows = []
        for path in glob.glob(os.path.join(data, "csv", "*_procs_*.csv")):
            rows += agentlib.read_csv(path, agentlib.PROCS_HEADER)
        hdr = agentlib.PROCS_HEADER.split(",")
        jobs = {(int(r[hdr.index("pid")]), r[hdr.index("job_id")], r[hdr.index("ns_pid")])
                for r in rows}
        check_eq(jobs, {(slurm_pid, "slurm:4242", "1"), (pod_pid, f"pod:{POD}", str(pod_pid))} |
                 {(pid, job, str(pid)) for pid, job in fake_job.items()},
                 "the processes CSV's job_id and ns_pid")
        db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
        got = set(db.execute("SELECT pid, job_id FROM procs"))
        check_eq(got, {(slurm_pid, "slurm:4242"), (pod_pid, f"pod:{POD}")} | set(fake_job.items()),
                 "procs.job_id")
        usage = {r[0]: r[1] for r in db.execute("SELECT job, sum(gpu_ms) FROM usage_1h GROUP BY job")}
        db.close()
        check_eq(sorted(usage), sorted(["slurm:4242", f"pod:{POD}"] + list(fake_job.values())),
                 "usage_1h jobs", usage)
        check(all(v > 500 for v in usage.values()), "usage_1h GPU time", usage)
        rc, out, err = run(["report", "--no-config", "--data-dir", data, "--since", "2h", "--by",
                            "job", "--format", "json"], env)
        check_eq(rc, 0, "report --by job", err)
        rep = {r["job"]: r for r in json.loads(out)}
        for job, ms in usage.items():
            check(abs(rep[job]["gpu_seconds"] - ms / 1000) < 0.002, f"report --by job {job}",
                  rep[job], ms)
        check_eq(rep["slurm:4242"]["memory_peak_bytes"], 2 << 30, "the Slurm job's peak memory")
        check_eq(rep["slurm:4242"]["gpus"], 1, "the Slurm job's GPUs (not GPU 2)")
        rc, out, err = run(["report", "--no-config", "--data-dir", data, "--since", "2h", "--by",
                            "user"], env)
        check_eq(rc, 0, "report --by user", err)
        check("root" in out, "report --by user names the processes' user", out)


if __name__ == "__main__":
    sys.exit(main())
