/* doctor_capture.c -- `gpumon doctor --capture FILE.tar.gz`: what doctor
 * reads on this machine, as a tree that `doctor --root` reads elsewhere; and
 * the replay of the NVML checks the capture ran live.
 *
 * The archive is ustar written by hand through zlib's gzip stream (zlib is
 * already gpumon's dependency; libarchive is not, and doctor needs three
 * entry types: directories, regular files and symbolic links).  What it
 * holds is listed in docs/doctor.md ("What a capture holds"): no
 * environment but NVIDIA_VISIBLE_DEVICES, only the NVIDIA-related kernel
 * log lines, module files reduced to their vermagic and signature marker,
 * device nodes as a text listing (dev.list), since nodes cannot be
 * unpacked without privileges.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../core/buf.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "doctor_int.h"

#define SNP gm_doc_snp

/* ------------------------------------------------------------ ustar */

struct tarw {
    gzFile gz;
    int failed;
    long mtime;
};

static void octal(char *dst, size_t len, unsigned long long v)
{
    SNP(dst, len, "%0*llo", (int)len - 1, v);
}

static void tar_put(struct tarw *t, const void *p, size_t n)
{
    if (!t->failed && n && gzwrite(t->gz, p, (unsigned)n) != (int)n)
        t->failed = 1;
}

/* One header; name is relative ("proc/modules"). */
static void tar_header(struct tarw *t, const char *name, char type, size_t size,
                       const char *linkname)
{
    unsigned char h[512];
    memset(h, 0, sizeof(h));
    size_t nl = strlen(name);
    if (nl < 100) {
        memcpy(h, name, nl); /* NOLINT(bugprone-not-null-terminated-result): ustar field */
    } else {                 /* split into prefix (155) and name (100) at a '/' */
        const char *cut = NULL;
        for (const char *p = name; *p; p++)
            if (*p == '/' && (size_t)(p - name) <= 155 && strlen(p + 1) < 100)
                cut = p;
        if (!cut)
            return; /* too long for ustar: left out (no such path in what doctor reads) */
        memcpy(h + 345, name, (size_t)(cut - name));
        memcpy(h, cut + 1, strlen(cut + 1));
    }
    octal((char *)h + 100, 8, type == '5' ? 0755 : 0644);
    octal((char *)h + 108, 8, 0);
    octal((char *)h + 116, 8, 0);
    octal((char *)h + 124, 12, size);
    octal((char *)h + 136, 12, (unsigned long long)t->mtime);
    memset(h + 148, ' ', 8);
    h[156] = (unsigned char)type;
    if (linkname)
        SNP((char *)h + 157, 100, "%s", linkname);
    memcpy(h + 257, "ustar", 6);
    h[263] = '0'; /* version "00", not NUL-terminated */
    h[264] = '0';
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    SNP((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    tar_put(t, h, sizeof(h));
}

static void tar_file(struct tarw *t, const char *name, const void *p, size_t n)
{
    static const char zero[512];
    tar_header(t, name, '0', n, NULL);
    tar_put(t, p, n);
    if (n % 512)
        tar_put(t, zero, 512 - n % 512);
}

static void tar_dir(struct tarw *t, const char *name)
{
    tar_header(t, name, '5', 0, NULL);
}

/* ------------------------------------------------------------ what is read */

static const struct gm_doc_opts live = {.root = "/"};

/* Copies /rel into the archive when it can be read (at most 64 KiB). */
static void copy_file(struct tarw *t, const char *rel)
{
    char buf[65536];
    ssize_t n = gm_doc_read(&live, rel, buf, sizeof(buf));
    if (n >= 0)
        tar_file(t, rel, buf, (size_t)n);
}

static int exists(const char *rel)
{
    char p[4096];
    struct stat st;
    SNP(p, sizeof(p), "/%s", rel);
    return lstat(p, &st) == 0;
}

static void copy_link(struct tarw *t, const char *rel)
{
    char p[4096], target[4096];
    SNP(p, sizeof(p), "/%s", rel);
    ssize_t n = readlink(p, target, sizeof(target) - 1);
    if (n > 0 && n < 100) {
        target[n] = 0;
        tar_header(t, rel, '2', 0, target);
    } else if (exists(rel)) {
        tar_file(t, rel, "", 0);
    }
}

static void capture_pci(struct tarw *t, struct gm_buf *ids)
{
    DIR *d = opendir("/sys/bus/pci/devices");
    if (!d)
        return;
    tar_dir(t, "sys/bus/pci/devices"); /* present even when it holds no display device */
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char rel[512], buf[64];
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", e->d_name);
        if (gm_doc_read(&live, rel, buf, sizeof(buf)) <= 0 ||
            (strtoul(buf, NULL, 16) >> 16) != 0x03)
            continue; /* display controllers only */
        static const char *const files[] = {"vendor", "device", "class", "power/runtime_status"};
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
            SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/%s", e->d_name, files[i]);
            copy_file(t, rel);
        }
        SNP(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", e->d_name);
        copy_link(t, rel);
    }
    closedir(d);
}

/* Every nvidia*.ko* under /lib/modules, reduced to what doctor reads. */
static void capture_kmods(struct tarw *t, const char *rel, int depth)
{
    char p[4096];
    SNP(p, sizeof(p), "/%s", rel);
    DIR *d = opendir(p);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "build") == 0 ||
            strcmp(e->d_name, "source") == 0)
            continue;
        char sub[1024];
        SNP(sub, sizeof(sub), "%s/%s", rel, e->d_name);
        if (strncmp(e->d_name, "nvidia.ko", 9) == 0) {
            /* the summary: vermagic string and the signature marker */
            char fp[1100], vm[512] = "";
            SNP(fp, sizeof(fp), "/%s", sub);
            FILE *f = fopen(fp, "rbe");
            int sg = 0;
            if (f && strcmp(e->d_name, "nvidia.ko") == 0) {
                static char buf[1 << 16];
                static const char sig[] = "~Module signature appended~\n";
                size_t got;
                char tail[64] = "";
                size_t tl = 0;
                while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
                    char *m = memmem(buf, got, "vermagic=", 9);
                    if (m && !vm[0] && memchr(m, 0, (size_t)(buf + got - m)))
                        SNP(vm, sizeof(vm), "%s", m);
                    tl = got < sizeof(tail) ? got : sizeof(tail);
                    memcpy(tail, buf + got - tl, tl);
                }
                sg = tl >= sizeof(sig) - 1 &&
                     memcmp(tail + tl - (sizeof(sig) - 1), sig, sizeof(sig) - 1) == 0;
            }
            if (f)
                fclose(f);
            struct gm_buf b = {0};
            if (vm[0]) {
                gm_buf_puts(&b, vm);
                gm_buf_putc(&b, 0);
            }
            if (sg)
                gm_buf_puts(&b, "~Module signature appended~\n");
            tar_file(t, sub, b.p ? b.p : "", b.len);
            gm_buf_free(&b);
        } else if (depth > 0 && e->d_type == DT_DIR) {
            capture_kmods(t, sub, depth - 1);
        }
    }
    closedir(d);
}

static void capture_dir_of_conf(struct tarw *t, const char *rel)
{
    char p[4096];
    SNP(p, sizeof(p), "/%s", rel);
    DIR *d = opendir(p);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".conf") == 0) {
            char sub[1024];
            SNP(sub, sizeof(sub), "%s/%s", rel, e->d_name);
            copy_file(t, sub);
        }
    }
    closedir(d);
}

static void capture_dkms(struct tarw *t)
{
    DIR *d = opendir("/var/lib/dkms/nvidia");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[600];
        SNP(sub, sizeof(sub), "var/lib/dkms/nvidia/%s", e->d_name);
        char abs[700];
        SNP(abs, sizeof(abs), "/%s", sub);
        DIR *kd = opendir(abs);
        if (!kd)
            continue;
        tar_dir(t, sub);
        struct dirent *f;
        while ((f = readdir(kd)))
            if (f->d_name[0] != '.') {
                char kr[900];
                SNP(kr, sizeof(kr), "%s/%s", sub, f->d_name);
                tar_dir(t, kr);
            }
        closedir(kd);
    }
    closedir(d);
}

static void line_text(struct gm_buf *b, const char *key, const char *v)
{
    gm_buf_puts(b, key);
    gm_buf_putc(b, ' ');
    gm_text_line(b, v, strlen(v));
    gm_buf_putc(b, '\n');
}

static void nvml_txt(struct gm_buf *b, const struct gm_doc_check *c)
{
    char key[64];
    SNP(key, sizeof(key), "%s", c->id);
    line_text(b, key, gm_doc_status_name(c->status));
    SNP(key, sizeof(key), "%s.evidence", c->id);
    for (const char *l = c->evidence; *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        char one[GM_DOC_EVIDENCE_MAX];
        SNP(one, sizeof(one), "%.*s", (int)n, l);
        line_text(b, key, one);
        l += n + (nl != NULL);
    }
    SNP(key, sizeof(key), "%s.remedy", c->id);
    if (c->remedy[0])
        line_text(b, key, c->remedy);
}

int gm_doctor_capture(const char *path, const struct gm_doc_report *r, struct gm_err *err)
{
    int fd = gm_safefile_open_output(path, err);
    if (fd < 0)
        return fd;
    if (gm_safefile_output_truncate(fd, path, err) != 0) {
        close(fd);
        return GM_E_IO;
    }
    struct tarw t = {.gz = gzdopen(fd, "wb"), .mtime = (long)time(NULL)};
    if (!t.gz) {
        close(fd);
        return gm_err_set(err, GM_E_IO, "%s: cannot start gzip", path);
    }
    static const char *const files[] = {
        "proc/modules",
        "proc/devices",
        "proc/sys/kernel/osrelease",
        "proc/driver/nvidia/version",
        "proc/1/cgroup",
        "etc/prime-discrete",
        "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0a5c9dbc9a5",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        copy_file(&t, files[i]);
    if (exists("sys/firmware/efi"))
        tar_dir(&t, "sys/firmware/efi");
    static const char *const markers[] = {
        ".dockerenv",
        "run/.containerenv",
        "usr/bin/docker",
        "usr/bin/podman",
        "usr/bin/nvidia-container-runtime-hook",
        "usr/bin/nvidia-ctk",
    };
    for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
        if (exists(markers[i]))
            tar_file(&t, markers[i], "", 0);
    struct gm_buf ids = {0};
    capture_pci(&t, &ids);
    if (ids.len) {
        struct gm_buf f = {0};
        gm_buf_puts(&f, "# reduced by gpumon doctor --capture: the NVIDIA devices present\n"
                        "10de  NVIDIA Corporation\n");
        gm_buf_put(&f, ids.p, ids.len);
        tar_file(&t, "usr/share/misc/pci.ids", f.p, f.len);
        gm_buf_free(&f);
    }
    gm_buf_free(&ids);
    capture_kmods(&t, "lib/modules", 7);
    capture_dkms(&t);
    capture_dir_of_conf(&t, "etc/modprobe.d");
    capture_dir_of_conf(&t, "lib/modprobe.d");
    capture_dir_of_conf(&t, "usr/lib/modprobe.d");
    static const char *const libs[] = {
        "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
        "usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1",
        "usr/lib64/libnvidia-ml.so.1",
        "usr/lib/libnvidia-ml.so.1",
        "lib/x86_64-linux-gnu/libnvidia-ml.so.1",
        "usr/local/nvidia/lib64/libnvidia-ml.so.1",
    };
    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
        copy_link(&t, libs[i]);

    struct gm_buf b = {0};
    struct gm_doc_node nodes[GM_DOC_MAX_NODES];
    int fl;
    int n = gm_doc_nodes(&live, nodes, GM_DOC_MAX_NODES, &fl);
    for (int i = 0; i < n; i++)
        gm_buf_printf(&b, "%c %u:%u %04o %u:%u /dev/%s\n", nodes[i].type, nodes[i].maj,
                      nodes[i].min, nodes[i].mode, nodes[i].uid, nodes[i].gid, nodes[i].name);
    tar_file(&t, "dev.list", b.p ? b.p : "", b.len);

    static char klog[65536];
    int readable;
    gm_doc_klog(&live, klog, sizeof(klog), &readable);
    if (readable)
        tar_file(&t, "kernel.log", klog, strlen(klog));

    char vis[256];
    gm_doc_visible_devices(&live, vis, sizeof(vis));
    if (vis[0]) {
        gm_buf_reset(&b);
        gm_text_line(&b, vis, strlen(vis));
        gm_buf_putc(&b, '\n');
        tar_file(&t, "gpumon/nvidia_visible_devices", b.p, b.len);
    }
    gm_buf_reset(&b);
    nvml_txt(&b, &r->c[GM_DOC_NVML]);
    nvml_txt(&b, &r->c[GM_DOC_GPUS]);
    tar_file(&t, "gpumon/nvml.txt", b.p, b.len);
    gm_buf_free(&b);

    static const char end[1024];
    tar_put(&t, end, sizeof(end));
    int zrc = gzclose(t.gz); /* closes fd */
    if (t.failed || zrc != Z_OK)
        return gm_err_set(err, GM_E_IO, "%s: write failed", path);
    return 0;
}

/* ------------------------------------------------------------ replay */

int gm_doc_replay_nvml(const struct gm_doc_opts *o, struct gm_doc_report *r)
{
    const char *root = o->root && *o->root ? o->root : "/";
    if (strcmp(root, "/") == 0)
        return -1; /* this machine: always live */
    static char buf[65536];
    if (gm_doc_read(o, "gpumon/nvml.txt", buf, sizeof(buf)) < 0)
        return -1;
    r->nvml_replayed = 1;
    for (char *l = buf; l && *l;) {
        char *nl = strchr(l, '\n');
        if (nl)
            *nl = 0;
        char *sp = strchr(l, ' ');
        if (sp) {
            *sp = 0;
            const char *v = sp + 1;
            char *dot = strchr(l, '.');
            if (dot)
                *dot = 0;
            struct gm_doc_check *c = NULL;
            if (strcmp(l, "nvml") == 0)
                c = &r->c[GM_DOC_NVML];
            else if (strcmp(l, "gpus") == 0)
                c = &r->c[GM_DOC_GPUS];
            if (c && !dot) {
                for (int s = GM_DOC_PASS; s <= GM_DOC_UNKNOWN; s++)
                    if (strcmp(v, gm_doc_status_name((enum gm_doc_status)s)) == 0)
                        c->status = (enum gm_doc_status)s;
            } else if (c && strcmp(dot + 1, "evidence") == 0) {
                size_t n = strlen(c->evidence);
                SNP(c->evidence + n, sizeof(c->evidence) - n, "%s%s", n ? "\n" : "", v);
            } else if (c && strcmp(dot + 1, "remedy") == 0) {
                SNP(c->remedy, sizeof(c->remedy), "%s", v);
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    return 0;
}
