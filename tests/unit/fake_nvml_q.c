/* fake_nvml_q.c -- a minimal libnvidia-ml for test_nvml_q.c: one GPU with
 * two MIG devices, answering the report-only calls of src/source/nvml_q.c
 * that the simulator does not export yet, each with values that say which
 * arguments produced them, so that the test can check the wiring (ECC
 * location/counter/type, struct layouts, clock lists).  nvmlDeviceGetBrand is
 * left out on purpose (a function the library lacks); the driver model
 * answers NOT_SUPPORTED (3), as on Linux.  Signatures are nvml.h's, with int
 * for nvmlReturn_t and enums and void * for handles.
 */
#include <stdio.h>
#include <string.h>

/* the exports are the library's interface: no header declares them here */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))
#define GPU ((void *)0x1000)
#define MIG0 ((void *)0x2000)
#define MIG1 ((void *)0x2001)

/* 0 SUCCESS, 2 INVALID_ARGUMENT, 3 NOT_SUPPORTED, 6 NOT_FOUND, 7 INSUFFICIENT_SIZE */

EXPORT int nvmlInit_v2(void)
{
    return 0;
}
EXPORT int nvmlShutdown(void)
{
    return 0;
}

EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d)
{
    if (i != 0)
        return 2;
    *d = GPU;
    return 0;
}

EXPORT int nvmlDeviceGetArchitecture(void *d, unsigned int *a)
{
    (void)d;
    *a = 7; /* Ampere */
    return 0;
}

EXPORT int nvmlDeviceGetDriverModel_v2(void *d, unsigned int *c, unsigned int *p)
{
    (void)d, (void)c, (void)p;
    return 3;
}

EXPORT int nvmlDeviceGetMemoryErrorCounter(void *d, unsigned int type, unsigned int counter,
                                           unsigned int loc, unsigned long long *v)
{
    (void)d;
    *v = 1000ULL * type + 100ULL * counter + loc; /* loc: 7 SRAM, 2 DRAM */
    return 0;
}

EXPORT int nvmlDeviceGetEncoderStats(void *d, unsigned int *n, unsigned int *fps, unsigned int *lat)
{
    (void)d;
    *n = 2, *fps = 30, *lat = 700;
    return 0;
}

EXPORT int nvmlDeviceGetFBCStats(void *d, unsigned int *st)
{
    (void)d;
    st[0] = 3, st[1] = 60, st[2] = 1500;
    return 0;
}

EXPORT int nvmlDeviceGetJpgUtilization(void *d, unsigned int *u, unsigned int *period)
{
    (void)d;
    *u = 17, *period = 167000;
    return 0;
}

EXPORT int nvmlDeviceGetRowRemapperHistogram(void *d, unsigned int *h)
{
    (void)d;
    h[0] = 640, h[1] = 1, h[2] = 2, h[3] = 3, h[4] = 4;
    return 0;
}

EXPORT int nvmlDeviceGetTemperatureThreshold(void *d, unsigned int kind, unsigned int *t)
{
    (void)d;
    if (kind < 4 || kind > 6)
        return 2;
    *t = kind == 4 ? 60 : kind == 5 ? 83 : 90;
    return 0;
}

EXPORT int nvmlDeviceGetInforomImageVersion(void *d, char *s, unsigned int len)
{
    (void)d;
    snprintf(s, len, "G506.0212.00.01");
    return 0;
}

EXPORT int nvmlDeviceGetInforomVersion(void *d, unsigned int obj, char *s, unsigned int len)
{
    (void)d;
    if (obj == 2)
        return 3;
    snprintf(s, len, "%s", obj == 0 ? "2.0" : "6.16");
    return 0;
}

EXPORT int nvmlDeviceGetGspFirmwareVersion(void *d, char *s)
{
    (void)d;
    snprintf(s, 64, "535.54.03");
    return 0;
}

EXPORT int nvmlDeviceGetSupportedMemoryClocks(void *d, unsigned int *n, unsigned int *mhz)
{
    (void)d;
    if (*n < 2) {
        *n = 2;
        return 7;
    }
    *n = 2;
    mhz[0] = 1593, mhz[1] = 405;
    return 0;
}

EXPORT int nvmlDeviceGetSupportedGraphicsClocks(void *d, unsigned int mem, unsigned int *n,
                                                unsigned int *mhz)
{
    (void)d;
    if (mem == 405)
        return 3;
    if (*n < 3) {
        *n = 3;
        return 7;
    }
    *n = 3;
    mhz[0] = 1410, mhz[1] = 1395, mhz[2] = 210;
    return 0;
}

EXPORT int nvmlDeviceGetMigDeviceHandleByIndex(void *d, unsigned int k, void **m)
{
    (void)d;
    if (k > 1)
        return 6;
    *m = k ? MIG1 : MIG0;
    return 0;
}

struct attrs {
    unsigned int sm, ce, dec, enc, jpg, ofa, gi_slices, ci_slices;
    unsigned long long mem_mb;
};

EXPORT int nvmlDeviceGetAttributes_v2(void *m, struct attrs *a)
{
    if (m != MIG0 && m != MIG1)
        return 2;
    memset(a, 0, sizeof(*a));
    a->sm = 14, a->ce = 1, a->dec = 5, a->enc = 0, a->jpg = 7, a->ofa = 8;
    a->mem_mb = 9728;
    return 0;
}

EXPORT int nvmlDeviceGetBAR1MemoryInfo(void *m, unsigned long long *b)
{
    if (m == MIG1)
        return 3;
    b[0] = 32768ULL << 20, b[1] = 32767ULL << 20, b[2] = 1ULL << 20;
    return 0;
}
