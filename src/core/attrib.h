/* attrib.h -- who a GPU process belongs to, from its cgroup path.
 *
 * The cgroup path (/proc/PID/cgroup, the part after "0::" on cgroup v2 or
 * the most specific v1 line; src/source/procfs.c reads it) says which
 * container, Kubernetes pod, Slurm job or systemd unit a process runs in.
 * gm_attrib_parse() recognises the layouts of (docs/jobs.md has each with
 * an example):
 *
 *   Kubernetes  kubepods[/QOS]/pod<UID>/<CONTAINER>           (cgroupfs driver)
 *               kubepods.slice/kubepods-QOS.slice/kubepods-QOS-pod<UID_>.slice/
 *                   {docker,cri-containerd,crio}-<ID>.scope   (systemd driver)
 *   Docker      docker/<ID>, system.slice/docker-<ID>.scope
 *   Podman      machine.slice/libpod-<ID>.scope, libpod_parent/libpod-<ID>,
 *               user@UID.service/.../libpod-<ID>.scope (rootless)
 *   containerd  cri-containerd-<ID>.scope, nerdctl-<ID>.scope
 *   CRI-O       crio-<ID>.scope
 *   Slurm       slurm[_NODE]/uid_<UID>/job_<JOB>/step_<STEP>  (cgroup v1)
 *               system.slice/slurmstepd.scope/job_<JOB>/step_<STEP>  (v2)
 *   systemd     the innermost *.service or *.scope, and user-<UID>.slice
 *
 * Pure string work on hostile input (a process can name its own cgroup
 * under a delegated subtree): every field is bounded, ids are accepted
 * only in their own alphabet (hex container ids, pod UIDs of hex and
 * dashes, decimal job ids), and anything else is left empty, never
 * guessed.  A Slurm job or pod is taken only from a path its manager owns:
 * the layout starts at the top of the path (after any leading "..", or
 * under a container at the top: a kind node), not inside a user's
 * delegated subtree (user@UID.service), and a v1 Slurm path's uid_<UID>
 * is the process's.  Elsewhere the layout is the user's own ("foreign"):
 * its job is the unit that holds it, else user:<UID>.
 */
#ifndef GM_CORE_ATTRIB_H
#define GM_CORE_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

enum gm_runtime {
    GM_RT_NONE = 0,   /* not in a container (or not recognised) */
    GM_RT_DOCKER,     /* docker (also the dockershim of older Kubernetes) */
    GM_RT_CONTAINERD, /* containerd (CRI, nerdctl) */
    GM_RT_CRIO,       /* CRI-O */
    GM_RT_PODMAN,     /* podman (libpod) */
    GM_RT_CRI,        /* a Kubernetes container under the cgroupfs driver: the path does not
                         name the runtime */
    GM_RT__COUNT
};

enum gm_qos { GM_QOS_NONE = 0, GM_QOS_GUARANTEED, GM_QOS_BURSTABLE, GM_QOS_BESTEFFORT };

struct gm_attrib {
    uint8_t runtime;       /* enum gm_runtime */
    uint8_t qos;           /* enum gm_qos: a pod's QoS class, GM_QOS_NONE when not a pod */
    char container_id[65]; /* lowercase hex (64 for docker/containerd/CRI-O/podman); "" none */
    char pod_uid[37];      /* 8-4-4-4-12 with dashes; "" when not a pod */
    char slurm_job[24];    /* decimal job id (array jobs: the job's own id); "" none */
    char slurm_step[24];   /* "batch", "extern", "interactive" or a number; "" none */
    uint8_t has_slurm_uid; /* slurm_uid is known (cgroup v1 layout) */
    uint8_t has_slice_uid; /* slice_uid is known */
    uint32_t slurm_uid;    /* the job's user */
    char unit[96];         /* innermost systemd .service/.scope outside containers/jobs; "" */
    uint32_t slice_uid;    /* user-UID.slice: the login session's user */
    uint8_t foreign;       /* a Slurm or kubelet layout where its manager does not own the path
                              (a user's delegated subtree, another slice, another's uid): the
                              user's own, no job taken from it */
    uint8_t has_uid;       /* uid is known */
    uint32_t uid;          /* the process's real uid, as given to gm_attrib_parse */
};
/* All zero is "nothing known" (a gm_proc made with memset is empty). */

/* The uid to pass when the process's uid is not known. */
#define GM_ATTRIB_NO_UID UINT32_MAX

/* Fills *a from a cgroup path ("/kubepods/burstable/pod.../...") of a
 * process whose real uid is uid (GM_ATTRIB_NO_UID: not known); a NULL or
 * unrecognised path gives an empty attribution (all zero).  Never
 * fails. */
void gm_attrib_parse(const char *cgroup, uint32_t uid, struct gm_attrib *a);

/* "docker", "containerd", "crio", "podman", "cri"; "" for GM_RT_NONE. */
const char *gm_runtime_name(int rt);
/* "Guaranteed", "Burstable", "BestEffort" (Kubernetes' spelling); "". */
const char *gm_qos_name(int qos);

/* The job a process belongs to, as one stable key for grouping and for
 * the exporter's `job_id` label: "slurm:<JOB>", "pod:<UID>",
 * "container:<first 12 of the id>", "unit:<UNIT>" (a systemd service or
 * scope that is not a login session's), "user:<UID>" (the innermost unit
 * is the user's manager user@UID.service, or a foreign layout has no unit
 * of its own above it: the process's uid), or "" when none.  Written to
 * buf (len >= 128 always fits). */
const char *gm_attrib_job(const struct gm_attrib *a, char *buf, size_t len);

/* The key that groups a GPU process into its job for diagnosis (the
 * straggler's job; docs/diagnose.md), the same live and from history: its
 * job id when it has one (gm_attrib_job; not "user:<UID>": one person's
 * unrelated jobs), else "parent:<PPID>" when its parent is a launcher --
 * not init (ppid <= 1) and not the leader of the process's session (a login
 * shell: two jobs started from one terminal are two jobs), so the children
 * of torchrun, mpirun or deepspeed share one key -- else "pid:<PID>".
 * Never the process name: every trainer is "python3".  job may be NULL or
 * ""; ppid and sid 0 when unknown.  Written to buf (len >= 128 fits). */
const char *gm_attrib_job_key(const char *job, uint32_t pid, uint32_t ppid, uint32_t sid, char *buf,
                              size_t len);

/* A short label of the job for narrow places (status's suffix, top's JOB
 * column): "slurm:<JOB>[.<STEP>]", "pod:<first 8 of the UID>",
 * "<runtime>:<first 12 of the id>", "unit:<UNIT>" or "user:<UID>" (as
 * gm_attrib_job), or "".  Written to buf (len >= 128
 * always fits). */
const char *gm_attrib_label(const struct gm_attrib *a, char *buf, size_t len);

/* The job key of an id from the job-mapping directory (source/jobmap.h):
 * "slurm:<ID>" when the id is a decimal number (a Slurm job id, the key
 * its processes' cgroup gives), else "hpc:<ID>".  Written to buf (len >=
 * 128 always fits). */
const char *gm_hpc_job_key(const char *id, char *buf, size_t len);

/* Whether a has anything (a container, pod, job, unit or a foreign layout). */
int gm_attrib_known(const struct gm_attrib *a);

#endif /* GM_CORE_ATTRIB_H */
