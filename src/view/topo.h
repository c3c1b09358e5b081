/* topo.h -- `gpumon topo -m`: nvidia-smi topo -m's connection matrix. */
#ifndef GM_VIEW_TOPO_H
#define GM_VIEW_TOPO_H

#include "../core/buf.h"
#include "../source/topo.h"

/* Appends the matrix of t (a header row, one row per GPU with its CPU and
 * NUMA affinity and GPU NUMA id) and the legend, in nvidia-smi's layout. */
void gm_topo_render(const struct gm_topo *t, struct gm_buf *out);

#endif /* GM_VIEW_TOPO_H */
