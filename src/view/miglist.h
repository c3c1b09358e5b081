/* miglist.h -- `gpumon mig -lgip/-lgipp/-lgi/-lcip/-lci`: nvidia-smi mig's
 * read-only listings, laid out as nvidia-smi prints them (the references
 * are cited in miglist.c and docs/compat.md). */
#ifndef GM_VIEW_MIGLIST_H
#define GM_VIEW_MIGLIST_H

#include <stdint.h>

#include "../core/buf.h"
#include "../source/miglist.h"

enum gm_miglist_kind {
    GM_MIGLIST_GIP,  /* -lgip: GPU instance profiles */
    GM_MIGLIST_GIPP, /* -lgipp: their possible placements */
    GM_MIGLIST_GI,   /* -lgi: GPU instances */
    GM_MIGLIST_CIP,  /* -lcip: compute instance profiles of each GPU instance */
    GM_MIGLIST_CI,   /* -lci: compute instances */
};

/* Appends listing kind of the n GPUs g[0..n-1] (those with mig_on; profile
 * names come from the library and are written as plain text).  gi_filter:
 * only GPU instances with this id (-gi), or -1 for all.  Returns the
 * number of rows written; with none, nothing is appended (the caller says
 * why, as nvidia-smi does). */
unsigned gm_miglist_render(enum gm_miglist_kind kind, const struct gm_mig_gpu *g, uint32_t n,
                           long gi_filter, struct gm_buf *out);

#endif
