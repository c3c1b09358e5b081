/* test_attrib.c -- a process's container, pod, Slurm job or unit from its
 * cgroup path (src/core/attrib.c).
 *
 * The paths are the layouts the runtimes write (docs/jobs.md names where
 * each comes from): Kubernetes under the cgroupfs and systemd drivers, each
 * QoS class, with docker, containerd and CRI-O; Docker, Podman (rootful,
 * rootless, cgroupfs), nerdctl, CRI-O on their own; Slurm on cgroup v1 and
 * v2; systemd services and login sessions.  Then hostile and near-miss
 * paths that must give nothing rather than a guess: ids outside their
 * alphabet or length, a pod UID with the wrong separators, a Slurm step
 * without a job, control characters in a unit name, a path longer than any
 * field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/attrib.h"

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "2f1e3c4d-5b6a-4789-8abc-def012345678"
#define UID_ "2f1e3c4d_5b6a_4789_8abc_def012345678"

static const struct {
    const char *path;
    const char *runtime, *cid, *pod, *qos, *job, *step;
    long slurm_uid;
    const char *unit;
    long slice_uid;
    const char *key; /* gm_attrib_job */
} cases[] = {
    /* Kubernetes, cgroupfs driver (v1 and v2 look the same) */
    {"/kubepods/burstable/pod" UID "/" CID, "cri", CID, UID, "Burstable", "", "", -1, "", -1,
     "pod:" UID},
    {"/kubepods/besteffort/pod" UID "/" CID, "cri", CID, UID, "BestEffort", "", "", -1, "", -1,
     "pod:" UID},
    {"/kubepods/pod" UID "/" CID, "cri", CID, UID, "Guaranteed", "", "", -1, "", -1, "pod:" UID},
    {"/kubepods/burstable/pod" UID "/crio-" CID, "crio", CID, UID, "Burstable", "", "", -1, "",
     -1, "pod:" UID},
    /* Kubernetes, systemd driver */
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
     ".slice/cri-containerd-" CID ".scope",
     "containerd", CID, UID, "Burstable", "", "", -1, "", -1, "pod:" UID},
    {"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-" CID
     ".scope",
     "crio", CID, UID, "BestEffort", "", "", -1, "", -1, "pod:" UID},
    {"/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" CID ".scope", "docker", CID, UID,
     "Guaranteed", "", "", -1, "", -1, "pod:" UID},
    /* the pause container's sandbox, a conmon scope: the pod, no container */
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/crio-conmon-" CID
     ".scope",
     "", "", UID, "Burstable", "", "", -1, "", -1, "pod:" UID},
    /* inside a container with a private cgroup namespace under kind/k3d: nested */
    {"/system.slice/docker-" CID ".scope/kubepods/burstable/pod" UID "/" CID, "cri", CID, UID,
     "Burstable", "", "", -1, "", -1, "pod:" UID},
    /* Docker */
    {"/docker/" CID, "docker", CID, "", "", "", "", -1, "", -1, "container:0123456789ab"},
    {"/system.slice/docker-" CID ".scope", "docker", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    /* Podman: rootful, rootless (with and without the container's own subgroup), cgroupfs */
    {"/machine.slice/libpod-" CID ".scope", "podman", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    {"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID ".scope/container",
     "podman", CID, "", "", "", "", -1, "", 1000, "container:0123456789ab"},
    {"/machine.slice/libpod-conmon-" CID ".scope", "", "", "", "", "", "", -1,
     "libpod-conmon-" CID ".scope", -1, "unit:libpod-conmon-" CID ".scope"},
    {"/libpod_parent/libpod-" CID, "podman", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    /* containerd on its own (nerdctl), CRI-O on its own */
    {"/system.slice/nerdctl-" CID ".scope", "containerd", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    {"/machine.slice/crio-" CID ".scope", "crio", CID, "", "", "", "", -1, "", -1,
     "container:0123456789ab"},
    /* Slurm, cgroup v1 (per-node prefix too) and v2 */
    {"/slurm/uid_1001/job_4242/step_0/task_0", "", "", "", "", "4242", "0", 1001, "", -1,
     "slurm:4242"},
    {"/slurm_node17/uid_1001/job_4242/step_batch/task_0", "", "", "", "", "4242", "batch", 1001,
     "", -1, "slurm:4242"},
    {"/system.slice/slurmstepd.scope/job_977/step_extern/user/task_special", "", "", "", "", "977",
     "extern", -1, "", -1, "slurm:977"},
    {"/system.slice/slurmstepd.scope/job_977/step_interactive/user/task_0", "", "", "", "", "977",
     "interactive", -1, "", -1, "slurm:977"},
    /* systemd: a service; a login session (no job: the user says who) */
    {"/system.slice/triton.service", "", "", "", "", "", "", -1, "triton.service", -1,
     "unit:triton.service"},
    {"/user.slice/user-1000.slice/session-3.scope", "", "", "", "", "", "", -1, "session-3.scope",
     1000, ""},
    {"/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope", "", "", "", "", "",
     "", -1, "run-r1.scope", 1000, "unit:run-r1.scope"},
    {"/", "", "", "", "", "", "", -1, "", -1, ""},
    {"", "", "", "", "", "", "", -1, "", -1, ""},
    /* near misses and hostile text: nothing guessed */
    {"/docker/0123456789AB" CID, "", "", "", "", "", "", -1, "", -1, ""},   /* uppercase, long */
    {"/docker/0123456789a", "", "", "", "", "", "", -1, "", -1, ""},       /* 11 digits */
    /* not a container id: the scope is what the path says, a unit */
    {"/system.slice/docker-zz" CID ".scope", "", "", "", "", "", "", -1, "docker-zz" CID ".scope",
     -1, "unit:docker-zz" CID ".scope"},
    {"/kubepods/burstable/pod" UID_ "/" CID, "", "", "", "", "", "", -1, "", -1, ""},
    {"/kubepods/burstable/pod2f1e3c4d-5b6a-4789-8abc-def01234567/" CID, "", "", "", "", "", "", -1,
     "", -1, ""},
    {"/pod" UID "/" CID, "", "", "", "", "", "", -1, "", -1, ""}, /* no kubepods above */
    {"/slurm/job_12x/step_0", "", "", "", "", "", "", -1, "", -1, ""},
    {"/slurm/step_0/job_5", "", "", "", "", "5", "", -1, "", -1, "slurm:5"},
    {"/system.slice/evil\x1b[2J.service", "", "", "", "", "", "", -1, "", -1, ""},
    {"/system.slice/a\"b.service", "", "", "", "", "", "", -1, "", -1, ""},
    {"/system.slice/"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaa.service",
     "", "", "", "", "", "", -1, "", -1, ""},
    {"/user.slice/user-99999999999999999999999.slice", "", "", "", "", "", "", -1, "", -1, ""},
};

static void test_layouts(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gm_attrib a;
        gm_attrib_parse(cases[i].path, GM_ATTRIB_NO_UID, &a);
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
            print_error("case %zu %s:\n  got  rt=%s cid=%s pod=%s qos=%s job=%s step=%s uid=%lld "
                        "unit=%s slice=%lld key=%s\n",
                        i, cases[i].path, gm_runtime_name(a.runtime), a.container_id, a.pod_uid,
                        gm_qos_name(a.qos), a.slurm_job, a.slurm_step,
                        a.has_slurm_uid ? (long long)a.slurm_uid : -1LL, a.unit,
                        a.has_slice_uid ? (long long)a.slice_uid : -1LL, key);
            bad++;
        }
        assert_int_equal(gm_attrib_known(&a), a.container_id[0] || a.pod_uid[0] ||
                                                  a.slurm_job[0] || a.unit[0]);
    }
    assert_int_equal(bad, 0);
    struct gm_attrib a;
    gm_attrib_parse(NULL, GM_ATTRIB_NO_UID, &a);
    assert_false(gm_attrib_known(&a));
    assert_false(a.has_slurm_uid || a.has_slice_uid);
    char small[8];
    gm_attrib_parse("/docker/" CID, GM_ATTRIB_NO_UID, &a);
    assert_string_equal(gm_attrib_job(&a, small, sizeof small), "contain");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
