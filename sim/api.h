/* api.h -- shared by the exported NVML entry points (sim/api_*.c): device
 * handles, the call prologue and small helpers.  The state behind them (init
 * refcount, scenario, time configuration, handle tables) is private to
 * sim/api_core.c.
 *
 * Every exported function follows one pattern:
 *
 *     struct gs_call c;
 *     nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, out != NULL);
 *     if (r != NVML_SUCCESS)
 *         return r;
 *     ... read c.s / c.g at scenario time c.t ...
 *     return gs_end(&c, NVML_SUCCESS);
 *
 * gs_begin() checks, in this order: initialised, driver faults, handle
 * validity, argument validity, lost/forbidden GPU, MIG handle where a
 * physical one is needed, `unsupported =` from the scenario, a GPUSIM_FAIL
 * rule (the calls that get this far are the ones counted, and traced to
 * GPUSIM_TRACE), and finally a hang fault (sleeping with the lock released).  On success it returns
 * with the library mutex held; gs_end() releases it.  Nothing sleeps or blocks while holding the
 * mutex.
 */
#ifndef GS_API_H
#define GS_API_H

#include <pthread.h>

#include "gpusim.h"

#define GS_EXPORT __attribute__((visibility("default")))

/* Handles are pointers into static tables, so a stale or forged handle can be
 * recognised (and never dereferenced) without any allocation. */
struct nvmlDevice_st {
    unsigned gpu;
    int mig; /* -1 for a physical GPU */
};

enum gs_hkind {
    GS_H_NONE,  /* no device argument */
    GS_H_INDEX, /* a GPU index argument (GetHandleByIndex) */
    GS_H_PHYS,  /* a physical GPU handle; MIG handles get NOT_SUPPORTED */
    GS_H_ANY,   /* a physical or MIG device handle */
};

struct gs_call {
    struct gs_scenario *s;
    const struct gs_timecfg *tc;
    double t;     /* scenario time of this call */
    unsigned gpu; /* physical GPU (for device calls) */
    int mig;      /* MIG device index, -1 for a physical handle */
    const struct gs_gpu *g;
};

/* The call prologue described above.  index is used with GS_H_INDEX only.
 * Never returns NVML_SUCCESS when args_ok is 0. */
nvmlReturn_t gs_enter(struct gs_call *c, const char *fn, enum gs_hkind kind, nvmlDevice_t device,
                      unsigned index, int args_ok);

/* Re-enters a session without the per-call fault checks (for loops that
 * dropped the lock to sleep, e.g. an event wait): takes the mutex, checks
 * that the library is still initialised and the driver present, refreshes
 * c->s and c->t.  On failure the mutex is released. */
nvmlReturn_t gs_relock(struct gs_call *c);

/* Whether this session may change driver state (root): GPUSIM_ROOT=0/1 read
 * at init, else geteuid() == 0.  Call with the lock held. */
bool gs_privileged(void);

/* Releases the mutex taken by gs_begin() and returns r. */
nvmlReturn_t gs_end(struct gs_call *c, nvmlReturn_t r);

/* gs_enter() with its promise spelled out in the caller's translation unit,
 * so static analysis can see that a successful prologue means valid output
 * pointers.  The second branch never runs. */
static inline nvmlReturn_t gs_begin(struct gs_call *c, const char *fn, enum gs_hkind kind,
                                    nvmlDevice_t device, unsigned index, int args_ok)
{
    nvmlReturn_t r = gs_enter(c, fn, kind, device, index, args_ok);
    if (r == NVML_SUCCESS && !args_ok) {
        gs_end(c, r);
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return r;
}

/* The handle of physical GPU gpu, or of its MIG device mig (>= 0). */
nvmlDevice_t gs_handle(unsigned gpu, int mig);

/* Decodes a handle; false when it is not one of ours or not valid in s. */
bool gs_decode(const struct gs_scenario *s, nvmlDevice_t d, unsigned *gpu, int *mig);

/* Copies src into dst[len] with its NUL: INSUFFICIENT_SIZE when it does not
 * fit, NOT_SUPPORTED when src is empty (the board does not report it). */
nvmlReturn_t gs_copy_out(char *dst, unsigned len, const char *src);

/* The NVLink field values of nvmlDeviceGetFieldValues (api_nvlink.c): 1
 * with the value and its status in *rc when v->fieldId is one of them,
 * else 0.  Called with the lock held. */
int gs_nvlink_field(const struct gs_call *c, nvmlFieldValue_t *v, nvmlReturn_t *rc);

/* True when the scenario marks function fn unsupported on g (`unsupported
 * =`): other calls that report the same reading answer the same way. */
static inline bool gs_fn_unsupported(const struct gs_gpu *g, const char *fn)
{
    int i = gs_name_index(fn);
    return g->has_unsupported && i >= 0 && g->unsupported[i];
}

/* The ECC counts of counter type counter (0 volatile, 1 aggregate) as the
 * getters report them: the injected counts less what
 * nvmlDeviceClearEccErrorCounts cleared (sim/api_set.c). */
static inline void gs_ecc_read(const struct gs_call *c, unsigned counter, unsigned long long *corr,
                               unsigned long long *unc)
{
    gs_ecc_counts(c->s, c->gpu, c->t, corr, unc);
    const unsigned long long *base = c->g->set.ecc_base[counter & 1];
    *corr = *corr > base[0] ? *corr - base[0] : 0;
    *unc = *unc > base[1] ? *unc - base[1] : 0;
}

/* Fan fan's speed (%): the one nvmlDeviceSetFanSpeed_v2 set in this
 * process (manual policy), else curve, the model's temperature-driven speed. */
static inline unsigned gs_fan_speed(const struct gs_gpu *g, unsigned fan, unsigned curve)
{
    return fan < sizeof(g->set.fan_manual) && g->set.fan_manual[fan] ? g->set.fan_manual[fan]
                                                                     : curve;
}

/* Event sets are released by the last nvmlShutdown (api_events.c). */
void gs_events_reset(void);

#endif /* GS_API_H */
