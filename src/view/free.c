/* free.c -- verdicts on GPUs and MIG instances from a window of snapshots,
 * and their table, id list, shell and JSON forms (see free.h).
 *
 * The UUIDs written to the shell come from the driver: they are quoted as
 * shell words ('...', a quote as '\''), never pasted bare. */
#include "free.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/json.h"
#include "../core/text.h"
#include "../source/nvml_abi.h"

#define GIB 1073741824.0

static const char *const reason_names[GM_FREE_R__COUNT] = {
    [GM_FREE_R_LOST] = "lost",
    [GM_FREE_R_UNREADABLE] = "unreadable",
    [GM_FREE_R_REMAP_PENDING] = "row_remap_pending",
    [GM_FREE_R_RETIRE_PENDING] = "page_retirement_pending",
    [GM_FREE_R_MIG] = "mig_enabled",
    [GM_FREE_R_PROHIBITED] = "compute_prohibited",
    [GM_FREE_R_EXCLUSIVE] = "exclusive_in_use",
    [GM_FREE_R_BUSY] = "busy",
    [GM_FREE_R_MEMORY] = "memory",
    [GM_FREE_R_MEM_UNKNOWN] = "memory_unknown",
    [GM_FREE_R_PROCS] = "processes",
};

const char *gm_free_reason_name(enum gm_free_reason r)
{
    return (unsigned)r < GM_FREE_R__COUNT ? reason_names[r] : "unknown";
}

/* ------------------------------------------------------------- judging */

/* What one candidate showed over the window, before the verdict. */
struct seen {
    int lost, unreadable, unreadable_code, remap, retire, mig, mode; /* mode: -1 unknown */
    struct gm_value mem_free, mem_total, util;
    uint32_t nproc, pid;
};

static int is_compute(const struct gm_proc *p)
{
    return (p->type & (GM_PT_COMPUTE | GM_PT_MPS)) != 0;
}

/* Compute processes of GPU position pos (of MIG instance mg when not NULL)
 * in s: their number, and the first one's pid in *pid. */
static uint32_t count_procs(const struct gm_snapshot *s, uint32_t pos, const struct gm_mig *mg,
                            uint32_t *pid)
{
    const struct gm_gpu *g = &s->gpus[pos];
    uint32_t n = 0;
    for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc && k < s->nproc; k++) {
        const struct gm_proc *p = &s->procs[k];
        if (!is_compute(p))
            continue;
        if (mg && (p->gpu_instance_id != mg->gpu_instance_id ||
                   p->compute_instance_id != mg->compute_instance_id))
            continue;
        if (n++ == 0)
            *pid = p->pid;
    }
    return n;
}

static void least(struct gm_value *acc, const struct gm_value *v)
{
    if (gm_v_ok(v) && (!gm_v_ok(acc) || v->v.u < acc->v.u))
        *acc = *v;
}

static void most(struct gm_value *acc, const struct gm_value *v)
{
    if (gm_v_ok(v) && (!gm_v_ok(acc) || v->v.u > acc->v.u))
        *acc = *v;
}

static const struct gm_mig *mig_by_uuid(const struct gm_gpu *g, const char *uuid)
{
    for (uint32_t k = 0; k < g->nmig && k < GM_MIG_MAX; k++)
        if (strcmp(g->mig[k].uuid, uuid) == 0)
            return &g->mig[k];
    return NULL;
}

/* Adds sample s to what candidate (pos, mig uuid or NULL) showed. */
static void observe(struct seen *w, const struct gm_snapshot *s, uint32_t pos, const char *mig_uuid)
{
    if (pos >= s->ngpu)
        return;
    const struct gm_gpu *g = &s->gpus[pos];
    if (g->state == GM_GPU_LOST) {
        w->lost = 1;
        return;
    }
    if (g->state != GM_GPU_OK) {
        if (!w->unreadable)
            w->unreadable_code = g->state;
        w->unreadable = 1;
        return;
    }
    const struct gm_value *v = &g->m[GM_M_REMAP_PENDING];
    if (gm_v_ok(v) && v->v.u)
        w->remap = 1;
    v = &g->m[GM_M_RETIRED_PENDING];
    if (gm_v_ok(v) && v->v.u)
        w->retire = 1;
    v = &g->m[GM_M_COMPUTE_MODE];
    if (gm_v_ok(v))
        w->mode = (int)v->v.u;
    uint32_t pid = 0, n;
    if (mig_uuid) {
        const struct gm_mig *mg = mig_by_uuid(g, mig_uuid);
        if (!mg)
            return;
        least(&w->mem_free, &mg->mem_free);
        if (gm_v_ok(&mg->mem_total))
            w->mem_total = mg->mem_total;
        n = count_procs(s, pos, mg, &pid);
    } else {
        v = &g->m[GM_M_MIG_CURRENT];
        if (g->nmig || (gm_v_ok(v) && v->v.u == NVML_DEVICE_MIG_ENABLE))
            w->mig = 1;
        least(&w->mem_free, &g->m[GM_M_MEM_FREE]);
        if (gm_v_ok(&g->m[GM_M_MEM_TOTAL]))
            w->mem_total = g->m[GM_M_MEM_TOTAL];
        most(&w->util, &g->m[GM_M_UTIL_GPU]);
        n = count_procs(s, pos, NULL, &pid);
    }
    if (n > w->nproc || (n && !w->pid)) {
        w->nproc = n > w->nproc ? n : w->nproc;
        w->pid = pid;
    }
}

static void why(struct gm_free_unit *u, enum gm_free_reason r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void why(struct gm_free_unit *u, enum gm_free_reason r, const char *fmt, ...)
{
    size_t len = strlen(u->why);
    if (len && len + 2 < sizeof(u->why)) {
        memcpy(u->why + len, "; ", 3);
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    if (len < sizeof(u->why))
        vsnprintf(u->why + len, sizeof(u->why) - len, fmt, ap);
    va_end(ap);
    u->reasons |= UINT32_C(1) << r;
}

static void verdict(struct gm_free_unit *u, const struct seen *w, const struct gm_free_opts *o)
{
    u->mem_free = w->mem_free;
    u->mem_total = w->mem_total;
    u->util = w->util;
    u->nproc = w->nproc;
    if (w->lost)
        why(u, GM_FREE_R_LOST, "lost");
    if (w->unreadable)
        why(u, GM_FREE_R_UNREADABLE, "%s",
            w->unreadable_code == GM_GPU_NOPERM ? "no permission" : "cannot be read");
    if (w->lost || w->unreadable) {
        u->mem_free = u->mem_total = u->util = gm_v_status(GM_VS_NA, 0);
        u->free = 0;
        return;
    }
    if (w->remap)
        why(u, GM_FREE_R_REMAP_PENDING, "pending row remap");
    if (w->retire)
        why(u, GM_FREE_R_RETIRE_PENDING, "pending page retirement");
    if (w->mig) { /* the instances are judged; the whole GPU is not a candidate */
        why(u, GM_FREE_R_MIG, "MIG mode: see its instances");
        u->free = 0;
        return;
    }
    if (w->mode == NVML_COMPUTEMODE_PROHIBITED)
        why(u, GM_FREE_R_PROHIBITED, "compute prohibited");
    int excl = (w->mode == NVML_COMPUTEMODE_EXCLUSIVE_PROCESS ||
                w->mode == NVML_COMPUTEMODE_EXCLUSIVE_THREAD) &&
               w->nproc > 0;
    if (excl)
        why(u, GM_FREE_R_EXCLUSIVE, "exclusive-%s with pid %" PRIu32,
            w->mode == NVML_COMPUTEMODE_EXCLUSIVE_THREAD ? "thread" : "process", w->pid);
    if (gm_v_ok(&w->util) && w->util.v.u > o->max_util)
        why(u, GM_FREE_R_BUSY, "busy: util %" PRIu64 " %%", w->util.v.u);
    uint64_t need = o->min_mem;
    int need_known = 1;
    if (o->min_mem_pct) {
        need_known = gm_v_ok(&w->mem_total);
        need = need_known ? w->mem_total.v.u / 100 * o->min_mem_pct : 0;
    }
    if (!gm_v_ok(&w->mem_free) || !need_known)
        why(u, GM_FREE_R_MEM_UNKNOWN, "free memory unknown");
    else if (w->mem_free.v.u < need)
        why(u, GM_FREE_R_MEMORY, "%.1f GiB free < %.1f GiB", (double)w->mem_free.v.u / GIB,
            (double)need / GIB);
    if (w->nproc && !excl && !o->allow_procs) {
        if (w->nproc == 1)
            why(u, GM_FREE_R_PROCS, "1 process (pid %" PRIu32 ")", w->pid);
        else
            why(u, GM_FREE_R_PROCS, "%" PRIu32 " processes (pid %" PRIu32 " and others)", w->nproc,
                w->pid);
    }
    u->free = u->reasons == 0;
}

void gm_free_judge(const struct gm_snapshot *const *s, size_t n, const struct gm_free_opts *o,
                   struct gm_free_result *r)
{
    memset(r, 0, sizeof(*r));
    if (n == 0)
        return;
    const struct gm_snapshot *last = s[n - 1];
    size_t cap = (size_t)last->ngpu * (1 + GM_MIG_MAX);
    r->u = gm_xcalloc(cap ? cap : 1, sizeof(*r->u));
    for (uint32_t pos = 0; pos < last->ngpu; pos++) {
        const struct gm_gpu *g = &last->gpus[pos];
        for (int32_t k = -1; k < (int32_t)g->nmig && k < GM_MIG_MAX; k++) {
            struct gm_free_unit *u = &r->u[r->n++];
            const char *mig_uuid = k < 0 ? NULL : g->mig[k].uuid;
            u->gpu = g->index;
            u->mig = k < 0 ? -1 : (int32_t)g->mig[k].index;
            gm_strlcpy(u->uuid, k < 0 ? g->str[GM_S_UUID] : mig_uuid, sizeof(u->uuid));
            gm_strlcpy(u->name, k < 0 ? g->str[GM_S_NAME] : g->mig[k].name, sizeof(u->name));
            struct seen w = {.mode = -1};
            w.mem_free = w.mem_total = w.util = gm_v_status(GM_VS_NA, 0);
            for (size_t i = 0; i < n; i++)
                observe(&w, s[i], pos, mig_uuid);
            verdict(u, &w, o);
            r->nfree += (uint32_t)u->free;
        }
    }
}

int gm_free_choose(struct gm_free_result *r, uint32_t count)
{
    r->nchosen = 0;
    r->count = count;
    int enough = count == 0 || r->nfree >= count;
    for (uint32_t i = 0; i < r->n; i++) {
        r->u[i].chosen = enough && r->u[i].free && (count == 0 || r->nchosen < count);
        r->nchosen += (uint32_t)r->u[i].chosen;
    }
    return enough ? 0 : -1;
}

void gm_free_result_clear(struct gm_free_result *r)
{
    if (!r)
        return;
    free(r->u);
    memset(r, 0, sizeof(*r));
}

int gm_free_parse_min_mem(const char *s, const char *flag, struct gm_free_opts *o,
                          struct gm_err *err)
{
    char *end;
    errno = 0;
    if (!s || !isdigit((unsigned char)s[0]))
        goto bad;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        goto bad;
    if (strcmp(end, "%") == 0) {
        if (v < 1 || v > 100 || v != (unsigned)v)
            return gm_err_set(err, GM_E_INVAL,
                              "invalid --%s '%s': a percentage is a whole number 1-100", flag, s);
        o->min_mem_pct = (unsigned)v;
        o->min_mem = 0;
        return 0;
    }
    static const char units[] = "KMGT";
    double mul = 0;
    if (*end == 0 && v == 0) {
        mul = 1;
    } else if (*end) {
        const char *p = strchr(units, toupper((unsigned char)*end));
        if (p) {
            mul = 1024;
            for (const char *q = units; q < p; q++)
                mul *= 1024;
            end++;
            if (*end == 'i')
                end++;
            if (*end == 'B' || *end == 'b')
                end++;
        }
    }
    if (mul == 0 || *end || v * mul > 1e18)
        goto bad;
    o->min_mem = (uint64_t)(v * mul);
    o->min_mem_pct = 0;
    return 0;
bad:
    return gm_err_set(err, GM_E_INVAL,
                      "invalid --%s '%s': give a size with a unit (20G, 512MiB) or a "
                      "percentage of the total (90%%)",
                      flag, s ? s : "");
}

/* ------------------------------------------------------------- outputs */

static void unit_id(struct gm_buf *b, const struct gm_free_unit *u)
{
    if (u->mig < 0)
        gm_buf_printf(b, "%" PRIu32, u->gpu);
    else
        gm_buf_printf(b, "%" PRIu32 ":%" PRId32, u->gpu, u->mig);
}

void gm_free_table(const struct gm_free_result *r, struct gm_buf *b)
{
    gm_buf_puts(b, "GPU   MEMORY FREE   UTIL  PROCS  VERDICT\n");
    for (uint32_t i = 0; i < r->n; i++) {
        const struct gm_free_unit *u = &r->u[i];
        size_t start = b->len;
        unit_id(b, u);
        gm_buf_fill(b, ' ', b->len - start < 4 ? 4 - (b->len - start) : 1);
        if (gm_v_ok(&u->mem_free))
            gm_buf_printf(b, "%9.1f GiB", (double)u->mem_free.v.u / GIB);
        else
            gm_buf_puts(b, "            -");
        if (gm_v_ok(&u->util))
            gm_buf_printf(b, "  %3" PRIu64 " %%", u->util.v.u);
        else
            gm_buf_puts(b, "      -");
        if (u->reasons & ((UINT32_C(1) << GM_FREE_R_LOST) | (UINT32_C(1) << GM_FREE_R_UNREADABLE)))
            gm_buf_puts(b, "      -");
        else
            gm_buf_printf(b, "  %5" PRIu32, u->nproc);
        gm_buf_puts(b, "  ");
        if (u->free)
            gm_buf_puts(b, u->chosen && r->count ? "free, chosen" : "free");
        else
            gm_buf_puts(b, u->why);
        gm_buf_putc(b, '\n');
    }
}

void gm_free_ids(const struct gm_free_result *r, int by_index, struct gm_buf *b)
{
    int first = 1;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct gm_free_unit *u = &r->u[i];
        if (!u->chosen)
            continue;
        if (!first)
            gm_buf_putc(b, ',');
        first = 0;
        if (by_index)
            unit_id(b, u);
        else
            gm_text_line(b, u->uuid, strlen(u->uuid));
    }
    gm_buf_putc(b, '\n');
}

/* s as one single-quoted shell word. */
static void shell_quote(struct gm_buf *b, const char *s)
{
    gm_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            gm_buf_puts(b, "'\\''");
        else
            gm_buf_putc(b, *s);
    }
    gm_buf_putc(b, '\'');
}

int gm_free_env(const struct gm_free_result *r, int by_index, struct gm_buf *b, struct gm_err *err)
{
    struct gm_buf list = GM_BUF_INIT;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct gm_free_unit *u = &r->u[i];
        if (!u->chosen)
            continue;
        if (by_index && u->mig >= 0) {
            gm_buf_free(&list);
            return gm_err_set(
                err, GM_E_INVAL,
                "MIG instance %" PRIu32 ":%" PRId32
                " can only be named by UUID in CUDA_VISIBLE_DEVICES (drop --by index)",
                u->gpu, u->mig);
        }
        if (list.len)
            gm_buf_putc(&list, ',');
        if (by_index)
            unit_id(&list, u);
        else
            gm_text_line(&list, u->uuid, strlen(u->uuid));
    }
    gm_buf_putc(&list, '\0');
    if (by_index)
        gm_buf_puts(b, "export CUDA_DEVICE_ORDER=PCI_BUS_ID\n");
    gm_buf_puts(b, "export CUDA_VISIBLE_DEVICES=");
    shell_quote(b, list.p);
    gm_buf_putc(b, '\n');
    gm_buf_free(&list);
    return 0;
}

static void json_value(struct gm_json *j, const char *key, const struct gm_value *v)
{
    gm_json_key(j, key);
    if (gm_v_ok(v))
        gm_json_u64(j, v->v.u);
    else
        gm_json_null(j);
}

void gm_free_json(const struct gm_free_result *r, const struct gm_free_opts *o, double window_s,
                  unsigned samples, uint32_t count, int pretty, struct gm_buf *b)
{
    struct gm_json j;
    gm_json_init(&j, b, pretty);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "criteria");
    gm_json_obj_begin(&j);
    gm_json_key(&j, "min_memory_free_bytes");
    if (o->min_mem_pct)
        gm_json_null(&j);
    else
        gm_json_u64(&j, o->min_mem);
    gm_json_key(&j, "min_memory_free_percent");
    if (o->min_mem_pct)
        gm_json_u64(&j, o->min_mem_pct);
    else
        gm_json_null(&j);
    gm_json_key(&j, "max_utilization_percent");
    gm_json_u64(&j, o->max_util);
    gm_json_key(&j, "allow_processes");
    gm_json_bool(&j, o->allow_procs);
    gm_json_key(&j, "window_seconds");
    gm_json_f64(&j, window_s, 3);
    gm_json_key(&j, "samples");
    gm_json_u64(&j, samples);
    gm_json_obj_end(&j);
    gm_json_key(&j, "count");
    if (count)
        gm_json_u64(&j, count);
    else
        gm_json_null(&j);
    gm_json_key(&j, "free");
    gm_json_u64(&j, r->nfree);
    gm_json_key(&j, "enough");
    gm_json_bool(&j, count == 0 || r->nchosen >= count);
    gm_json_key(&j, "chosen");
    gm_json_arr_begin(&j);
    for (uint32_t i = 0; i < r->n; i++)
        if (r->u[i].chosen)
            gm_json_str(&j, r->u[i].uuid);
    gm_json_arr_end(&j);
    gm_json_key(&j, "gpus");
    gm_json_arr_begin(&j);
    for (uint32_t i = 0; i < r->n; i++) {
        const struct gm_free_unit *u = &r->u[i];
        gm_json_obj_begin(&j);
        gm_json_key(&j, "index");
        gm_json_u64(&j, u->gpu);
        gm_json_key(&j, "mig_index");
        if (u->mig < 0)
            gm_json_null(&j);
        else
            gm_json_u64(&j, (uint64_t)u->mig);
        gm_json_key(&j, "uuid");
        gm_json_str(&j, u->uuid);
        gm_json_key(&j, "name");
        gm_json_str(&j, u->name);
        gm_json_key(&j, "free");
        gm_json_bool(&j, u->free);
        gm_json_key(&j, "chosen");
        gm_json_bool(&j, u->chosen);
        json_value(&j, "memory_free_bytes", &u->mem_free);
        json_value(&j, "memory_total_bytes", &u->mem_total);
        json_value(&j, "utilization_gpu_percent", &u->util);
        gm_json_key(&j, "compute_processes");
        if (u->reasons & ((UINT32_C(1) << GM_FREE_R_LOST) | (UINT32_C(1) << GM_FREE_R_UNREADABLE)))
            gm_json_null(&j);
        else
            gm_json_u64(&j, u->nproc);
        gm_json_key(&j, "reasons");
        gm_json_arr_begin(&j);
        for (int k = 0; k < GM_FREE_R__COUNT; k++)
            if (u->reasons & (UINT32_C(1) << k))
                gm_json_str(&j, reason_names[k]);
        gm_json_arr_end(&j);
        gm_json_key(&j, "why");
        if (u->free)
            gm_json_null(&j);
        else
            gm_json_str(&j, u->why);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(b, '\n');
}
