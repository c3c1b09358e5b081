/* runsum.c -- the running totals and the summary of `gpumon run`
 * (runsum.h).  The arithmetic is here, pure and unit-tested
 * (tests/unit/test_runsum.c); the command (cli/cmd_run.c) owns the child,
 * the signals and the files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/err.h"
#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../insight/diagnose.h"
#include "runsum.h"

#define DG_EVERY_NS 100000000LL           /* at most one diagnosis point every 100 ms */
#define DG_KEEP_NS (600LL * 1000000000LL) /* the last 10 minutes of them */

struct gm_runsum *gm_runsum_new(void)
{
    struct gm_runsum *r = gm_xcalloc(1, sizeof(*r));
    struct gm_dg_opts o = {.max_age_ns = DG_KEEP_NS};
    r->dg = gm_dg_new(&o);
    return r;
}

void gm_runsum_free(struct gm_runsum *r)
{
    if (!r)
        return;
    gm_dg_free(r->dg);
    free(r->gpus);
    free(r);
}

static struct gm_runsum_gpu *gpu_slot(struct gm_runsum *r, uint32_t index)
{
    for (uint32_t k = 0; k < r->ngpu; k++)
        if (r->gpus[k].index == index)
            return &r->gpus[k];
    r->gpus = gm_xrealloc(r->gpus, (r->ngpu + 1) * sizeof(*r->gpus));
    struct gm_runsum_gpu *g = &r->gpus[r->ngpu++];
    memset(g, 0, sizeof(*g));
    g->index = index;
    g->mem_total = NAN;
    g->prev_power = NAN;
    g->prev_reasons = -1;
    return g;
}

static double val(const struct gm_snapshot *s, const struct gm_gpu *g, int id)
{
    const struct gm_value *v = gm_gpu_value(s, g, id);
    return v && gm_v_ok(v) ? gm_v_as_double(v) : NAN;
}

void gm_runsum_add(struct gm_runsum *r, const struct gm_snapshot *s, const struct gm_pidset *tree)
{
    if (r->nsamples == 0) {
        r->first_mono = s->mono_ns;
        r->first_wall = s->wall_ns;
    }
    r->nsamples++;
    r->last_mono = s->mono_ns;
    r->last_wall = s->wall_ns;
    for (uint32_t q = 0; q < s->ngpu; q++) {
        const struct gm_gpu *gg = &s->gpus[q];
        struct gm_runsum_gpu *g = gpu_slot(r, gg->index);
        /* the interval since the previous sample, charged to its state */
        if (g->have_prev) {
            double dt = (double)(s->mono_ns - g->prev_mono) / 1e9;
            if (dt > 0) {
                if (g->prev_used)
                    g->in_use_s += dt;
                if (g->prev_reasons >= 0) {
                    g->reasons_s += dt;
                    for (int k = 0; k < GM_REASON_COUNT; k++)
                        if ((uint64_t)g->prev_reasons & gm_reason_bit(k))
                            g->reason_s[k] += dt;
                }
                double p = gg->state == GM_GPU_OK ? val(s, gg, GM_M_POWER_DRAW) : NAN;
                if (!isnan(p) && !isnan(g->prev_power)) {
                    g->power_j += (p + g->prev_power) / 2 * dt;
                    g->power_s += dt;
                }
            }
        }
        g->have_prev = 1;
        g->prev_mono = s->mono_ns;
        g->prev_used = 0;
        g->prev_power = NAN;
        g->prev_reasons = -1;
        if (gg->state != GM_GPU_OK) {
            g->e_last_ok = 0;
            continue;
        }
        const char *name = gm_fmt_string(s, gg, NULL, GM_M_NAME);
        const char *uuid = gm_fmt_string(s, gg, NULL, GM_M_UUID);
        if (name && !g->name[0])
            snprintf(g->name, sizeof(g->name), "%s", name);
        if (uuid && !g->uuid[0])
            snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
        /* whose processes */
        if (!gg->procs_listed)
            g->list_unknown++;
        for (uint32_t k = 0; k < gg->nproc; k++) {
            uint32_t pid = s->procs[gg->proc_first + k].pid;
            if (!tree || !gm_pidset_has(tree, pid))
                continue;
            g->used = 1;
            g->prev_used = 1;
            int known = 0;
            for (uint32_t j = 0; j < g->npids && !known; j++)
                known = g->pids[j] == pid;
            if (!known && g->npids < GM_RUNSUM_PIDS)
                g->pids[g->npids++] = pid;
        }
        double u = val(s, gg, GM_M_UTIL_GPU);
        if (!isnan(u)) {
            g->util_n++;
            g->util_sum += u;
            if (g->util_n == 1 || u > g->util_max)
                g->util_max = u;
        }
        double m = val(s, gg, GM_M_MEM_USED);
        if (!isnan(m)) {
            g->mem_n++;
            g->mem_sum += m;
            if (g->mem_n == 1 || m > g->mem_max)
                g->mem_max = m;
        }
        double mt = val(s, gg, GM_M_MEM_TOTAL);
        if (!isnan(mt))
            g->mem_total = mt;
        double e = val(s, gg, GM_M_ENERGY);
        if (!isnan(e)) {
            if (r->nsamples == 1) {
                g->e_first_ok = 1;
                g->e_first = e;
            } else if (g->e_first_ok && e < g->e_last) {
                g->e_down = 1;
            }
            g->e_last = e;
            g->e_last_ok = 1;
        } else {
            g->e_last_ok = 0;
        }
        g->prev_power = val(s, gg, GM_M_POWER_DRAW);
        const struct gm_value *rv = gm_gpu_value(s, gg, GM_M_CER_ACTIVE);
        if (rv && gm_v_ok(rv))
            g->prev_reasons = (int64_t)(rv->v.u & ~(uint64_t)GM_DG_R_GPU_IDLE & INT64_MAX);
    }
    /* 10 % slack: samples on a 100 ms grid arrive a little early or late */
    if (r->dg_points == 0 || s->wall_ns - r->dg_last_wall >= DG_EVERY_NS / 10 * 9) {
        gm_dg_add_snapshot(r->dg, s, 0);
        r->dg_last_wall = s->wall_ns;
        r->dg_points++;
    }
}

double gm_runsum_energy_j(const struct gm_runsum_gpu *g, enum gm_runsum_energy *src)
{
    if (g->e_first_ok && g->e_last_ok && !g->e_down) {
        *src = GM_RE_COUNTER;
        return g->e_last - g->e_first;
    }
    if (g->power_s > 0) {
        *src = GM_RE_POWER;
        return g->power_j;
    }
    *src = GM_RE_NONE;
    return NAN;
}

uint32_t gm_runsum_nused(const struct gm_runsum *r)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < r->ngpu; k++)
        n += r->gpus[k].used != 0;
    return n;
}

static const char *energy_src_name(enum gm_runsum_energy e)
{
    return e == GM_RE_COUNTER ? "counter" : e == GM_RE_POWER ? "power" : NULL;
}

/* ------------------------------------------------------------------ text */

/* v with dec decimals and its unit, or "N/A" */
static void num(struct gm_buf *b, double v, int dec, const char *unit)
{
    if (isnan(v)) {
        gm_buf_puts(b, "N/A");
        return;
    }
    gm_buf_printf(b, "%.*f%s", dec, v, unit);
}

static void bytes(struct gm_buf *b, double v)
{
    char tmp[32];
    gm_buf_puts(b, isnan(v) ? "N/A" : gm_fmt_bytes(v, tmp, sizeof(tmp)));
}

static void cmdline(struct gm_buf *b, const struct gm_run_info *in, int utf8)
{
    for (int i = 0; i < in->argc; i++) {
        if (i)
            gm_buf_putc(b, ' ');
        gm_text_term(b, in->argv[i], strlen(in->argv[i]), utf8);
    }
}

static const struct gm_dg_verdict *verdict_of(const struct gm_dg_result *res, uint32_t index)
{
    for (size_t k = 0; res && k < res->ngpu; k++)
        if (res->gpus[k].index == index)
            return &res->gpus[k];
    return NULL;
}

static int finding_names(const struct gm_dg_finding *f, uint32_t index)
{
    for (uint32_t k = 0; k < f->ngpu; k++)
        if (f->gpus[k] == index)
            return 1;
    return 0;
}

/* Evaluates the diagnosis when there are enough points; 0 when it ran. */
static int diagnose(const struct gm_runsum *r, struct gm_dg_result *res)
{
    memset(res, 0, sizeof(*res));
    if (r->dg_points < GM_RUNSUM_DG_MIN)
        return -1;
    return gm_dg_eval(r->dg, 0, 0, res) == 0 ? 0 : -1;
}

void gm_runsum_text(const struct gm_runsum *r, const struct gm_run_info *in, int utf8,
                    struct gm_buf *b)
{
    gm_buf_puts(b, "gpumon run: ");
    cmdline(b, in, utf8);
    gm_buf_putc(b, '\n');
    char dur[64], ivl[64];
    snprintf(dur, sizeof(dur), "%.2f s", (double)in->duration_ns / 1e9);
    gm_duration_fine(in->interval_ns, ivl, sizeof(ivl));
    if (in->signal)
        gm_buf_printf(b, "  killed by signal %d (exit status %d) after %s", in->signal,
                      in->exit_code, dur);
    else
        gm_buf_printf(b, "  exit status %d after %s", in->exit_code, dur);
    gm_buf_printf(b, "; %llu samples every %s", (unsigned long long)r->nsamples, ivl);
    if (in->task) {
        gm_buf_puts(b, "; task ");
        gm_text_term(b, in->task, strlen(in->task), utf8);
    }
    gm_buf_putc(b, '\n');
    if (in->nvml_error) {
        gm_buf_puts(b, r->nsamples ? "  some GPU samples missing: " : "  no GPU samples: ");
        gm_text_term(b, in->nvml_error, strlen(in->nvml_error), utf8);
        gm_buf_putc(b, '\n');
        if (!r->nsamples)
            return;
    }
    uint32_t nused = gm_runsum_nused(r);
    gm_buf_puts(b, "  GPUs used: ");
    if (!nused)
        gm_buf_puts(b, "none (no process of the command's tree appeared in a GPU's process list)");
    for (uint32_t k = 0, first = 1; k < r->ngpu; k++)
        if (r->gpus[k].used) {
            gm_buf_printf(b, "%s%u", first ? "" : ", ", r->gpus[k].index);
            first = 0;
        }
    gm_buf_putc(b, '\n');
    struct gm_dg_result res;
    int have_dg = nused ? diagnose(r, &res) : -1;
    for (uint32_t k = 0; k < r->ngpu; k++) {
        const struct gm_runsum_gpu *g = &r->gpus[k];
        if (!g->used)
            continue;
        gm_buf_printf(b, "  GPU %u  ", g->index);
        gm_text_term(b, g->name[0] ? g->name : "N/A", strlen(g->name[0] ? g->name : "N/A"), utf8);
        gm_buf_printf(b, "  in use %.1f s by pid", g->in_use_s);
        gm_buf_puts(b, g->npids > 1 ? "s " : " ");
        for (uint32_t j = 0; j < g->npids; j++)
            gm_buf_printf(b, "%s%u", j ? ", " : "", g->pids[j]);
        gm_buf_putc(b, '\n');
        enum gm_runsum_energy src;
        double e = gm_runsum_energy_j(g, &src);
        gm_buf_puts(b, "    energy        ");
        num(b, isnan(e) ? NAN : e / 3600.0, 4, " Wh");
        gm_buf_puts(b, src == GM_RE_COUNTER ? " (energy counter)\n"
                       : src == GM_RE_POWER ? " (power.draw integrated: no energy counter)\n"
                                            : " (no energy counter, no power reading)\n");
        gm_buf_puts(b, "    utilisation   avg ");
        num(b, g->util_n ? g->util_sum / (double)g->util_n : NAN, 1, " %");
        gm_buf_puts(b, "  peak ");
        num(b, g->util_n ? g->util_max : NAN, 0, " %");
        gm_buf_puts(b, "\n    memory used   avg ");
        bytes(b, g->mem_n ? g->mem_sum / (double)g->mem_n : NAN);
        gm_buf_puts(b, "  peak ");
        bytes(b, g->mem_n ? g->mem_max : NAN);
        gm_buf_puts(b, " of ");
        bytes(b, g->mem_total);
        gm_buf_puts(b, "\n    throttled     ");
        if (g->reasons_s <= 0) {
            gm_buf_puts(b, "N/A (clock event reasons not read)");
        } else {
            int any = 0;
            for (int q = 0; q < GM_REASON_COUNT; q++) {
                if (g->reason_s[q] <= 0)
                    continue;
                gm_buf_printf(b, "%s%s %.1f s (%.0f %%)", any ? ", " : "",
                              gm_reason_name(gm_reason_bit(q)), g->reason_s[q],
                              100.0 * g->reason_s[q] / g->reasons_s);
                any = 1;
            }
            if (!any)
                gm_buf_puts(b, "never");
        }
        gm_buf_puts(b, "\n    diagnosis     ");
        if (have_dg != 0) {
            gm_buf_printf(b, "not enough samples (%llu of the %d a diagnosis needs)\n",
                          (unsigned long long)r->dg_points, GM_RUNSUM_DG_MIN);
            continue;
        }
        const struct gm_dg_verdict *v = verdict_of(&res, g->index);
        if (!v || !v->has_findings) {
            gm_buf_printf(b, "%s\n", v ? gm_dg_cause_name(v->verdict) : "no verdict");
            continue;
        }
        int first = 1;
        for (size_t f = 0; f < res.nfinding; f++) {
            const struct gm_dg_finding *fd = &res.findings[f];
            if (!finding_names(fd, g->index))
                continue;
            gm_buf_printf(b, "%s%s (%s): ", first ? "" : "\n                  ",
                          gm_dg_cause_name(fd->cause), gm_dg_severity_name(fd->severity));
            gm_text_term(b, fd->evidence, strnlen(fd->evidence, sizeof(fd->evidence)), utf8);
            first = 0;
        }
        gm_buf_putc(b, '\n');
    }
    if (have_dg == 0)
        gm_dg_result_free(&res);
    gm_buf_puts(b, "  marks: ");
    if (strcmp(in->agent, "marked") == 0)
        gm_buf_puts(b, "start and end on the agent's timeline (");
    else if (strcmp(in->agent, "none") == 0)
        gm_buf_puts(b, "none: no agent runs (");
    else
        gm_buf_puts(b, "the agent refused or failed them (");
    gm_text_term(b, in->data_dir, strlen(in->data_dir), utf8);
    gm_buf_puts(b, ")\n");
}

/* ------------------------------------------------------------------ JSON */

static void jnum(struct gm_json *j, const char *key, double v, int dec)
{
    gm_json_key(j, key);
    if (isnan(v))
        gm_json_null(j);
    else
        gm_json_f64(j, v, dec);
}

static void jtime(struct gm_json *j, const char *key, int64_t wall_ns)
{
    char t[64];
    gm_json_key(j, key);
    gm_json_str(j, gm_time_iso(wall_ns, t, sizeof(t)));
}

void gm_runsum_json(const struct gm_runsum *r, const struct gm_run_info *in, int pretty,
                    struct gm_buf *b)
{
    struct gm_json j;
    gm_json_init(&j, b, pretty);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "schema");
    gm_json_str(&j, "gpumon.run/1");
    gm_json_key(&j, "command");
    gm_json_arr_begin(&j);
    for (int i = 0; i < in->argc; i++)
        gm_json_str(&j, in->argv[i]);
    gm_json_arr_end(&j);
    gm_json_key(&j, "task");
    if (in->task)
        gm_json_str(&j, in->task);
    else
        gm_json_null(&j);
    jtime(&j, "start", in->start_wall_ns);
    jtime(&j, "end", in->end_wall_ns);
    jnum(&j, "duration_s", (double)in->duration_ns / 1e9, 3);
    gm_json_key(&j, "exit_status");
    gm_json_i64(&j, in->exit_code);
    gm_json_key(&j, "signal");
    if (in->signal)
        gm_json_i64(&j, in->signal);
    else
        gm_json_null(&j);
    jnum(&j, "interval_s", (double)in->interval_ns / 1e9, 3);
    gm_json_key(&j, "samples");
    gm_json_u64(&j, r->nsamples);
    gm_json_key(&j, "marks");
    gm_json_str(&j, in->agent);
    gm_json_key(&j, "data_dir");
    gm_json_str(&j, in->data_dir);
    gm_json_key(&j, "nvml_error");
    if (in->nvml_error)
        gm_json_str(&j, in->nvml_error);
    else
        gm_json_null(&j);
    gm_json_key(&j, "gpus_used");
    gm_json_arr_begin(&j);
    for (uint32_t k = 0; k < r->ngpu; k++)
        if (r->gpus[k].used)
            gm_json_u64(&j, r->gpus[k].index);
    gm_json_arr_end(&j);
    struct gm_dg_result res;
    int have_dg = gm_runsum_nused(r) ? diagnose(r, &res) : -1;
    gm_json_key(&j, "diagnosis_points");
    gm_json_u64(&j, r->dg_points);
    gm_json_key(&j, "gpus");
    gm_json_arr_begin(&j);
    for (uint32_t k = 0; k < r->ngpu; k++) {
        const struct gm_runsum_gpu *g = &r->gpus[k];
        if (!g->used)
            continue;
        gm_json_obj_begin(&j);
        gm_json_key(&j, "index");
        gm_json_u64(&j, g->index);
        gm_json_key(&j, "uuid");
        if (g->uuid[0])
            gm_json_str(&j, g->uuid);
        else
            gm_json_null(&j);
        gm_json_key(&j, "name");
        if (g->name[0])
            gm_json_str(&j, g->name);
        else
            gm_json_null(&j);
        jnum(&j, "in_use_s", g->in_use_s, 3);
        gm_json_key(&j, "pids");
        gm_json_arr_begin(&j);
        for (uint32_t q = 0; q < g->npids; q++)
            gm_json_u64(&j, g->pids[q]);
        gm_json_arr_end(&j);
        enum gm_runsum_energy src;
        double e = gm_runsum_energy_j(g, &src);
        jnum(&j, "energy_wh", isnan(e) ? NAN : e / 3600.0, 6);
        gm_json_key(&j, "energy_source");
        if (energy_src_name(src))
            gm_json_str(&j, energy_src_name(src));
        else
            gm_json_null(&j);
        jnum(&j, "utilization_gpu_avg_percent", g->util_n ? g->util_sum / (double)g->util_n : NAN,
             2);
        jnum(&j, "utilization_gpu_peak_percent", g->util_n ? g->util_max : NAN, 2);
        gm_json_key(&j, "utilization_samples");
        gm_json_u64(&j, g->util_n);
        jnum(&j, "memory_used_avg_bytes", g->mem_n ? g->mem_sum / (double)g->mem_n : NAN, 0);
        jnum(&j, "memory_used_peak_bytes", g->mem_n ? g->mem_max : NAN, 0);
        jnum(&j, "memory_total_bytes", g->mem_total, 0);
        gm_json_key(&j, "throttled_s");
        if (g->reasons_s <= 0) {
            gm_json_null(&j);
        } else {
            gm_json_obj_begin(&j);
            for (int q = 0; q < GM_REASON_COUNT; q++)
                if (gm_reason_bit(q) != GM_DG_R_GPU_IDLE)
                    jnum(&j, gm_reason_name(gm_reason_bit(q)), g->reason_s[q], 3);
            gm_json_obj_end(&j);
        }
        jnum(&j, "reasons_known_s", g->reasons_s, 3);
        gm_json_key(&j, "verdict");
        const struct gm_dg_verdict *v = have_dg == 0 ? verdict_of(&res, g->index) : NULL;
        if (v && !v->has_findings)
            gm_json_str(&j, gm_dg_cause_name(v->verdict));
        else if (v)
            gm_json_str(&j, "findings");
        else
            gm_json_null(&j);
        gm_json_key(&j, "findings");
        if (have_dg != 0) {
            gm_json_null(&j);
        } else {
            gm_json_arr_begin(&j);
            for (size_t f = 0; f < res.nfinding; f++) {
                const struct gm_dg_finding *fd = &res.findings[f];
                if (!finding_names(fd, g->index))
                    continue;
                gm_json_obj_begin(&j);
                gm_json_key(&j, "cause");
                gm_json_str(&j, gm_dg_cause_name(fd->cause));
                gm_json_key(&j, "severity");
                gm_json_str(&j, gm_dg_severity_name(fd->severity));
                jnum(&j, "confidence", fd->confidence, 2);
                gm_json_key(&j, "evidence");
                gm_json_strn(&j, fd->evidence, strnlen(fd->evidence, sizeof(fd->evidence)));
                gm_json_obj_end(&j);
            }
            gm_json_arr_end(&j);
        }
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    if (have_dg == 0)
        gm_dg_result_free(&res);
    gm_json_obj_end(&j);
    gm_buf_putc(b, '\n');
}
