/* doctor.c -- `gpumon doctor`'s run: the helpers every check shares
 * (reading under the root prefix, evidence, status) and gm_doctor_run,
 * which runs the checks in their order and assembles the report.
 *
 * The checks live by area: doctor_driver.c (PCI bus, kernel modules and
 * what they were built for, the kernel log, Secure Boot, library vs module
 * version), doctor_devices.c (device nodes, containers, hybrid laptops),
 * doctor_nvml.c (NVML and each GPU); doctor_int.h is what they share.
 * Every file is read under o->root (gm_doc_read), so the same code reads
 * this machine or a tree captured by doctor_capture.c.  Checks only read;
 * the evidence they keep is raw (outputs escape it).  What is not checked
 * is listed in doctor.h.
 */
#include "doctor.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor_int.h"

#define SNP gm_doc_snp

/* ------------------------------------------------------------- helpers */

void gm_doc_snp(char *d, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d, n, fmt, ap);
    va_end(ap);
}

const char *gm_doc_status_name(enum gm_doc_status s)
{
    static const char *const names[] = {"pass", "warn", "fail", "unknown"};
    return (unsigned)s < 4 ? names[s] : "unknown";
}

void gm_doc_path_of(const struct gm_doc_opts *o, const char *rel, char *p, size_t len)
{
    const char *root = o->root && *o->root ? o->root : "/";
    size_t rl = strlen(root);
    SNP(p, len, "%s%s%s", root, rl && root[rl - 1] == '/' ? "" : "/", rel);
}

/* Reads ROOT/rel into buf (NUL-terminated, at most len-1 bytes).  Returns
 * the length, or -1 (errno set) when it cannot be read. */
ssize_t gm_doc_read(const struct gm_doc_opts *o, const char *rel, char *buf, size_t len)
{
    char p[4096];
    gm_doc_path_of(o, rel, p, sizeof(p));
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    return (ssize_t)n;
}

int gm_doc_exists(const struct gm_doc_opts *o, const char *rel)
{
    char p[4096];
    struct stat st;
    gm_doc_path_of(o, rel, p, sizeof(p));
    return lstat(p, &st) == 0;
}

void gm_doc_chomp(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
}

void gm_doc_ev(struct gm_doc_check *c, const char *fmt, ...)
{
    size_t n = strlen(c->evidence);
    if (n + 2 >= sizeof(c->evidence))
        return;
    if (n)
        c->evidence[n++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->evidence + n, sizeof(c->evidence) - n, fmt, ap);
    va_end(ap);
}

void gm_doc_set(struct gm_doc_check *c, enum gm_doc_status s, const char *remedy)
{
    /* a check keeps its worst finding: fail > warn > pass; unknown only alone */
    static const int rank[] = {
        [GM_DOC_PASS] = 0, [GM_DOC_UNKNOWN] = 1, [GM_DOC_WARN] = 2, [GM_DOC_FAIL] = 3};
    if (rank[s] < rank[c->status])
        return;
    if (rank[s] > rank[c->status] || !c->remedy[0])
        SNP(c->remedy, sizeof(c->remedy), "%s", remedy ? remedy : "");
    c->status = s;
}

void gm_doc_unknown_below(struct gm_doc_check *c, const char *why)
{
    c->status = GM_DOC_UNKNOWN;
    c->remedy[0] = 0;
    gm_doc_ev(c, "not checked: %s", why);
}

struct gm_doc_check *gm_doc_chk(struct gm_doc_state *s, enum gm_doc_id id)
{
    return &s->r->c[id];
}

/* ---------------------------------------------------------- the run */

void gm_doctor_run(struct gm_doc_report *r, const struct gm_doc_opts *o)
{
    static const struct {
        const char *id, *title;
    } names[GM_DOC__COUNT] = {
        [GM_DOC_PCI] = {"pci", "NVIDIA devices on the PCI bus and their drivers"},
        [GM_DOC_MODULES] = {"modules", "NVIDIA kernel modules loaded, nouveau out of the way"},
        [GM_DOC_BUILD] = {"build", "kernel module built for the running kernel"},
        [GM_DOC_SECUREBOOT] = {"secureboot", "Secure Boot accepts the module"},
        [GM_DOC_VERSION] = {"version", "kernel module and user-space library versions match"},
        [GM_DOC_DEVNODES] = {"devnodes", "device nodes present, right type, open to this user"},
        [GM_DOC_CONTAINER] = {"container", "container with the GPU devices"},
        [GM_DOC_HYBRID] = {"hybrid", "hybrid graphics: dGPU powered and selected"},
        [GM_DOC_KLOG] = {"kernel-log", "NVRM and Xid lines in the kernel log"},
        [GM_DOC_NVML] = {"nvml", "NVML library found, loaded and initialised"},
        [GM_DOC_GPUS] = {"gpus", "each GPU through NVML"},
    };
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < GM_DOC__COUNT; i++) {
        r->c[i].id = names[i].id;
        r->c[i].title = names[i].title;
        r->c[i].status = GM_DOC_PASS;
    }
    struct gm_doc_state *s = calloc(1, sizeof(*s));
    if (!s)
        abort();
    s->o = o;
    s->r = r;
    gm_doc_check_pci(s);
    r->pci_gpus = s->nnv;
    gm_doc_check_modules(s);
    gm_doc_check_build(s);
    gm_doc_check_klog(s);
    gm_doc_check_secureboot(s);
    gm_doc_check_version(s);
    gm_doc_check_container(s); /* before devnodes: its remedy depends on it */
    gm_doc_check_devnodes(s);
    gm_doc_check_hybrid(s);
    gm_doc_check_nvml(s);
    /* modprobe cannot help while a lower cause stands: point at it */
    struct gm_doc_check *m = gm_doc_chk(s, GM_DOC_MODULES);
    if (m->status == GM_DOC_FAIL && !s->nvidia_loaded && !s->nouveau_loaded) {
        const char *first = r->c[GM_DOC_HYBRID].status == GM_DOC_FAIL       ? "hybrid"
                            : r->c[GM_DOC_SECUREBOOT].status == GM_DOC_FAIL ? "secureboot"
                            : r->c[GM_DOC_BUILD].status == GM_DOC_FAIL      ? "build"
                                                                            : NULL;
        if (first)
            SNP(m->remedy, sizeof(m->remedy),
                "the module cannot load until the '%s' check is fixed; then sudo modprobe nvidia",
                first);
    }
    free(s);
}
