/* doctor.c -- the checks behind `gpumon doctor`: PCI bus, kernel modules and
 * what they were built for, Secure Boot, library vs module version, device
 * nodes, containers, hybrid laptops, the kernel log, NVML and each GPU.
 *
 * Every file is read under o->root (rd_file), so the same code reads this
 * machine or a tree captured by doctor_capture.c.  The device nodes are read
 * from ROOT/dev.list when the tree has one (a capture: nodes cannot be
 * unpacked unprivileged) and from ROOT/dev otherwise.  Checks only read; the
 * evidence they keep is raw (outputs escape it).  What is not checked is
 * listed in doctor.h.
 */
#include "doctor.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../core/metrics.h"
#include "../core/snapshot.h"
#include "../core/value.h"
#include "doctor_int.h"
#include "nvml.h"

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

static void path_of(const struct gm_doc_opts *o, const char *rel, char *p, size_t len)
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
    path_of(o, rel, p, sizeof(p));
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

/* Opens the file p to read it only when it is a regular file: the open
 * cannot block (O_NONBLOCK, cleared after), and a FIFO, a device (a link to
 * /dev/zero) or a directory is refused, errno ENODEV.  A tree from --root is
 * someone else's: a file read line by line or whole must end. */
static int open_regular(const char *p, struct stat *st)
{
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        errno = ENODEV;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* At most this much of pci.ids (1.4 MB today) is read. */
#define PCI_IDS_MAX (64L << 20)
/* At most this much of a module is searched for its vermagic (nvidia.ko is
 * under 100 MB uncompressed); its signature marker is read at its end. */
#define KMOD_SCAN_MAX (512L << 20)

static int exists(const struct gm_doc_opts *o, const char *rel)
{
    char p[4096];
    struct stat st;
    path_of(o, rel, p, sizeof(p));
    return lstat(p, &st) == 0;
}

/* The last component of the link ROOT/rel ("" when it is not one). */
static void link_base(const struct gm_doc_opts *o, const char *rel, char *out, size_t len)
{
    char p[4096], t[4096];
    path_of(o, rel, p, sizeof(p));
    ssize_t n = readlink(p, t, sizeof(t) - 1);
    out[0] = 0;
    if (n <= 0)
        return;
    t[n] = 0;
    const char *b = strrchr(t, '/');
    SNP(out, len, "%s", b ? b + 1 : t);
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
}

static void ev(struct gm_doc_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct gm_doc_check *c, const char *fmt, ...)
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

static void set(struct gm_doc_check *c, enum gm_doc_status s, const char *remedy)
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

static void unknown_below(struct gm_doc_check *c, const char *why)
{
    c->status = GM_DOC_UNKNOWN;
    c->remedy[0] = 0;
    ev(c, "not checked: %s", why);
}

/* Whether the line-oriented text has a line starting with word followed by
 * a space or the end. */
static int has_line_word(const char *text, const char *word)
{
    size_t wl = strlen(word);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, word, wl) == 0 && (l[wl] == ' ' || l[wl] == '\n' || !l[wl]))
            return 1;
    return 0;
}

/* ---------------------------------------------------------- state */

struct pcidev {
    char addr[32];
    unsigned vendor, device, cls;
    char driver[64];
    char runtime[32];
};

#define MAX_PCI 64

struct st {
    const struct gm_doc_opts *o;
    struct gm_doc_report *r;
    struct pcidev nv[MAX_PCI];
    int nnv;
    int other_display; /* a non-NVIDIA display controller (hybrid graphics) */
    char modules[65536];
    int nvidia_loaded, uvm_loaded, nouveau_loaded, nouveau_blacklisted;
    char release[128];
    char kmod_path[512]; /* nvidia.ko for the running kernel, relative to root */
    int kmod_signed;     /* -1 unknown */
    char klog[65536];
    int klog_read;
    int in_container;
    int nodes_ok;
};

static struct gm_doc_check *C(struct st *s, enum gm_doc_id id)
{
    return &s->r->c[id];
}

/* ---------------------------------------------------------- 1. PCI */

static unsigned hexfile(const struct gm_doc_opts *o, const char *rel)
{
    char b[64];
    if (gm_doc_read(o, rel, b, sizeof(b)) <= 0)
        return 0;
    return (unsigned)strtoul(b, NULL, 16);
}

/* The pci.ids files doctor looks in (pciutils, hwdata). */
static const char *const pci_ids[] = {"usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids", NULL};

/* The device's name from pci.ids ("GH100 [H100 SXM5 80GB]"), or "" when no
 * pci.ids is installed or it does not list the device.  The file is read
 * line by line: only the NVIDIA block matters. */
void gm_doc_pci_name(const struct gm_doc_opts *o, unsigned device, char *out, size_t len)
{
    out[0] = 0;
    for (int i = 0; pci_ids[i]; i++) {
        char p[4096];
        path_of(o, pci_ids[i], p, sizeof(p));
        struct stat st;
        int fd = open_regular(p, &st);
        FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
        if (!f) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        char line[512], want[16];
        int in = 0;
        SNP(want, sizeof(want), "\t%04x  ", device);
        while (ftell(f) < PCI_IDS_MAX && fgets(line, sizeof(line), f)) {
            if (line[0] != '\t' && line[0] != '#')
                in = strncmp(line, "10de  ", 6) == 0;
            else if (in && strncmp(line, want, 7) == 0) {
                chomp(line);
                SNP(out, len, "%s", line + 7);
                break;
            }
        }
        fclose(f);
        return;
    }
}

static void check_pci(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_PCI);
    char dir[4096];
    path_of(s->o, "sys/bus/pci/devices", dir, sizeof(dir));
    DIR *d = opendir(dir);
    if (!d) {
        ev(c, "sys/bus/pci/devices: %s", strerror(errno));
        set(c, GM_DOC_UNKNOWN, "");
        return;
    }
    struct dirent *e;
    char names[MAX_PCI * 4][32];
    int nn = 0;
    while ((e = readdir(d)) && nn < MAX_PCI * 4)
        if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof(names[0]))
            SNP(names[nn++], sizeof(names[0]), "%s", e->d_name);
    closedir(d);
    qsort(names, (size_t)nn, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < nn; i++) {
        char rel[256];
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/vendor", names[i]);
        unsigned vendor = hexfile(s->o, rel);
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", names[i]);
        unsigned cls = hexfile(s->o, rel) >> 8; /* 0x030000 -> 0x0300 */
        int display = (cls >> 8) == 0x03;
        if (vendor != 0x10de) {
            s->other_display |= display;
            continue;
        }
        if (!display || s->nnv >= MAX_PCI) /* the card's audio, USB-C functions */
            continue;
        struct pcidev *p = &s->nv[s->nnv++];
        SNP(p->addr, sizeof(p->addr), "%s", names[i]);
        p->vendor = vendor;
        p->cls = cls;
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/device", names[i]);
        p->device = hexfile(s->o, rel);
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", names[i]);
        link_base(s->o, rel, p->driver, sizeof(p->driver));
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/power/runtime_status", names[i]);
        if (gm_doc_read(s->o, rel, p->runtime, sizeof(p->runtime)) > 0)
            chomp(p->runtime);
        char pname[256];
        gm_doc_pci_name(s->o, p->device, pname, sizeof(pname));
        ev(c, "%s [10de:%04x] %s%s%s, driver: %s", p->addr, p->device,
           cls == 0x0300 ? "VGA controller" : "3D controller", pname[0] ? ": " : "", pname,
           p->driver[0] ? p->driver : "none");
    }
    if (!s->nnv) {
        ev(c, "no NVIDIA display or 3D controller (vendor 0x10de) in sys/bus/pci/devices");
        set(c, GM_DOC_FAIL,
            "no NVIDIA GPU is visible on this machine: check the card is seated and enabled in "
            "the firmware (BIOS) settings, or that the cloud instance type has a GPU; without a "
            "GPU, "
            "the simulator runs gpumon: gpumon --sim scenarios/h100x8-training.ini status");
        return;
    }
    set(c, GM_DOC_PASS, "");
    for (int i = 0; i < s->nnv; i++) {
        const char *drv = s->nv[i].driver;
        if (strcmp(drv, "nouveau") == 0)
            set(c, GM_DOC_FAIL,
                "the open-source nouveau driver holds the GPU: echo 'blacklist nouveau' | sudo tee "
                "/etc/modprobe.d/blacklist-nouveau.conf; echo 'options nouveau modeset=0' | sudo "
                "tee "
                "-a /etc/modprobe.d/blacklist-nouveau.conf; sudo update-initramfs -u; sudo reboot");
        else if (strcmp(drv, "vfio-pci") == 0 || strcmp(drv, "pci-stub") == 0)
            set(c, GM_DOC_WARN,
                "the GPU is reserved for a virtual machine (vfio-pci): unbind it from vfio-pci "
                "(remove it from vfio-pci.ids) to use it on this host");
        else if (!drv[0])
            set(c, GM_DOC_WARN, "no driver is bound to the GPU: see the modules check");
    }
}

/* ---------------------------------------------------------- 2. modules */

static int conf_blacklists_nouveau(const struct gm_doc_opts *o, const char *dirrel)
{
    char dir[4096];
    path_of(o, dirrel, dir, sizeof(dir));
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".conf") != 0)
            continue;
        char rel[512], buf[8192];
        SNP(rel, sizeof(rel), "%s/%s", dirrel, e->d_name);
        if (gm_doc_read(o, rel, buf, sizeof(buf)) < 0)
            continue;
        for (char *l2 = buf; l2 && *l2; l2 = strchr(l2, '\n') ? strchr(l2, '\n') + 1 : NULL) {
            while (*l2 == ' ' || *l2 == '\t')
                l2++;
            if (strncmp(l2, "blacklist", 9) == 0) {
                const char *w = l2 + 9;
                while (*w == ' ' || *w == '\t')
                    w++;
                if (strncmp(w, "nouveau", 7) == 0)
                    found = 1;
            }
        }
    }
    closedir(d);
    return found;
}

static void check_modules(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_MODULES);
    if (gm_doc_read(s->o, "proc/modules", s->modules, sizeof(s->modules)) < 0) {
        ev(c, "proc/modules: %s", strerror(errno));
        set(c, GM_DOC_UNKNOWN, "");
        return;
    }
    s->nvidia_loaded = has_line_word(s->modules, "nvidia");
    s->uvm_loaded = has_line_word(s->modules, "nvidia_uvm");
    s->nouveau_loaded = has_line_word(s->modules, "nouveau");
    s->nouveau_blacklisted = conf_blacklists_nouveau(s->o, "etc/modprobe.d") ||
                             conf_blacklists_nouveau(s->o, "lib/modprobe.d") ||
                             conf_blacklists_nouveau(s->o, "usr/lib/modprobe.d");
    static const char *const mods[] = {"nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm"};
    char line[256] = "proc/modules:";
    for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
        size_t n = strlen(line);
        SNP(line + n, sizeof(line) - n, " %s %s", mods[i],
            has_line_word(s->modules, mods[i]) ? "loaded" : "not loaded");
        if (i + 1 < sizeof(mods) / sizeof(mods[0]))
            strncat(line, ",", sizeof(line) - strlen(line) - 1);
    }
    ev(c, "%s", line);
    ev(c, "nouveau: %s, %s", s->nouveau_loaded ? "loaded" : "not loaded",
       s->nouveau_blacklisted ? "blacklisted in modprobe.d" : "not blacklisted");
    if (!s->nnv) {
        /* keep the evidence: it says what is loaded all the same */
        c->status = GM_DOC_UNKNOWN;
        ev(c, "not judged: no NVIDIA GPU on the PCI bus");
        return;
    }
    set(c, GM_DOC_PASS, "");
    if (s->nouveau_loaded)
        set(c, GM_DOC_FAIL,
            "nouveau is loaded: blacklist it (echo 'blacklist nouveau' | sudo tee "
            "/etc/modprobe.d/blacklist-nouveau.conf), sudo update-initramfs -u, sudo reboot");
    if (!s->nvidia_loaded)
        set(c, GM_DOC_FAIL,
            "sudo modprobe nvidia (if it fails, read the build and kernel-log checks)");
    else if (!s->uvm_loaded)
        set(c, GM_DOC_WARN,
            "nvidia_uvm is not loaded (CUDA programs need it): sudo nvidia-modprobe -u -c=0");
}

/* ---------------------------------------------------------- 3. build */

/* Finds a file named nvidia.ko* under ROOT/rel (depth-limited); its path
 * relative to root in out. */
static int find_kmod(const struct gm_doc_opts *o, const char *rel, int depth, char *out, size_t len)
{
    char dir[4096];
    path_of(o, rel, dir, sizeof(dir));
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "build") == 0 ||
            strcmp(e->d_name, "source") == 0)
            continue;
        char sub[1024];
        SNP(sub, sizeof(sub), "%s/%s", rel, e->d_name);
        if (strncmp(e->d_name, "nvidia.ko", 9) == 0) {
            SNP(out, len, "%s", sub);
            found = 1;
        } else if (depth > 0 && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)) {
            found = find_kmod(o, sub, depth - 1, out, len);
        }
    }
    closedir(d);
    return found;
}

/* Reads the vermagic and whether a signature is appended from a module
 * file (an uncompressed .ko: its .modinfo strings are plain text).  0, or
 * -1 when it is compressed or cannot be opened, -2 when it is not a
 * regular file (open_regular). */
static int kmod_info(const struct gm_doc_opts *o, const char *rel, char *vermagic, size_t vlen,
                     int *is_signed)
{
    char p[4096];
    path_of(o, rel, p, sizeof(p));
    vermagic[0] = 0;
    *is_signed = -1;
    size_t l = strlen(rel);
    if (l > 3 && (strcmp(rel + l - 3, ".xz") == 0 || strcmp(rel + l - 4, ".zst") == 0 ||
                  strcmp(rel + l - 3, ".gz") == 0))
        return -1; /* compressed: not read (doctor.h) */
    struct stat st;
    int fd = open_regular(p, &st);
    if (fd < 0)
        return errno == ENODEV ? -2 : -1;
    static const char tag[] = "vermagic=";
    static const char sig[] = "~Module signature appended~\n";
    char buf[65536 + 64];
    size_t keep = 0;
    off_t off = 0;
    ssize_t got;
    while (!vermagic[0] && off < KMOD_SCAN_MAX &&
           (got = pread(fd, buf + keep, sizeof(buf) - keep - 1, off)) > 0) {
        off += got;
        size_t n = keep + (size_t)got;
        buf[n] = 0;
        char *m = memmem(buf, n, tag, sizeof(tag) - 1);
        if (m && memchr(m, 0, (size_t)(buf + n - m)) != NULL)
            SNP(vermagic, vlen, "%s", m + sizeof(tag) - 1);
        keep = n < 64 ? n : 64;
        memmove(buf, buf + n - keep, keep);
    }
    /* the marker is the file's last bytes */
    char tail[sizeof(sig) - 1];
    *is_signed =
        st.st_size >= (off_t)sizeof(tail) &&
        pread(fd, tail, sizeof(tail), st.st_size - (off_t)sizeof(tail)) == (ssize_t)sizeof(tail) &&
        memcmp(tail, sig, sizeof(tail)) == 0;
    close(fd);
    return 0;
}

static void check_build(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_BUILD);
    s->kmod_signed = -1;
    if (gm_doc_read(s->o, "proc/sys/kernel/osrelease", s->release, sizeof(s->release)) <= 0) {
        ev(c, "proc/sys/kernel/osrelease: cannot be read");
        set(c, GM_DOC_UNKNOWN, "");
        return;
    }
    chomp(s->release);
    ev(c, "running kernel: %s", s->release);
    char rel[512];
    SNP(rel, sizeof(rel), "lib/modules/%s", s->release);
    int have = find_kmod(s->o, rel, 6, s->kmod_path, sizeof(s->kmod_path));
    /* DKMS's view, where it is installed */
    char dk[4096];
    path_of(s->o, "var/lib/dkms/nvidia", dk, sizeof(dk));
    DIR *d = opendir(dk);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.' && isdigit((unsigned char)e->d_name[0])) {
                char kr[600];
                SNP(kr, sizeof(kr), "var/lib/dkms/nvidia/%s/%s", e->d_name, s->release);
                ev(c, "dkms: nvidia %s %s for %s", e->d_name,
                   exists(s->o, kr) ? "built" : "not built", s->release);
            }
        closedir(d);
    }
    if (have) {
        char vm[256];
        int sg;
        int krc = kmod_info(s->o, s->kmod_path, vm, sizeof(vm), &sg);
        if (krc == 0) {
            s->kmod_signed = sg;
            char first[128];
            SNP(first, sizeof(first), "%s", vm);
            char *sp = strchr(first, ' ');
            if (sp)
                *sp = 0;
            ev(c, "/%s: vermagic %s, %s", s->kmod_path, first[0] ? first : "not found",
               sg ? "signed" : "unsigned");
            if (!s->nnv) {
                c->status = GM_DOC_UNKNOWN;
                return;
            }
            if (first[0] && strcmp(first, s->release) != 0)
                set(c, GM_DOC_FAIL,
                    "the module was built for another kernel: sudo dkms autoinstall (or reinstall "
                    "the driver for this kernel), then sudo modprobe nvidia");
            else
                set(c, first[0] ? GM_DOC_PASS : GM_DOC_UNKNOWN, "");
        } else if (krc == -2) {
            ev(c, "/%s: not a regular file (a FIFO or a device): not read", s->kmod_path);
            set(c, s->nnv ? GM_DOC_PASS : GM_DOC_UNKNOWN, "");
        } else {
            ev(c, "/%s: present (vermagic not read: compressed or unreadable)", s->kmod_path);
            set(c, s->nnv ? GM_DOC_PASS : GM_DOC_UNKNOWN, "");
        }
        return;
    }
    /* none for this kernel: installed for another one? */
    char others[512] = "";
    char lm[4096];
    path_of(s->o, "lib/modules", lm, sizeof(lm));
    d = opendir(lm);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || strcmp(e->d_name, s->release) == 0)
                continue;
            char r2[600], found[512];
            SNP(r2, sizeof(r2), "lib/modules/%s", e->d_name);
            if (find_kmod(s->o, r2, 6, found, sizeof(found))) {
                size_t n = strlen(others);
                SNP(others + n, sizeof(others) - n, "%s%s", n ? ", " : "", e->d_name);
            }
        }
        closedir(d);
    }
    ev(c, "no nvidia.ko under /lib/modules/%s", s->release);
    if (!s->nnv) {
        c->status = GM_DOC_UNKNOWN;
        return;
    }
    if (others[0]) {
        ev(c, "nvidia.ko is installed for: %s", others);
        set(c, GM_DOC_FAIL,
            "the kernel was upgraded and the driver was not rebuilt for it: sudo dkms autoinstall "
            "(or reinstall the driver for this kernel); or boot the kernel it was built for");
    } else if (s->nvidia_loaded) {
        set(c, GM_DOC_WARN, "the loaded module has no file for this kernel: reinstall the driver");
    } else {
        set(c, GM_DOC_FAIL,
            "the NVIDIA driver is not installed: install it (Debian: sudo apt install "
            "nvidia-driver from non-free; Ubuntu: sudo ubuntu-drivers install), then reboot");
    }
}

/* ---------------------------------------------------------- 7. kernel log */

struct xid_meaning {
    int xid;
    enum gm_doc_status st;
    const char *text;
};

static const struct xid_meaning xids[] = {
    {13, GM_DOC_WARN, "graphics engine exception: usually an application fault"},
    {31, GM_DOC_WARN, "GPU memory page fault: usually an application fault"},
    {43, GM_DOC_WARN, "GPU stopped processing: usually an application fault"},
    {48, GM_DOC_FAIL, "double-bit ECC error: reset the GPU; replace it if it repeats"},
    {63, GM_DOC_WARN, "row remapping / page retirement recorded: reset the GPU to apply it"},
    {64, GM_DOC_FAIL, "row remapping failed: the GPU needs service"},
    {74, GM_DOC_FAIL, "NVLink error"},
    {79, GM_DOC_FAIL, "the GPU fell off the bus: reboot; check power, seating and cooling"},
    {92, GM_DOC_WARN, "high single-bit ECC error rate"},
    {94, GM_DOC_WARN, "contained ECC error: the application was stopped, reset when idle"},
    {95, GM_DOC_FAIL, "uncontained ECC error: reset the GPU (nvidia-smi -r) or reboot"},
    {119, GM_DOC_FAIL, "GSP firmware RPC timeout: reset the GPU or reboot; update the driver"},
    {120, GM_DOC_FAIL, "GSP firmware error: reset the GPU or reboot; update the driver"},
};

static int nvidia_line(const char *l)
{
    return strcasestr(l, "nvidia") || strstr(l, "NVRM") || strstr(l, "nouveau") ||
           strstr(l, "Xid") || strstr(l, "unsigned module loading is restricted");
}

/* Appends msg to s->klog when it is an NVIDIA line, dropping the oldest
 * half when full. */
static void klog_add(struct st *s, size_t *n, const char *msg)
{
    if (!nvidia_line(msg))
        return;
    size_t ml = strlen(msg);
    if (ml + 2 >= sizeof(s->klog))
        return;
    if (*n + ml + 2 >= sizeof(s->klog)) {
        size_t half = *n / 2;
        char *cut = memchr(s->klog + half, '\n', *n - half);
        size_t drop = cut ? (size_t)(cut - s->klog) + 1 : *n;
        memmove(s->klog, s->klog + drop, *n - drop);
        *n -= drop;
    }
    memcpy(s->klog + *n, msg, ml);
    *n += ml;
    s->klog[(*n)++] = '\n';
    s->klog[*n] = 0;
}

/* dmesg's way in when /dev/kmsg cannot be opened: syslog(2) READ_ALL
 * (the same kernel.dmesg_restrict rule applies to both, but a kernel
 * without /dev/kmsg, or a container that hides it, may still answer). */
static void read_syslog_live(struct st *s)
{
    int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
    if (size <= 0)
        return;
    char *buf = malloc((size_t)size + 1);
    if (!buf)
        abort();
    int got = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
    if (got >= 0) {
        buf[got] = 0;
        size_t n = 0;
        s->klog[0] = 0;
        for (char *l = buf; l && *l;) {
            char *nl = strchr(l, '\n');
            if (nl)
                *nl = 0;
            /* "<4>[   12.3] text": drop the priority */
            if (l[0] == '<' && strchr(l, '>'))
                l = strchr(l, '>') + 1;
            klog_add(s, &n, l);
            l = nl ? nl + 1 : NULL;
        }
        s->klog_read = 1;
    }
    free(buf);
}

static void read_kmsg_live(struct st *s)
{
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        read_syslog_live(s);
        return;
    }
    size_t n = 0;
    char rec[8192];
    for (;;) {
        ssize_t r = read(fd, rec, sizeof(rec) - 1);
        if (r < 0 && errno == EPIPE)
            continue; /* overwritten records */
        if (r <= 0)
            break;
        rec[r] = 0;
        char *msg = strchr(rec, ';'); /* "prio,seq,usec,flags;message\n more" */
        if (!msg)
            continue;
        msg++;
        char *nl = strchr(msg, '\n');
        if (nl)
            *nl = 0;
        klog_add(s, &n, msg);
    }
    s->klog[n] = 0;
    close(fd);
    s->klog_read = 1;
}

/* Reads the NVIDIA-related kernel log lines into s->klog: /dev/kmsg on this
 * machine, ROOT/kernel.log in a captured tree. */
void gm_doc_klog(const struct gm_doc_opts *o, char *out, size_t len, int *readable)
{
    struct st tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.o = o;
    const char *root = o->root && *o->root ? o->root : "/";
    if (strcmp(root, "/") == 0 && !exists(o, "kernel.log")) {
        read_kmsg_live(&tmp);
    } else {
        char raw[65536];
        if (gm_doc_read(o, "kernel.log", raw, sizeof(raw)) >= 0) {
            tmp.klog_read = 1;
            size_t n = 0;
            for (char *l = raw; l && *l;) {
                char *nl = strchr(l, '\n');
                if (nl)
                    *nl = 0;
                size_t ml = strlen(l);
                if (nvidia_line(l) && n + ml + 2 < sizeof(tmp.klog)) {
                    memcpy(tmp.klog + n, l, ml);
                    n += ml;
                    tmp.klog[n++] = '\n';
                }
                l = nl ? nl + 1 : NULL;
            }
            tmp.klog[n] = 0;
        }
    }
    SNP(out, len, "%s", tmp.klog);
    *readable = tmp.klog_read;
}

static void check_klog(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_KLOG);
    gm_doc_klog(s->o, s->klog, sizeof(s->klog), &s->klog_read);
    if (!s->klog_read) {
        ev(c, "/dev/kmsg: not readable by this user (kernel.dmesg_restrict)");
        set(c, GM_DOC_UNKNOWN,
            "read it as root: sudo dmesg | grep -E 'NVRM|Xid|nvidia|nouveau' (or run gpumon "
            "doctor with sudo)");
        return;
    }
    set(c, GM_DOC_PASS, "");
    int lines = 0, shown = 0;
    for (const char *l = s->klog; *l; l = strchr(l, '\n') + 1)
        lines++;
    if (!lines) {
        ev(c, "no NVRM, Xid, nvidia or nouveau line in the kernel log");
        return;
    }
    ev(c, "%d NVIDIA-related kernel log lines%s", lines, lines > 12 ? ", the last 12:" : ":");
    for (const char *l = s->klog; *l; l = strchr(l, '\n') + 1) {
        const char *nl = strchr(l, '\n');
        int len = (int)(nl - l);
        char line[512];
        SNP(line, sizeof(line), "%.*s", len, l);
        if (lines - shown++ <= 12)
            ev(c, "  %s", line);
        const char *x = strstr(line, "Xid");
        if (x) {
            /* "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus." */
            const char *colon = strstr(x, "): ");
            int code = colon ? (int)strtol(colon + 3, NULL, 10) : 0;
            const struct xid_meaning *m = NULL;
            for (size_t i = 0; i < sizeof(xids) / sizeof(xids[0]); i++)
                if (xids[i].xid == code)
                    m = &xids[i];
            if (m) {
                ev(c, "  -> Xid %d: %s", code, m->text);
                set(c, m->st, m->text);
            } else if (code) {
                ev(c, "  -> Xid %d: see NVIDIA's Xid catalog", code);
                set(c, GM_DOC_WARN, "look the Xid up in NVIDIA's Xid catalog (docs/doctor.md)");
            }
        } else if (strstr(line, "RmInitAdapter failed") || strstr(line, "failed to initialize") ||
                   strstr(line, "API mismatch")) {
            set(c, GM_DOC_FAIL,
                strstr(line, "API mismatch")
                    ? "the library and the kernel module differ: reboot after a driver upgrade"
                    : "the driver failed to initialise the GPU: reboot; if it repeats, reinstall "
                      "the "
                      "driver and check the GPU's power connectors");
        }
    }
}

/* ---------------------------------------------------------- 8. Secure Boot */

static void check_secureboot(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_SECUREBOOT);
    char v[16];
    ssize_t n = gm_doc_read(
        s->o, "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0a5c9dbc9a5", v,
        sizeof(v));
    int sb = -1;
    if (n >= 5)
        sb = v[4] == 1;
    if (sb < 0 && !exists(s->o, "sys/firmware/efi"))
        ev(c, "not an EFI system: no Secure Boot");
    else if (sb < 0)
        ev(c, "Secure Boot state not readable from efivars");
    else
        ev(c, "Secure Boot: %s", sb ? "enabled" : "disabled");
    int rejected = 0;
    for (const char *l = s->klog; *l; l = strchr(l, '\n') + 1) {
        const char *nl = strchr(l, '\n');
        char line[512];
        SNP(line, sizeof(line), "%.*s", (int)(nl - l), l);
        if ((strcasestr(line, "nvidia") &&
             (strstr(line, "Key was rejected by service") ||
              strstr(line, "Loading of unsigned module is rejected") ||
              strstr(line, "Required key not available"))) ||
            strstr(line, "unsigned module loading is restricted")) {
            rejected = 1;
            ev(c, "kernel log: %s", line);
        }
    }
    if (s->kmod_signed >= 0)
        ev(c, "nvidia module: %s", s->kmod_signed ? "signed" : "unsigned");
    set(c, GM_DOC_PASS, "");
    static const char mok[] =
        "sign the module with a key the firmware trusts: sudo mokutil --import "
        "/var/lib/dkms/mok.pub, reboot and enroll the key in the MOK manager (or disable Secure "
        "Boot in the firmware settings)";
    if (rejected || (sb == 1 && s->kmod_signed == 0 && !s->nvidia_loaded && s->nnv))
        set(c, GM_DOC_FAIL, mok);
    else if (sb < 0 && exists(s->o, "sys/firmware/efi"))
        set(c, GM_DOC_UNKNOWN, "");
}

/* ---------------------------------------------------------- 4. versions */

static const char *const libdirs[] = {
    "usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64", "usr/lib",
    "lib/x86_64-linux-gnu",     "usr/local/nvidia/lib64",    NULL,
};

/* The user-space library's version from the name libnvidia-ml.so.1 links
 * to (libnvidia-ml.so.550.54.15), and where it is. */
static int lib_version(const struct gm_doc_opts *o, char *where, size_t wl, char *ver, size_t vl)
{
    where[0] = ver[0] = 0;
    for (int i = 0; libdirs[i]; i++) {
        char rel[256], base[256] = "";
        SNP(rel, sizeof(rel), "%s/libnvidia-ml.so.1", libdirs[i]);
        if (!exists(o, rel))
            continue;
        SNP(where, wl, "/%s", rel);
        link_base(o, rel, base, sizeof(base));
        if (strncmp(base, "libnvidia-ml.so.", 16) == 0 && base[16] && strcmp(base + 16, "1") != 0)
            SNP(ver, vl, "%s", base + 16);
        return 1;
    }
    return 0;
}

static void check_version(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_VERSION);
    char buf[1024], kver[64] = "", where[300], lver[64];
    if (gm_doc_read(s->o, "proc/driver/nvidia/version", buf, sizeof(buf)) > 0) {
        const char *k = strstr(buf, "Kernel Module");
        if (k) {
            k += 13;
            while (*k == ' ' || *k == '\t' || (*k && !isdigit((unsigned char)*k) && *k != '\n'))
                k++;
            int i = 0;
            while (i < (int)sizeof(kver) - 1 && (isdigit((unsigned char)k[i]) || k[i] == '.'))
                kver[i] = k[i], i++;
            kver[i] = 0;
        }
        ev(c, "/proc/driver/nvidia/version: kernel module %s", kver[0] ? kver : "(not parsed)");
    } else {
        ev(c, "/proc/driver/nvidia/version: absent (the nvidia module is not loaded)");
    }
    int have = lib_version(s->o, where, sizeof(where), lver, sizeof(lver));
    if (have)
        ev(c, "%s -> version %s", where, lver[0] ? lver : "not in its name");
    else
        ev(c, "libnvidia-ml.so.1: not found in the library directories");
    if (!s->nnv || !s->nvidia_loaded) {
        unknown_below(c, "the nvidia module is not loaded");
        return;
    }
    if (!kver[0] || !lver[0]) {
        set(c, GM_DOC_UNKNOWN, "");
        return;
    }
    if (strcmp(kver, lver) != 0)
        set(c, GM_DOC_FAIL,
            "Driver/library version mismatch (an upgrade without a reboot): sudo reboot; or stop "
            "every GPU program and sudo rmmod nvidia_drm nvidia_modeset nvidia_uvm nvidia && sudo "
            "modprobe nvidia");
    else
        set(c, GM_DOC_PASS, "");
}

/* ---------------------------------------------------------- 5. device nodes */

#define MAX_NODES GM_DOC_MAX_NODES

static int parse_uint_field(const char **p, int base, char end, unsigned *v)
{
    char *e;
    if (!isdigit((unsigned char)**p))
        return -1;
    unsigned long x = strtoul(*p, &e, base);
    if (x > 0xffffffffUL || *e != end)
        return -1;
    *v = (unsigned)x;
    *p = e + 1;
    return 0;
}

/* One dev.list line: "c 195:0 0666 0:0 /dev/nvidia0". */
static int parse_node(const char *l, struct gm_doc_node *d)
{
    memset(d, 0, sizeof(*d));
    if (!strchr("cbl-", l[0]) || !l[0] || l[1] != ' ')
        return -1;
    d->type = l[0];
    const char *p = l + 2;
    if (parse_uint_field(&p, 10, ':', &d->maj) || parse_uint_field(&p, 10, ' ', &d->min) ||
        parse_uint_field(&p, 8, ' ', &d->mode) || parse_uint_field(&p, 10, ':', &d->uid) ||
        parse_uint_field(&p, 10, ' ', &d->gid))
        return -1;
    if (strncmp(p, "/dev/", 5) != 0 || strlen(p + 5) >= sizeof(d->name) || !p[5] ||
        strchr(p + 5, ' ') || strchr(p + 5, '/'))
        return -1;
    SNP(d->name, sizeof(d->name), "%s", p + 5);
    return 0;
}

/* The /dev/nvidia* nodes: ROOT/dev.list in a capture ("c 195:0 0666 0:0
 * /dev/nvidia0"), else ROOT/dev read directly. */
int gm_doc_nodes(const struct gm_doc_opts *o, struct gm_doc_node *out, int max, int *from_list)
{
    char buf[16384];
    int n = 0;
    *from_list = 0;
    if (gm_doc_read(o, "dev.list", buf, sizeof(buf)) >= 0) {
        *from_list = 1;
        for (char *l = buf; l && *l && n < max;) {
            char *nl = strchr(l, '\n');
            if (nl)
                *nl = 0;
            if (parse_node(l, &out[n]) == 0)
                n++;
            l = nl ? nl + 1 : NULL;
        }
        return n;
    }
    char dir[4096];
    path_of(o, "dev", dir, sizeof(dir));
    DIR *dd = opendir(dir);
    if (!dd)
        return 0;
    struct dirent *e;
    while ((e = readdir(dd)) && n < max) {
        if (strncmp(e->d_name, "nvidia", 6) != 0 || strlen(e->d_name) >= sizeof(out[0].name))
            continue;
        char p[4400];
        struct stat st;
        SNP(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (lstat(p, &st) != 0 || S_ISDIR(st.st_mode))
            continue;
        struct gm_doc_node *d = &out[n++];
        SNP(d->name, sizeof(d->name), "%s", e->d_name);
        d->type = S_ISCHR(st.st_mode)   ? 'c'
                  : S_ISBLK(st.st_mode) ? 'b'
                  : S_ISLNK(st.st_mode) ? 'l'
                                        : '-';
        d->maj = major(st.st_rdev);
        d->min = minor(st.st_rdev);
        d->mode = st.st_mode & 07777;
        d->uid = st.st_uid;
        d->gid = st.st_gid;
    }
    closedir(dd);
    return n;
}

static int node_cmp(const void *a, const void *b)
{
    return strcmp(((const struct gm_doc_node *)a)->name, ((const struct gm_doc_node *)b)->name);
}

static int may_rw(const struct gm_doc_opts *o, const struct gm_doc_node *d)
{
    if (o->uid == 0)
        return 1;
    unsigned bits;
    int in_group = 0;
    for (int i = 0; i < o->ngids; i++)
        in_group |= o->gids[i] == d->gid;
    if (o->uid == d->uid)
        bits = (d->mode >> 6) & 7;
    else if (in_group)
        bits = (d->mode >> 3) & 7;
    else
        bits = d->mode & 7;
    return (bits & 6) == 6;
}

static unsigned proc_devices_major(const struct gm_doc_opts *o, const char *name)
{
    char buf[8192];
    if (gm_doc_read(o, "proc/devices", buf, sizeof(buf)) < 0)
        return 0;
    for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char *e;
        while (*l == ' ')
            l++;
        unsigned long m = strtoul(l, &e, 10);
        size_t nl = strlen(name);
        if (e != l && *e == ' ' && strncmp(e + 1, name, nl) == 0 &&
            (e[1 + nl] == '\n' || !e[1 + nl]))
            return (unsigned)m;
    }
    return 0;
}

static void check_devnodes(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_DEVNODES);
    struct gm_doc_node nodes[MAX_NODES];
    int from_list;
    int n = gm_doc_nodes(s->o, nodes, MAX_NODES, &from_list);
    qsort(nodes, (size_t)n, sizeof(nodes[0]), node_cmp);
    for (int i = 0; i < n; i++)
        ev(c, "%c %u:%u %04o %u:%u /dev/%s", nodes[i].type, nodes[i].maj, nodes[i].min,
           nodes[i].mode, nodes[i].uid, nodes[i].gid, nodes[i].name);
    if (!n)
        ev(c, "no /dev/nvidia* node");
    if (!s->nnv) {
        unknown_below(c, "no NVIDIA GPU on the PCI bus");
        return;
    }
    if (!s->nvidia_loaded && !n) {
        unknown_below(c, "the nvidia module is not loaded (it makes the nodes)");
        return;
    }
    set(c, GM_DOC_PASS, "");
    unsigned uvm_major = proc_devices_major(s->o, "nvidia-uvm");
    char want[MAX_PCI + 2][32];
    int nw = 0;
    SNP(want[nw++], sizeof(want[0]), "nvidiactl");
    for (int i = 0; i < s->nnv && nw < MAX_PCI + 1; i++)
        if (strcmp(s->nv[i].driver, "nvidia") == 0 || !s->nv[i].driver[0]) {
            SNP(want[nw], sizeof(want[0]), "nvidia%d", nw - 1);
            nw++;
        }
    if (s->uvm_loaded)
        SNP(want[nw++], sizeof(want[0]), "nvidia-uvm");
    const char *nodes_fix = s->in_container
                                ? "the container has no GPU device nodes: start it with --gpus all "
                                  "(install nvidia-container-toolkit on the host), see the "
                                  "container check"
                                : "create the nodes: sudo nvidia-modprobe -c=0 -u (and for every "
                                  "further GPU: -c=1 ...), or reload the driver";
    int denied = 0, agent_denied = 0;
    for (int w = 0; w < nw; w++) {
        const struct gm_doc_node *d = NULL;
        for (int i = 0; i < n; i++)
            if (strcmp(nodes[i].name, want[w]) == 0)
                d = &nodes[i];
        if (!d) {
            ev(c, "/dev/%s: missing", want[w]);
            set(c, GM_DOC_FAIL, nodes_fix);
            continue;
        }
        unsigned emaj = strcmp(want[w], "nvidia-uvm") == 0 ? uvm_major : 195;
        if (d->type != 'c' || (emaj && d->maj != emaj)) {
            ev(c, "/dev/%s: not a character device %u:x", want[w], emaj);
            set(c, GM_DOC_FAIL,
                "remove the wrong node and recreate it: sudo nvidia-modprobe -c=0 -u");
            continue;
        }
        if (!may_rw(s->o, d)) {
            denied++;
            ev(c, "/dev/%s: not readable and writable by uid %u", want[w], (unsigned)s->o->uid);
        }
        /* contrib/gpumon.service runs the agent as a DynamicUser with no
         * supplementary group: only the "other" bits let it in */
        if (strncmp(want[w], "nvidia-uvm", 10) != 0 && (d->mode & 6) != 6)
            agent_denied++;
    }
    if (agent_denied) {
        ev(c,
           "the agent's service user (contrib/gpumon.service: DynamicUser, no groups) cannot "
           "open %d of these nodes",
           agent_denied);
        set(c, GM_DOC_WARN,
            "let the agent in: sudo systemctl edit gpumon and add SupplementaryGroups=video "
            "(the nodes' group), or NVreg_DeviceFileMode=0666 in /etc/modprobe.d/nvidia.conf");
    }
    if (denied)
        set(c, GM_DOC_FAIL,
            "give the user access: sudo usermod -aG video USER when the nodes belong to group "
            "video "
            "with mode 0660 (log in again), or set NVreg_DeviceFileMode=0666 in "
            "/etc/modprobe.d/nvidia.conf; sudo chmod 0666 /dev/nvidia* lasts until reboot");
    s->nodes_ok = c->status == GM_DOC_PASS;
}

/* ---------------------------------------------------------- 9. containers */

/* NVIDIA_VISIBLE_DEVICES: the only environment variable doctor reads; a
 * capture keeps it in gpumon/nvidia_visible_devices. */
void gm_doc_visible_devices(const struct gm_doc_opts *o, char *out, size_t len)
{
    const char *root = o->root && *o->root ? o->root : "/";
    out[0] = 0;
    if (strcmp(root, "/") == 0 && !exists(o, "gpumon/nvidia_visible_devices")) {
        const char *v = getenv("NVIDIA_VISIBLE_DEVICES");
        SNP(out, len, "%s", v ? v : "");
    } else if (gm_doc_read(o, "gpumon/nvidia_visible_devices", out, len) > 0) {
        chomp(out);
    }
}

static void check_container(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_CONTAINER);
    char cg[4096] = "";
    gm_doc_read(s->o, "proc/1/cgroup", cg, sizeof(cg));
    const char *kind = NULL;
    if (exists(s->o, ".dockerenv"))
        kind = "docker (/.dockerenv)";
    else if (exists(s->o, "run/.containerenv"))
        kind = "podman (/run/.containerenv)";
    else if (strstr(cg, "docker") || strstr(cg, "kubepods") || strstr(cg, "containerd") ||
             strstr(cg, "libpod"))
        kind = "a container (proc/1/cgroup)";
    s->in_container = kind != NULL;
    char vis[256];
    gm_doc_visible_devices(s->o, vis, sizeof(vis));
    set(c, GM_DOC_PASS, "");
    if (!kind) {
        ev(c, "not in a container (no /.dockerenv, /run/.containerenv or container cgroup)");
        int docker = exists(s->o, "usr/bin/docker") || exists(s->o, "usr/bin/podman");
        int hook = exists(s->o, "usr/bin/nvidia-container-runtime-hook") ||
                   exists(s->o, "usr/bin/nvidia-ctk");
        if (docker)
            ev(c, "container engine installed; NVIDIA container toolkit: %s",
               hook ? "installed" : "not installed");
        if (docker && !hook && s->nnv)
            set(c, GM_DOC_WARN,
                "containers on this host cannot get GPUs until the toolkit is installed: sudo apt "
                "install nvidia-container-toolkit; sudo nvidia-ctk runtime configure; restart "
                "docker");
        return;
    }
    ev(c, "running inside %s", kind);
    ev(c, "NVIDIA_VISIBLE_DEVICES: %s", vis[0] ? vis : "not set");
    int ctl = 0, fl;
    struct gm_doc_node nodes[MAX_NODES];
    int n = gm_doc_nodes(s->o, nodes, MAX_NODES, &fl);
    for (int i = 0; i < n; i++)
        ctl |= strcmp(nodes[i].name, "nvidiactl") == 0;
    ev(c, "/dev/nvidiactl: %s", ctl ? "present" : "missing");
    if (!s->nnv) {
        c->status = GM_DOC_UNKNOWN;
        ev(c, "not judged: the host has no NVIDIA GPU on the PCI bus to pass in");
        return;
    }
    if (!ctl)
        set(c, GM_DOC_FAIL,
            vis[0] ? "NVIDIA_VISIBLE_DEVICES is set but the runtime did not add the devices: run "
                     "the container with --gpus all (docker) or --device nvidia.com/gpu=all "
                     "(podman, CDI), with nvidia-container-toolkit installed on the host"
                   : "the container was started without GPUs: docker run --gpus all ... (needs "
                     "nvidia-container-toolkit on the host)");
}

/* ---------------------------------------------------------- 10. hybrid */

static void check_hybrid(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_HYBRID);
    char prime[64] = "";
    if (gm_doc_read(s->o, "etc/prime-discrete", prime, sizeof(prime)) > 0)
        chomp(prime);
    if (!s->nnv) {
        unknown_below(c, "no NVIDIA GPU on the PCI bus");
        return;
    }
    set(c, GM_DOC_PASS, "");
    if (!s->other_display && !prime[0]) {
        ev(c, "no other display controller: not hybrid graphics");
        return;
    }
    ev(c, "hybrid graphics: %s",
       s->other_display ? "an integrated GPU besides the NVIDIA one" : "PRIME configured");
    if (prime[0])
        ev(c, "PRIME profile (/etc/prime-discrete): %s",
           strcmp(prime, "on") == 0    ? "nvidia"
           : strcmp(prime, "off") == 0 ? "intel (the NVIDIA GPU is off)"
                                       : prime);
    for (int i = 0; i < s->nnv; i++)
        if (s->nv[i].runtime[0])
            ev(c, "%s runtime power: %s", s->nv[i].addr, s->nv[i].runtime);
    if (strcmp(prime, "off") == 0)
        set(c, GM_DOC_FAIL,
            "the PRIME profile switches the NVIDIA GPU off: sudo prime-select nvidia (or "
            "on-demand), then reboot; if it still fails, turn off Fast Boot in the firmware");
    for (int i = 0; i < s->nnv; i++)
        if (strcmp(s->nv[i].runtime, "suspended") == 0 && !s->nvidia_loaded)
            set(c, GM_DOC_FAIL,
                "the dGPU is powered down and no NVIDIA driver holds it: sudo prime-select nvidia "
                "and reboot (then nvidia-smi -L wakes it)");
}

/* ---------------------------------------------------------- 6, 11. NVML */

static const char *nvml_remedy(int code)
{
    switch (code) {
    case 9: /* NVML_ERROR_DRIVER_NOT_LOADED */
        return "the kernel driver is not running: sudo modprobe nvidia (see the modules check)";
    case 18: /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
        return "Driver/library version mismatch: reboot after the driver upgrade";
    case 4: /* NVML_ERROR_NO_PERMISSION */
        return "no permission to open the devices: see the device-nodes check (video group, "
               "NVreg_DeviceFileMode)";
    case 12: /* NVML_ERROR_LIBRARY_NOT_FOUND */
    case 13: /* NVML_ERROR_FUNCTION_NOT_FOUND */
        return "the driver's user-space library is missing or too old: reinstall the driver "
               "(Debian: libnvidia-ml1; Ubuntu: libnvidia-compute-VERSION)";
    default:
        return "reinstall the driver and reboot; run: sudo dmesg | grep -i nvrm";
    }
}

static void check_nvml(struct st *s)
{
    struct gm_doc_check *c = C(s, GM_DOC_NVML), *g = C(s, GM_DOC_GPUS);
    if (gm_doc_replay_nvml(s->o, s->r) == 0)
        return;
    const char *below = NULL;
    if (!s->nnv)
        below = "no NVIDIA GPU on the PCI bus";
    else if (s->r->c[GM_DOC_PCI].status == GM_DOC_FAIL)
        below = "the pci check failed (the GPU is held by another driver)";
    else if (s->r->c[GM_DOC_MODULES].status == GM_DOC_FAIL)
        below = "the modules check failed";
    else if (s->r->c[GM_DOC_VERSION].status == GM_DOC_FAIL)
        below = "the library and the kernel module differ";
    else if (s->r->c[GM_DOC_DEVNODES].status == GM_DOC_FAIL)
        below = "the device nodes check failed";
    if (below) {
        unknown_below(c, below);
        unknown_below(g, "NVML does not work");
        return;
    }
    const char *name = s->o->nvml_lib ? s->o->nvml_lib : getenv("GPUMON_NVML_LIB");
    if (!name || !*name)
        name = "libnvidia-ml.so.1";
    void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        ev(c, "dlopen %s: %s", name, e ? e : "failed");
        set(c, GM_DOC_FAIL, nvml_remedy(12));
        unknown_below(g, "NVML does not load");
        return;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        ev(c, strcmp(name, lm->l_name) == 0 ? "loaded %s" : "loaded %s from %s", name, lm->l_name);
    dlclose(h);
    struct gm_nvml *n = NULL;
    struct gm_err err = {0};
    int rc = gm_nvml_open(&n, s->o->nvml_lib, &err);
    if (rc != 0) {
        ev(c, "nvmlInit: %s (code %d)", gm_nvml_strerror(err.nvml_code), err.nvml_code);
        set(c, GM_DOC_FAIL, nvml_remedy(err.nvml_code));
        unknown_below(g, "nvmlInit failed");
        gm_nvml_close(n);
        return;
    }
    ev(c, "nvmlInit: Success");
    set(c, GM_DOC_PASS, "");
    struct gm_snapshot *snap = gm_snapshot_new();
    struct gm_rgset groups = gm_nvml_groups_default();
    gm_nvml_set_groups(n, &groups, 0, 0);
    gm_nvml_sample(n, snap);
    if (snap->driver != GM_DRV_OK) {
        ev(g, "%s", snap->driver_msg);
        set(g, GM_DOC_FAIL, "see the nvml check");
    } else {
        ev(c, "driver %s, %u GPU%s",
           snap->driver_version_s[0] ? snap->driver_version_s : "(version not read)", snap->ngpu,
           snap->ngpu == 1 ? "" : "s");
        set(g, GM_DOC_PASS, "");
        if (!snap->ngpu) {
            ev(g, "NVML sees no GPU");
            set(g, GM_DOC_FAIL, "NVML lists no GPU: check the pci and container checks");
        }
    }
    for (uint32_t i = 0; i < snap->ngpu && snap->driver == GM_DRV_OK; i++) {
        const struct gm_gpu *gp = &snap->gpus[i];
        const char *nm = gp->str[GM_S_NAME][0] ? gp->str[GM_S_NAME] : "(no name)";
        if (gp->state == GM_GPU_LOST) {
            ev(g, "GPU %u: lost (GPU is lost: fell off the bus)", gp->index);
            set(g, GM_DOC_FAIL,
                "a GPU fell off the bus: reboot (a reset rarely brings it back); check its power "
                "cables, seating and cooling; see Xid 79 in the kernel-log check");
            continue;
        }
        if (gp->state == GM_GPU_NOPERM) {
            ev(g, "GPU %u: no permission", gp->index);
            set(g, GM_DOC_FAIL, nvml_remedy(4));
            continue;
        }
        if (gp->state != GM_GPU_OK) {
            ev(g, "GPU %u: %s (code %d)", gp->index, gm_nvml_strerror(gp->state_code),
               gp->state_code);
            set(g, GM_DOC_FAIL, "reset the GPU (sudo nvidia-smi -r -i N) or reboot");
            continue;
        }
        const struct gm_value *rp = &gp->m[GM_M_REMAP_PENDING], *pp = &gp->m[GM_M_RETIRED_PENDING];
        const struct gm_value *pm = &gp->m[GM_M_PERSISTENCE], *da = &gp->m[GM_M_DISPLAY_ACTIVE];
        char line[400];
        SNP(line, sizeof(line), "GPU %u %s %s: ok", gp->index, gp->str[GM_S_PCI_BUS_ID], nm);
        if (gm_v_ok(rp) && rp->v.u) {
            SNP(line, sizeof(line), "GPU %u %s %s: row remap pending", gp->index,
                gp->str[GM_S_PCI_BUS_ID], nm);
            set(g, GM_DOC_FAIL,
                "a reset is required to apply the pending row remap / page retirement: drain the "
                "GPU, then sudo nvidia-smi -r -i N (or reboot)");
        } else if (gm_v_ok(pp) && pp->v.u) {
            SNP(line, sizeof(line), "GPU %u %s %s: page retirement pending", gp->index,
                gp->str[GM_S_PCI_BUS_ID], nm);
            set(g, GM_DOC_FAIL,
                "a reset is required to apply the pending row remap / page retirement: drain the "
                "GPU, then sudo nvidia-smi -r -i N (or reboot)");
        } else if (gm_v_ok(pm) && pm->v.u == 0 && gm_v_ok(da) && da->v.u == 0 &&
                   !strstr(nm, "GeForce")) {
            SNP(line, sizeof(line), "GPU %u %s %s: persistence mode off", gp->index,
                gp->str[GM_S_PCI_BUS_ID], nm);
            set(g, GM_DOC_WARN,
                "turn persistence on for server GPUs: sudo systemctl enable --now "
                "nvidia-persistenced (or sudo nvidia-smi -pm 1)");
        }
        ev(g, "%s", line);
    }
    gm_snapshot_free(snap);
    gm_nvml_close(n);
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
    struct st *s = calloc(1, sizeof(*s));
    if (!s)
        abort();
    s->o = o;
    s->r = r;
    check_pci(s);
    r->pci_gpus = s->nnv;
    check_modules(s);
    check_build(s);
    check_klog(s);
    check_secureboot(s);
    check_version(s);
    check_container(s); /* before devnodes: its remedy depends on it */
    check_devnodes(s);
    check_hybrid(s);
    check_nvml(s);
    /* modprobe cannot help while a lower cause stands: point at it */
    struct gm_doc_check *m = C(s, GM_DOC_MODULES);
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
