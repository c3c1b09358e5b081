/* nvml_gpm.c -- the NVML source's GPM metrics (Hopper and later; see
 * nvml_int.h and GM_NVML_GPM_PRIME in nvml.h): one interval between two
 * GPM samples per GPU and per MIG GPU instance, the previous sample kept in
 * struct dev between gm_nvml_sample calls, and the second sample of a
 * primed read after one wait for the whole snapshot.  The simulator
 * answers these in sim/api_gpm.c.
 */
#include "nvml_int.h"

#include <stddef.h>
#include <string.h>

#include "../core/timeutil.h"

/* Frees a GPU's GPM samples (while the library is still loaded) and
 * forgets its GPM state. */
void gm_nv_free_gpm(struct gm_nvml *n, struct dev *d)
{
    for (int k = 0; k < 2; k++) {
        if (d->gpm[k] && n->f.nvmlGpmSampleFree && n->inited)
            n->f.nvmlGpmSampleFree(d->gpm[k]);
        d->gpm[k] = NULL;
    }
    d->gpm_have_prev = 0;
    d->gpm_asked = 0;
    for (int m = 0; m < GM_MIG_MAX; m++) {
        struct mig_gpm *mg = &d->mgpm[m];
        for (int k = 0; k < 2; k++) {
            if (mg->s[k] && n->f.nvmlGpmSampleFree && n->inited)
                n->f.nvmlGpmSampleFree(mg->s[k]);
            mg->s[k] = NULL;
        }
        memset(mg, 0, sizeof(*mg));
    }
}

/* A GPU that went down: its GPM intervals (the device's and its GPU
 * instances') start again when it comes back. */
void gm_nv_gpm_restart(struct dev *d)
{
    d->gpm_have_prev = 0;
    for (int m = 0; m < GM_MIG_MAX; m++)
        d->mgpm[m].have_prev = 0;
}

/* Every GPM metric of the GPU gets status rc (not supported, no data yet,
 * an error). */
static void gpm_set_all(struct gm_gpu *g, nvmlReturn_t rc)
{
    for (int id = GM_GPM_FIRST; id < GM_GPM_FIRST + GM_GPM_COUNT; id++)
        setv(g, id, rc, gm_v_f64(0));
}

/* Whether the GPU can do GPM: asked once per GPU (per handle), with the
 * samples allocated on the first yes. */
static nvmlReturn_t gpm_ready(struct rd *r, struct dev *d)
{
    if (d->gpm_asked)
        return d->gpm_off;
    nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
    nvmlReturn_t rc = RCALL(r, nvmlGpmQueryDeviceSupport, &sup);
    if (rc == NVML_SUCCESS && !sup.isSupportedDevice)
        rc = NVML_ERROR_NOT_SUPPORTED;
    for (int k = 0; k < 2 && rc == NVML_SUCCESS; k++)
        rc = CALL(r->n, r->i, nvmlGpmSampleAlloc, &d->gpm[k]);
    if (rc == NVML_ERROR_GPU_IS_LOST || driver_gone(rc))
        return rc; /* asked again on the GPU's next read */
    d->gpm_asked = 1;
    d->gpm_off = rc;
    return rc;
}

/* Takes the GPU's next sample into the free buffer. */
static nvmlReturn_t gpm_take(struct rd *r, struct dev *d)
{
    return RCALL(r, nvmlGpmSampleGet, d->gpm[!d->gpm_prev]);
}

/* A failed GPM sample: no interval to continue from; a GPU that cannot
 * sample (NOT_SUPPORTED, no symbol) is not asked again. */
static void gpm_fail(struct rd *r, struct dev *d, nvmlReturn_t rc)
{
    d->gpm_have_prev = 0;
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        d->gpm_asked = 1;
        d->gpm_off = rc;
    }
    gpm_set_all(r->g, rc);
    note(r, rc);
}

/* The GPM metrics of the interval from sample s1 to s2 into out[] (one
 * value per GPM row, GM_GPM_FIRST on): a metric NVML answers with its own
 * error gets that status; the call's error, every one.  Returns the call's
 * code. */
static nvmlReturn_t gpm_compute(struct gm_nvml *n, int i, nvmlGpmSample_t s1, nvmlGpmSample_t s2,
                                struct gm_value out[GM_GPM_COUNT])
{
    nvmlGpmMetricsGet_t mg;
    memset(&mg, 0, offsetof(nvmlGpmMetricsGet_t, metrics));
    mg.version = NVML_GPM_METRICS_GET_VERSION;
    mg.numMetrics = GM_GPM_COUNT; /* NVML touches metrics[0 .. numMetrics-1] only */
    mg.sample1 = s1;
    mg.sample2 = s2;
    for (int k = 0; k < GM_GPM_COUNT; k++) {
        memset(&mg.metrics[k], 0, sizeof(mg.metrics[k]));
        mg.metrics[k].metricId = gm_metrics[GM_GPM_FIRST + k].gpm_id;
    }
    nvmlReturn_t rc = CALL(n, i, nvmlGpmMetricsGet, &mg);
    for (int k = 0; k < GM_GPM_COUNT; k++) {
        int id = GM_GPM_FIRST + k;
        nvmlReturn_t mrc = rc == NVML_SUCCESS ? mg.metrics[k].nvmlReturn : rc;
        double v = mg.metrics[k].value;
        if (mrc == NVML_SUCCESS && (v != v || v < 0)) /* NaN or negative: not a reading */
            mrc = NVML_ERROR_UNKNOWN;
        if (mrc != NVML_SUCCESS)
            out[k] = gm_v_status(gm_v_status_from_nvml(mrc), mrc);
        else if (gm_metrics[id].unit == GM_U_BYTES_PER_S) /* NVML: MiB/s; ours: whole bytes/s */
            out[k] = gm_v_u64((uint64_t)(v * 1048576.0 + 0.5));
        else
            out[k] = gm_v_f64(v);
    }
    return rc;
}

/* Takes the GPU's next sample and the metrics of the interval since the
 * previous one (gpm[gpm_prev]); the new sample starts the next interval. */
static void gpm_finish(struct rd *r, struct dev *d)
{
    nvmlReturn_t rc = gpm_take(r, d);
    if (rc != NVML_SUCCESS) {
        gpm_fail(r, d, rc);
        return;
    }
    rc = gpm_compute(r->n, r->i, d->gpm[d->gpm_prev], d->gpm[!d->gpm_prev], &r->g->m[GM_GPM_FIRST]);
    d->gpm_prev = !d->gpm_prev;
    note(r, rc);
}

/* GPM: one interval per sample.  The previous GPM sample is kept per GPU,
 * so the agent, dmon and top pay one nvmlGpmSampleGet and one
 * nvmlGpmMetricsGet per GPU and sample.  A GPU's first read has no interval
 * yet: it is "not yet available" (NA, NVML_ERROR_NO_DATA), unless
 * GM_NVML_GPM_PRIME asks for an interval now: then the GPU is left pending
 * and gm_nv_gpm_primed() finishes every pending GPU after one wait of
 * GM_NVML_GPM_PRIME_MS for the whole sample (one-shot commands). */
void gm_nv_rd_gpm(struct rd *r)
{
    struct dev *d = &r->n->dev[r->i];
    nvmlReturn_t rc = gpm_ready(r, d);
    if (rc != NVML_SUCCESS) {
        gpm_fail(r, d, rc);
        return;
    }
    if (d->gpm_have_prev) {
        gpm_finish(r, d);
        return;
    }
    rc = gpm_take(r, d);
    if (rc != NVML_SUCCESS) {
        gpm_fail(r, d, rc);
        return;
    }
    d->gpm_prev = !d->gpm_prev;
    d->gpm_have_prev = 1;
    gpm_set_all(r->g, NVML_ERROR_NO_DATA);
    if (r->n->flags & GM_NVML_GPM_PRIME) {
        d->gpm_pending = 1;
        if (!r->n->gpm_prime_ns)
            r->n->gpm_prime_ns = gm_mono_ns() + (int64_t)GM_NVML_GPM_PRIME_MS * 1000000;
    }
}

/* Every GPM value of a GPU instance gets status rc (NOT_FOUND: the instance
 * has no GPM, not supported). */
static void mig_gpm_set_all(struct gm_mig *mg, nvmlReturn_t rc)
{
    enum gm_vstatus st = rc == NVML_ERROR_NOT_FOUND ? GM_VS_UNSUPPORTED : gm_v_status_from_nvml(rc);
    for (int k = 0; k < GM_GPM_COUNT; k++)
        mg->gpm[k] = gm_v_status(st, rc);
}

/* A failed sample of a GPU instance: no interval to continue from; an
 * instance that cannot sample (NOT_SUPPORTED, NOT_FOUND, no symbol) is not
 * asked again. */
static void mig_gpm_fail(struct mig_gpm *m, struct gm_mig *mg, nvmlReturn_t rc)
{
    m->have_prev = 0;
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_NOT_FOUND ||
        rc == NVML_ERROR_FUNCTION_NOT_FOUND)
        m->off = rc;
    mig_gpm_set_all(mg, rc);
}

/* Takes the instance's next sample and the metrics of the interval since
 * the previous one. */
static void mig_gpm_finish(struct gm_nvml *n, int i, nvmlDevice_t h, struct mig_gpm *m,
                           struct gm_mig *mg)
{
    nvmlReturn_t rc = CALL(n, i, nvmlGpmMigSampleGet, h, m->gi, m->s[!m->prev]);
    if (rc != NVML_SUCCESS) {
        mig_gpm_fail(m, mg, rc);
        return;
    }
    gpm_compute(n, i, m->s[m->prev], m->s[!m->prev], mg->gpm);
    m->prev = !m->prev;
}

/* GPM of each GPU instance of a GPU in MIG mode, after gm_nv_read_mig and the
 * GPU's own GPM read (gm_nv_rd_gpm): as the GPU's, one interval per sample with
 * the previous sample kept per instance, the first read "not yet available"
 * or (GM_NVML_GPM_PRIME) finished by gm_nv_gpm_primed().  A GPU without GPM has
 * none on its instances either: they are not asked. */
void gm_nv_read_mig_gpm(struct gm_nvml *n, int i, struct dev *d, struct gm_gpu *g)
{
    for (uint32_t k = g->nmig; k < GM_MIG_MAX; k++)
        d->mgpm[k].have_prev = 0; /* an instance listed again starts a new interval */
    for (uint32_t k = 0; k < g->nmig; k++) {
        struct gm_mig *mg = &g->mig[k];
        struct mig_gpm *m = &d->mgpm[k];
        if (!d->gpm_asked || d->gpm_off != NVML_SUCCESS) {
            mig_gpm_set_all(mg, d->gpm_asked ? d->gpm_off : NVML_ERROR_NOT_SUPPORTED);
            continue;
        }
        if (mg->gpu_instance_id == GM_NO_INSTANCE) {
            /* its id is unknown: nothing to ask, for the reason the id is missing */
            nvmlReturn_t why = (nvmlReturn_t)mg->gpu_instance_code;
            mig_gpm_set_all(mg, why != NVML_SUCCESS ? why : NVML_ERROR_NOT_FOUND);
            continue;
        }
        if (m->gi != mg->gpu_instance_id) {
            m->gi = mg->gpu_instance_id;
            m->have_prev = 0;
            m->off = NVML_SUCCESS;
        }
        if (m->off != NVML_SUCCESS) {
            mig_gpm_set_all(mg, m->off);
            continue;
        }
        nvmlReturn_t rc = NVML_SUCCESS;
        for (int b = 0; b < 2 && rc == NVML_SUCCESS; b++)
            if (!m->s[b])
                rc = CALL(n, i, nvmlGpmSampleAlloc, &m->s[b]);
        if (rc != NVML_SUCCESS) { /* asked again next sample */
            mig_gpm_set_all(mg, rc);
            continue;
        }
        if (m->have_prev) {
            mig_gpm_finish(n, i, d->h, m, mg);
            continue;
        }
        rc = CALL(n, i, nvmlGpmMigSampleGet, d->h, m->gi, m->s[!m->prev]);
        if (rc != NVML_SUCCESS) {
            mig_gpm_fail(m, mg, rc);
            continue;
        }
        m->prev = !m->prev;
        m->have_prev = 1;
        mig_gpm_set_all(mg, NVML_ERROR_NO_DATA);
        if (n->flags & GM_NVML_GPM_PRIME) {
            m->pending = 1;
            if (!n->gpm_prime_ns)
                n->gpm_prime_ns = gm_mono_ns() + (int64_t)GM_NVML_GPM_PRIME_MS * 1000000;
        }
    }
}

/* The second GPM sample of the GPUs and GPU instances left pending by gm_nv_rd_gpm
 * and gm_nv_read_mig_gpm (GM_NVML_GPM_PRIME), after a single wait for them all. */
void gm_nv_gpm_primed(struct gm_nvml *n, struct gm_snapshot *s)
{
    if (!n->gpm_prime_ns)
        return;
    gm_sleep_until(n->gpm_prime_ns, NULL);
    n->gpm_prime_ns = 0;
    for (uint32_t i = 0; i < s->ngpu && i < n->ndev; i++) {
        struct dev *d = &n->dev[i];
        struct gm_gpu *g = &s->gpus[i];
        int pending = d->gpm_pending;
        d->gpm_pending = 0;
        if (pending && g->state == GM_GPU_OK && d->have_handle) {
            struct rd r = {n, (int)i, d->h, g, NVML_SUCCESS};
            gpm_finish(&r, d);
            if (r.lost != NVML_SUCCESS) {
                /* lost (or the driver went away) between the two samples: the GPU is
                 * down in this sample; the next one finds out which */
                gm_nv_mark_gpu_down(g, r.lost);
                d->have_handle = 0;
                d->static_done = 0;
                d->nvl_ident = 0; /* and the links' version and far end */
                gm_nv_gpm_restart(d);
            }
        }
        for (uint32_t k = 0; k < GM_MIG_MAX; k++) {
            struct mig_gpm *m = &d->mgpm[k];
            if (!m->pending)
                continue;
            m->pending = 0;
            if (g->state == GM_GPU_OK && d->have_handle && k < g->nmig &&
                g->mig[k].gpu_instance_id == m->gi)
                mig_gpm_finish(n, (int)i, d->h, m, &g->mig[k]);
        }
    }
}
