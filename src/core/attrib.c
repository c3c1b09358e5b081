/* attrib.c -- a process's container, pod, Slurm job or unit from its
 * cgroup path (attrib.h).  The path is split at '/'.  A Slurm job or a pod
 * is taken only from the place its manager makes it (the top of the path,
 * or of a node container; never a user's delegated subtree) and, for Slurm
 * on cgroup v1, only when the path's uid is the process's: anyone can name
 * a cgroup "job_4242" under their own user@UID.service, and such a path is
 * the user's own (docs/security.md, "Job attribution").  Containers and
 * units are matched wherever they are, innermost first, since a rootless
 * container lives in its user's subtree and names no one else's job. */
#include "attrib.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int is_dec(const char *s, size_t n)
{
    if (n == 0 || n > 20)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int has_prefix(const char *s, size_t n, const char *p)
{
    size_t l = strlen(p);
    return n >= l && memcmp(s, p, l) == 0;
}

static int has_suffix(const char *s, size_t n, const char *p)
{
    size_t l = strlen(p);
    return n >= l && memcmp(s + n - l, p, l) == 0;
}

static int equals(const char *s, size_t n, const char *p)
{
    return strlen(p) == n && memcmp(s, p, n) == 0;
}

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* A container id: 12 to 64 lowercase hex digits. */
static int container_id(const char *s, size_t n, struct gm_attrib *a)
{
    if (n < 12 || n > 64 || !is_hex(s, n))
        return 0;
    copy(a->container_id, sizeof a->container_id, s, n);
    return 1;
}

/* A pod UID, 8-4-4-4-12 hex digits separated by sep ('-', or '_' in the
 * systemd driver's slice names); stored with dashes. */
static int pod_uid(const char *s, size_t n, char sep, struct gm_attrib *a)
{
    static const int dash[] = {8, 13, 18, 23};
    if (n != 36)
        return 0;
    for (size_t i = 0, d = 0; i < n; i++) {
        if (d < 4 && (int)i == dash[d]) {
            if (s[i] != sep)
                return 0;
            d++;
        } else if (!is_hex(s + i, 1)) {
            return 0;
        }
    }
    copy(a->pod_uid, sizeof a->pod_uid, s, n);
    for (size_t d = 0; d < 4; d++)
        a->pod_uid[dash[d]] = '-';
    return 1;
}

/* "<prefix><hex>.scope" for a runtime's scope unit (systemd driver) or
 * "<prefix><hex>" (cgroupfs: libpod_parent/libpod-<ID>, CRI-O's crio-<ID>);
 * skips the monitor scopes (crio-conmon-, libpod-conmon-). */
static int runtime_scope(const char *s, size_t n, struct gm_attrib *a)
{
    static const struct {
        const char *prefix;
        int rt;
    } scopes[] = {
        {"docker-", GM_RT_DOCKER},      {"cri-containerd-", GM_RT_CONTAINERD},
        {"nerdctl-", GM_RT_CONTAINERD}, {"crio-", GM_RT_CRIO},
        {"libpod-", GM_RT_PODMAN},
    };
    if (has_prefix(s, n, "crio-conmon-") || has_prefix(s, n, "libpod-conmon-"))
        return 0;
    for (size_t k = 0; k < sizeof scopes / sizeof scopes[0]; k++) {
        size_t l = strlen(scopes[k].prefix);
        if (!has_prefix(s, n, scopes[k].prefix))
            continue;
        size_t idl = n - l;
        if (has_suffix(s, n, ".scope")) /* systemd driver; cgroupfs: no suffix */
            idl -= 6;
        if (!container_id(s + l, idl, a))
            return 0;
        a->runtime = (uint8_t)scopes[k].rt;
        return 1;
    }
    return 0;
}

/* A systemd unit name's characters (letters, digits, ":-_.@\"). */
static int unit_name(const char *s, size_t n)
{
    if (n == 0 || n >= sizeof(((struct gm_attrib *)0)->unit))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == ':' || c == '-' || c == '_' || c == '.' || c == '@' || c == '\\'))
            return 0;
    }
    return 1;
}

/* A uid: up to 10 digits and at most 2^32 - 2 (2^32 - 1 is "no uid"). */
static int parse_uid(const char *s, size_t n, uint32_t *out)
{
    if (!is_dec(s, n) || n > 10)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    if (v >= UINT32_MAX)
        return 0;
    *out = (uint32_t)v;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Who owns the path                                                         */

#define MAX_DEPTH 64 /* components looked at; deeper ones are a container's own */

struct comp {
    const char *s;
    size_t n;
};

/* Splits path at '/' into at most MAX_DEPTH non-empty components. */
static size_t split(const char *path, struct comp *c)
{
    size_t nc = 0;
    for (const char *p = path; *p && nc < MAX_DEPTH;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0)
            break;
        c[nc++] = (struct comp){p, n};
        p += n;
    }
    return nc;
}

#define IS(c, lit) equals((c).s, (c).n, lit)

/* A Slurm node name (slurm_<NODE>, multiple-slurmd): a host name's characters. */
static int node_name(const char *s, size_t n)
{
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_' || ch == '.'))
            return 0;
    }
    return 1;
}

static int slurm_v1_root(struct comp c)
{
    return IS(c, "slurm") || (has_prefix(c.s, c.n, "slurm_") && node_name(c.s + 6, c.n - 6));
}

static int slurm_v2_root(struct comp c)
{
    return IS(c, "slurmstepd.scope") ||
           (has_suffix(c.s, c.n, "_slurmstepd.scope") && node_name(c.s, c.n - 17));
}

static int kube_root(struct comp c)
{
    return IS(c, "kubepods") || IS(c, "kubepods.slice");
}

/* user@UID.service: the user's systemd manager, whose subtree is delegated to
 * the user (they create any cgroup below it). */
static int user_manager(struct comp c)
{
    uint32_t u;
    return has_prefix(c.s, c.n, "user@") && has_suffix(c.s, c.n, ".service") && c.n > 13 &&
           parse_uid(c.s + 5, c.n - 13, &u);
}

/* A container at the top of the host's tree whose own tree is a node's (kind,
 * k3d: a kubelet or slurmd inside): system.slice/docker-<ID>.scope and the
 * other runtimes' scopes, docker/<ID>, libpod_parent/libpod-<ID>. */
static int node_container(struct comp parent, struct comp c)
{
    struct gm_attrib scratch;
    memset(&scratch, 0, sizeof scratch);
    if (IS(parent, "system.slice") || IS(parent, "machine.slice") || IS(parent, "libpod_parent"))
        return runtime_scope(c.s, c.n, &scratch);
    return IS(parent, "docker") && container_id(c.s, c.n, &scratch);
}

/* The Slurm step after job_<JOB> at c[j]: "batch", "extern", "interactive" or a number. */
static void slurm_job_step(const struct comp *c, size_t j, size_t nc, struct gm_attrib *a)
{
    if (j >= nc || !has_prefix(c[j].s, c[j].n, "job_") || !is_dec(c[j].s + 4, c[j].n - 4))
        return;
    copy(a->slurm_job, sizeof a->slurm_job, c[j].s + 4, c[j].n - 4);
    j++;
    if (j < nc && has_prefix(c[j].s, c[j].n, "step_")) {
        const char *t = c[j].s + 5;
        size_t tn = c[j].n - 5;
        if (is_dec(t, tn) || equals(t, tn, "batch") || equals(t, tn, "extern") ||
            equals(t, tn, "interactive"))
            copy(a->slurm_step, sizeof a->slurm_step, t, tn);
    }
}

/* slurm[_NODE]/uid_<UID>/job_<JOB>/step_<STEP> at c[i]: the job when UID is the
 * process's; -1 when it is another's (or the process's is not known). */
static int slurm_v1(const struct comp *c, size_t i, size_t nc, uint32_t uid, struct gm_attrib *a)
{
    uint32_t u;
    if (i + 1 >= nc || !has_prefix(c[i + 1].s, c[i + 1].n, "uid_") ||
        !parse_uid(c[i + 1].s + 4, c[i + 1].n - 4, &u))
        return 0; /* slurmd's own groups: no job */
    if (uid == GM_ATTRIB_NO_UID || u != uid)
        return -1;
    slurm_job_step(c, i + 2, nc, a);
    if (a->slurm_job[0]) {
        a->slurm_uid = u;
        a->has_slurm_uid = 1;
    }
    return 0;
}

/* kubepods[/burstable|/besteffort]/pod<UID> (cgroupfs driver) or
 * kubepods.slice[/kubepods-QOS.slice]/kubepods[-QOS]-pod<UID_>.slice (systemd
 * driver) at c[i]; the pod's QoS class must be the one of the slice above it. */
static int kube_pod(const struct comp *c, size_t i, size_t nc, struct gm_attrib *a)
{
    static const struct {
        const char *dir, *slice, *infix;
        uint8_t qos;
    } classes[] = {
        {"burstable", "kubepods-burstable.slice", "burstable-", GM_QOS_BURSTABLE},
        {"besteffort", "kubepods-besteffort.slice", "besteffort-", GM_QOS_BESTEFFORT},
    };
    int sd = IS(c[i], "kubepods.slice");
    const char *infix = "";
    size_t j = i + 1;
    a->qos = GM_QOS_GUARANTEED; /* a pod right under kubepods */
    for (size_t k = 0; j < nc && k < sizeof classes / sizeof classes[0]; k++) {
        if (equals(c[j].s, c[j].n, sd ? classes[k].slice : classes[k].dir)) {
            a->qos = classes[k].qos;
            infix = classes[k].infix;
            j++;
            break;
        }
    }
    if (j >= nc)
        return 0;
    const char *p = c[j].s;
    size_t n = c[j].n;
    if (!sd)
        return has_prefix(p, n, "pod") && pod_uid(p + 3, n - 3, '-', a);
    size_t il = strlen(infix);
    if (!has_prefix(p, n, "kubepods-") || !has_suffix(p, n, ".slice") || n < 9 + 6 + il + 3)
        return 0;
    p += 9, n -= 9 + 6;
    if (!has_prefix(p, n, infix) || !has_prefix(p + il, n - il, "pod"))
        return 0;
    return pod_uid(p + il + 3, n - il - 3, '_', a);
}

/* Whether c[i], the top of a manager's tree, is where that manager makes it:
 * at base (the top of the path) or node (the top of a node container); Slurm's
 * cgroup v2 scope in the system.slice there, or right after the ".."s of a
 * relative path (whose ancestor may be system.slice). */
static int manager_place(const struct comp *c, size_t i, size_t base, size_t node, int rel, int v2)
{
    if (!v2)
        return i == base || i == node;
    if (rel && i == base)
        return 1;
    return i > base && (i - 1 == base || i - 1 == node) && IS(c[i - 1], "system.slice");
}

void gm_attrib_parse(const char *cgroup, uint32_t uid, struct gm_attrib *a)
{
    memset(a, 0, sizeof *a);
    if (uid != GM_ATTRIB_NO_UID) {
        a->uid = uid;
        a->has_uid = 1;
    }
    if (!cgroup)
        return;
    struct comp c[MAX_DEPTH];
    size_t nc = split(cgroup, c), base = 0;
    /* relative to an ancestor of gpumon's own cgroup namespace: what follows
     * the ".."s starts below that ancestor, maybe system.slice itself */
    while (base < nc && IS(c[base], ".."))
        base++;
    int rel = base > 0;
    /* where a manager's tree may start: the top, or the top of a node container */
    size_t node = base + 1 < nc && node_container(c[base], c[base + 1]) ? base + 2 : base;
    int user_tree = 0, owned = 0, docker_dir = 0, pod = 0;
    const char *unit = NULL;
    size_t unit_len = 0;
    for (size_t i = base; i < nc; i++) {
        const char *p = c[i].s;
        size_t n = c[i].n;
        int v1 = slurm_v1_root(c[i]), v2 = slurm_v2_root(c[i]), k8s = kube_root(c[i]);
        if ((v1 || v2 || k8s) && !owned) {
            /* a manager's tree only where the manager makes it, never in a
             * user's own; the first one found is the process's */
            int here = !user_tree && manager_place(c, i, base, node, rel, v2);
            if (!here || (v1 && slurm_v1(c, i, nc, uid, a) < 0)) {
                a->foreign = 1;
                break; /* the user's own: charged to the unit above, or the user */
            }
            owned = 1;
            if (v2)
                slurm_job_step(c, i + 1, nc, a);
            else if (k8s)
                pod = kube_pod(c, i, nc, a);
            if (!v2)
                continue;
        }
        if (user_manager(c[i]))
            user_tree = 1;
        if (pod && container_id(p, n, a)) { /* the innermost container wins */
            a->runtime = GM_RT_CRI;
        } else if (runtime_scope(p, n, a)) {
            unit = NULL; /* a container, not a unit */
        } else if (equals(p, n, "docker")) {
            docker_dir = 1; /* cgroupfs: docker/<ID> */
        } else if (docker_dir && container_id(p, n, a)) {
            a->runtime = GM_RT_DOCKER;
        } else if (has_prefix(p, n, "user-") && has_suffix(p, n, ".slice") && n > 11 &&
                   parse_uid(p + 5, n - 11, &a->slice_uid)) {
            a->has_slice_uid = 1;
        } else if ((has_suffix(p, n, ".service") || has_suffix(p, n, ".scope")) &&
                   unit_name(p, n)) {
            unit = p;
            unit_len = n;
        }
    }
    if (!pod) {
        a->qos = GM_QOS_NONE;
        a->pod_uid[0] = '\0';
    }
    if (unit && !a->container_id[0] && !pod && !a->slurm_job[0])
        copy(a->unit, sizeof a->unit, unit, unit_len);
}

const char *gm_runtime_name(int rt)
{
    static const char *const names[GM_RT__COUNT] = {"",     "docker", "containerd",
                                                    "crio", "podman", "cri"};
    return rt >= 0 && rt < GM_RT__COUNT ? names[rt] : "";
}

const char *gm_qos_name(int qos)
{
    switch (qos) {
    case GM_QOS_GUARANTEED:
        return "Guaranteed";
    case GM_QOS_BURSTABLE:
        return "Burstable";
    case GM_QOS_BESTEFFORT:
        return "BestEffort";
    default:
        return "";
    }
}

const char *gm_attrib_job(const struct gm_attrib *a, char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    if (a->slurm_job[0])
        snprintf(buf, len, "slurm:%s", a->slurm_job);
    else if (a->pod_uid[0])
        snprintf(buf, len, "pod:%s", a->pod_uid);
    else if (a->container_id[0])
        snprintf(buf, len, "container:%.12s", a->container_id);
    else if (user_manager((struct comp){a->unit, strlen(a->unit)}))
        snprintf(buf, len, "user:%.*s", (int)(strlen(a->unit) - 13), a->unit + 5);
    else if (a->unit[0] && !(has_prefix(a->unit, strlen(a->unit), "session-") &&
                             has_suffix(a->unit, strlen(a->unit), ".scope")))
        snprintf(buf, len, "unit:%s", a->unit);
    if (!buf[0] && a->foreign && a->has_uid)
        snprintf(buf, len, "user:%u", (unsigned)a->uid);
    return buf;
}

const char *gm_attrib_job_key(const char *job, uint32_t pid, uint32_t ppid, uint32_t sid, char *buf,
                              size_t len)
{
    if (!len)
        return buf;
    if (job && job[0] && strncmp(job, "user:", 5) != 0)
        snprintf(buf, len, "%s", job);
    else if (ppid > 1 && ppid != sid)
        snprintf(buf, len, "parent:%" PRIu32, ppid);
    else
        snprintf(buf, len, "pid:%" PRIu32, pid);
    return buf;
}

const char *gm_attrib_label(const struct gm_attrib *a, char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    if (a->slurm_job[0])
        snprintf(buf, len, "slurm:%s%s%s", a->slurm_job, a->slurm_step[0] ? "." : "",
                 a->slurm_step);
    else if (a->pod_uid[0])
        snprintf(buf, len, "pod:%.8s", a->pod_uid);
    else if (a->container_id[0])
        snprintf(buf, len, "%s:%.12s",
                 a->runtime != GM_RT_NONE ? gm_runtime_name(a->runtime) : "container",
                 a->container_id);
    else if (gm_attrib_job(a, buf, len)[0] == '\0')
        buf[0] = '\0'; /* the unit, as the key spells it, or nothing */
    return buf;
}

const char *gm_hpc_job_key(const char *id, char *buf, size_t len)
{
    if (!len)
        return buf;
    snprintf(buf, len, "%s:%s", is_dec(id, strlen(id)) ? "slurm" : "hpc", id);
    return buf;
}

int gm_attrib_known(const struct gm_attrib *a)
{
    return a->container_id[0] || a->pod_uid[0] || a->slurm_job[0] || a->unit[0] || a->foreign;
}
