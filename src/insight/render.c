/* render.c -- a diagnosis as JSON (schema gpumon.diagnose/1) or as text.
 *
 * Both outputs come from the same result; the JSON shape is documented in
 * docs/diagnose.md and kept stable (new keys may be added).  GPU names,
 * UUIDs and job names come from outside: JSON escapes them (json.h), text
 * makes them safe for a terminal (text.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/json.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "diagnose.h"

static void iso(struct gm_json *j, const char *key, int64_t ns)
{
    char b[64];
    gm_json_key(j, key);
    if (ns)
        gm_json_str(j, gm_time_iso(ns, b, sizeof b));
    else
        gm_json_null(j);
}

static const char *verdict_name(const struct gm_dg_verdict *v)
{
    if (v->verdict == GM_DG_GPU_LOST)
        return "lost";
    return v->has_findings ? "findings" : gm_dg_cause_name(v->verdict);
}

void gm_dg_json(const struct gm_dg *d, const struct gm_dg_result *r, const char *source, int pretty,
                struct gm_buf *out)
{
    struct gm_json j;
    gm_json_init(&j, out, pretty);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "schema");
    gm_json_str(&j, "gpumon.diagnose/1");
    gm_json_key(&j, "source");
    gm_json_str(&j, source);
    gm_json_key(&j, "window");
    gm_json_obj_begin(&j);
    iso(&j, "start", r->start_ns);
    iso(&j, "end", r->end_ns);
    gm_json_key(&j, "seconds");
    gm_json_f64(&j, (double)(r->end_ns - r->start_ns) / 1e9, 1);
    gm_json_obj_end(&j);
    gm_json_key(&j, "gpus");
    gm_json_arr_begin(&j);
    for (size_t i = 0; i < r->ngpu; i++) {
        const struct gm_dg_verdict *v = &r->gpus[i];
        struct gm_dg_gpu_info info = gm_dg_gpu(d, v->index);
        gm_json_obj_begin(&j);
        gm_json_key(&j, "index");
        gm_json_u64(&j, v->index);
        gm_json_key(&j, "uuid");
        if (info.uuid[0])
            gm_json_str(&j, info.uuid);
        else
            gm_json_null(&j);
        gm_json_key(&j, "name");
        if (info.name[0])
            gm_json_str(&j, info.name);
        else
            gm_json_null(&j);
        gm_json_key(&j, "verdict");
        gm_json_str(&j, verdict_name(v));
        gm_json_key(&j, "causes");
        gm_json_arr_begin(&j);
        for (int c = 0; c < GM_DG__COUNT; c++)
            if (v->causes & (UINT64_C(1) << c))
                gm_json_str(&j, gm_dg_cause_name((enum gm_dg_cause)c));
        gm_json_arr_end(&j);
        gm_json_key(&j, "samples");
        gm_json_u64(&j, v->npoints);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_key(&j, "findings");
    gm_json_arr_begin(&j);
    for (size_t i = 0; i < r->nfinding; i++) {
        const struct gm_dg_finding *f = &r->findings[i];
        gm_json_obj_begin(&j);
        gm_json_key(&j, "cause");
        gm_json_str(&j, gm_dg_cause_name(f->cause));
        gm_json_key(&j, "severity");
        gm_json_str(&j, gm_dg_severity_name(f->severity));
        gm_json_key(&j, "gpus");
        gm_json_arr_begin(&j);
        for (uint32_t k = 0; k < f->ngpu; k++)
            gm_json_u64(&j, f->gpus[k]);
        gm_json_arr_end(&j);
        iso(&j, "start", f->start_ns);
        iso(&j, "end", f->end_ns);
        gm_json_key(&j, "confidence");
        gm_json_f64(&j, f->confidence, 2);
        gm_json_key(&j, "evidence");
        gm_json_str(&j, f->evidence);
        gm_json_key(&j, "values");
        gm_json_obj_begin(&j);
        for (uint32_t k = 0; k < f->nvalues; k++) {
            gm_json_key(&j, f->values[k].key);
            gm_json_f64(&j, f->values[k].v, 4); /* NAN: null */
        }
        gm_json_obj_end(&j);
        gm_json_key(&j, "advice");
        gm_json_str(&j, f->advice);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
}

void gm_dg_text(const struct gm_dg *d, const struct gm_dg_result *r, const char *source, int utf8,
                struct gm_buf *out)
{
    char a[64], b[64];
    gm_buf_printf(out, "diagnosis from %s, %s to %s (%.0f s)\n", source,
                  r->start_ns ? gm_time_iso(r->start_ns, a, sizeof a) : "-",
                  r->end_ns ? gm_time_iso(r->end_ns, b, sizeof b) : "-",
                  (double)(r->end_ns - r->start_ns) / 1e9);
    for (size_t i = 0; i < r->ngpu; i++) {
        const struct gm_dg_verdict *v = &r->gpus[i];
        struct gm_dg_gpu_info info = gm_dg_gpu(d, v->index);
        gm_buf_printf(out, "GPU %u  ", v->index);
        gm_text_term(out, info.name[0] ? info.name : "(name N/A)",
                     strlen(info.name[0] ? info.name : "(name N/A)"), utf8);
        gm_buf_printf(out, "  %s", verdict_name(v));
        if (v->has_findings) {
            const char *sep = ": ";
            for (int c = 0; c < GM_DG__COUNT; c++)
                if (v->causes & (UINT64_C(1) << c)) {
                    gm_buf_printf(out, "%s%s", sep, gm_dg_cause_name((enum gm_dg_cause)c));
                    sep = ", ";
                }
        }
        gm_buf_printf(out, "  (%zu samples)\n", v->npoints);
    }
    for (size_t i = 0; i < r->nfinding; i++) {
        const struct gm_dg_finding *f = &r->findings[i];
        gm_buf_printf(out, "\n%s [%s] GPU", gm_dg_cause_name(f->cause),
                      gm_dg_severity_name(f->severity));
        for (uint32_t k = 0; k < f->ngpu; k++)
            gm_buf_printf(out, "%s%u", k ? "," : " ", f->gpus[k]);
        gm_buf_printf(out, "  confidence %.2f  %s .. %s\n", f->confidence,
                      gm_time_iso(f->start_ns, a, sizeof a), gm_time_iso(f->end_ns, b, sizeof b));
        gm_buf_puts(out, "  evidence: ");
        gm_text_term(out, f->evidence, strlen(f->evidence), utf8);
        gm_buf_puts(out, "\n  next: ");
        gm_buf_puts(out, f->advice);
        gm_buf_putc(out, '\n');
    }
}
