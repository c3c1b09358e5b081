/* api_events.c -- exported NVML event calls: sets, registration and waits.
 *
 * The scenario's ecc and xid faults are the events (faults.c builds them in
 * time order).  A set starts at the scenario time it was created: events
 * scheduled after that are delivered, one per wait, to sets that registered
 * the event's GPU and type; events already in the past are not replayed.
 * With nothing due, a wait sleeps until the next event is due, in steps of at
 * most 100 ms, without holding the library
 * mutex, until its timeout and then returns NVML_ERROR_TIMEOUT.  Sets live in
 * a static table (at most 64 at once) so a freed or forged set pointer is
 * recognised, and the last nvmlShutdown frees them all.  The legacy
 * nvmlEventSetWait writes only the first 24 bytes of nvmlEventData_t (its
 * struct had no MIG instance ids).
 */
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "api.h"

#define GS_MAX_SETS 64
#define GS_WAIT_STEP_MS 100

struct nvmlEventSet_st {
    bool used;
    size_t cursor; /* next event (index into the scenario's list) to consider */
    unsigned long long mask[GS_MAX_GPUS];
};

static struct nvmlEventSet_st g_sets[GS_MAX_SETS]; /* guarded by the library mutex */

void gs_events_reset(void)
{
    memset(g_sets, 0, sizeof(g_sets));
}

static struct nvmlEventSet_st *lookup(nvmlEventSet_t set)
{
    uintptr_t p = (uintptr_t)set, b = (uintptr_t)g_sets;
    if (p < b || p >= b + sizeof(g_sets) || (p - b) % sizeof(g_sets[0]))
        return NULL;
    struct nvmlEventSet_st *s = &g_sets[(p - b) / sizeof(g_sets[0])];
    return s->used ? s : NULL;
}

static unsigned long long supported_types(const struct gs_gpu *g)
{
    unsigned long long t = nvmlEventTypeXidCriticalError | nvmlEventTypePState | nvmlEventTypeClock;
    if (g->ecc)
        t |= nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError;
    return t;
}

GS_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, set != NULL);
    if (r != NVML_SUCCESS)
        return r;
    for (size_t i = 0; i < GS_MAX_SETS; i++) {
        struct nvmlEventSet_st *s = &g_sets[i];
        if (s->used)
            continue;
        memset(s, 0, sizeof(*s));
        s->used = true;
        /* Events at or before now are history. */
        while (s->cursor < c.s->nevents && c.s->events[s->cursor].at <= c.t)
            s->cursor++;
        *set = s;
        return gs_end(&c, NVML_SUCCESS);
    }
    return gs_end(&c, NVML_ERROR_MEMORY);
}

GS_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                                nvmlEventSet_t set)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    struct nvmlEventSet_st *s = lookup(set);
    if (!s)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    /* Asking for a type the GPU cannot raise registers nothing; the set stays
     * usable. */
    if (eventTypes & ~supported_types(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    s->mask[c.gpu] |= eventTypes;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device,
                                                        unsigned long long *eventTypes)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, eventTypes != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *eventTypes = supported_types(c.g);
    return gs_end(&c, NVML_SUCCESS);
}

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static nvmlReturn_t wait_event(const char *fn, nvmlEventSet_t set, nvmlEventData_t *data,
                               unsigned int timeoutms, size_t bytes)
{
    struct gs_call c;
    double deadline = mono_ms() + timeoutms;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, data != NULL);

    while (r == NVML_SUCCESS) {
        struct nvmlEventSet_st *s = lookup(set);
        if (!s)
            return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
        while (s->cursor < c.s->nevents && c.s->events[s->cursor].at <= c.t) {
            const struct gs_event *e = &c.s->events[s->cursor++];
            if (!(s->mask[e->gpu] & e->type))
                continue;
            nvmlEventData_t d = {
                .device = gs_handle(e->gpu, -1),
                .eventType = e->type,
                .eventData = e->data,
                .gpuInstanceId = 0xFFFFFFFFu,
                .computeInstanceId = 0xFFFFFFFFu,
            };
            memcpy(data, &d, bytes);
            return gs_end(&c, NVML_SUCCESS);
        }
        /* Sleep until the next event of the scenario is due (or the
         * timeout), in steps of at most GS_WAIT_STEP_MS: a real driver
         * blocks in the kernel, and a client's waiting thread should not
         * cost it a hundred wake-ups a second in the simulator either. */
        double step = GS_WAIT_STEP_MS;
        if (s->cursor < c.s->nevents && !c.tc->pinned && c.tc->speed > 0) {
            double due_ms = (c.s->events[s->cursor].at - c.t) / c.tc->speed * 1e3;
            if (due_ms < step)
                step = due_ms < 1 ? 1 : due_ms;
        }
        gs_end(&c, NVML_SUCCESS);
        double left = deadline - mono_ms();
        if (left <= 0)
            return NVML_ERROR_TIMEOUT;
        if (left < step)
            step = left;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(step * 1e6)};
        nanosleep(&ts, NULL);
        r = gs_relock(&c);
    }
    return r;
}

#define GS_EVENT_V1_SIZE offsetof(nvmlEventData_t, gpuInstanceId)
_Static_assert(GS_EVENT_V1_SIZE == 24, "legacy nvmlEventData_t is 24 bytes");

GS_EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data,
                                        unsigned int timeoutms)
{
    return wait_event(__func__, set, data, timeoutms, GS_EVENT_V1_SIZE);
}

GS_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data,
                                           unsigned int timeoutms)
{
    return wait_event(__func__, set, data, timeoutms, sizeof(nvmlEventData_t));
}

GS_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    struct nvmlEventSet_st *s = lookup(set);
    if (!s)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    s->used = false;
    return gs_end(&c, NVML_SUCCESS);
}
