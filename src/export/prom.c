/* prom.c -- rendering snapshots as Prometheus text (see prom.h).
 *
 * Output is built family by family: every family's HELP and TYPE come once,
 * followed by all its samples (one per GPU, process, reason...), so the
 * result is valid for the strict parsers (promtool, node_exporter's
 * textfile collector) and for OpenMetrics.  Names, help and units come from
 * the registry (src/core/metrics.c).  Every label value goes through
 * gm_text_prom (core/text.h): a process that names itself with bytes that
 * are not UTF-8 would otherwise make the whole scrape fail to parse.
 */
#include "prom.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cause.h"
#include "../core/err.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/usage_acct.h"
#include "xidtext.h"

#define MAX_GPUS 64
#define NREASONS GM_REASON_COUNT /* in gm_reason_bit() order */

/* ------------------------------------------------------------------ state */

struct gpu_acc {
    char uuid[GM_STR_MAX];
    double throttled_s[NREASONS]; /* seconds each reason was active */
    int64_t last_mono;            /* previous sample of this GPU, 0 = none */
    uint64_t last_reasons;
    int have_reasons;
    /* usage counters (usage_acct.h): the previous sample's groups as
     * series and shares, given the interval that follows it */
    int u_have_prev;
    int64_t u_prev_ms; /* monotonic */
    struct gm_uacct_energy_at u_prev_e;
    struct gm_uacct_gaps u_gaps;
    int u_n;
    int16_t u_series[GM_UACCT_GROUPS]; /* -1: no series left for it */
    double u_share[GM_UACCT_GROUPS];
};

/* GPU time and energy of one (job, user) since the exporter started. */
struct usage_series {
    char job[128], user[33];
    double gpu_s, energy_j;
    int energy_set;
};

/* Xid events of one GPU and Xid since the exporter started. */
struct xid_acc {
    int32_t gpu; /* NVML index */
    uint32_t xid;
    uint64_t n;
    char uuid[GM_STR_MAX]; /* the GPU's UUID at the event, "" when unknown */
};

/* The last Xid of a GPU (DCGM_FI_DEV_XID_ERRORS). */
struct xid_last {
    int32_t gpu; /* NVML index, -1 = unused */
    uint32_t xid;
    char uuid[GM_STR_MAX];
};

struct gm_prom_state {
    struct gpu_acc gpu[MAX_GPUS];
    struct xid_acc xid[GM_PROM_MAX_XID_SERIES];
    unsigned nxid;
    uint64_t xid_dropped; /* events of pairs beyond GM_PROM_MAX_XID_SERIES */
    struct xid_last xid_last[MAX_GPUS];
    unsigned nxid_last;
    struct usage_series us[GM_PROM_MAX_USAGE_SERIES];
    unsigned nus;
    int usage_timed;        /* an interval between two samples was given out */
    uint64_t usage_dropped; /* group intervals of (job, user) pairs beyond the cap */
    uint64_t errors_error, errors_lost, errors_noperm, errors_driver;
    int64_t last_wall_ns;
    int64_t last_duration_ns;
};

struct gm_prom_state *gm_prom_state_new(void)
{
    return gm_xcalloc(1, sizeof(struct gm_prom_state));
}

void gm_prom_state_free(struct gm_prom_state *st)
{
    free(st);
}

struct gm_prom_state *gm_prom_state_clone(const struct gm_prom_state *st)
{
    struct gm_prom_state *c = gm_xmalloc(sizeof(*c));
    memcpy(c, st, sizeof(*c));
    return c;
}

void gm_prom_xid(struct gm_prom_state *st, int gpu, const char *uuid, int64_t xid)
{
    if (gpu < 0 || xid < 0 || xid > UINT32_MAX)
        return;
    if (!uuid)
        uuid = "";
    /* a different GPU at this index (after a reset) starts its counts over */
    unsigned k;
    for (k = 0; k < st->nxid; k++) {
        struct xid_acc *a = &st->xid[k];
        if (a->gpu == gpu && a->xid == (uint32_t)xid) {
            if (uuid[0] && strcmp(a->uuid, uuid) != 0) {
                a->n = 0;
                gm_strlcpy(a->uuid, uuid, sizeof(a->uuid));
            }
            a->n++;
            break;
        }
    }
    if (k == st->nxid) {
        if (st->nxid < GM_PROM_MAX_XID_SERIES) {
            struct xid_acc *a = &st->xid[st->nxid++];
            a->gpu = gpu;
            a->xid = (uint32_t)xid;
            a->n = 1;
            gm_strlcpy(a->uuid, uuid, sizeof(a->uuid));
        } else {
            st->xid_dropped++;
        }
    }
    for (k = 0; k < st->nxid_last; k++)
        if (st->xid_last[k].gpu == gpu)
            break;
    if (k == st->nxid_last) {
        if (st->nxid_last >= MAX_GPUS)
            return;
        st->nxid_last++;
    }
    st->xid_last[k].gpu = gpu;
    st->xid_last[k].xid = (uint32_t)xid;
    gm_strlcpy(st->xid_last[k].uuid, uuid, sizeof(st->xid_last[k].uuid));
}

/* Whether an Xid of GPU index idx with UUID uuid ("" = unknown) is g's. */
static int xid_of(const struct gm_gpu *g, int32_t idx, const char *uuid)
{
    return (int64_t)g->index == idx &&
           (!uuid[0] || !g->str[GM_S_UUID][0] || strcmp(uuid, g->str[GM_S_UUID]) == 0);
}

/* The snapshot's GPU an Xid of GPU index idx with UUID uuid is about, or NULL. */
static const struct gm_gpu *gpu_by_index(const struct gm_snapshot *s, int32_t idx, const char *uuid)
{
    for (uint32_t i = 0; i < s->ngpu; i++)
        if (xid_of(&s->gpus[i], idx, uuid))
            return &s->gpus[i];
    return NULL;
}

/* The series of (job, user), made when there is room; -1 when not. */
static int usage_slot(struct gm_prom_state *st, const char *job, const char *user)
{
    for (unsigned i = 0; i < st->nus; i++)
        if (strcmp(st->us[i].job, job) == 0 && strcmp(st->us[i].user, user) == 0)
            return (int)i;
    if (st->nus == GM_PROM_MAX_USAGE_SERIES)
        return -1;
    struct usage_series *u = &st->us[st->nus];
    memset(u, 0, sizeof(*u));
    gm_strlcpy(u->job, job, sizeof(u->job));
    gm_strlcpy(u->user, user, sizeof(u->user));
    return (int)st->nus++;
}

/* The usage counters of a GPU (usage_acct.h, the rules of the store's
 * usage_1h): the interval since its previous sample to that sample's
 * groups, then this sample's groups for the next one.  g NULL or not
 * answering (lost, the driver down): the interval up to now still goes to
 * the previous groups (by power x time: no counter now), and nobody is
 * known to hold the GPU after this sample. */
static void usage_observe(struct gm_prom_state *st, struct gpu_acc *a, const struct gm_snapshot *s,
                          const struct gm_gpu *g)
{
    int64_t now = s->mono_ns / 1000000;
    int ok = g && g->state == GM_GPU_OK;
    struct gm_uacct_energy_at cur = {0};
    if (ok && gm_v_ok(&g->m[GM_M_ENERGY])) {
        cur.energy_ok = 1;
        cur.energy_j = gm_v_as_double(&g->m[GM_M_ENERGY]);
    }
    if (ok && gm_v_ok(&g->m[GM_M_POWER_DRAW])) {
        cur.power_ok = 1;
        cur.power_w = gm_v_as_double(&g->m[GM_M_POWER_DRAW]);
    }
    if (a->u_have_prev && now <= a->u_prev_ms)
        return; /* the same instant again: nothing to give */
    if (a->u_have_prev) {
        int64_t dt = now - a->u_prev_ms;
        int64_t d = gm_uacct_gap(&a->u_gaps, dt, 0);
        st->usage_timed = 1;
        double e = 0;
        int esrc = gm_uacct_energy(&a->u_prev_e, &cur, d, dt, &e);
        for (int i = 0; i < a->u_n; i++) {
            if (a->u_series[i] < 0) {
                st->usage_dropped++;
                continue;
            }
            struct usage_series *u = &st->us[a->u_series[i]];
            u->gpu_s += (double)d / 1000.0 * a->u_share[i];
            if (esrc != GM_UACCT_ESRC_NONE) {
                u->energy_j += e * a->u_share[i];
                u->energy_set = 1;
            }
        }
    }
    struct gm_uacct_group ug[GM_UACCT_GROUPS];
    int n = 0;
    if (ok)
        gm_uacct_groups(s, g, ug, &n);
    a->u_n = n;
    for (int i = 0; i < n; i++) {
        a->u_series[i] = (int16_t)usage_slot(st, ug[i].job, ug[i].user);
        a->u_share[i] = gm_uacct_share(ug, n, i);
    }
    a->u_have_prev = 1;
    a->u_prev_ms = now;
    a->u_prev_e = cur;
}

void gm_prom_observe(struct gm_prom_state *st, const struct gm_snapshot *s)
{
    st->last_wall_ns = s->wall_ns;
    st->last_duration_ns = s->duration_ns;
    if (s->driver != GM_DRV_OK) {
        st->errors_driver++;
        for (int i = 0; i < MAX_GPUS; i++)
            if (st->gpu[i].u_have_prev)
                usage_observe(st, &st->gpu[i], s, NULL);
        return;
    }
    for (uint32_t i = 0; i < s->ngpu && i < MAX_GPUS; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        struct gpu_acc *a = &st->gpu[i];
        /* a different GPU at this index (after a reset or reconfiguration) starts over */
        if (g->str[GM_S_UUID][0] && strcmp(a->uuid, g->str[GM_S_UUID]) != 0) {
            memset(a, 0, sizeof(*a));
            gm_strlcpy(a->uuid, g->str[GM_S_UUID], sizeof(a->uuid));
        }
        if (g->state != GM_GPU_OK) {
            if (g->state == GM_GPU_LOST)
                st->errors_lost++;
            else if (g->state == GM_GPU_NOPERM)
                st->errors_noperm++;
            else
                st->errors_error++;
            a->last_mono = 0; /* no credit for time spent lost */
            usage_observe(st, a, s, NULL);
            continue;
        }
        for (int id = 0; id < GM_M__GPU_END; id++) {
            uint8_t stt = g->m[id].status;
            if (stt == GM_VS_ERROR)
                st->errors_error++;
            else if (stt == GM_VS_NOPERM)
                st->errors_noperm++;
        }
        const struct gm_value *r = &g->m[GM_M_CER_ACTIVE];
        /* time between samples is credited to the reasons active at the
         * earlier sample: that is what was throttling meanwhile */
        if (a->last_mono && a->have_reasons && s->mono_ns > a->last_mono) {
            double dt = (s->mono_ns - a->last_mono) / 1e9;
            for (int k = 0; k < NREASONS; k++)
                if (a->last_reasons & gm_reason_bit(k))
                    a->throttled_s[k] += dt;
        }
        a->have_reasons = gm_v_ok(r);
        a->last_reasons = a->have_reasons ? r->v.u : 0;
        a->last_mono = s->mono_ns;
        usage_observe(st, a, s, g);
    }
}

/* --------------------------------------------------------------- helpers */

void gm_prom_escape(struct gm_buf *b, const char *v)
{
    gm_text_prom(b, v, strlen(v));
}

static void help_escape(struct gm_buf *b, const char *v)
{
    for (const char *p = v; *p; p++) {
        if (*p == '\\')
            gm_buf_puts(b, "\\\\");
        else if (*p == '\n')
            gm_buf_puts(b, "\\n");
        else
            gm_buf_putc(b, *p);
    }
}

/* Shortest decimal that reads back as v; integers without a point. */
static void put_num(struct gm_buf *b, double v)
{
    if (isnan(v)) {
        gm_buf_puts(b, "NaN");
        return;
    }
    if (isinf(v)) {
        gm_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        /* integers by hand: most values are, and printf is the cost here */
        char digits[24];
        int n = 0;
        int neg = v < 0;
        uint64_t u = (uint64_t)(neg ? -v : v);
        do {
            digits[n++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        gm_buf_reserve(b, (size_t)n + 1);
        if (neg)
            b->p[b->len++] = '-';
        while (n)
            b->p[b->len++] = digits[--n];
        b->p[b->len] = '\0';
        return;
    }
    char tmp[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    gm_buf_puts(b, tmp);
}

enum ftype { F_GAUGE, F_COUNTER };

struct writer {
    struct gm_buf *b;
    const struct gm_prom_opts *o;
    const struct gm_snapshot *s;
    const char *family; /* current family name (sample base name) */
    int counter;
    int total;              /* counter samples end in _total (all but dcgm-exporter's own names) */
    struct gm_buf *gpu_lbl; /* per GPU position: its label block, built once per rendering */
};

/* Starts a family.  name is the sample name without _total; counters get
 * _total on their samples (and on the TYPE line in text 0.0.4).
 *
 * dcgm-exporter's counters have no _total suffix, and gpumon keeps its names
 * as they are so that existing queries work.  Text 0.0.4 types them
 * "counter", as dcgm-exporter does.  OpenMetrics cannot: a counter's samples
 * must end in _total there, and a parser rejects the scrape otherwise.  They
 * are typed "unknown" there, which claims nothing; "gauge" would tell
 * Prometheus (and anyone reading its metadata) that the value may go down. */
static void family(struct writer *w, const char *name, enum ftype t, const char *help)
{
    w->family = name;
    w->counter = t == F_COUNTER;
    w->total = w->counter && strncmp(name, "DCGM_", 5) != 0;
    int total = w->total;
    if (w->o->openmetrics) {
        gm_buf_printf(w->b, "# TYPE %s %s\n", name,
                      total        ? "counter"
                      : w->counter ? "unknown"
                                   : "gauge");
        gm_buf_printf(w->b, "# HELP %s ", name);
    } else {
        gm_buf_printf(w->b, "# HELP %s%s ", name, total ? "_total" : "");
    }
    help_escape(w->b, help);
    gm_buf_putc(w->b, '\n');
    if (!w->o->openmetrics)
        gm_buf_printf(w->b, "# TYPE %s%s %s\n", name, total ? "_total" : "",
                      w->counter ? "counter" : "gauge");
}

/* Starts a sample line: "name{" -- labels follow via label(), then value(). */
static void sample_begin(struct writer *w)
{
    gm_buf_puts(w->b, w->family);
    if (w->total)
        gm_buf_puts(w->b, "_total");
    gm_buf_putc(w->b, '{');
}

static void label(struct writer *w, int *first, const char *k, const char *v)
{
    if (!v || !*v)
        return; /* an empty label value is the same as an absent label */
    gm_buf_printf(w->b, "%s%s=\"", *first ? "" : ",", k);
    gm_text_prom(w->b, v, strlen(v)); /* names, VBIOS, users: text from outside */
    gm_buf_putc(w->b, '"');
    *first = 0;
}

static void sample_end(struct writer *w, double v)
{
    /* "{}" is valid; strip it for a tidier line */
    if (w->b->len >= 1 && w->b->p[w->b->len - 1] == '{') {
        w->b->len--;
        w->b->p[w->b->len] = '\0';
        gm_buf_putc(w->b, ' ');
    } else {
        gm_buf_puts(w->b, "} ");
    }
    put_num(w->b, v);
    gm_buf_putc(w->b, '\n');
}

static void gpu_labels_build(struct writer *w, int *first, const struct gm_gpu *g,
                             const struct gm_mig *mg);

/* dcgm-exporter's label-type fields gpumon can fill, in the order its
 * template writes them (a Go map: sorted by name).  id: the registry's
 * string metric, or -1 the driver version, -2 the NVML version. */
static const struct {
    const char *name;
    int id;
} label_fields[] = {
    {"DCGM_FI_DEV_BRAND", GM_M_BRAND},
    {"DCGM_FI_DEV_ECC_INFOROM_VER", GM_M_INFOROM_ECC},
    {"DCGM_FI_DEV_INFOROM_IMAGE_VER", GM_M_INFOROM_IMG},
    {"DCGM_FI_DEV_OEM_INFOROM_VER", GM_M_INFOROM_OEM},
    {"DCGM_FI_DEV_POWER_INFOROM_VER", GM_M_INFOROM_PWR},
    {"DCGM_FI_DEV_SERIAL", GM_M_SERIAL},
    {"DCGM_FI_DEV_VBIOS_VERSION", GM_M_VBIOS},
    {"DCGM_FI_DRIVER_VERSION", -1},
    {"DCGM_FI_NVML_VERSION", -2},
};
#define N_LABEL_FIELDS (sizeof(label_fields) / sizeof(label_fields[0]))
#define LABELS_GIVEN (1u << 31) /* the mask came from a list, even an empty one */

int gm_prom_label_fields(const char *list, unsigned *mask, char *why, size_t wlen)
{
    unsigned m = LABELS_GIVEN;
    for (const char *p = list; *p;) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t");
        if (!n)
            break;
        size_t k = 0;
        while (k < N_LABEL_FIELDS &&
               (strlen(label_fields[k].name) != n || strncmp(label_fields[k].name, p, n) != 0))
            k++;
        if (k == N_LABEL_FIELDS) {
            snprintf(why, wlen,
                     "unknown field \"%.*s\" (known: DCGM_FI_DRIVER_VERSION, "
                     "DCGM_FI_NVML_VERSION, DCGM_FI_DEV_BRAND, DCGM_FI_DEV_SERIAL, "
                     "DCGM_FI_DEV_VBIOS_VERSION, DCGM_FI_DEV_{OEM,ECC,POWER}_INFOROM_VER, "
                     "DCGM_FI_DEV_INFOROM_IMAGE_VER)",
                     (int)(n > 64 ? 64 : n), p);
            return GM_E_INVAL;
        }
        m |= 1u << k;
        p += n;
    }
    *mask = m;
    return 0;
}

/* DCGM's text for a brand (DcgmCacheManager.cpp, case DCGM_FI_DEV_BRAND)
 * from nvidia-smi -q's Product Brand, which the sample holds: the same but
 * for three names; a brand past gpumon's table (its number) is "Unknown". */
static const char *dcgm_brand(const char *smi)
{
    static const struct {
        const char *smi, *dcgm;
    } differ[] = {
        {"GRID", "Grid"},
        {"NVIDIA Cloud Gaming", "NVIDIA vGaming"},
        {"TITAN RTX", "Titan RTX"},
    };
    for (size_t k = 0; k < sizeof(differ) / sizeof(differ[0]); k++)
        if (!strcmp(smi, differ[k].smi))
            return differ[k].dcgm;
    return smi[0] >= '0' && smi[0] <= '9' ? "Unknown" : smi;
}

/* The label-type fields asked for, those GPU g has (dcgm-exporter leaves a
 * blank field out: toString's skip). */
static void dcgm_label_fields(struct writer *w, int *first, const struct gm_gpu *g)
{
    unsigned m = w->o->dcgm_labels;
    for (size_t k = 0; !(m & LABELS_GIVEN) && k < N_LABEL_FIELDS; k++)
        if (label_fields[k].id == -1) /* dcgm-exporter's default counters: the driver's */
            m = 1u << k;
    for (size_t k = 0; k < N_LABEL_FIELDS; k++) {
        if (!(m & (1u << k)))
            continue;
        int id = label_fields[k].id;
        if (id == -1) {
            if (gm_v_ok(&w->s->driver_version))
                label(w, first, label_fields[k].name, w->s->driver_version_s);
        } else if (id == -2) {
            if (gm_v_ok(&w->s->nvml_version))
                label(w, first, label_fields[k].name, w->s->nvml_version_s);
        } else if (gm_v_ok(&g->m[id])) {
            const char *v = g->str[gm_metrics[id].sslot];
            label(w, first, label_fields[k].name, id == GM_M_BRAND ? dcgm_brand(v) : v);
        }
    }
}

/* dcgm-exporter 4.x labels every series with the host (Hostname, up to its
 * 4.8 releases) unless --no-hostname; --hostname-label asks for it too. */
static int dcgm_hostname(const struct writer *w)
{
    return !w->o->no_hostname || w->o->hostname_label;
}

/* The identifying labels of a GPU, in either naming scheme; built once per
 * rendering and copied after that. */
static void gpu_labels(struct writer *w, int *first, const struct gm_gpu *g)
{
    size_t pos = (size_t)(g - w->s->gpus);
    if (w->gpu_lbl && pos < w->s->ngpu && *first) {
        struct gm_buf *c = &w->gpu_lbl[pos];
        if (!c->len) {
            struct gm_buf *saved = w->b;
            int f = 1;
            w->b = c;
            gpu_labels_build(w, &f, g, NULL);
            w->b = saved;
        }
        gm_buf_put(w->b, c->p, c->len);
        *first = c->len == 0;
        return;
    }
    gpu_labels_build(w, first, g, NULL);
}

/* mg: a MIG device of g, whose GPU_I_PROFILE and GPU_I_ID go where
 * dcgm-exporter puts them (after modelName); NULL for the whole GPU. */
static void gpu_labels_build(struct writer *w, int *first, const struct gm_gpu *g,
                             const struct gm_mig *mg)
{
    char idx[16];
    snprintf(idx, sizeof(idx), "%u", g->index);
    label(w, first, "gpu", idx);
    if (w->o->names == GM_PROM_DCGM) {
        label(w, first, "UUID", g->str[GM_S_UUID]);
        label(w, first, "pci_bus_id", g->str[GM_S_PCI_BUS_ID]);
        char dev[24] = "";
        if (gm_v_ok(&g->m[GM_M_MINOR]))
            snprintf(dev, sizeof(dev), "nvidia%llu", (unsigned long long)g->m[GM_M_MINOR].v.u);
        label(w, first, "device", dev);
        label(w, first, "modelName", g->str[GM_S_NAME]);
        if (mg) {
            char gi[16] = "";
            if (mg->gpu_instance_id != GM_NO_INSTANCE)
                snprintf(gi, sizeof(gi), "%u", mg->gpu_instance_id);
            label(w, first, "GPU_I_PROFILE", mg->profile);
            label(w, first, "GPU_I_ID", gi);
        }
        if (dcgm_hostname(w))
            label(w, first, "Hostname", w->s->hostname);
        dcgm_label_fields(w, first, g);
    } else {
        label(w, first, "uuid", g->str[GM_S_UUID]);
        label(w, first, "name", g->str[GM_S_NAME]);
        label(w, first, "pci_bus_id", g->str[GM_S_PCI_BUS_ID]);
        if (w->o->hostname_label)
            label(w, first, "hostname", w->s->hostname);
    }
}

static void host_label(struct writer *w, int *first)
{
    if (w->o->names == GM_PROM_DCGM ? dcgm_hostname(w) : w->o->hostname_label)
        label(w, first, w->o->names == GM_PROM_DCGM ? "Hostname" : "hostname", w->s->hostname);
}

static int gpu_live(const struct gm_gpu *g)
{
    return g->state == GM_GPU_OK;
}

/* The labels of a MIG device mg of GPU g: under dcgm-exporter's names its
 * GPU's with GPU_I_PROFILE and GPU_I_ID (built each time: only MIG series
 * need them); under ours the GPU's and mig_uuid, gpu_instance_id,
 * compute_instance_id, mig_profile. */
static void mig_labels(struct writer *w, int *first, const struct gm_gpu *g,
                       const struct gm_mig *mg)
{
    if (w->o->names == GM_PROM_DCGM) {
        gpu_labels_build(w, first, g, mg);
        return;
    }
    char gi[16] = "", ci[16] = "";
    if (mg->gpu_instance_id != GM_NO_INSTANCE)
        snprintf(gi, sizeof(gi), "%u", mg->gpu_instance_id);
    if (mg->compute_instance_id != GM_NO_INSTANCE)
        snprintf(ci, sizeof(ci), "%u", mg->compute_instance_id);
    gpu_labels(w, first, g);
    label(w, first, "mig_uuid", mg->uuid);
    label(w, first, "gpu_instance_id", gi);
    label(w, first, "compute_instance_id", ci);
    label(w, first, "mig_profile", mg->profile);
}

/* The value of metric id for a MIG device: its GPM values (the only
 * registry metrics read per GPU instance), else NULL. */
static const struct gm_value *mig_value(const struct gm_mig *mg, int id)
{
    if (id < GM_GPM_FIRST || id >= GM_GPM_FIRST + GM_GPM_COUNT)
        return NULL;
    return &mg->gpm[id - GM_GPM_FIRST];
}

/* Whether metric id has a value on some live GPU or one of its MIG devices. */
static int any_value(const struct gm_snapshot *s, int id)
{
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!gpu_live(g))
            continue;
        if (gm_v_ok(&g->m[id]))
            return 1;
        for (uint32_t k = 0; k < g->nmig; k++) {
            const struct gm_value *v = mig_value(&g->mig[k], id);
            if (v && gm_v_ok(v))
                return 1;
        }
    }
    return 0;
}

/* The series of metric id for the MIG devices of GPU g that have a value,
 * each value scaled by mul (floored when floor_it). */
/* hpc_job: NULL for none (dcgm-exporter's label of a job-mapping
 * directory's job, after all the others, as its hpcMapper adds it). */
static void mig_samples(struct writer *w, const struct gm_gpu *g, int id, double mul, int floor_it,
                        const char *hpc_job)
{
    if (id < GM_GPM_FIRST || id >= GM_GPM_FIRST + GM_GPM_COUNT)
        return;
    for (uint32_t k = 0; k < g->nmig; k++) {
        const struct gm_value *v = mig_value(&g->mig[k], id);
        if (!v || !gm_v_ok(v))
            continue;
        int first = 1;
        sample_begin(w);
        mig_labels(w, &first, g, &g->mig[k]);
        label(w, &first, "hpc_job", hpc_job);
        double x = gm_v_as_double(v) * mul;
        sample_end(w, floor_it ? floor(x) : x);
    }
}

/* ------------------------------------------------------------ native set */

static void native_metric_families(struct writer *w)
{
    const struct gm_snapshot *s = w->s;
    char name[128], help[256];
    for (int id = 0; id < GM_M__GPU_END; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if (!m->prom || m->bit || m->kind == GM_K_INFO || m->scope != GM_SC_GPU)
            continue;
        if (!any_value(s, id))
            continue;
        const char *suf = gm_units[m->unit].prom;
        snprintf(name, sizeof(name), "gpumon_%s%s%s", m->prom, *suf ? "_" : "", suf);
        snprintf(help, sizeof(help), "%s", m->prom_help);
        family(w, name, m->kind == GM_K_COUNTER ? F_COUNTER : F_GAUGE, help);
        for (uint32_t i = 0; i < s->ngpu; i++) {
            const struct gm_gpu *g = &s->gpus[i];
            if (!gpu_live(g))
                continue;
            if (gm_v_ok(&g->m[id])) {
                int first = 1;
                sample_begin(w);
                gpu_labels(w, &first, g);
                sample_end(w, gm_v_as_double(&g->m[id]) * gm_units[m->unit].prom_mul);
            }
            mig_samples(w, g, id, gm_units[m->unit].prom_mul, 0, NULL);
        }
    }
}

static void native_reasons(struct writer *w, const struct gm_prom_state *st)
{
    const struct gm_snapshot *s = w->s;
    int any = 0;
    for (uint32_t i = 0; i < s->ngpu; i++)
        any |= gpu_live(&s->gpus[i]) && gm_v_ok(&s->gpus[i].m[GM_M_CER_ACTIVE]);
    if (!any)
        return;
    family(w, "gpumon_clock_event_reason_active", F_GAUGE,
           "Whether a clock event (throttle) reason is active (1) or not (0), by reason.");
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!gpu_live(g) || !gm_v_ok(&g->m[GM_M_CER_ACTIVE]))
            continue;
        for (int k = 0; k < NREASONS; k++) {
            int first = 1;
            sample_begin(w);
            gpu_labels(w, &first, g);
            label(w, &first, "reason", gm_reason_name(gm_reason_bit(k)));
            sample_end(w, (g->m[GM_M_CER_ACTIVE].v.u & gm_reason_bit(k)) ? 1 : 0);
        }
    }
    family(w, "gpumon_clock_event_reason_seconds", F_COUNTER,
           "Seconds the clocks were held down by each reason, measured by the exporter "
           "from its samples since it started.");
    for (uint32_t i = 0; i < s->ngpu && i < MAX_GPUS; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!gpu_live(g) || !gm_v_ok(&g->m[GM_M_CER_ACTIVE]))
            continue;
        for (int k = 0; k < NREASONS; k++) {
            int first = 1;
            sample_begin(w);
            gpu_labels(w, &first, g);
            label(w, &first, "reason", gm_reason_name(gm_reason_bit(k)));
            sample_end(w, st->gpu[i].throttled_s[k]);
        }
    }
}

/* The agent's running diagnosis (docs/diagnose.md): for each GPU it
 * diagnoses, every cause with 1 while it is found and 0 otherwise, so that
 * a query sees the cause's series before it first fires. */
static void diagnosis(struct writer *w)
{
    const struct gm_snapshot *s = w->s;
    int any = 0;
    for (uint32_t i = 0; i < s->ngpu; i++)
        any |= s->gpus[i].diag_known;
    if (!any)
        return;
    family(w, "gpumon_diagnosis_active", F_GAUGE,
           "Whether the agent's diagnosis finds the cause on the GPU now (1) or not (0); "
           "gpumon diagnose explains each.");
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!g->diag_known)
            continue;
        for (int c = 0; c < GM_CAUSE__COUNT; c++) {
            int first = 1;
            sample_begin(w);
            gpu_labels(w, &first, g);
            label(w, &first, "cause", gm_cause_name(c));
            sample_end(w, (g->diag >> c) & 1u);
        }
    }
}

/* gpumon_value_age_seconds: how old the values of each slow read group
 * are (the agent reads them every few seconds and reuses them between:
 * snapshot.h's slow_ns), per GPU and group, for the groups of which the
 * GPU has a real value; 0 when read in this sample.  Absent when every
 * value is read afresh (serve --print). */
static void value_ages(struct writer *w)
{
    const struct gm_snapshot *s = w->s;
    if (s->slow_ns <= 0)
        return;
    family(w, "gpumon_value_age_seconds", F_GAUGE,
           "How old the values of a slow read group (settings, ECC, retired pages, row "
           "remapping, PCIe link, NVLink states and errors) are: read every few seconds and "
           "reused between; 0 when read in this sample.");
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!gpu_live(g))
            continue;
        for (int rg = 0; rg < GM_RG__COUNT; rg++) {
            if (gm_read_groups[rg].slow == GM_RG_FAST)
                continue;
            int any = 0;
            uint32_t age = 0;
            for (int id = 0; id < GM_M__GPU_END; id++)
                if (gm_metrics[id].rg == rg && gm_metrics[id].scope == GM_SC_GPU &&
                    gm_v_ok(&g->m[id])) {
                    any = 1;
                    age = g->m[id].age_ms > age ? g->m[id].age_ms : age;
                }
            if (!any)
                continue;
            int first = 1;
            sample_begin(w);
            gpu_labels(w, &first, g);
            label(w, &first, "group", gm_read_groups[rg].name);
            sample_end(w, age / 1e3);
        }
    }
}

static void native_info(struct writer *w)
{
    const struct gm_snapshot *s = w->s;
    family(w, "gpumon_gpu_up", F_GAUGE,
           "Whether the GPU answers (1) or is lost, not permitted or failing (0); "
           "its other series are absent while it is 0.");
    for (uint32_t i = 0; i < s->ngpu; i++) {
        int first = 1;
        sample_begin(w);
        gpu_labels(w, &first, &s->gpus[i]);
        sample_end(w, gpu_live(&s->gpus[i]));
    }
    family(w, "gpumon_gpu_info", F_GAUGE,
           "Static facts about a GPU and its driver, as labels; the value is always 1.");
    char cuda[32] = "", cc[32] = "";
    if (gm_v_ok(&s->cuda_version))
        snprintf(cuda, sizeof(cuda), "%llu.%llu", (unsigned long long)(s->cuda_version.v.u / 1000),
                 (unsigned long long)((s->cuda_version.v.u % 1000) / 10));
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!g->str[GM_S_UUID][0])
            continue;
        int first = 1;
        sample_begin(w);
        gpu_labels(w, &first, g);
        label(w, &first, "driver_version", gm_v_ok(&s->driver_version) ? s->driver_version_s : "");
        label(w, &first, "cuda_version", cuda);
        label(w, &first, "nvml_version", gm_v_ok(&s->nvml_version) ? s->nvml_version_s : "");
        label(w, &first, "serial", g->str[GM_S_SERIAL]);
        label(w, &first, "vbios_version", g->str[GM_S_VBIOS]);
        cc[0] = '\0';
        if (gm_v_ok(&g->m[GM_M_COMPUTE_CAP]))
            snprintf(cc, sizeof(cc), "%llu.%llu",
                     (unsigned long long)(g->m[GM_M_COMPUTE_CAP].v.u / 10),
                     (unsigned long long)(g->m[GM_M_COMPUTE_CAP].v.u % 10));
        label(w, &first, "compute_cap", cc);
        sample_end(w, 1);
    }
}

/* Xid events by GPU and Xid, for the GPUs of this snapshot (also a lost
 * one: Xid 79 is how a GPU falls off the bus). */
static void native_xid(struct writer *w, const struct gm_prom_state *st)
{
    int started = 0;
    for (unsigned k = 0; k < st->nxid; k++) {
        const struct xid_acc *a = &st->xid[k];
        const struct gm_gpu *g = gpu_by_index(w->s, a->gpu, a->uuid);
        if (!g || !a->n)
            continue;
        if (!started) {
            family(w, "gpumon_xid_errors", F_COUNTER,
                   "NVML Xid events (driver error reports) since the exporter started, by GPU "
                   "and Xid.");
            started = 1;
        }
        char xid[16];
        snprintf(xid, sizeof(xid), "%u", a->xid);
        int first = 1;
        sample_begin(w);
        gpu_labels(w, &first, g);
        label(w, &first, "xid", xid);
        sample_end(w, (double)a->n);
    }
}

static void native_mig(struct writer *w)
{
    const struct gm_snapshot *s = w->s;
    static const struct {
        const char *name;
        const char *help;
        size_t off;
    } fams[] = {
        {"gpumon_mig_memory_total_bytes", "Memory of a MIG device.",
         offsetof(struct gm_mig, mem_total)},
        {"gpumon_mig_memory_used_bytes", "Memory in use on a MIG device.",
         offsetof(struct gm_mig, mem_used)},
        {"gpumon_mig_memory_free_bytes", "Free memory on a MIG device.",
         offsetof(struct gm_mig, mem_free)},
    };
    for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
        int any = 0;
        for (uint32_t i = 0; i < s->ngpu; i++)
            for (uint32_t k = 0; k < s->gpus[i].nmig; k++)
                any |= gm_v_ok(
                    (const struct gm_value *)((const char *)&s->gpus[i].mig[k] + fams[f].off));
        if (!any)
            continue;
        family(w, fams[f].name, F_GAUGE, fams[f].help);
        for (uint32_t i = 0; i < s->ngpu; i++) {
            const struct gm_gpu *g = &s->gpus[i];
            if (!gpu_live(g))
                continue;
            for (uint32_t k = 0; k < g->nmig; k++) {
                const struct gm_mig *mg = &g->mig[k];
                const struct gm_value *v =
                    (const struct gm_value *)((const char *)mg + fams[f].off);
                if (!gm_v_ok(v))
                    continue;
                int first = 1;
                sample_begin(w);
                mig_labels(w, &first, g, mg);
                sample_end(w, (double)v->v.u);
            }
        }
    }
}

/* Who a process belongs to (docs/jobs.md): job_id ("slurm:4242",
 * "pod:<uid>", "container:<id12>", "unit:<unit>", "user:<uid>"), and the parts that are
 * known.  Never `job` (Prometheus's own target label) nor dcgm-exporter's
 * `pod`/`container`, which are names, where these are ids. */
static void job_labels(struct writer *w, int *first, const struct gm_attrib *a)
{
    char job[128], cid[16];
    label(w, first, "job_id", gm_attrib_job(a, job, sizeof job));
    label(w, first, "pod_uid", a->pod_uid);
    snprintf(cid, sizeof cid, "%.12s", a->container_id);
    label(w, first, "container_id", cid);
    label(w, first, "slurm_job", a->slurm_job);
}

static void processes(struct writer *w, struct gm_prom_self *counts)
{
    const struct gm_snapshot *s = w->s;
    unsigned cap = w->o->max_process_series ? w->o->max_process_series : 256;
    static const struct {
        int id;
        const char *native;
        const char *dcgm;
        const char *help;
    } fams[] = {
        {GM_P_USED_MEMORY, "gpumon_process_memory_used_bytes", "DCGM_FI_DEV_FB_USED",
         "GPU memory used by a process."},
        {GM_P_SM_UTIL, "gpumon_process_sm_utilization_ratio", "DCGM_FI_DEV_GPU_UTIL",
         "Fraction of the GPU's SM time used by a process (from NVML's process samples)."},
    };
    for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
        if (w->o->names == GM_PROM_DCGM)
            continue; /* dcgm-exporter has no per-process series outside Kubernetes */
        unsigned n = 0;
        int started = 0;
        for (uint32_t i = 0; i < s->nproc; i++) {
            const struct gm_proc *p = &s->procs[i];
            const struct gm_value *v = f == 0 ? &p->used_memory : &p->sm_util;
            if (p->gpu >= s->ngpu || !gpu_live(&s->gpus[p->gpu]) || !gm_v_ok(v))
                continue;
            if (n++ >= cap) {
                if (f == 0)
                    counts->process_dropped++;
                continue;
            }
            if (!started) {
                family(w, fams[f].native, F_GAUGE, fams[f].help);
                started = 1;
            }
            char pid[16];
            snprintf(pid, sizeof(pid), "%u", p->pid);
            const char *name = p->comm[0] ? p->comm : p->name;
            const char *base = strrchr(name, '/');
            int first = 1;
            sample_begin(w);
            gpu_labels(w, &first, &s->gpus[p->gpu]);
            label(w, &first, "pid", pid);
            label(w, &first, "process", base && base[1] ? base + 1 : name);
            label(w, &first, "user", p->user);
            job_labels(w, &first, &p->attrib);
            sample_end(w, gm_v_as_double(v) * gm_units[gm_metrics[fams[f].id].unit].prom_mul);
        }
    }
}

/* gpumon_gpu_job_info: 1 for each job on each GPU (a Slurm job, a pod, a
 * container, a systemd unit: core/attrib.h), so that any GPU series can be
 * joined to who runs on it; source="cgroup" for the jobs of its processes,
 * "job-mapping" for those the job-mapping directory names (a job both
 * name is shown once, from its processes); at most the process series cap
 * in all. */
/* Whether a process of GPU g before position upto of the process table
 * has job as its job. */
static int gpu_has_job(const struct gm_snapshot *s, const struct gm_gpu *g, uint32_t upto,
                       const char *job)
{
    char seen[128];
    for (uint32_t q = g->proc_first; q < upto && q < s->nproc; q++)
        if (strcmp(gm_attrib_job(&s->procs[q].attrib, seen, sizeof seen), job) == 0)
            return 1;
    return 0;
}

/* Starts a gpumon_gpu_job_info sample of GPU g (the family first, once). */
static void job_info_begin(struct writer *w, int *started, const struct gm_gpu *g, int *first)
{
    static const char help[] =
        "1 for each job on a GPU: a Slurm job, a Kubernetes pod, a container or a systemd unit "
        "(source: cgroup, from its processes; job-mapping, from the job-mapping directory).";
    if (!*started) {
        family(w, "gpumon_gpu_job_info", F_GAUGE, help);
        *started = 1;
    }
    *first = 1;
    sample_begin(w);
    gpu_labels(w, first, g);
}

static void gpu_jobs(struct writer *w)
{
    const struct gm_snapshot *s = w->s;
    unsigned cap = w->o->max_process_series ? w->o->max_process_series : 256, n = 0;
    int started = 0, first;
    for (uint32_t gi = 0; gi < s->ngpu; gi++) {
        const struct gm_gpu *g = &s->gpus[gi];
        if (!gpu_live(g))
            continue;
        for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc && k < s->nproc; k++) {
            const struct gm_proc *p = &s->procs[k];
            char job[128];
            if (!gm_attrib_job(&p->attrib, job, sizeof job)[0])
                continue;
            /* the first process of each job on this GPU speaks for it */
            if (gpu_has_job(s, g, k, job) || n++ >= cap)
                continue;
            job_info_begin(w, &started, g, &first);
            label(w, &first, "user", p->user);
            job_labels(w, &first, &p->attrib);
            label(w, &first, "source", "cgroup");
            sample_end(w, 1);
        }
        for (int j = 0; g->hpc_known && j < g->nhpc_jobs; j++) {
            char job[128];
            gm_hpc_job_key(g->hpc_jobs[j], job, sizeof job);
            if (gpu_has_job(s, g, g->proc_first + g->nproc, job) || n++ >= cap)
                continue;
            job_info_begin(w, &started, g, &first);
            label(w, &first, "job_id", job);
            label(w, &first, "slurm_job", strncmp(job, "slurm:", 6) == 0 ? job + 6 : NULL);
            label(w, &first, "source", "job-mapping");
            sample_end(w, 1);
        }
    }
}

/* -------------------------------------------------------------- dcgm set */

/* dcgm-exporter with --hpc-job-mapping-dir repeats every series of a GPU
 * that the directory names jobs for, once per job, with an hpc_job label
 * (internal/pkg/transformation/hpc.go).  The same here, with the repeats
 * (one per job beyond the first) under the process series cap: the GPUs
 * past the cap keep one series without hpc_job.  Fills njobs[pos]. */
static void dcgm_hpc_jobs(struct writer *w, uint8_t *njobs)
{
    const struct gm_snapshot *s = w->s;
    unsigned cap = w->o->max_process_series ? w->o->max_process_series : 256, used = 0;
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        njobs[i] = 0;
        if (!g->hpc_known || !g->nhpc_jobs || used + g->nhpc_jobs - 1u > cap)
            continue;
        njobs[i] = g->nhpc_jobs;
        used += g->nhpc_jobs - 1u;
    }
}

/* dcgm-exporter's other name for a field, exported beside the registry's:
 * DCGM >= 3.3 and dcgm-exporter 4.x call field 112 CLOCKS_EVENT_REASONS;
 * dashboards and rules written before still query CLOCK_THROTTLE_REASONS,
 * so both are served (docs/exporter.md). */
static const struct {
    const char *name, *also;
} dcgm_aliases[] = {
    {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"},
};

/* Whether metric id is one DCGM reads per GPU instance (framebuffer and BAR1
 * memory on the instance's NVML device, DcgmCacheManager.cpp; profiling):
 * on a MIG GPU its series carry the instance's value, or none.  Every other
 * field of a GPU instance is its GPU's (DCGM answers a GPU-scoped field of a
 * GPU_I entity with the GPU's value: power and clocks repeat per instance,
 * dcgm-exporter issues #257 and #353). */
static int dcgm_per_instance(int id)
{
    return id == GM_M_MEM_TOTAL || id == GM_M_MEM_RESERVED || id == GM_M_MEM_USED ||
           id == GM_M_MEM_FREE || id == GM_M_BAR1_TOTAL || id == GM_M_BAR1_USED ||
           (id >= GM_GPM_FIRST && id < GM_GPM_FIRST + GM_GPM_COUNT);
}

/* The value of per-instance metric id for MIG device mg; NULL when it has
 * none. */
static const struct gm_value *dcgm_mig_value(const struct gm_mig *mg, int id)
{
    switch (id) {
    case GM_M_MEM_TOTAL:
        return &mg->mem_total;
    case GM_M_MEM_USED:
        return &mg->mem_used;
    case GM_M_MEM_FREE:
        return &mg->mem_free;
    case GM_M_MEM_RESERVED:
        return &mg->mem_reserved;
    case GM_M_BAR1_TOTAL:
        return &mg->bar1_total;
    case GM_M_BAR1_USED:
        return &mg->bar1_used;
    default:
        return mig_value(mg, id);
    }
}

/* Whether MIG device k of g is the first of its GPU instance: DCGM's
 * entities are GPU instances, gpumon's MIG devices are compute instances,
 * and a GPU instance with two compute instances is still one entity. */
static int gi_first(const struct gm_gpu *g, uint32_t k)
{
    uint32_t gi = g->mig[k].gpu_instance_id;
    if (gi == GM_NO_INSTANCE)
        return 1;
    for (uint32_t j = 0; j < k; j++)
        if (g->mig[j].gpu_instance_id == gi)
            return 0;
    return 1;
}

/* The dcgm-exporter entities of a GPU (its default "-d f", flex): the GPU
 * itself when it has no MIG devices, else each of its GPU instances and not
 * the GPU (devicemonitoring.monitorAllGPUInstances).  n_out: how many;
 * mig_out[i]: the MIG device that stands for entity i, NULL for the GPU. */
static uint32_t dcgm_entities(const struct gm_gpu *g, const struct gm_mig **mig_out)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < g->nmig; k++)
        if (gi_first(g, k))
            mig_out[n++] = &g->mig[k];
    if (!n)
        mig_out[n++] = NULL;
    return n;
}

/* The value entity mg (NULL: the GPU) of g has for metric id, or NULL. */
static const struct gm_value *dcgm_value(const struct gm_gpu *g, const struct gm_mig *mg, int id)
{
    const struct gm_value *v = mg && dcgm_per_instance(id) ? dcgm_mig_value(mg, id) : &g->m[id];
    return v && gm_v_ok(v) ? v : NULL;
}

/* Whether metric id has a value on some live GPU's dcgm-exporter entity. */
static int dcgm_any(const struct gm_snapshot *s, int id)
{
    const struct gm_mig *ent[GM_MIG_MAX + 1];
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!gpu_live(g))
            continue;
        uint32_t n = dcgm_entities(g, ent);
        for (uint32_t e = 0; e < n; e++)
            if (dcgm_value(g, ent[e], id))
                return 1;
    }
    return 0;
}

/* One family of the dcgm set under name: a sample per entity of every live
 * GPU that has a value, repeated per HPC job. */
static void dcgm_family(struct writer *w, int id, const char *name, const uint8_t *njobs)
{
    const struct gm_snapshot *s = w->s;
    const struct gm_metric *m = &gm_metrics[id];
    char help[300];
    const char *unit = gm_units[m->unit].dcgm;
    double mul = gm_units[m->unit].dcgm_mul;
    if (unit)
        snprintf(help, sizeof(help), "%s (in %s).", m->prom_help ? m->prom_help : m->desc, unit);
    else
        snprintf(help, sizeof(help), "%s", m->prom_help ? m->prom_help : m->desc);
    family(w, name, m->kind == GM_K_COUNTER ? F_COUNTER : F_GAUGE, help);
    /* dcgm reports whole MiB, mJ, ns; its PROF ratios keep their fraction */
    int floor_it = mul != 1 && !gm_units[m->unit].dcgm_frac;
    const struct gm_mig *ent[GM_MIG_MAX + 1];
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        if (!gpu_live(g))
            continue;
        uint32_t n = dcgm_entities(g, ent);
        for (int k = 0; k < (njobs[i] ? njobs[i] : 1); k++) {
            const char *job = njobs[i] ? g->hpc_jobs[k] : NULL;
            for (uint32_t e = 0; e < n; e++) {
                const struct gm_value *v = dcgm_value(g, ent[e], id);
                if (!v)
                    continue;
                int first = 1;
                sample_begin(w);
                if (ent[e])
                    gpu_labels_build(w, &first, g, ent[e]);
                else
                    gpu_labels(w, &first, g);
                label(w, &first, "hpc_job", job);
                double x = gm_v_as_double(v) * mul;
                sample_end(w, floor_it ? floor(x) : x);
            }
        }
    }
}

static void dcgm_families(struct writer *w)
{
    const struct gm_snapshot *s = w->s;
    uint8_t *njobs = gm_xcalloc(s->ngpu ? s->ngpu : 1, 1);
    dcgm_hpc_jobs(w, njobs);
    for (int id = 0; id < GM_M__GPU_END; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if (!m->dcgm || strncmp(m->dcgm, "DCGM_FI_", 8) != 0 || m->kind == GM_K_INFO)
            continue;
        if (!dcgm_any(s, id))
            continue;
        dcgm_family(w, id, m->dcgm, njobs);
        for (size_t a = 0; a < sizeof(dcgm_aliases) / sizeof(dcgm_aliases[0]); a++)
            if (strcmp(m->dcgm, dcgm_aliases[a].name) == 0)
                dcgm_family(w, id, dcgm_aliases[a].also, njobs);
    }
    free(njobs);
}

/* dcgm-exporter's DCGM_FI_DEV_XID_ERRORS: the last Xid of each GPU, 0 while
 * it has had none since the exporter started, per entity like every field,
 * with the err_code and err_msg labels dcgm-exporter adds to it
 * (collector/gpu_collector.go, toMetric; texts in xidtext.c). */
static void dcgm_xid(struct writer *w, const struct gm_prom_state *st)
{
    const struct gm_snapshot *s = w->s;
    if (!s->ngpu)
        return;
    family(w, "DCGM_FI_DEV_XID_ERRORS", F_GAUGE, "Value of the last XID error encountered.");
    const struct gm_mig *ent[GM_MIG_MAX + 1];
    for (uint32_t i = 0; i < s->ngpu; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        uint32_t v = 0;
        for (unsigned k = 0; k < st->nxid_last; k++)
            if (xid_of(g, st->xid_last[k].gpu, st->xid_last[k].uuid))
                v = st->xid_last[k].xid;
        char code[16];
        snprintf(code, sizeof(code), "%u", v);
        /* a lost GPU keeps one series: its Xid (79) is the news */
        uint32_t n = gpu_live(g) ? dcgm_entities(g, ent) : (ent[0] = NULL, 1);
        for (uint32_t e = 0; e < n; e++) {
            int first = 1;
            sample_begin(w);
            if (ent[e])
                gpu_labels_build(w, &first, g, ent[e]);
            else
                gpu_labels(w, &first, g);
            label(w, &first, "err_code", code);
            label(w, &first, "err_msg", gm_xid_text(v));
            sample_end(w, v);
        }
    }
}

/* ------------------------------------------------------ common: health */

static void health(struct writer *w, const struct gm_prom_state *st,
                   const struct gm_prom_self *self)
{
    static const char *const states[] = {
        "ok", "no_library", "driver_not_loaded", "no_permission", "version_mismatch", "error"};
    family(w, "gpumon_nvml_state", F_GAUGE,
           "State of NVML and the driver: 1 for the current state, 0 for the others.");
    for (size_t k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
        int first = 1;
        sample_begin(w);
        host_label(w, &first);
        label(w, &first, "state", states[k]);
        sample_end(w, (size_t)w->s->driver == k);
    }
    family(w, "gpumon_exporter_last_sample_timestamp_seconds", F_GAUGE,
           "When the sample served now was taken (Unix time); these series are rendered once "
           "per sample, not per scrape.");
    int first = 1;
    sample_begin(w);
    host_label(w, &first);
    sample_end(w, st->last_wall_ns / 1e9);
    family(w, "gpumon_exporter_sample_duration_seconds", F_GAUGE,
           "How long reading NVML and /proc took for the sample served now.");
    first = 1;
    sample_begin(w);
    host_label(w, &first);
    sample_end(w, st->last_duration_ns / 1e9);
    family(w, "gpumon_exporter_sampling_errors", F_COUNTER,
           "Failed readings since the exporter started, by kind (gpu_lost, not_permitted, "
           "driver, error).");
    static const char *const kinds[] = {"gpu_lost", "not_permitted", "driver", "error"};
    const uint64_t vals[] = {st->errors_lost, st->errors_noperm, st->errors_driver,
                             st->errors_error};
    for (int k = 0; k < 4; k++) {
        first = 1;
        sample_begin(w);
        host_label(w, &first);
        label(w, &first, "kind", kinds[k]);
        sample_end(w, (double)vals[k]);
    }
    family(w, "gpumon_exporter_xid_events_dropped", F_COUNTER,
           "Xid events not counted in gpumon_xid_errors_total because it already had its "
           "maximum number of (GPU, Xid) series.");
    first = 1;
    sample_begin(w);
    host_label(w, &first);
    sample_end(w, (double)st->xid_dropped);
    family(w, "gpumon_exporter_dropped_snapshots", F_COUNTER,
           "Snapshots the agent's sinks dropped because they could not keep up.");
    first = 1;
    sample_begin(w);
    host_label(w, &first);
    sample_end(w, (double)self->dropped);
    family(w, "gpumon_exporter_scrapes", F_COUNTER,
           "HTTP requests for /metrics served before the sample served now was rendered.");
    first = 1;
    sample_begin(w);
    host_label(w, &first);
    sample_end(w, (double)self->scrapes);
    family(w, "gpumon_exporter_page_renders", F_COUNTER,
           "Live pages (/) rendered before the sample served now was published: one per sample "
           "that someone asked for the page in.");
    first = 1;
    sample_begin(w);
    host_label(w, &first);
    sample_end(w, (double)self->page_renders);
}

/* ------------------------------------------------------ native: usage */

/* gpumon_usage_gpu_seconds_total and gpumon_usage_energy_joules_total per
 * (job_id, user): who used the GPUs, by the rules of the store's usage_1h
 * (docs/exporter.md).  Absent until a GPU has had a process, and from the
 * rendering of a single sample (serve --once, --print): it has no interval. */
static void native_usage(struct writer *w, const struct gm_prom_state *st)
{
    if (st->nus == 0 || !st->usage_timed)
        return;
    family(w, "gpumon_usage_gpu_seconds", F_COUNTER,
           "GPU time used by a job and user since the exporter started: a GPU's time with "
           "processes, in equal parts among its (job, user, process) groups.");
    for (unsigned i = 0; i < st->nus; i++) {
        int first = 1;
        sample_begin(w);
        host_label(w, &first);
        label(w, &first, "job_id", st->us[i].job);
        label(w, &first, "user", st->us[i].user);
        sample_end(w, st->us[i].gpu_s);
    }
    int started = 0;
    for (unsigned i = 0; i < st->nus; i++) {
        if (!st->us[i].energy_set)
            continue;
        if (!started)
            family(w, "gpumon_usage_energy_joules", F_COUNTER,
                   "GPU energy used by a job and user since the exporter started (J), shared as "
                   "gpumon_usage_gpu_seconds_total is.");
        started = 1;
        int first = 1;
        sample_begin(w);
        host_label(w, &first);
        label(w, &first, "job_id", st->us[i].job);
        label(w, &first, "user", st->us[i].user);
        sample_end(w, st->us[i].energy_j);
    }
    family(w, "gpumon_exporter_usage_series_dropped", F_COUNTER,
           "GPU intervals of (job, user) pairs not counted in gpumon_usage_* because they "
           "already had their maximum number of series.");
    int first = 1;
    sample_begin(w);
    host_label(w, &first);
    sample_end(w, (double)st->usage_dropped);
}

/* ----------------------------------------------------------------- render */

void gm_prom_render(const struct gm_prom_state *st, const struct gm_snapshot *s,
                    const struct gm_prom_opts *o, const struct gm_prom_self *self,
                    struct gm_buf *out)
{
    struct writer w = {.b = out, .o = o, .s = s};
    w.gpu_lbl = s->ngpu ? gm_xcalloc(s->ngpu, sizeof(struct gm_buf)) : NULL;
    struct gm_prom_self counts = *self;
    counts.process_dropped = 0;
    if (s->driver == GM_DRV_OK) {
        if (o->names == GM_PROM_DCGM) {
            dcgm_families(&w);
            dcgm_xid(&w, st);
        } else {
            native_metric_families(&w);
            native_reasons(&w, st);
            native_mig(&w);
        }
        native_info(&w);
        value_ages(&w);
        diagnosis(&w);
        if (o->names != GM_PROM_DCGM)
            gpu_jobs(&w);
        if (o->names != GM_PROM_DCGM)
            native_xid(&w, st);
        if (o->names != GM_PROM_DCGM)
            native_usage(&w, st);
        if (o->process_metrics) {
            processes(&w, &counts);
            family(&w, "gpumon_exporter_process_series_dropped", F_GAUGE,
                   "Processes left out of the per-process series by the series cap.");
            int first = 1;
            sample_begin(&w);
            host_label(&w, &first);
            sample_end(&w, (double)counts.process_dropped);
        }
    }
    health(&w, st, &counts);
    if (o->openmetrics)
        gm_buf_puts(out, "# EOF\n");
    for (uint32_t i = 0; w.gpu_lbl && i < s->ngpu; i++)
        gm_buf_free(&w.gpu_lbl[i]);
    free(w.gpu_lbl);
}

void gm_prom_render_once(const struct gm_snapshot *s, const struct gm_prom_opts *o,
                         struct gm_buf *out)
{
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_prom_self self = {0};
    gm_prom_observe(st, s);
    gm_prom_render(st, s, o, &self, out);
    gm_prom_state_free(st);
}
