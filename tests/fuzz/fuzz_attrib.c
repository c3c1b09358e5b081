/* fuzz_attrib.c -- libFuzzer harness for the cgroup attribution parser
 * (src/core/attrib.c: gm_attrib_parse, gm_attrib_job, gm_attrib_label).
 *
 * Input: four bytes of the process's uid (little-endian; all ones is "not
 * known", GM_ATTRIB_NO_UID), then the cgroup path (up to its first NUL, as
 * procfs hands it over).  Besides crashes and undefined behaviour, it checks
 * what attrib.h promises:
 *   - every field is NUL-terminated and in its own alphabet: container ids
 *     12-64 lowercase hex digits, pod UIDs 8-4-4-4-12 hex digits with
 *     dashes, decimal job ids, the four kinds of step, unit names of
 *     systemd's characters; a QoS class exactly when there is a pod, a
 *     Slurm uid only with a job;
 *   - the ownership rule (docs/security.md, "Job attribution"): a v1 Slurm
 *     uid is the process's; the same path below a user's delegated subtree
 *     (user@UID.service), below a delegated service or in a login session
 *     gives no Slurm job and no pod;
 *   - the job key and the label fit any buffer (cut, NUL-terminated) and
 *     start with one of the documented prefixes;
 *   - the result depends on the path's components only: doubled slashes
 *     and a trailing slash change nothing, and a second parse is the same.
 * Pure: no files, no clock.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib.h"
#include "fuzz_tmp.h"

static void fatal(const char *what, const char *path)
{
    fprintf(stderr, "fuzz_attrib: %s (path \"%s\")\n", what, path);
    abort();
}

static int only(const char *s, const char *set)
{
    return s[strspn(s, set)] == '\0';
}

#define HEX "0123456789abcdef"
#define DEC "0123456789"
#define UNIT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.@\\"

static void check_fields(const struct gm_attrib *a, uint32_t uid, const char *path)
{
    size_t n;
    if (!memchr(a->container_id, 0, sizeof a->container_id) ||
        !memchr(a->pod_uid, 0, sizeof a->pod_uid) ||
        !memchr(a->slurm_job, 0, sizeof a->slurm_job) ||
        !memchr(a->slurm_step, 0, sizeof a->slurm_step) || !memchr(a->unit, 0, sizeof a->unit))
        fatal("a field is not NUL-terminated", path);
    n = strlen(a->container_id);
    if (n && (n < 12 || n > 64 || !only(a->container_id, HEX)))
        fatal("a container id outside its alphabet or length", path);
    if ((a->runtime != 0) != (n != 0) || a->runtime >= GM_RT__COUNT)
        fatal("a runtime without a container id, or the reverse", path);
    n = strlen(a->pod_uid);
    if (n) {
        if (n != 36)
            fatal("a pod UID of the wrong length", path);
        for (size_t i = 0; i < n; i++) {
            int dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? a->pod_uid[i] != '-' : !strchr(HEX, a->pod_uid[i]))
                fatal("a pod UID outside its alphabet", path);
        }
    }
    if ((a->qos != GM_QOS_NONE) != (n != 0) || a->qos > GM_QOS_BESTEFFORT)
        fatal("a QoS class without a pod, or the reverse", path);
    if (a->slurm_job[0] && !only(a->slurm_job, DEC))
        fatal("a Slurm job id that is not decimal", path);
    if (a->slurm_step[0] &&
        (!a->slurm_job[0] ||
         !(only(a->slurm_step, DEC) || !strcmp(a->slurm_step, "batch") ||
           !strcmp(a->slurm_step, "extern") || !strcmp(a->slurm_step, "interactive"))))
        fatal("a Slurm step without a job, or of no known kind", path);
    if (a->has_slurm_uid && (!a->slurm_job[0] || a->slurm_uid != uid))
        fatal("a Slurm uid without a job, or not the process's", path);
    if (a->unit[0] &&
        (!only(a->unit, UNIT_CHARS) || a->container_id[0] || a->pod_uid[0] || a->slurm_job[0]))
        fatal("a unit outside its alphabet, or beside a container, pod or job", path);
    if (a->has_uid != (uid != GM_ATTRIB_NO_UID) || (a->has_uid && a->uid != uid))
        fatal("the process's uid is not the one given", path);
}

static void check_key(const struct gm_attrib *a, const char *path)
{
    static const char *const prefixes[] = {"slurm:", "pod:", "container:", "unit:", "user:"};
    static const char *const labels[] = {"slurm:",  "pod:", "docker:", "containerd:", "crio:",
                                         "podman:", "cri:", "unit:",   "user:",       "container:"};
    char key[128], label[128], small[7];
    gm_attrib_job(a, key, sizeof key);
    gm_attrib_label(a, label, sizeof label);
    int ok = key[0] == '\0';
    for (size_t k = 0; !ok && k < sizeof prefixes / sizeof prefixes[0]; k++)
        ok = strncmp(key, prefixes[k], strlen(prefixes[k])) == 0;
    if (!ok)
        fatal("a job key with no documented prefix", path);
    ok = label[0] == '\0';
    for (size_t k = 0; !ok && k < sizeof labels / sizeof labels[0]; k++)
        ok = strncmp(label, labels[k], strlen(labels[k])) == 0;
    if (!ok || (key[0] == '\0') != (label[0] == '\0'))
        fatal("a label with no documented prefix, or a label without a key", path);
    memset(small, 'x', sizeof small);
    gm_attrib_job(a, small, sizeof small);
    if (!memchr(small, 0, sizeof small) || strncmp(small, key, sizeof small - 1) != 0)
        fatal("the job key in a small buffer is not the key cut", path);
    memset(small, 'x', sizeof small);
    gm_attrib_label(a, small, sizeof small);
    if (!memchr(small, 0, sizeof small) || strncmp(small, label, sizeof small - 1) != 0)
        fatal("the label in a small buffer is not the label cut", path);
    if (strncmp(key, "slurm:", 6) == 0 && strcmp(key + 6, a->slurm_job) != 0)
        fatal("a slurm: key that is not the job", path);
}

/* path, with prefix before it, must give no Slurm job and no pod. */
static void not_owned(const char *prefix, const char *path, uint32_t uid, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", prefix, path[0] == '/' ? "" : "/", path);
    struct gm_attrib a;
    gm_attrib_parse(buf, uid, &a);
    check_fields(&a, uid, buf);
    check_key(&a, buf);
    if (a.slurm_job[0] || a.pod_uid[0])
        fatal("a job or pod from a path its manager does not own", buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint32_t uid = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                   (uint32_t)data[3] << 24;
    char *path = fuzz_cstr(data + 4, size - 4);
    size_t n = strlen(path);

    struct gm_attrib a, b;
    gm_attrib_parse(path, uid, &a);
    check_fields(&a, uid, path);
    check_key(&a, path);
    gm_attrib_parse(path, uid, &b);
    if (memcmp(&a, &b, sizeof a) != 0)
        fatal("two parses of one path differ", path);

    /* every '/' doubled, and a trailing one: the same components */
    char *wide = malloc(2 * n + 2);
    if (!wide)
        abort();
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        wide[w++] = path[i];
        if (path[i] == '/')
            wide[w++] = '/';
    }
    wide[w++] = '/';
    wide[w] = '\0';
    gm_attrib_parse(wide, uid, &b);
    if (memcmp(&a, &b, sizeof a) != 0)
        fatal("doubled slashes change the result", path);
    free(wide);

    /* the ownership rule */
    size_t cap = n + 128;
    char *buf = malloc(cap);
    if (!buf)
        abort();
    not_owned("/user.slice/user-1000.slice/user@1000.service", path, uid, buf, cap);
    not_owned("/user.slice/user-1000.slice/user@1000.service/app.slice", path, uid, buf, cap);
    not_owned("/user.slice/user-1000.slice/session-2.scope", path, uid, buf, cap);
    not_owned("/system.slice/evil.service", path, uid, buf, cap);
    free(buf);
    free(path);
    return 0;
}
