/* diagstage.c -- the agent's running diagnosis (see diagstage.h). */
#include "diagstage.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cause.h"
#include "../core/err.h"
#include "../core/event.h"
#include "../core/log.h"
#include "../insight/diagnose.h"

#define MAXG 64

struct gstate {
    uint32_t active;               /* bit per enum gm_cause */
    uint8_t miss[GM_CAUSE__COUNT]; /* evaluations in a row without it */
    char uuid[96];
};

struct gm_diagstage {
    struct gm_dg *dg;
    int64_t kept_ns; /* the detectors keep this much (the window when made) */
    _Atomic int enabled;
    _Atomic int64_t window_ns, every_ns;
    int64_t first_ns, last_ns, last_eval_ns;
    int evaluated;
    struct gstate g[MAXG];
};

static struct gm_dg *dg_new(int64_t keep_ns)
{
    struct gm_dg_opts o = {.max_age_ns = keep_ns};
    return gm_dg_new(&o);
}

struct gm_diagstage *gm_diagstage_new(int enabled, int64_t window_ns, int64_t every_ns)
{
    struct gm_diagstage *ds = gm_xcalloc(1, sizeof(*ds));
    atomic_init(&ds->enabled, enabled);
    ds->kept_ns = window_ns;
    ds->dg = dg_new(window_ns);
    atomic_init(&ds->window_ns, window_ns);
    atomic_init(&ds->every_ns, every_ns);
    return ds;
}

void gm_diagstage_free(struct gm_diagstage *ds)
{
    if (!ds)
        return;
    gm_dg_free(ds->dg);
    free(ds);
}

void gm_diagstage_set(struct gm_diagstage *ds, int enabled, int64_t window_ns, int64_t every_ns)
{
    atomic_store(&ds->enabled, enabled);
    atomic_store(&ds->window_ns, window_ns);
    atomic_store(&ds->every_ns, every_ns);
}

/* Starts the detectors' points over (a longer window, a clock stepped
 * back); the findings stay until evaluations say otherwise. */
static void restart(struct gm_diagstage *ds, int64_t window_ns)
{
    gm_dg_free(ds->dg);
    ds->kept_ns = window_ns;
    ds->dg = dg_new(window_ns);
    ds->first_ns = 0;
    ds->last_ns = 0;
}

static void event_of(struct gm_event *e, int gpu, const char *uuid, int64_t wall_ns, int cause,
                     int ended)
{
    memset(e, 0, sizeof(*e));
    e->type = GM_EV_DIAG;
    e->gpu = gpu;
    e->wall_ns = wall_ns;
    e->code = cause | (ended ? GM_CAUSE_EV_ENDED : 0);
    e->state = ended ? GM_AL_RESOLVED : GM_AL_FIRING;
    gm_strlcpy(e->uuid, uuid, sizeof(e->uuid));
    gm_strlcpy(e->rule, "diagnosis", sizeof(e->rule));
}

static void begin(struct gm_diagstage *ds, uint32_t idx, int cause, const struct gm_dg_finding *f,
                  int64_t wall_ns, const struct gm_sampler_emit *to)
{
    struct gm_event e;
    event_of(&e, (int)idx, ds->g[idx].uuid, wall_ns, cause, 0);
    e.severity = f->severity == GM_DG_CRITICAL ? GM_SEV_CRITICAL : GM_SEV_WARNING;
    snprintf(e.text, sizeof(e.text), "%s began (%s, confidence %.0f %%): %s; next: %s",
             gm_cause_name(cause), gm_dg_severity_name(f->severity), 100.0 * f->confidence,
             f->evidence, f->advice ? f->advice : "-");
    gm_log(f->severity == GM_DG_INFO ? GM_LOG_NOTICE : GM_LOG_WARNING, "GPU %u: diagnosis: %s", idx,
           e.text);
    gm_sampler_emit(to, &e);
}

static void end(struct gm_diagstage *ds, uint32_t idx, int cause, int64_t wall_ns,
                void (*send)(void *arg, const struct gm_event *e), void *arg, const char *why)
{
    struct gm_event e;
    event_of(&e, (int)idx, ds->g[idx].uuid, wall_ns, cause, 1);
    snprintf(e.text, sizeof(e.text), "%s ended (%s)", gm_cause_name(cause), why);
    gm_log(GM_LOG_NOTICE, "GPU %u: diagnosis: %s", idx, e.text);
    send(arg, &e);
}

static void send_to(void *arg, const struct gm_event *e)
{
    gm_sampler_emit(arg, e);
}

static void evaluate(struct gm_diagstage *ds, const struct gm_snapshot *s, int64_t window_ns,
                     const struct gm_sampler_emit *to)
{
    struct gm_dg_result r;
    memset(&r, 0, sizeof(r));
    if (gm_dg_eval(ds->dg, s->wall_ns - window_ns, s->wall_ns, &r) != 0)
        return;
    uint32_t present[MAXG] = {0};
    const struct gm_dg_finding *why[MAXG][GM_CAUSE__COUNT];
    memset(why, 0, sizeof(why));
    for (size_t i = 0; i < r.nfinding; i++) {
        const struct gm_dg_finding *f = &r.findings[i];
        const char *name = gm_dg_cause_name(f->cause);
        int c = gm_cause_find(name, strlen(name));
        if (c < 0)
            continue; /* a negative verdict is no finding */
        for (uint32_t k = 0; k < f->ngpu && k < 64; k++)
            if (f->gpus[k] < MAXG) {
                present[f->gpus[k]] |= 1u << c;
                why[f->gpus[k]][c] = f;
            }
    }
    for (uint32_t k = 0; k < s->ngpu; k++) {
        uint32_t idx = s->gpus[k].index;
        if (idx >= MAXG)
            continue;
        struct gstate *g = &ds->g[idx];
        if (s->gpus[k].str[GM_S_UUID][0])
            gm_strlcpy(g->uuid, s->gpus[k].str[GM_S_UUID], sizeof(g->uuid));
        for (int c = 0; c < GM_CAUSE__COUNT; c++) {
            uint32_t bit = 1u << c;
            if (present[idx] & bit) {
                g->miss[c] = 0;
                if (!(g->active & bit)) {
                    g->active |= bit;
                    begin(ds, idx, c, why[idx][c], s->wall_ns, to);
                }
            } else if ((g->active & bit) && ++g->miss[c] >= GM_DIAGSTAGE_END_MISSES) {
                g->active &= ~bit;
                g->miss[c] = 0;
                end(ds, idx, c, s->wall_ns, send_to, (void *)to, "no longer found");
            }
        }
    }
    gm_dg_result_free(&r);
}

void gm_diagstage_inspect(void *arg, struct gm_snapshot *s, const struct gm_sampler_emit *to)
{
    struct gm_diagstage *ds = arg;
    if (!atomic_load(&ds->enabled)) {
        if (ds->evaluated) { /* turned off by a reload: end what was found, forget the points */
            for (uint32_t idx = 0; idx < MAXG; idx++)
                for (int c = 0; c < GM_CAUSE__COUNT; c++)
                    if (ds->g[idx].active & (1u << c)) {
                        ds->g[idx].active &= ~(1u << c);
                        end(ds, idx, c, s->wall_ns, send_to, (void *)to, "diagnosis turned off");
                    }
            ds->evaluated = 0;
            restart(ds, atomic_load(&ds->window_ns));
        }
        return;
    }
    if (s->driver != GM_DRV_OK)
        return; /* nothing known now; the findings wait for NVML */
    int64_t window = atomic_load(&ds->window_ns), every = atomic_load(&ds->every_ns);
    if (window > ds->kept_ns || (ds->last_ns && s->wall_ns < ds->last_ns))
        restart(ds, window);
    gm_dg_add_snapshot(ds->dg, s, 0);
    if (!ds->first_ns)
        ds->first_ns = s->wall_ns;
    ds->last_ns = s->wall_ns;
    int64_t need = window / 2 < GM_DIAGSTAGE_MIN_SPAN_NS ? window / 2 : GM_DIAGSTAGE_MIN_SPAN_NS;
    if (s->wall_ns - ds->first_ns >= need &&
        (!ds->evaluated || s->wall_ns - ds->last_eval_ns >= every ||
         s->wall_ns < ds->last_eval_ns)) {
        evaluate(ds, s, window, to);
        ds->evaluated = 1;
        ds->last_eval_ns = s->wall_ns;
    }
    if (!ds->evaluated)
        return;
    for (uint32_t k = 0; k < s->ngpu; k++) {
        struct gm_gpu *g = &s->gpus[k];
        if (g->index >= MAXG)
            continue;
        g->diag = ds->g[g->index].active;
        g->diag_known = 1;
    }
}

void gm_diagstage_finish(struct gm_diagstage *ds, int64_t wall_ns,
                         void (*send)(void *arg, const struct gm_event *e), void *arg)
{
    for (uint32_t idx = 0; idx < MAXG; idx++)
        for (int c = 0; c < GM_CAUSE__COUNT; c++)
            if (ds->g[idx].active & (1u << c)) {
                ds->g[idx].active &= ~(1u << c);
                end(ds, idx, c, wall_ns, send, arg, "agent stopped");
            }
}
