/* test_doctor.c -- unit tests for the doctor's checks (src/source/doctor.c)
 * and the --user parser's partner, the device-node listing.
 *
 * Each row builds a minimal tree in a temporary directory (one NVIDIA GPU
 * on the bus, the nvidia module loaded, a module file for the running
 * kernel, the nodes 0666) and changes one file, then runs gm_doctor_run
 * with that root and checks one check's status and a phrase of its
 * evidence: the Xid table (each code's verdict), the vermagic against the
 * running kernel, dev.list lines (malformed ones ignored, wrong major, the
 * owner/group/other bits for uid 1000 in group 44), the version file
 * against the library link, and the container and hybrid markers.  NVML is
 * pointed at a library that does not exist, so nothing here loads one.
 * Hostile trees: pci.ids and nvidia.ko as a FIFO without a writer or a link
 * to /dev/zero; doctor must finish (a child given a generous deadline).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "source/doctor.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static char root[256];

static void put(const char *rel, const char *text, size_t len)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s", root, rel);
    for (char *q = p + strlen(root) + 1; (q = strchr(q, '/')); q++) {
        *q = 0;
        mkdir(p, 0755);
        *q = '/';
    }
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}
#define PUT(rel, s) put(rel, s, sizeof(s) - 1)

static void base(void)
{
    snprintf(root, sizeof(root), "/tmp/gm-doctor-XXXXXX");
    assert_non_null(mkdtemp(root));
    PUT("sys/bus/pci/devices/0000:3b:00.0/vendor", "0x10de\n");
    PUT("sys/bus/pci/devices/0000:3b:00.0/device", "0x2330\n");
    PUT("sys/bus/pci/devices/0000:3b:00.0/class", "0x030200\n");
    char p[1024];
    snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:3b:00.0/driver", root);
    assert_int_equal(symlink("../../drivers/nvidia", p), 0);
    PUT("proc/modules", "nvidia_uvm 1 0 - Live 0x0\nnvidia 2 1 nvidia_uvm, Live 0x0\n");
    PUT("proc/devices", "Character devices:\n195 nvidia-frontend\n509 nvidia-uvm\n");
    PUT("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    PUT("proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  "
                                      "Tue Mar  5 2024\n");
    PUT("lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko",
        "vermagic=6.1.0-18-amd64 SMP mod_unload \0~Module signature appended~\n");
    PUT("dev.list", "c 195:255 0666 0:0 /dev/nvidiactl\nc 195:0 0666 0:0 /dev/nvidia0\n"
                    "c 509:0 0666 0:0 /dev/nvidia-uvm\n");
    PUT("kernel.log", "");
    PUT("usr/lib/x86_64-linux-gnu/.keep", "");
    snprintf(p, sizeof(p), "%s/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", root);
    assert_int_equal(symlink("libnvidia-ml.so.550.54.15", p), 0);
}

static void cleanup(void)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void run(struct gm_doc_report *r)
{
    struct gm_doc_opts o = {.root = root,
                            .uid = 1000,
                            .gids = {1000, 44},
                            .ngids = 2,
                            .nvml_lib = "/nonexistent/libnvidia-ml.so.1"};
    gm_doctor_run(r, &o);
}

struct row {
    const char *what;
    const char *file;
    const char *text;
    size_t len;
    enum gm_doc_id check;
    enum gm_doc_status want;
    const char *evidence; /* a phrase of the check's evidence, or NULL */
};

#define ROW(what, file, text, check, want, ev)                                                     \
    {                                                                                              \
        what, file, text, sizeof(text) - 1, check, want, ev                                        \
    }

static const struct row rows[] = {
    ROW("the base tree", "kernel.log", "", GM_DOC_KLOG, GM_DOC_PASS, "no NVRM"),
    ROW("Xid 79", "kernel.log", "[1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, fell off\n",
        GM_DOC_KLOG, GM_DOC_FAIL, "Xid 79: the GPU fell off the bus"),
    ROW("Xid 48", "kernel.log", "NVRM: Xid (PCI:0000:3b:00): 48, pid=1\n", GM_DOC_KLOG, GM_DOC_FAIL,
        "double-bit ECC"),
    ROW("Xid 95", "kernel.log", "NVRM: Xid (PCI:0000:3b:00): 95, pid=1\n", GM_DOC_KLOG, GM_DOC_FAIL,
        "uncontained"),
    ROW("Xid 119", "kernel.log", "NVRM: Xid (PCI:0000:3b:00): 119, pid=1\n", GM_DOC_KLOG,
        GM_DOC_FAIL, "GSP"),
    ROW("Xid 13", "kernel.log", "NVRM: Xid (PCI:0000:3b:00): 13, pid=1\n", GM_DOC_KLOG, GM_DOC_WARN,
        "application"),
    ROW("Xid 63", "kernel.log", "NVRM: Xid (PCI:0000:3b:00): 63, pid=1\n", GM_DOC_KLOG, GM_DOC_WARN,
        "reset the GPU"),
    ROW("an Xid not in the table", "kernel.log", "NVRM: Xid (PCI:0000:3b:00): 999, pid=1\n",
        GM_DOC_KLOG, GM_DOC_WARN, "Xid catalog"),
    ROW("Xid 79 after 13: the worst wins", "kernel.log",
        "NVRM: Xid (PCI:0000:3b:00): 13, x\nNVRM: Xid (PCI:0000:3b:00): 79, x\n", GM_DOC_KLOG,
        GM_DOC_FAIL, "Xid 13"),
    ROW("an Xid line cut short", "kernel.log", "NVRM: Xid (PCI:0000:3b", GM_DOC_KLOG, GM_DOC_PASS,
        "NVRM: Xid"),
    ROW("unrelated lines are left out", "kernel.log", "EXT4-fs: mounted\n", GM_DOC_KLOG,
        GM_DOC_PASS, "no NVRM"),
    ROW("vermagic of another kernel", "lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko",
        "vermagic=6.1.0-9-amd64 SMP \0", GM_DOC_BUILD, GM_DOC_FAIL, "vermagic 6.1.0-9-amd64"),
    ROW("vermagic without its NUL", "lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko",
        "vermagic=6.1.0-18-amd64", GM_DOC_BUILD, GM_DOC_UNKNOWN, "vermagic not found"),
    ROW("an unsigned module is reported so", "lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko",
        "vermagic=6.1.0-18-amd64 SMP \0", GM_DOC_SECUREBOOT, GM_DOC_PASS, "unsigned"),
    ROW("malformed dev.list lines are ignored: nodes missing", "dev.list",
        "c 195 0666 0:0 /dev/nvidiactl\nc 195:0 0666 /dev/nvidia0\nnonsense\n", GM_DOC_DEVNODES,
        GM_DOC_FAIL, "/dev/nvidiactl: missing"),
    ROW("a node that is a regular file", "dev.list",
        "- 0:0 0666 0:0 /dev/nvidiactl\nc 195:0 0666 0:0 /dev/nvidia0\nc 509:0 0666 0:0 "
        "/dev/nvidia-uvm\n",
        GM_DOC_DEVNODES, GM_DOC_FAIL, "not a character device"),
    ROW("the wrong major", "dev.list",
        "c 195:255 0666 0:0 /dev/nvidiactl\nc 10:0 0666 0:0 /dev/nvidia0\nc 509:0 0666 0:0 "
        "/dev/nvidia-uvm\n",
        GM_DOC_DEVNODES, GM_DOC_FAIL, "/dev/nvidia0: not a character device 195"),
    ROW("group 44 rw: the user is in it", "dev.list",
        "c 195:255 0660 0:44 /dev/nvidiactl\nc 195:0 0660 0:44 /dev/nvidia0\nc 509:0 0666 0:0 "
        "/dev/nvidia-uvm\n",
        GM_DOC_DEVNODES, GM_DOC_WARN, "agent's service user"),
    ROW("group 45 rw: the user is not in it", "dev.list",
        "c 195:255 0660 0:45 /dev/nvidiactl\nc 195:0 0666 0:0 /dev/nvidia0\nc 509:0 0666 0:0 "
        "/dev/nvidia-uvm\n",
        GM_DOC_DEVNODES, GM_DOC_FAIL, "/dev/nvidiactl: not readable and writable by uid 1000"),
    ROW("owner 1000 rw, group and other nothing", "dev.list",
        "c 195:255 0600 1000:0 /dev/nvidiactl\nc 195:0 0600 1000:0 /dev/nvidia0\nc 509:0 0600 "
        "1000:0 /dev/nvidia-uvm\n",
        GM_DOC_DEVNODES, GM_DOC_WARN, "cannot open 2"),
    ROW("owner 1000 read-only", "dev.list",
        "c 195:255 0466 1000:0 /dev/nvidiactl\nc 195:0 0666 0:0 /dev/nvidia0\nc 509:0 0666 0:0 "
        "/dev/nvidia-uvm\n",
        GM_DOC_DEVNODES, GM_DOC_FAIL, "/dev/nvidiactl: not readable"),
    ROW("kernel module 550.90.07, library 550.54.15", "proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Mon\n", GM_DOC_VERSION,
        GM_DOC_FAIL, "kernel module 550.90.07"),
    ROW("an unparsable version file", "proc/driver/nvidia/version", "garbage\n", GM_DOC_VERSION,
        GM_DOC_UNKNOWN, "(not parsed)"),
    ROW("podman marker without nodes", "run/.containerenv", "", GM_DOC_CONTAINER, GM_DOC_PASS,
        "podman"),
    ROW("PRIME off", "etc/prime-discrete", "off\n", GM_DOC_HYBRID, GM_DOC_FAIL, "intel"),
    ROW("PRIME on-demand", "etc/prime-discrete", "on-demand\n", GM_DOC_HYBRID, GM_DOC_PASS,
        "on-demand"),
    ROW("no module loaded", "proc/modules", "ext4 1 0 - Live 0x0\n", GM_DOC_MODULES, GM_DOC_FAIL,
        "nvidia not loaded"),
    ROW("nvidia_uvm alone is not nvidia", "proc/modules", "nvidia_uvm 1 0 - Live 0x0\n",
        GM_DOC_MODULES, GM_DOC_FAIL, "nvidia not loaded"),
};

static void test_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const struct row *w = &rows[i];
        base();
        put(w->file, w->text, w->len);
        struct gm_doc_report *r = calloc(1, sizeof(*r));
        assert_non_null(r);
        run(r);
        const struct gm_doc_check *c = &r->c[w->check];
        if (c->status != w->want || (w->evidence && !strstr(c->evidence, w->evidence)))
            fail_msg("%s: %s is %s, want %s; evidence:\n%s", w->what, c->id,
                     gm_doc_status_name(c->status), gm_doc_status_name(w->want), c->evidence);
        free(r);
        cleanup();
    }
}

/* A failing lower check makes the ones above it unknown, not failed. */
static void test_unknown_above(void **state)
{
    (void)state;
    base();
    PUT("proc/modules", "");
    PUT("dev.list", "");
    char p[1024];
    snprintf(p, sizeof(p), "%s/proc/driver/nvidia/version", root);
    unlink(p);
    struct gm_doc_report *r = calloc(1, sizeof(*r));
    run(r);
    assert_int_equal(r->c[GM_DOC_MODULES].status, GM_DOC_FAIL);
    assert_int_equal(r->c[GM_DOC_VERSION].status, GM_DOC_UNKNOWN);
    assert_int_equal(r->c[GM_DOC_DEVNODES].status, GM_DOC_UNKNOWN);
    assert_int_equal(r->c[GM_DOC_NVML].status, GM_DOC_UNKNOWN);
    assert_int_equal(r->c[GM_DOC_GPUS].status, GM_DOC_UNKNOWN);
    free(r);
    cleanup();
}

/* No NVIDIA device: pci fails and says so; nothing above it guesses. */
static void test_no_gpu(void **state)
{
    (void)state;
    base();
    PUT("sys/bus/pci/devices/0000:3b:00.0/vendor", "0x8086\n");
    struct gm_doc_report *r = calloc(1, sizeof(*r));
    run(r);
    assert_int_equal(r->c[GM_DOC_PCI].status, GM_DOC_FAIL);
    assert_non_null(strstr(r->c[GM_DOC_PCI].remedy, "gpumon --sim"));
    assert_int_equal(r->pci_gpus, 0);
    for (int i = GM_DOC_MODULES; i < GM_DOC__COUNT; i++)
        if (i != GM_DOC_SECUREBOOT && i != GM_DOC_KLOG && i != GM_DOC_CONTAINER)
            assert_int_equal(r->c[i].status, GM_DOC_UNKNOWN);
    free(r);
    cleanup();
}

/* A tree where one file doctor reads whole is not a regular file: each
 * row runs gm_doctor_run in a child, which must finish within a deadline
 * (tens of seconds: it used to block in open or read for ever). */
static void test_not_regular(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        int fifo; /* 1: a FIFO without a writer; 0: a link to /dev/zero */
        enum gm_doc_id check;
        const char *evidence; /* a phrase of that check's evidence, or NULL */
    } hostile[] = {
        {"usr/share/misc/pci.ids", 1, GM_DOC_PCI, NULL},
        {"usr/share/misc/pci.ids", 0, GM_DOC_PCI, NULL},
        {"lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko", 1, GM_DOC_BUILD, "not a regular"},
        {"lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko", 0, GM_DOC_BUILD, "not a regular"},
    };
    for (size_t i = 0; i < N_ELEM(hostile); i++) {
        base();
        PUT("usr/share/misc/.keep", "");
        char p[1024];
        snprintf(p, sizeof(p), "%s/%s", root, hostile[i].file);
        unlink(p);
        if (hostile[i].fifo)
            assert_int_equal(mkfifo(p, 0644), 0);
        else
            assert_int_equal(symlink("/dev/zero", p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            struct gm_doc_report *r = calloc(1, sizeof(*r));
            run(r);
            const struct gm_doc_check *c = &r->c[hostile[i].check];
            _exit(!hostile[i].evidence || strstr(c->evidence, hostile[i].evidence) ? 0 : 3);
        }
        int st = 0;
        pid_t got = 0;
        for (int waited = 0; waited < 400 && (got = waitpid(pid, &st, WNOHANG)) == 0; waited++) {
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL); /* up to 20 s in all */
        }
        if (got == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            cleanup();
            fail_msg("%s as %s: doctor still running after 20 s", hostile[i].file,
                     hostile[i].fifo ? "a FIFO" : "a link to /dev/zero");
        }
        cleanup();
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fail_msg("%s as %s: doctor ended with status %#x (3: the evidence lacks \"%s\")",
                     hostile[i].file, hostile[i].fifo ? "a FIFO" : "a link to /dev/zero", st,
                     hostile[i].evidence ? hostile[i].evidence : "");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_unknown_above),
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_not_regular),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
