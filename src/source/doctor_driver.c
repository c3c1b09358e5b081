/* doctor_driver.c -- doctor's checks from the PCI bus up to the loaded
 * driver: the NVIDIA devices on the bus and their drivers, the kernel
 * modules (nouveau out of the way), whether nvidia.ko was built for the
 * running kernel, the kernel log's NVRM and Xid lines, Secure Boot, and the
 * kernel module's version against the user-space library's.
 *
 * Each check reads files under o->root (doctor.c's gm_doc_read) and leaves
 * what upper checks need in struct gm_doc_state (doctor_int.h).  A module
 * file is searched for its vermagic only when it is an uncompressed regular
 * file; compressed ones are left out (doctor.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor_int.h"

#define SNP gm_doc_snp

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

/* The last component of the link ROOT/rel ("" when it is not one). */
static void link_base(const struct gm_doc_opts *o, const char *rel, char *out, size_t len)
{
    char p[4096], t[4096];
    gm_doc_path_of(o, rel, p, sizeof(p));
    ssize_t n = readlink(p, t, sizeof(t) - 1);
    out[0] = 0;
    if (n <= 0)
        return;
    t[n] = 0;
    const char *b = strrchr(t, '/');
    SNP(out, len, "%s", b ? b + 1 : t);
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
        gm_doc_path_of(o, pci_ids[i], p, sizeof(p));
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
                gm_doc_chomp(line);
                SNP(out, len, "%s", line + 7);
                break;
            }
        }
        fclose(f);
        return;
    }
}

void gm_doc_check_pci(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_PCI);
    char dir[4096];
    gm_doc_path_of(s->o, "sys/bus/pci/devices", dir, sizeof(dir));
    DIR *d = opendir(dir);
    if (!d) {
        gm_doc_ev(c, "sys/bus/pci/devices: %s", strerror(errno));
        gm_doc_set(c, GM_DOC_UNKNOWN, "");
        return;
    }
    struct dirent *e;
    char names[GM_DOC_MAX_PCI * 4][32];
    int nn = 0;
    while ((e = readdir(d)) && nn < GM_DOC_MAX_PCI * 4)
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
        if (!display || s->nnv >= GM_DOC_MAX_PCI) /* the card's audio, USB-C functions */
            continue;
        struct gm_doc_pcidev *p = &s->nv[s->nnv++];
        SNP(p->addr, sizeof(p->addr), "%s", names[i]);
        p->vendor = vendor;
        p->cls = cls;
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/device", names[i]);
        p->device = hexfile(s->o, rel);
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", names[i]);
        link_base(s->o, rel, p->driver, sizeof(p->driver));
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/power/runtime_status", names[i]);
        if (gm_doc_read(s->o, rel, p->runtime, sizeof(p->runtime)) > 0)
            gm_doc_chomp(p->runtime);
        char pname[256];
        gm_doc_pci_name(s->o, p->device, pname, sizeof(pname));
        gm_doc_ev(c, "%s [10de:%04x] %s%s%s, driver: %s", p->addr, p->device,
                  cls == 0x0300 ? "VGA controller" : "3D controller", pname[0] ? ": " : "", pname,
                  p->driver[0] ? p->driver : "none");
    }
    if (!s->nnv) {
        gm_doc_ev(c, "no NVIDIA display or 3D controller (vendor 0x10de) in sys/bus/pci/devices");
        gm_doc_set(
            c, GM_DOC_FAIL,
            "no NVIDIA GPU is visible on this machine: check the card is seated and enabled in "
            "the firmware (BIOS) settings, or that the cloud instance type has a GPU; without a "
            "GPU, "
            "the simulator runs gpumon: gpumon --sim scenarios/h100x8-training.ini status");
        return;
    }
    gm_doc_set(c, GM_DOC_PASS, "");
    for (int i = 0; i < s->nnv; i++) {
        const char *drv = s->nv[i].driver;
        if (strcmp(drv, "nouveau") == 0)
            gm_doc_set(
                c, GM_DOC_FAIL,
                "the open-source nouveau driver holds the GPU: echo 'blacklist nouveau' | sudo tee "
                "/etc/modprobe.d/blacklist-nouveau.conf; echo 'options nouveau modeset=0' | sudo "
                "tee "
                "-a /etc/modprobe.d/blacklist-nouveau.conf; sudo update-initramfs -u; sudo reboot");
        else if (strcmp(drv, "vfio-pci") == 0 || strcmp(drv, "pci-stub") == 0)
            gm_doc_set(
                c, GM_DOC_WARN,
                "the GPU is reserved for a virtual machine (vfio-pci): unbind it from vfio-pci "
                "(remove it from vfio-pci.ids) to use it on this host");
        else if (!drv[0])
            gm_doc_set(c, GM_DOC_WARN, "no driver is bound to the GPU: see the modules check");
    }
}

/* ---------------------------------------------------------- 2. modules */

static int conf_blacklists_nouveau(const struct gm_doc_opts *o, const char *dirrel)
{
    char dir[4096];
    gm_doc_path_of(o, dirrel, dir, sizeof(dir));
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

void gm_doc_check_modules(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_MODULES);
    if (gm_doc_read(s->o, "proc/modules", s->modules, sizeof(s->modules)) < 0) {
        gm_doc_ev(c, "proc/modules: %s", strerror(errno));
        gm_doc_set(c, GM_DOC_UNKNOWN, "");
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
    gm_doc_ev(c, "%s", line);
    gm_doc_ev(c, "nouveau: %s, %s", s->nouveau_loaded ? "loaded" : "not loaded",
              s->nouveau_blacklisted ? "blacklisted in modprobe.d" : "not blacklisted");
    if (!s->nnv) {
        /* keep the evidence: it says what is loaded all the same */
        c->status = GM_DOC_UNKNOWN;
        gm_doc_ev(c, "not judged: no NVIDIA GPU on the PCI bus");
        return;
    }
    gm_doc_set(c, GM_DOC_PASS, "");
    if (s->nouveau_loaded)
        gm_doc_set(
            c, GM_DOC_FAIL,
            "nouveau is loaded: blacklist it (echo 'blacklist nouveau' | sudo tee "
            "/etc/modprobe.d/blacklist-nouveau.conf), sudo update-initramfs -u, sudo reboot");
    if (!s->nvidia_loaded)
        gm_doc_set(c, GM_DOC_FAIL,
                   "sudo modprobe nvidia (if it fails, read the build and kernel-log checks)");
    else if (!s->uvm_loaded)
        gm_doc_set(
            c, GM_DOC_WARN,
            "nvidia_uvm is not loaded (CUDA programs need it): sudo nvidia-modprobe -u -c=0");
}

/* ---------------------------------------------------------- 3. build */

/* Finds a file named nvidia.ko* under ROOT/rel (depth-limited); its path
 * relative to root in out. */
static int find_kmod(const struct gm_doc_opts *o, const char *rel, int depth, char *out, size_t len)
{
    char dir[4096];
    gm_doc_path_of(o, rel, dir, sizeof(dir));
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
    gm_doc_path_of(o, rel, p, sizeof(p));
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

void gm_doc_check_build(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_BUILD);
    s->kmod_signed = -1;
    if (gm_doc_read(s->o, "proc/sys/kernel/osrelease", s->release, sizeof(s->release)) <= 0) {
        gm_doc_ev(c, "proc/sys/kernel/osrelease: cannot be read");
        gm_doc_set(c, GM_DOC_UNKNOWN, "");
        return;
    }
    gm_doc_chomp(s->release);
    gm_doc_ev(c, "running kernel: %s", s->release);
    char rel[512];
    SNP(rel, sizeof(rel), "lib/modules/%s", s->release);
    int have = find_kmod(s->o, rel, 6, s->kmod_path, sizeof(s->kmod_path));
    /* DKMS's view, where it is installed */
    char dk[4096];
    gm_doc_path_of(s->o, "var/lib/dkms/nvidia", dk, sizeof(dk));
    DIR *d = opendir(dk);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.' && isdigit((unsigned char)e->d_name[0])) {
                char kr[600];
                SNP(kr, sizeof(kr), "var/lib/dkms/nvidia/%s/%s", e->d_name, s->release);
                gm_doc_ev(c, "dkms: nvidia %s %s for %s", e->d_name,
                          gm_doc_exists(s->o, kr) ? "built" : "not built", s->release);
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
            gm_doc_ev(c, "/%s: vermagic %s, %s", s->kmod_path, first[0] ? first : "not found",
                      sg ? "signed" : "unsigned");
            if (!s->nnv) {
                c->status = GM_DOC_UNKNOWN;
                return;
            }
            if (first[0] && strcmp(first, s->release) != 0)
                gm_doc_set(
                    c, GM_DOC_FAIL,
                    "the module was built for another kernel: sudo dkms autoinstall (or reinstall "
                    "the driver for this kernel), then sudo modprobe nvidia");
            else
                gm_doc_set(c, first[0] ? GM_DOC_PASS : GM_DOC_UNKNOWN, "");
        } else if (krc == -2) {
            gm_doc_ev(c, "/%s: not a regular file (a FIFO or a device): not read", s->kmod_path);
            gm_doc_set(c, s->nnv ? GM_DOC_PASS : GM_DOC_UNKNOWN, "");
        } else {
            gm_doc_ev(c, "/%s: present (vermagic not read: compressed or unreadable)",
                      s->kmod_path);
            gm_doc_set(c, s->nnv ? GM_DOC_PASS : GM_DOC_UNKNOWN, "");
        }
        return;
    }
    /* none for this kernel: installed for another one? */
    char others[512] = "";
    char lm[4096];
    gm_doc_path_of(s->o, "lib/modules", lm, sizeof(lm));
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
    gm_doc_ev(c, "no nvidia.ko under /lib/modules/%s", s->release);
    if (!s->nnv) {
        c->status = GM_DOC_UNKNOWN;
        return;
    }
    if (others[0]) {
        gm_doc_ev(c, "nvidia.ko is installed for: %s", others);
        gm_doc_set(
            c, GM_DOC_FAIL,
            "the kernel was upgraded and the driver was not rebuilt for it: sudo dkms autoinstall "
            "(or reinstall the driver for this kernel); or boot the kernel it was built for");
    } else if (s->nvidia_loaded) {
        gm_doc_set(c, GM_DOC_WARN,
                   "the loaded module has no file for this kernel: reinstall the driver");
    } else {
        gm_doc_set(
            c, GM_DOC_FAIL,
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
static void klog_add(struct gm_doc_state *s, size_t *n, const char *msg)
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
static void read_syslog_live(struct gm_doc_state *s)
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

static void read_kmsg_live(struct gm_doc_state *s)
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
    struct gm_doc_state tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.o = o;
    const char *root = o->root && *o->root ? o->root : "/";
    if (strcmp(root, "/") == 0 && !gm_doc_exists(o, "kernel.log")) {
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

void gm_doc_check_klog(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_KLOG);
    gm_doc_klog(s->o, s->klog, sizeof(s->klog), &s->klog_read);
    if (!s->klog_read) {
        gm_doc_ev(c, "/dev/kmsg: not readable by this user (kernel.dmesg_restrict)");
        gm_doc_set(c, GM_DOC_UNKNOWN,
                   "read it as root: sudo dmesg | grep -E 'NVRM|Xid|nvidia|nouveau' (or run gpumon "
                   "doctor with sudo)");
        return;
    }
    gm_doc_set(c, GM_DOC_PASS, "");
    int lines = 0, shown = 0;
    for (const char *l = s->klog; *l; l = strchr(l, '\n') + 1)
        lines++;
    if (!lines) {
        gm_doc_ev(c, "no NVRM, Xid, nvidia or nouveau line in the kernel log");
        return;
    }
    gm_doc_ev(c, "%d NVIDIA-related kernel log lines%s", lines,
              lines > 12 ? ", the last 12:" : ":");
    for (const char *l = s->klog; *l; l = strchr(l, '\n') + 1) {
        const char *nl = strchr(l, '\n');
        int len = (int)(nl - l);
        char line[512];
        SNP(line, sizeof(line), "%.*s", len, l);
        if (lines - shown++ <= 12)
            gm_doc_ev(c, "  %s", line);
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
                gm_doc_ev(c, "  -> Xid %d: %s", code, m->text);
                gm_doc_set(c, m->st, m->text);
            } else if (code) {
                gm_doc_ev(c, "  -> Xid %d: see NVIDIA's Xid catalog", code);
                gm_doc_set(c, GM_DOC_WARN,
                           "look the Xid up in NVIDIA's Xid catalog (docs/doctor.md)");
            }
        } else if (strstr(line, "RmInitAdapter failed") || strstr(line, "failed to initialize") ||
                   strstr(line, "API mismatch")) {
            gm_doc_set(
                c, GM_DOC_FAIL,
                strstr(line, "API mismatch")
                    ? "the library and the kernel module differ: reboot after a driver upgrade"
                    : "the driver failed to initialise the GPU: reboot; if it repeats, reinstall "
                      "the "
                      "driver and check the GPU's power connectors");
        }
    }
}

/* ---------------------------------------------------------- 8. Secure Boot */

void gm_doc_check_secureboot(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_SECUREBOOT);
    char v[16];
    ssize_t n = gm_doc_read(
        s->o, "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0a5c9dbc9a5", v,
        sizeof(v));
    int sb = -1;
    if (n >= 5)
        sb = v[4] == 1;
    if (sb < 0 && !gm_doc_exists(s->o, "sys/firmware/efi"))
        gm_doc_ev(c, "not an EFI system: no Secure Boot");
    else if (sb < 0)
        gm_doc_ev(c, "Secure Boot state not readable from efivars");
    else
        gm_doc_ev(c, "Secure Boot: %s", sb ? "enabled" : "disabled");
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
            gm_doc_ev(c, "kernel log: %s", line);
        }
    }
    if (s->kmod_signed >= 0)
        gm_doc_ev(c, "nvidia module: %s", s->kmod_signed ? "signed" : "unsigned");
    gm_doc_set(c, GM_DOC_PASS, "");
    static const char mok[] =
        "sign the module with a key the firmware trusts: sudo mokutil --import "
        "/var/lib/dkms/mok.pub, reboot and enroll the key in the MOK manager (or disable Secure "
        "Boot in the firmware settings)";
    if (rejected || (sb == 1 && s->kmod_signed == 0 && !s->nvidia_loaded && s->nnv))
        gm_doc_set(c, GM_DOC_FAIL, mok);
    else if (sb < 0 && gm_doc_exists(s->o, "sys/firmware/efi"))
        gm_doc_set(c, GM_DOC_UNKNOWN, "");
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
        if (!gm_doc_exists(o, rel))
            continue;
        SNP(where, wl, "/%s", rel);
        link_base(o, rel, base, sizeof(base));
        if (strncmp(base, "libnvidia-ml.so.", 16) == 0 && base[16] && strcmp(base + 16, "1") != 0)
            SNP(ver, vl, "%s", base + 16);
        return 1;
    }
    return 0;
}

void gm_doc_check_version(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_VERSION);
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
        gm_doc_ev(c, "/proc/driver/nvidia/version: kernel module %s",
                  kver[0] ? kver : "(not parsed)");
    } else {
        gm_doc_ev(c, "/proc/driver/nvidia/version: absent (the nvidia module is not loaded)");
    }
    int have = lib_version(s->o, where, sizeof(where), lver, sizeof(lver));
    if (have)
        gm_doc_ev(c, "%s -> version %s", where, lver[0] ? lver : "not in its name");
    else
        gm_doc_ev(c, "libnvidia-ml.so.1: not found in the library directories");
    if (!s->nnv || !s->nvidia_loaded) {
        gm_doc_unknown_below(c, "the nvidia module is not loaded");
        return;
    }
    if (!kver[0] || !lver[0]) {
        gm_doc_set(c, GM_DOC_UNKNOWN, "");
        return;
    }
    if (strcmp(kver, lver) != 0)
        gm_doc_set(
            c, GM_DOC_FAIL,
            "Driver/library version mismatch (an upgrade without a reboot): sudo reboot; or stop "
            "every GPU program and sudo rmmod nvidia_drm nvidia_modeset nvidia_uvm nvidia && sudo "
            "modprobe nvidia");
    else
        gm_doc_set(c, GM_DOC_PASS, "");
}
