/* scenario_int.h -- shared between the scenario loader's two halves:
 * sim/scenario.c (file structure, [machine], [process.*], [fault.*]) and
 * sim/scenario_gpu.c ([gpu] and [gpu.N]).  Not part of the core's contract.
 */
#ifndef GS_SCENARIO_INT_H
#define GS_SCENARIO_INT_H

#include <stdarg.h>

#include "gpusim.h"
#include "ini_read.h"

enum gs_sec_kind { GS_SEC_MACHINE, GS_SEC_GPU_DEFAULTS, GS_SEC_GPU, GS_SEC_PROCESS, GS_SEC_FAULT };

struct gs_sec_info {
    enum gs_sec_kind kind;
    unsigned gpu;     /* GS_SEC_GPU */
    const char *name; /* NAME of process.NAME / fault.NAME */
};

struct gs_pctx {
    const char *file;
    struct gs_ini ini;
    struct gs_sec_info *info; /* one per ini section */
    struct gs_scenario *s;
    char *err;
    size_t errlen;
    int machine_gpus_line;     /* line of [machine] gpus, 0 if unset */
    long gpu_sec[GS_MAX_GPUS]; /* ini section index of [gpu.N], -1 if none */
    long defaults_sec;         /* ini section index of [gpu], -1 if none */
};

/* Records "FILE:LINE: reason" (or "FILE: reason" for line 0); returns -1. */
int gs_fail(struct gs_pctx *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "bad value 'V' for 'key' (expected ...)" at the entry's line; returns -1. */
int gs_bad_value(struct gs_pctx *c, const struct gs_ini_entry *e, const char *value,
                 const char *expected);

/* Copies a string value into dst[size], decoding its escapes: \xHH is the
 * byte HH (01-ff, so that a scenario can give a GPU or a process a name that
 * is not UTF-8 or holds control characters) and \\ a backslash; any other
 * backslash, \x00 and a value that does not fit are errors. */
int gs_set_string(struct gs_pctx *c, const struct gs_ini_entry *e, const char *value, char *dst,
                  size_t size);

/* Entry value after ${ENV} expansion; on failure records the error and
 * returns NULL.  The result lives in buf. */
const char *gs_entry_value(struct gs_pctx *c, const struct gs_ini_entry *e, char *buf, size_t len);

/* The entry for key in ini section sec, or NULL. */
const struct gs_ini_entry *gs_find_entry(const struct gs_pctx *c, long sec, const char *key);

/* Builds every GPU from [gpu] and [gpu.N] (s->ngpus is already set). */
int gs_build_gpus(struct gs_pctx *c);

/* Is key a known [gpu]/[gpu.N] key? */
bool gs_gpu_key_known(const char *key);

#endif /* GS_SCENARIO_INT_H */
