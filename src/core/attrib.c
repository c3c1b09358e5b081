/* attrib.c -- a process's container, pod, Slurm job or unit from its
 * cgroup path (attrib.h).  The path is split at '/'; each component is
 * matched on its own, in order, so that the Kubernetes, runtime and Slurm
 * parts may sit under any parent (a nested cgroup namespace, a delegated
 * subtree). */
#include "attrib.h"

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

void gm_attrib_parse(const char *cgroup, uint32_t uid, struct gm_attrib *a)
{
    (void)uid;
    memset(a, 0, sizeof *a);
    if (!cgroup)
        return;
    int k8s = 0, docker_dir = 0, slurm = 0, pod = 0;
    const char *unit = NULL;
    size_t unit_len = 0;
    for (const char *p = cgroup; *p;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0)
            break;
        if (equals(p, n, "kubepods") || equals(p, n, "kubepods.slice")) {
            k8s = 1;
            a->qos = GM_QOS_GUARANTEED; /* a pod right under kubepods */
        } else if (k8s && !pod &&
                   (equals(p, n, "burstable") || equals(p, n, "kubepods-burstable.slice"))) {
            a->qos = GM_QOS_BURSTABLE;
        } else if (k8s && !pod &&
                   (equals(p, n, "besteffort") || equals(p, n, "kubepods-besteffort.slice"))) {
            a->qos = GM_QOS_BESTEFFORT;
        } else if (k8s && !pod && has_prefix(p, n, "pod")) {
            pod = pod_uid(p + 3, n - 3, '-', a);
        } else if (k8s && !pod && has_prefix(p, n, "kubepods-") && has_suffix(p, n, ".slice")) {
            /* kubepods-pod<UID_>.slice, kubepods-<qos>-pod<UID_>.slice */
            const char *q = p + 9;
            size_t m = n - 9 - 6;
            if (has_prefix(q, m, "burstable-"))
                q += 10, m -= 10;
            else if (has_prefix(q, m, "besteffort-"))
                q += 11, m -= 11;
            if (has_prefix(q, m, "pod"))
                pod = pod_uid(q + 3, m - 3, '_', a);
        } else if (k8s && pod && container_id(p, n, a)) { /* the innermost container wins */
            a->runtime = GM_RT_CRI;
        } else if (runtime_scope(p, n, a)) {
            unit = NULL; /* a container, not a unit */
        } else if (equals(p, n, "docker")) {
            docker_dir = 1; /* cgroupfs: docker/<ID> */
        } else if (docker_dir && container_id(p, n, a)) {
            a->runtime = GM_RT_DOCKER;
        } else if (equals(p, n, "slurm") || has_prefix(p, n, "slurm_") ||
                   equals(p, n, "slurmstepd.scope")) {
            slurm = 1;
        } else if (slurm && has_prefix(p, n, "uid_") && parse_uid(p + 4, n - 4, &a->slurm_uid)) {
            a->has_slurm_uid = 1;
        } else if (slurm && has_prefix(p, n, "job_") && is_dec(p + 4, n - 4)) {
            copy(a->slurm_job, sizeof a->slurm_job, p + 4, n - 4);
        } else if (slurm && a->slurm_job[0] && has_prefix(p, n, "step_") &&
                   (is_dec(p + 5, n - 5) || equals(p + 5, n - 5, "batch") ||
                    equals(p + 5, n - 5, "extern") || equals(p + 5, n - 5, "interactive"))) {
            copy(a->slurm_step, sizeof a->slurm_step, p + 5, n - 5);
        } else if (has_prefix(p, n, "user-") && has_suffix(p, n, ".slice") && n > 11 &&
                   parse_uid(p + 5, n - 11, &a->slice_uid)) {
            a->has_slice_uid = 1;
        } else if ((has_suffix(p, n, ".service") || has_suffix(p, n, ".scope")) &&
                   unit_name(p, n)) {
            unit = p;
            unit_len = n;
        }
        if (!e)
            break;
        p = e;
    }
    if (!pod)
        a->qos = GM_QOS_NONE;
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
    else if (a->unit[0] && !(has_prefix(a->unit, strlen(a->unit), "session-") &&
                             has_suffix(a->unit, strlen(a->unit), ".scope")))
        snprintf(buf, len, "unit:%s", a->unit);
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
    return a->container_id[0] || a->pod_uid[0] || a->slurm_job[0] || a->unit[0];
}
