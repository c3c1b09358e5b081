/* smi_list.h -- `gpumon -L`: nvidia-smi -L's list of GPUs and their MIG
 * devices, from a snapshot. */
#ifndef GM_VIEW_SMI_LIST_H
#define GM_VIEW_SMI_LIST_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/snapshot.h"

/* Appends one line per GPU selected in mask ("GPU 0: NAME (UUID: GPU-...)")
 * and, indented under it, one per MIG device ("  MIG 1g.10gb     Device  0:
 * (UUID: MIG-...)").  Names and UUIDs come from the GPU, so they are
 * written with control characters and invalid UTF-8 replaced (text.h); a
 * value NVML did not give is "N/A" with the reason after the line. */
void gm_smi_list(const struct gm_snapshot *s, uint64_t mask, struct gm_buf *out);

#endif /* GM_VIEW_SMI_LIST_H */
