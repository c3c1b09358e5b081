/* faults.c -- what the scenario's [fault.*] sections do at scenario time t.
 *
 * Faults are windows [at, until) on the scenario timeline.  The API layer
 * asks three questions on every call (is the driver gone, is this GPU lost or
 * forbidden, must this call hang) and reads ECC-derived counters; the event
 * list (ECC and Xid events in time order) is built once at load.  ECC errors
 * are cumulative from their fault's `at`: volatile and aggregate counters
 * both grow (the simulated driver never reloads).  Pre-Ampere GPUs retire a
 * page per uncorrectable error (and one per two correctable ones); Ampere
 * and newer remap a row per uncorrectable error instead, pending until a
 * GPU reset, and report a remapping failure once more than 512 rows are used.
 */
#include <math.h>
#include <stdlib.h>

#include "gpusim.h"

static bool active(const struct gs_fault *f, double t)
{
    return t >= f->at && t < f->until;
}

nvmlReturn_t gs_fault_driver(const struct gs_scenario *s, double t)
{
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        if (!active(f, t))
            continue;
        if (f->kind == GS_FAULT_DRIVER_NOT_LOADED)
            return NVML_ERROR_DRIVER_NOT_LOADED;
        if (f->kind == GS_FAULT_VERSION_MISMATCH)
            return NVML_ERROR_LIB_RM_VERSION_MISMATCH;
    }
    return NVML_SUCCESS;
}

nvmlReturn_t gs_fault_gpu(const struct gs_scenario *s, unsigned gpu, double t)
{
    nvmlReturn_t r = NVML_SUCCESS;
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        if (!active(f, t) || (f->gpu != GS_NO_GPU && (unsigned)f->gpu != gpu))
            continue;
        /* A lost GPU is lost whatever the permissions say. */
        if (f->kind == GS_FAULT_GPU_LOST)
            return NVML_ERROR_GPU_IS_LOST;
        if (f->kind == GS_FAULT_NO_PERMISSION)
            r = NVML_ERROR_NO_PERMISSION;
    }
    return r;
}

double gs_fault_hang(const struct gs_scenario *s, int gpu, int fn, double t)
{
    double secs = 0;
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        if (f->kind != GS_FAULT_HANG || !active(f, t))
            continue;
        if (f->call >= 0 && f->call != fn)
            continue;
        /* A hang for one GPU hits calls on that GPU's handles; a hang without
         * gpu hits every matching call, device-less ones included. */
        if (f->gpu != GS_NO_GPU && f->gpu != gpu)
            continue;
        secs = fmax(secs, f->seconds);
    }
    return secs;
}

void gs_ecc_counts(const struct gs_scenario *s, unsigned gpu, double t,
                   unsigned long long *corrected, unsigned long long *uncorrected)
{
    *corrected = 0;
    *uncorrected = 0;
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        if (f->kind == GS_FAULT_ECC && f->gpu == (int)gpu && t >= f->at) {
            *corrected += f->corrected;
            *uncorrected += f->uncorrected;
        }
    }
}

unsigned gs_retired_pages(const struct gs_scenario *s, unsigned gpu, double t, unsigned cause,
                          unsigned long long *addresses, unsigned max)
{
    return gs_retired_pages_at(s, gpu, t, cause, addresses, NULL, max);
}

unsigned gs_retired_pages_at(const struct gs_scenario *s, unsigned gpu, double t, unsigned cause,
                             unsigned long long *addresses, double *times, unsigned max)
{
    unsigned n = 0;
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        if (f->kind != GS_FAULT_ECC || f->gpu != (int)gpu || t < f->at)
            continue;
        unsigned long long pages = cause ? f->uncorrected : f->corrected / 2;
        for (unsigned long long p = 0; p < pages && n < 100000; p++, n++) {
            if (addresses && n < max) {
                /* A 4 KiB-aligned frame inside the GPU's memory. */
                uint64_t h = gs_hash(s->seed, gpu, 300 + cause, (int64_t)(i * 100000 + p));
                addresses[n] = (h % (s->gpus[gpu].mem_total >> 12)) << 12;
            }
            if (times && n < max)
                times[n] = f->at;
        }
    }
    return n;
}

void gs_remapped_rows(const struct gs_scenario *s, unsigned gpu, double t, unsigned *corr,
                      unsigned *unc, unsigned *pending, unsigned *failure)
{
    unsigned long long c, u;
    gs_ecc_counts(s, gpu, t, &c, &u);
    (void)c; /* correctable errors are corrected in place, no remap */
    *corr = 0;
    *unc = (unsigned)(u > 100000 ? 100000 : u);
    *pending = u > 0;
    *failure = u > 512;
}

static int event_cmp(const void *a, const void *b)
{
    const struct gs_event *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return 0; /* equal times keep file order: the sort below is stable */
}

int gs_events_build(struct gs_scenario *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        if (f->kind == GS_FAULT_XID)
            n++;
        else if (f->kind == GS_FAULT_ECC)
            n += (f->corrected > 0) + (f->uncorrected > 0);
    }
    s->events = calloc(n ? n : 1, sizeof(*s->events));
    if (!s->events)
        return -1;
    s->nevents = 0;
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        struct gs_event e = {.at = f->at, .gpu = (unsigned)f->gpu};
        if (f->kind == GS_FAULT_XID) {
            e.type = nvmlEventTypeXidCriticalError;
            e.data = f->xid;
            s->events[s->nevents++] = e;
        } else if (f->kind == GS_FAULT_ECC) {
            if (f->corrected > 0) {
                e.type = nvmlEventTypeSingleBitEccError;
                s->events[s->nevents++] = e;
            }
            if (f->uncorrected > 0) {
                e.type = nvmlEventTypeDoubleBitEccError;
                s->events[s->nevents++] = e;
            }
        }
    }
    /* Insertion sort keeps file order among events at the same time (qsort
     * is not stable); the lists are short. */
    for (size_t i = 1; i < s->nevents; i++) {
        struct gs_event e = s->events[i];
        size_t j = i;
        while (j > 0 && event_cmp(&s->events[j - 1], &e) > 0) {
            s->events[j] = s->events[j - 1];
            j--;
        }
        s->events[j] = e;
    }
    return 0;
}

bool gs_fault_hw_slowdown(const struct gs_scenario *s, unsigned gpu, double t, bool *brake)
{
    bool on = false;
    *brake = false;
    for (size_t i = 0; i < s->nfaults; i++) {
        const struct gs_fault *f = &s->faults[i];
        if (f->kind == GS_FAULT_HW_SLOWDOWN && (f->gpu == GS_NO_GPU || f->gpu == (int)gpu) &&
            t >= f->at && t < f->until) {
            on = true;
            *brake |= f->power_brake;
        }
    }
    return on;
}

double gs_hw_brake_seconds(const struct gs_scenario *s, unsigned gpu, double t)
{
    /* Sweep the windows in start order, merging overlaps; faults are few. */
    double total = 0, end = -INFINITY;
    for (;;) {
        const struct gs_fault *next = NULL;
        for (size_t i = 0; i < s->nfaults; i++) {
            const struct gs_fault *f = &s->faults[i];
            if (f->kind != GS_FAULT_HW_SLOWDOWN || !f->power_brake ||
                (f->gpu != GS_NO_GPU && f->gpu != (int)gpu) || f->until <= end || f->at >= t)
                continue;
            if (!next || f->at < next->at)
                next = f;
        }
        if (!next)
            return total;
        double a = fmax(next->at, end), b = fmin(next->until, t);
        if (b > a)
            total += b - a;
        end = next->until;
    }
}
