/* doctor_devices.c -- doctor's checks of how the GPU reaches this user: the
 * /dev/nvidia* nodes (present, the right type, open to the user and to the
 * agent's service user), the container the machine may be, and hybrid
 * graphics (the dGPU powered and selected).
 *
 * The device nodes are read from ROOT/dev.list when the tree has one (a
 * capture: nodes cannot be unpacked unprivileged) and from ROOT/dev
 * otherwise.  Checks only read; the evidence they keep is raw (outputs
 * escape it).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "doctor_int.h"

#define SNP gm_doc_snp

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
    gm_doc_path_of(o, "dev", dir, sizeof(dir));
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

void gm_doc_check_devnodes(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_DEVNODES);
    struct gm_doc_node nodes[MAX_NODES];
    int from_list;
    int n = gm_doc_nodes(s->o, nodes, MAX_NODES, &from_list);
    qsort(nodes, (size_t)n, sizeof(nodes[0]), node_cmp);
    for (int i = 0; i < n; i++)
        gm_doc_ev(c, "%c %u:%u %04o %u:%u /dev/%s", nodes[i].type, nodes[i].maj, nodes[i].min,
                  nodes[i].mode, nodes[i].uid, nodes[i].gid, nodes[i].name);
    if (!n)
        gm_doc_ev(c, "no /dev/nvidia* node");
    if (!s->nnv) {
        gm_doc_unknown_below(c, "no NVIDIA GPU on the PCI bus");
        return;
    }
    if (!s->nvidia_loaded && !n) {
        gm_doc_unknown_below(c, "the nvidia module is not loaded (it makes the nodes)");
        return;
    }
    gm_doc_set(c, GM_DOC_PASS, "");
    unsigned uvm_major = proc_devices_major(s->o, "nvidia-uvm");
    char want[GM_DOC_MAX_PCI + 2][32];
    int nw = 0;
    SNP(want[nw++], sizeof(want[0]), "nvidiactl");
    for (int i = 0; i < s->nnv && nw < GM_DOC_MAX_PCI + 1; i++)
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
            gm_doc_ev(c, "/dev/%s: missing", want[w]);
            gm_doc_set(c, GM_DOC_FAIL, nodes_fix);
            continue;
        }
        unsigned emaj = strcmp(want[w], "nvidia-uvm") == 0 ? uvm_major : 195;
        if (d->type != 'c' || (emaj && d->maj != emaj)) {
            gm_doc_ev(c, "/dev/%s: not a character device %u:x", want[w], emaj);
            gm_doc_set(c, GM_DOC_FAIL,
                       "remove the wrong node and recreate it: sudo nvidia-modprobe -c=0 -u");
            continue;
        }
        if (!may_rw(s->o, d)) {
            denied++;
            gm_doc_ev(c, "/dev/%s: not readable and writable by uid %u", want[w],
                      (unsigned)s->o->uid);
        }
        /* contrib/gpumon.service runs the agent as a DynamicUser with no
         * supplementary group: only the "other" bits let it in */
        if (strncmp(want[w], "nvidia-uvm", 10) != 0 && (d->mode & 6) != 6)
            agent_denied++;
    }
    if (agent_denied) {
        gm_doc_ev(
            c,
            "the agent's service user (contrib/gpumon.service: DynamicUser, no groups) cannot "
            "open %d of these nodes",
            agent_denied);
        gm_doc_set(
            c, GM_DOC_WARN,
            "let the agent in: sudo systemctl edit gpumon and add SupplementaryGroups=video "
            "(the nodes' group), or NVreg_DeviceFileMode=0666 in /etc/modprobe.d/nvidia.conf");
    }
    if (denied)
        gm_doc_set(
            c, GM_DOC_FAIL,
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
    if (strcmp(root, "/") == 0 && !gm_doc_exists(o, "gpumon/nvidia_visible_devices")) {
        const char *v = getenv("NVIDIA_VISIBLE_DEVICES");
        SNP(out, len, "%s", v ? v : "");
    } else if (gm_doc_read(o, "gpumon/nvidia_visible_devices", out, len) > 0) {
        gm_doc_chomp(out);
    }
}

void gm_doc_check_container(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_CONTAINER);
    char cg[4096] = "";
    gm_doc_read(s->o, "proc/1/cgroup", cg, sizeof(cg));
    const char *kind = NULL;
    if (gm_doc_exists(s->o, ".dockerenv"))
        kind = "docker (/.dockerenv)";
    else if (gm_doc_exists(s->o, "run/.containerenv"))
        kind = "podman (/run/.containerenv)";
    else if (strstr(cg, "docker") || strstr(cg, "kubepods") || strstr(cg, "containerd") ||
             strstr(cg, "libpod"))
        kind = "a container (proc/1/cgroup)";
    s->in_container = kind != NULL;
    char vis[256];
    gm_doc_visible_devices(s->o, vis, sizeof(vis));
    gm_doc_set(c, GM_DOC_PASS, "");
    if (!kind) {
        gm_doc_ev(c, "not in a container (no /.dockerenv, /run/.containerenv or container cgroup)");
        int docker = gm_doc_exists(s->o, "usr/bin/docker") || gm_doc_exists(s->o, "usr/bin/podman");
        int hook = gm_doc_exists(s->o, "usr/bin/nvidia-container-runtime-hook") ||
                   gm_doc_exists(s->o, "usr/bin/nvidia-ctk");
        if (docker)
            gm_doc_ev(c, "container engine installed; NVIDIA container toolkit: %s",
                      hook ? "installed" : "not installed");
        if (docker && !hook && s->nnv)
            gm_doc_set(
                c, GM_DOC_WARN,
                "containers on this host cannot get GPUs until the toolkit is installed: sudo apt "
                "install nvidia-container-toolkit; sudo nvidia-ctk runtime configure; restart "
                "docker");
        return;
    }
    gm_doc_ev(c, "running inside %s", kind);
    gm_doc_ev(c, "NVIDIA_VISIBLE_DEVICES: %s", vis[0] ? vis : "not set");
    int ctl = 0, fl;
    struct gm_doc_node nodes[MAX_NODES];
    int n = gm_doc_nodes(s->o, nodes, MAX_NODES, &fl);
    for (int i = 0; i < n; i++)
        ctl |= strcmp(nodes[i].name, "nvidiactl") == 0;
    gm_doc_ev(c, "/dev/nvidiactl: %s", ctl ? "present" : "missing");
    if (!s->nnv) {
        c->status = GM_DOC_UNKNOWN;
        gm_doc_ev(c, "not judged: the host has no NVIDIA GPU on the PCI bus to pass in");
        return;
    }
    if (!ctl)
        gm_doc_set(
            c, GM_DOC_FAIL,
            vis[0] ? "NVIDIA_VISIBLE_DEVICES is set but the runtime did not add the devices: run "
                     "the container with --gpus all (docker) or --device nvidia.com/gpu=all "
                     "(podman, CDI), with nvidia-container-toolkit installed on the host"
                   : "the container was started without GPUs: docker run --gpus all ... (needs "
                     "nvidia-container-toolkit on the host)");
}

/* ---------------------------------------------------------- 10. hybrid */

void gm_doc_check_hybrid(struct gm_doc_state *s)
{
    struct gm_doc_check *c = gm_doc_chk(s, GM_DOC_HYBRID);
    char prime[64] = "";
    if (gm_doc_read(s->o, "etc/prime-discrete", prime, sizeof(prime)) > 0)
        gm_doc_chomp(prime);
    if (!s->nnv) {
        gm_doc_unknown_below(c, "no NVIDIA GPU on the PCI bus");
        return;
    }
    gm_doc_set(c, GM_DOC_PASS, "");
    if (!s->other_display && !prime[0]) {
        gm_doc_ev(c, "no other display controller: not hybrid graphics");
        return;
    }
    gm_doc_ev(c, "hybrid graphics: %s",
              s->other_display ? "an integrated GPU besides the NVIDIA one" : "PRIME configured");
    if (prime[0])
        gm_doc_ev(c, "PRIME profile (/etc/prime-discrete): %s",
                  strcmp(prime, "on") == 0    ? "nvidia"
                  : strcmp(prime, "off") == 0 ? "intel (the NVIDIA GPU is off)"
                                              : prime);
    for (int i = 0; i < s->nnv; i++)
        if (s->nv[i].runtime[0])
            gm_doc_ev(c, "%s runtime power: %s", s->nv[i].addr, s->nv[i].runtime);
    if (strcmp(prime, "off") == 0)
        gm_doc_set(
            c, GM_DOC_FAIL,
            "the PRIME profile switches the NVIDIA GPU off: sudo prime-select nvidia (or "
            "on-demand), then reboot; if it still fails, turn off Fast Boot in the firmware");
    for (int i = 0; i < s->nnv; i++)
        if (strcmp(s->nv[i].runtime, "suspended") == 0 && !s->nvidia_loaded)
            gm_doc_set(
                c, GM_DOC_FAIL,
                "the dGPU is powered down and no NVIDIA driver holds it: sudo prime-select nvidia "
                "and reboot (then nvidia-smi -L wakes it)");
}
