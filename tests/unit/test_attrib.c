/* test_attrib.c -- a process's container, pod, Slurm job or unit from its
 * cgroup path (src/core/attrib.c).
 *
 * Two tables.  The first holds one path of each layout the runtimes write
 * (docs/jobs.md names where each comes from) with every field it gives:
 * Kubernetes under the cgroupfs and systemd drivers, each QoS class, with
 * docker, containerd and CRI-O; Docker, Podman (rootful, rootless,
 * cgroupfs), nerdctl, CRI-O on their own; Slurm on cgroup v1 and v2;
 * systemd services and login sessions; then hostile text that must give
 * nothing rather than a guess.
 *
 * The second is the ownership rule of docs/security.md ("Job attribution"):
 * a Slurm job or a pod is taken only from a path its manager owns.  Each
 * legitimate layout is put through transformations, each with the key it
 * must then give: under a container that is a node (kind), relative to an
 * ancestor (leading ".."), nested in a user's delegated subtree
 * (user@UID.service), in a user's slice, under another slice or a
 * delegated service, with a Slurm uid that is not the process's, with a
 * fake job appended inside the real one, and with odd characters in each
 * component that names the job.  A near miss is charged to the unit that
 * holds it, else to the user (user:UID), never to the job it imitates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/attrib.h"

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define CID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define UID "2f1e3c4d-5b6a-4789-8abc-def012345678"
#define UID_ "2f1e3c4d_5b6a_4789_8abc_def012345678"
#define UID2 "99999999-5b6a-4789-8abc-def012345678"
#define NO GM_ATTRIB_NO_UID

static const struct {
    const char *path;
    uint32_t uid; /* the process's */
    const char *runtime, *cid, *pod, *qos, *job, *step;
    long slurm_uid;
    const char *unit;
    long slice_uid;
    const char *key; /* gm_attrib_job */
} cases[] = {
    /* Kubernetes, cgroupfs driver (v1 and v2 look the same) */
    {"/kubepods/burstable/pod" UID "/" CID, 0, "cri", CID, UID, "Burstable", "", "", -1, "", -1,
     "pod:" UID},
    {"/kubepods/besteffort/pod" UID "/" CID, 0, "cri", CID, UID, "BestEffort", "", "", -1, "", -1,
     "pod:" UID},
    {"/kubepods/pod" UID "/" CID, 0, "cri", CID, UID, "Guaranteed", "", "", -1, "", -1, "pod:" UID},
    {"/kubepods/burstable/pod" UID "/crio-" CID, 0, "crio", CID, UID, "Burstable", "", "", -1, "",
     -1, "pod:" UID},
    /* Kubernetes, systemd driver */
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
     ".slice/cri-containerd-" CID ".scope",
     0, "containerd", CID, UID, "Burstable", "", "", -1, "", -1, "pod:" UID},
    {"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-" CID
     ".scope",
     0, "crio", CID, UID, "BestEffort", "", "", -1, "", -1, "pod:" UID},
    {"/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" CID ".scope", 0, "docker", CID, UID,
     "Guaranteed", "", "", -1, "", -1, "pod:" UID},
    /* the pause container's sandbox, a conmon scope: the pod, no container */
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
     ".slice/crio-conmon-" CID ".scope",
     0, "", "", UID, "Burstable", "", "", -1, "", -1, "pod:" UID},
    /* a kind/k3d node: a container at the host's top holds the kubelet's tree */
    {"/system.slice/docker-" CID ".scope/kubepods/burstable/pod" UID "/" CID, 0, "cri", CID, UID,
     "Burstable", "", "", -1, "", -1, "pod:" UID},
    /* Docker */
    {"/docker/" CID, 0, "docker", CID, "", "", "", "", -1, "", -1, "container:0123456789ab"},
    {"/system.slice/docker-" CID ".scope", 0, "docker", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    /* Podman: rootful, rootless (with and without the container's own subgroup), cgroupfs */
    {"/machine.slice/libpod-" CID ".scope", 0, "podman", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    {"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID ".scope/container",
     1000, "podman", CID, "", "", "", "", -1, "", 1000, "container:0123456789ab"},
    {"/machine.slice/libpod-conmon-" CID ".scope", 0, "", "", "", "", "", "", -1,
     "libpod-conmon-" CID ".scope", -1, "unit:libpod-conmon-" CID ".scope"},
    {"/libpod_parent/libpod-" CID, 0, "podman", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    /* containerd on its own (nerdctl), CRI-O on its own */
    {"/system.slice/nerdctl-" CID ".scope", 0, "containerd", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    {"/machine.slice/crio-" CID ".scope", 0, "crio", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    /* Slurm, cgroup v1 (per-node prefix too) and v2 */
    {"/slurm/uid_1001/job_4242/step_0/task_0", 1001, "", "", "", "", "4242", "0", 1001, "", -1,
     "slurm:4242"},
    {"/slurm_node17/uid_1001/job_4242/step_batch/task_0", 1001, "", "", "", "", "4242", "batch",
     1001, "", -1, "slurm:4242"},
    {"/system.slice/slurmstepd.scope/job_977/step_extern/user/task_special", 1001, "", "", "", "",
     "977", "extern", -1, "", -1, "slurm:977"},
    {"/system.slice/slurmstepd.scope/job_977/step_interactive/user/task_0", 1001, "", "", "", "",
     "977", "interactive", -1, "", -1, "slurm:977"},
    /* gpumon in a container of its own cgroup namespace: the path is relative to an ancestor of
     * gpumon's cgroup, which may be system.slice itself */
    {"/../../slurm/uid_1001/job_4242/step_0/task_0", 1001, "", "", "", "", "4242", "0", 1001, "",
     -1, "slurm:4242"},
    {"/../slurmstepd.scope/job_977/step_0/user/task_0", 1001, "", "", "", "", "977", "0", -1, "",
     -1, "slurm:977"},
    /* slurmstepd's own processes: the unit, no job */
    {"/system.slice/slurmstepd.scope/system", 0, "", "", "", "", "", "", -1, "slurmstepd.scope", -1,
     "unit:slurmstepd.scope"},
    /* systemd: a service; a login session (no job: the user says who); the user's manager */
    {"/system.slice/triton.service", 0, "", "", "", "", "", "", -1, "triton.service", -1,
     "unit:triton.service"},
    {"/user.slice/user-1000.slice/session-3.scope", 1000, "", "", "", "", "", "", -1,
     "session-3.scope", 1000, ""},
    {"/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope", 1000, "", "", "", "",
     "", "", -1, "run-r1.scope", 1000, "unit:run-r1.scope"},
    {"/user.slice/user-1000.slice/user@1000.service/app.slice", 1000, "", "", "", "", "", "", -1,
     "user@1000.service", 1000, "user:1000"},
    {"/", 0, "", "", "", "", "", "", -1, "", -1, ""},
    {"", 0, "", "", "", "", "", "", -1, "", -1, ""},
    /* spoofs (issue 23 point 3): a user's own tree that imitates a job manager's */
    {"/user.slice/user-1000.slice/user@1000.service/app.slice/slurm/uid_0/job_4242/step_0", 1000,
     "", "", "", "", "", "", -1, "user@1000.service", 1000, "user:1000"},
    {"/user.slice/user-1000.slice/user@1000.service/app.slice/slurm/uid_1000/job_4242/step_0", 1000,
     "", "", "", "", "", "", -1, "user@1000.service", 1000, "user:1000"},
    {"/user.slice/user-1000.slice/user@1000.service/app.slice/kubepods/burstable/pod" UID "/" CID,
     1000, "", "", "", "", "", "", -1, "user@1000.service", 1000, "user:1000"},
    {"/user.slice/user-1000.slice/user@1000.service/kubepods.slice/kubepods-pod" UID_
     ".slice/cri-containerd-" CID ".scope",
     1000, "", "", "", "", "", "", -1, "user@1000.service", 1000, "user:1000"},
    {"/slurm/uid_0/job_4242/step_0", 1000, "", "", "", "", "", "", -1, "", -1, "user:1000"},
    {"/slurm/uid_1000/job_4242/step_0", NO, "", "", "", "", "", "", -1, "", -1, ""},
    {"/system.slice/kubepods/pod" UID "/" CID, 0, "", "", "", "", "", "", -1, "", -1, "user:0"},
    {"/system.slice/evil.service/slurmstepd.scope/job_1/step_0", 0, "", "", "", "", "", "", -1,
     "evil.service", -1, "unit:evil.service"},
    /* near misses and hostile text: nothing guessed */
    {"/docker/0123456789AB" CID, 0, "", "", "", "", "", "", -1, "", -1, ""}, /* uppercase, long */
    {"/docker/0123456789a", 0, "", "", "", "", "", "", -1, "", -1, ""},      /* 11 digits */
    /* not a container id: the scope is what the path says, a unit */
    {"/system.slice/docker-zz" CID ".scope", 0, "", "", "", "", "", "", -1,
     "docker-zz" CID ".scope", -1, "unit:docker-zz" CID ".scope"},
    {"/kubepods/burstable/pod" UID_ "/" CID, 0, "", "", "", "", "", "", -1, "", -1, ""},
    {"/kubepods/burstable/pod2f1e3c4d-5b6a-4789-8abc-def01234567/" CID, 0, "", "", "", "", "", "",
     -1, "", -1, ""},
    {"/pod" UID "/" CID, 0, "", "", "", "", "", "", -1, "", -1, ""}, /* no kubepods above */
    {"/slurm/job_12x/step_0", 0, "", "", "", "", "", "", -1, "", -1, ""},
    {"/slurm/step_0/job_5", 0, "", "", "", "", "", "", -1, "", -1, ""}, /* no uid_ level */
    {"/system.slice/evil\x1b[2J.service", 0, "", "", "", "", "", "", -1, "", -1, ""},
    {"/system.slice/a\"b.service", 0, "", "", "", "", "", "", -1, "", -1, ""},
    {"/system.slice/"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaa.service",
     0, "", "", "", "", "", "", -1, "", -1, ""},
    {"/user.slice/user-99999999999999999999999.slice", 0, "", "", "", "", "", "", -1, "", -1, ""},
};

static void test_layouts(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gm_attrib a;
        gm_attrib_parse(cases[i].path, cases[i].uid, &a);
        char key[128];
        gm_attrib_job(&a, key, sizeof key);
        if (strcmp(gm_runtime_name(a.runtime), cases[i].runtime) ||
            strcmp(a.container_id, cases[i].cid) || strcmp(a.pod_uid, cases[i].pod) ||
            strcmp(gm_qos_name(a.qos), cases[i].qos) || strcmp(a.slurm_job, cases[i].job) ||
            strcmp(a.slurm_step, cases[i].step) ||
            (a.has_slurm_uid ? (long)a.slurm_uid : -1) != cases[i].slurm_uid ||
            strcmp(a.unit, cases[i].unit) ||
            (a.has_slice_uid ? (long)a.slice_uid : -1) != cases[i].slice_uid ||
            strcmp(key, cases[i].key)) {
            print_error("case %zu %s (uid %lld):\n  got  rt=%s cid=%s pod=%s qos=%s job=%s "
                        "step=%s uid=%lld unit=%s slice=%lld key=%s\n",
                        i, cases[i].path, (long long)cases[i].uid, gm_runtime_name(a.runtime),
                        a.container_id, a.pod_uid, gm_qos_name(a.qos), a.slurm_job, a.slurm_step,
                        a.has_slurm_uid ? (long long)a.slurm_uid : -1LL, a.unit,
                        a.has_slice_uid ? (long long)a.slice_uid : -1LL, key);
            bad++;
        }
        assert_int_equal(gm_attrib_known(&a), a.container_id[0] || a.pod_uid[0] || a.slurm_job[0] ||
                                                  a.unit[0] || a.foreign);
    }
    assert_int_equal(bad, 0);
    struct gm_attrib a;
    gm_attrib_parse(NULL, 0, &a);
    assert_false(gm_attrib_known(&a));
    assert_false(a.has_slurm_uid || a.has_slice_uid);
    char small[8];
    gm_attrib_parse("/docker/" CID, 0, &a);
    assert_string_equal(gm_attrib_job(&a, small, sizeof small), "contain");
}

/* ------------------------------------------------------------------------ */
/* The ownership rule, generated                                             */

enum kind {
    K_MANAGER,   /* a Slurm job or a pod: owned by its manager */
    K_CONTAINER, /* a runtime's container (no manager's ownership to check) */
};

/* The legitimate layouts; a Slurm v1 path names uid 1000, the process's. */
static const struct {
    const char *path;
    const char *key;
    enum kind kind;
    int slurm_v1; /* the path names the job's uid */
} layouts[] = {
    {"/slurm/uid_1000/job_4242/step_0/task_0", "slurm:4242", K_MANAGER, 1},
    {"/slurm/uid_1000/job_4242/step_batch/task_0", "slurm:4242", K_MANAGER, 1},
    {"/slurm_node17/uid_1000/job_4242/step_extern/task_0", "slurm:4242", K_MANAGER, 1},
    {"/slurm/uid_1000/job_4242", "slurm:4242", K_MANAGER, 1},
    {"/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0", "slurm:4242", K_MANAGER, 0},
    {"/system.slice/slurmstepd.scope/job_4242/step_batch/user/task_0", "slurm:4242", K_MANAGER, 0},
    {"/system.slice/slurmstepd.scope/job_4242/step_interactive", "slurm:4242", K_MANAGER, 0},
    {"/kubepods/burstable/pod" UID "/" CID, "pod:" UID, K_MANAGER, 0},
    {"/kubepods/besteffort/pod" UID "/" CID, "pod:" UID, K_MANAGER, 0},
    {"/kubepods/pod" UID "/" CID, "pod:" UID, K_MANAGER, 0},
    {"/kubepods/burstable/pod" UID "/crio-" CID, "pod:" UID, K_MANAGER, 0},
    {"/kubepods/burstable/pod" UID, "pod:" UID, K_MANAGER, 0},
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
     ".slice/cri-containerd-" CID ".scope",
     "pod:" UID, K_MANAGER, 0},
    {"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-" CID
     ".scope",
     "pod:" UID, K_MANAGER, 0},
    {"/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" CID ".scope", "pod:" UID, K_MANAGER, 0},
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice", "pod:" UID,
     K_MANAGER, 0},
    {"/docker/" CID, "container:0123456789ab", K_CONTAINER, 0},
    {"/system.slice/docker-" CID ".scope", "container:0123456789ab", K_CONTAINER, 0},
    {"/machine.slice/libpod-" CID ".scope/container", "container:0123456789ab", K_CONTAINER, 0},
    {"/system.slice/nerdctl-" CID ".scope", "container:0123456789ab", K_CONTAINER, 0},
};

#define USER_TREE "/user.slice/user-1000.slice/user@1000.service"

/* Where a layout is put, and what its key then is: "=" the layout's own,
 * else the key itself. */
static const struct {
    const char *name, *prefix, *suffix;
    uint32_t uid;
    const char *manager_key, *container_key;
} moves[] = {
    {"as is", "", "", 1000, "=", "="},
    {"in a node container (kind)", "/system.slice/docker-" CID2 ".scope", "", 1000, "=", NULL},
    {"relative to an ancestor", "/../..", "", 1000, "=", "="},
    {"a real job holds a fake one", "", "/slurm/uid_1000/job_1/step_0", 1000, "=", NULL},
    {"a real job holds a fake pod", "", "/kubepods/pod" UID2 "/" CID2, 1000, "=", NULL},
    {"in a user's delegated subtree", USER_TREE "/app.slice", "", 1000, "user:1000", "="},
    {"in a user's delegated subtree, top", USER_TREE, "", 1000, "user:1000", "="},
    {"in a user's own scope", USER_TREE "/app.slice/run-r7.scope", "", 1000, "unit:run-r7.scope",
     "="},
    {"in a user's rootless container", USER_TREE "/user.slice/libpod-" CID2 ".scope", "", 1000,
     "container:fedcba987654", NULL},
    {"in a user's slice", "/user.slice/user-1000.slice", "", 1000, "user:1000", NULL},
    {"in a login session", "/user.slice/user-1000.slice/session-4.scope", "", 1000, "user:1000",
     NULL},
    {"under another slice", "/machine.slice", "", 1000, "user:1000", NULL},
    {"under system.slice", "/system.slice", "", 1000, "user:1000", NULL},
    {"in a delegated service", "/system.slice/evil.service", "", 1000, "unit:evil.service", NULL},
    {"another user's process", "", "", 1001, "user:1001", "="}, /* Slurm v1 only, below */
};

/* Components that name the job: a change of one character must lose it. */
static int names_job(const char *c, size_t n)
{
    static const char *const marks[] = {"slurm", "uid_", "job_", "kubepods", "pod"};
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
        if (memmem(c, n, marks[k], strlen(marks[k])))
            return 1;
    return 0;
}

static int check_one(const char *path, uint32_t uid, const char *want, const char *what)
{
    struct gm_attrib a;
    char key[128], label[128];
    gm_attrib_parse(path, uid, &a);
    gm_attrib_job(&a, key, sizeof key);
    gm_attrib_label(&a, label, sizeof label);
    if (strcmp(key, want) == 0)
        return 0;
    print_error("%s: %s (uid %u)\n  want %s\n  got  %s (label %s)\n", what, path, uid, want, key,
                label);
    return 1;
}

static void test_ownership(void **state)
{
    (void)state;
    int bad = 0, n = 0;
    char path[512];
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        for (size_t m = 0; m < sizeof moves / sizeof moves[0]; m++) {
            const char *want =
                layouts[l].kind == K_MANAGER ? moves[m].manager_key : moves[m].container_key;
            if (!want)
                continue;
            if (moves[m].uid != 1000 && !layouts[l].slurm_v1)
                want = "="; /* only a Slurm v1 path names a uid */
            snprintf(path, sizeof path, "%s%s%s", moves[m].prefix, layouts[l].path,
                     moves[m].suffix);
            bad += check_one(path, moves[m].uid, strcmp(want, "=") ? want : layouts[l].key,
                             moves[m].name);
            n++;
        }
        if (layouts[l].kind != K_MANAGER)
            continue;
        /* odd characters in each component that names the job */
        static const char *const odd[] = {" ",    "\t", "\n", "\x1b", "\xc2\xa0",
                                          "\x7f", "\\", "\"", "%"};
        const char *p = layouts[l].path;
        for (const char *c = p + 1;;) {
            const char *e = strchr(c, '/');
            size_t cn = e ? (size_t)(e - c) : strlen(c);
            if (names_job(c, cn)) {
                for (size_t o = 0; o < sizeof odd / sizeof odd[0]; o++) {
                    for (int at = 0; at < 3; at++) { /* before, inside, after */
                        size_t cut = at == 0 ? 0 : at == 1 ? cn / 2 : cn;
                        snprintf(path, sizeof path, "%.*s%s%s", (int)(c - p + cut), p, odd[o],
                                 c + cut);
                        struct gm_attrib a;
                        char key[128];
                        gm_attrib_parse(path, 1000, &a);
                        gm_attrib_job(&a, key, sizeof key);
                        n++;
                        if (strcmp(key, layouts[l].key) == 0) {
                            print_error("odd character: %s still gives %s\n", path, key);
                            bad++;
                        }
                    }
                }
            }
            if (!e)
                break;
            c = e + 1;
        }
    }
    print_message("%d generated paths\n", n);
    assert_true(n > 300);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_ownership),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
