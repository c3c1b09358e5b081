/* query.c -- nvidia-smi compatible CSV queries (see query.h).
 *
 * Text values (names, UUIDs, VBIOS, command lines) come from outside and are
 * written with gm_text_csv and the formula rule (core/text.h): a normal name
 * is printed as nvidia-smi prints it; one with a comma or a double quote is
 * quoted (RFC 4180) so that it stays one field; control characters and
 * invalid UTF-8 become U+FFFD; a name beginning with = + - @ or ' gets a '
 * in front so that a spreadsheet does not run it.  nvidia-smi itself writes
 * such names raw. */
#include "query.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fmt.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../source/nvml.h"

/* --query-compute-apps keys for GPU facts: nvidia-smi spells them with a
 * gpu_ prefix in this context, and prints that spelling in the header. */
static const struct {
    const char *key;
    int id;
} app_gpu_keys[] = {
    {"timestamp", GM_M_TIMESTAMP}, {"gpu_name", GM_M_NAME}, {"gpu_bus_id", GM_M_PCI_BUS_ID},
    {"gpu_serial", GM_M_SERIAL},   {"gpu_uuid", GM_M_UUID},
};

static int lookup(int kind, const char *key, size_t len, char *header, size_t hlen)
{
    char tmp[100];
    if (len >= sizeof(tmp))
        return -1;
    memcpy(tmp, key, len);
    tmp[len] = '\0';
    if (kind == GM_QUERY_APPS) {
        for (size_t i = 0; i < sizeof(app_gpu_keys) / sizeof(app_gpu_keys[0]); i++)
            if (strcmp(app_gpu_keys[i].key, tmp) == 0) {
                snprintf(header, hlen, "%s", tmp);
                return app_gpu_keys[i].id;
            }
    }
    int proc = kind == GM_QUERY_APPS;
    int id = gm_metric_by_smi(tmp, len, proc);
    if (id < 0) {
        id = gm_metric_by_name(tmp, proc);
        if (id < 0)
            return -1;
        /* an extension field: the header is the key as given */
        const char *unit = gm_units[gm_metrics[id].unit].smi;
        if (*unit && gm_metrics[id].fmt == GM_F_NUM && !gm_metrics[id].smi)
            snprintf(header, hlen, "%s [%s]", tmp, unit);
        else if (gm_metrics[id].smi)
            gm_fmt_smi_header(id, header, hlen);
        else
            snprintf(header, hlen, "%s", tmp);
        return id;
    }
    if (gm_metric_smi_own_header(id, tmp, len)) {
        const char *unit = gm_units[gm_metrics[id].unit].smi;
        if (*unit && gm_metrics[id].fmt == GM_F_NUM)
            snprintf(header, hlen, "%s [%s]", tmp, unit);
        else
            snprintf(header, hlen, "%s", tmp);
        return id;
    }
    gm_fmt_smi_header(id, header, hlen);
    return id;
}

/* The field nearest to an unknown key (a typo of one), or NULL: nvidia-smi's
 * keys of this kind, then those of --query-compute-apps' own GPU keys. */
static const char *nearest_field(int kind, const char *key, size_t len)
{
    struct gm_text_suggest sg;
    gm_text_suggest_init(&sg, key, len);
    int proc = kind == GM_QUERY_APPS;
    for (int i = 0; i < GM_M__COUNT; i++)
        if ((gm_metrics[i].scope == GM_SC_PROC) == proc)
            gm_text_suggest_add(&sg, gm_metrics[i].smi);
    if (proc)
        for (size_t i = 0; i < sizeof(app_gpu_keys) / sizeof(app_gpu_keys[0]); i++)
            gm_text_suggest_add(&sg, app_gpu_keys[i].key);
    return sg.best;
}

int gm_query_parse_fields(struct gm_query *q, int kind, const char *list, struct gm_err *err)
{
    q->kind = kind;
    q->n = 0;
    const char *p = list;
    if (!p || !*p)
        return gm_err_set(err, GM_E_INVAL, "no fields given to query");
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        /* nvidia-smi tolerates spaces around names */
        while (len && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (len == 0)
            return gm_err_set(err, GM_E_INVAL, "empty field name in \"%s\"", list);
        if (q->n >= GM_QUERY_MAX_FIELDS)
            return gm_err_set(err, GM_E_INVAL, "too many fields (at most %d)", GM_QUERY_MAX_FIELDS);
        int id = lookup(kind, p, len, q->header[q->n], sizeof(q->header[q->n]));
        if (id < 0) {
            /* the key as one line (it may hold anything), and the nearest field */
            const char *near = nearest_field(kind, p, len);
            struct gm_buf shown = GM_BUF_INIT;
            gm_text_line(&shown, p, len > 400 ? 400 : len);
            gm_err_set(err, GM_E_INVAL, "Field \"%s%s\" is not a valid field to query.%s%s%s",
                       shown.p ? shown.p : "", len > 400 ? "..." : "",
                       near ? " Did you mean \"" : "", near ? near : "", near ? "\"?" : "");
            gm_buf_free(&shown);
            return GM_E_INVAL;
        }
        q->ids[q->n++] = id;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int gm_query_parse_format(struct gm_query *q, const char *fmt, struct gm_err *err)
{
    int csv = 0;
    const char *p = fmt;
    q->noheader = q->nounits = 0;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 3 && strncmp(p, "csv", 3) == 0)
            csv = 1;
        else if (len == 8 && strncmp(p, "noheader", 8) == 0)
            q->noheader = 1;
        else if (len == 7 && strncmp(p, "nounits", 7) == 0)
            q->nounits = 1;
        else
            return gm_err_set(err, GM_E_INVAL,
                              "invalid --format option \"%.*s\" (expected csv, noheader, nounits)",
                              (int)len, p);
        p = e ? e + 1 : NULL;
    }
    if (!csv)
        return gm_err_set(err, GM_E_INVAL,
                          "--format must include csv (e.g. --format=csv,noheader)");
    return 0;
}

struct gm_rgset gm_query_groups(const struct gm_query *q, int *need_procs, unsigned *flags)
{
    struct gm_rgset g = GM_RGSET_EMPTY;
    *need_procs = q->kind == GM_QUERY_APPS;
    for (int i = 0; i < q->n; i++) {
        int rg = gm_metrics[q->ids[i]].rg;
        if (rg != GM_RG_NONE)
            gm_rgset_add(&g, (unsigned)rg);
    }
    /* a one-shot GPM value needs two samples: GM_NVML_GPM_PRIME_MS more per GPU */
    if (gm_rgset_has(&g, GM_RG_GPM))
        *flags |= GM_NVML_GPM_PRIME;
    return g;
}

void gm_query_header(const struct gm_query *q, struct gm_buf *out)
{
    if (q->noheader)
        return;
    for (int i = 0; i < q->n; i++) {
        if (i)
            gm_buf_puts(out, ", ");
        gm_buf_puts(out, q->header[i]);
    }
    gm_buf_putc(out, '\n');
}

static void row(const struct gm_query *q, const struct gm_snapshot *s, const struct gm_gpu *g,
                const struct gm_proc *p, struct gm_buf *out)
{
    char buf[512];
    for (int i = 0; i < q->n; i++) {
        if (i)
            gm_buf_puts(out, ", ");
        int id = q->ids[i];
        const char *text = gm_metrics[id].fmt == GM_F_STR ? gm_fmt_string(s, g, p, id) : NULL;
        if (text)
            gm_text_csv(out, text, strlen(text), GM_TEXT_CSV_OUTSIDE);
        else
            gm_buf_puts(out, gm_fmt_smi(s, g, p, id, q->nounits, buf, sizeof(buf)));
    }
    gm_buf_putc(out, '\n');
}

void gm_query_rows(const struct gm_query *q, const struct gm_snapshot *s, uint64_t mask,
                   struct gm_buf *out)
{
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((mask >> i) & 1))
            continue;
        const struct gm_gpu *g = &s->gpus[i];
        if (q->kind == GM_QUERY_GPU) {
            row(q, s, g, NULL, out);
            continue;
        }
        for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc; k++) {
            const struct gm_proc *p = &s->procs[k];
            if (p->type & GM_PT_COMPUTE) /* nvidia-smi lists compute (C, C+G) processes only */
                row(q, s, g, p, out);
        }
    }
}

/* Parses up to maxdigits hex digits at *pp, advancing it; -1 if none. */
static long hexfield(const char **pp, int maxdigits)
{
    const char *p = *pp;
    long v = 0;
    int n = 0;
    while (n < maxdigits && isxdigit((unsigned char)*p)) {
        v = v * 16 +
            (isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
        p++;
        n++;
    }
    if (n == 0)
        return -1;
    *pp = p;
    return v;
}

/* Parses "[domain:]bus:device.function" in hex into a comparable triple. */
static int parse_bus_id(const char *s, unsigned *dom, unsigned *bus, unsigned *dev)
{
    long f[4];
    int n = 0;
    const char *p = s;
    for (;;) {
        long v = hexfield(&p, 8);
        if (v < 0 || n == 4)
            return -1;
        f[n++] = v;
        if (*p == ':' && n < 3) {
            p++;
            continue;
        }
        if (*p == '.' && n >= 2) {
            p++;
            long fn = hexfield(&p, 1);
            if (fn < 0 || *p != '\0')
                return -1;
            break;
        }
        return -1;
    }
    *dom = n == 3 ? (unsigned)f[0] : 0;
    *bus = (unsigned)f[n - 2];
    *dev = (unsigned)f[n - 1];
    return 0;
}

static int match_gpu(const struct gm_gpu *g, const char *id)
{
    char *end;
    unsigned long idx = strtoul(id, &end, 10);
    if (*id && *end == '\0' && isdigit((unsigned char)*id))
        return g->index == idx;
    if (strncasecmp(id, "GPU-", 4) == 0 || strncasecmp(id, "MIG-", 4) == 0) {
        if (g->str[GM_S_UUID][0] && strcasecmp(g->str[GM_S_UUID], id) == 0)
            return 1;
        for (uint32_t m = 0; m < g->nmig; m++)
            if (strcasecmp(g->mig[m].uuid, id) == 0)
                return 1;
        return 0;
    }
    unsigned d1, b1, v1, d2, b2, v2;
    if (parse_bus_id(id, &d1, &b1, &v1) == 0 && g->str[GM_S_PCI_BUS_ID][0] &&
        parse_bus_id(g->str[GM_S_PCI_BUS_ID], &d2, &b2, &v2) == 0)
        return d1 == d2 && b1 == b2 && v1 == v2;
    return 0;
}

int gm_query_select(const struct gm_snapshot *s, const char *ids, uint64_t *mask,
                    struct gm_err *err)
{
    if (!ids || !*ids) {
        *mask = s->ngpu >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << s->ngpu) - 1;
        return 0;
    }
    uint64_t m = 0;
    const char *p = ids;
    while (p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char one[128];
        if (len == 0 || len >= sizeof(one))
            return gm_err_set(err, GM_E_INVAL, "invalid GPU id list \"%s\"", ids);
        memcpy(one, p, len);
        one[len] = '\0';
        int found = 0;
        for (uint32_t i = 0; i < s->ngpu && i < 64; i++)
            if (match_gpu(&s->gpus[i], one)) {
                m |= UINT64_C(1) << i;
                found = 1;
            }
        if (!found)
            return gm_err_set(
                err, GM_E_INVAL,
                "no GPU matches id \"%s\" (give an index 0-%u, a UUID or a PCI bus id)", one,
                s->ngpu ? s->ngpu - 1 : 0);
        p = e ? e + 1 : NULL;
    }
    *mask = m;
    return 0;
}

void gm_query_help(int kind, struct gm_buf *out)
{
    gm_buf_printf(out, "List of valid properties to query for the switch \"%s\":\n\n",
                  kind == GM_QUERY_GPU ? "--query-gpu" : "--query-compute-apps");
    if (kind == GM_QUERY_APPS) {
        for (size_t i = 0; i < sizeof(app_gpu_keys) / sizeof(app_gpu_keys[0]); i++)
            gm_buf_printf(out, "\"%s\"\n%s\n\n", app_gpu_keys[i].key,
                          gm_metrics[app_gpu_keys[i].id].desc);
    }
    for (int id = 0; id < GM_M__COUNT; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if ((m->scope == GM_SC_PROC) != (kind == GM_QUERY_APPS) || !m->smi)
            continue;
        gm_buf_printf(out, "\"%s\"", m->smi);
        for (const char *a = m->smi_alias; a && *a;) {
            const char *e = strchr(a, ',');
            size_t len = e ? (size_t)(e - a) : strlen(a);
            if (*a != '=')
                gm_buf_printf(out, " or \"%.*s\"", (int)len, a);
            a = e ? e + 1 : NULL;
        }
        gm_buf_printf(out, "\n%s\n\n", m->desc);
        for (const char *a = m->smi_alias; a && *a;) {
            const char *e = strchr(a, ',');
            size_t len = e ? (size_t)(e - a) : strlen(a);
            if (*a == '=')
                gm_buf_printf(out, "\"%.*s\"\n%s\n\n", (int)len - 1, a + 1, m->desc);
            a = e ? e + 1 : NULL;
        }
    }
    gm_buf_puts(out, "gpumon extensions (not in nvidia-smi), by their JSON key:\n\n");
    char key[128];
    for (int id = 0; id < GM_M__COUNT; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if ((m->scope == GM_SC_PROC) != (kind == GM_QUERY_APPS) || m->smi)
            continue;
        gm_buf_printf(out, "\"%s\"\n%s\n\n", gm_metric_json_key(id, key, sizeof(key)), m->desc);
    }
}
