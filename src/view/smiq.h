/* smiq.h -- nvidia-smi's `-q` report (text and `-x` XML) from a snapshot.
 *
 * One description of the report (sections, labels, XML element names,
 * nesting) drives both outputs, so the text and the XML cannot drift apart.
 * The layout is nvidia-smi 535/550's (docs/compat-q.md says which
 * reference output each part follows and which fields gpumon does not read:
 * those print N/A, as nvidia-smi does for what a driver cannot say).
 * Reads nothing itself: everything comes from the snapshot and the
 * report-only values the caller read (source/nvml_q.h).
 */
#ifndef GM_VIEW_SMIQ_H
#define GM_VIEW_SMIQ_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/snapshot.h"
#include "../source/nvml_q.h"

/* nvidia-smi's -d display sections, as bits of a mask (0 = everything). */
enum gm_smiq_section {
    GM_SMIQ_MEMORY = 0,
    GM_SMIQ_UTILIZATION,
    GM_SMIQ_ECC,
    GM_SMIQ_TEMPERATURE,
    GM_SMIQ_POWER,
    GM_SMIQ_CLOCK,
    GM_SMIQ_COMPUTE,
    GM_SMIQ_PIDS,
    GM_SMIQ_PERFORMANCE,
    GM_SMIQ_SUPPORTED_CLOCKS,
    GM_SMIQ_PAGE_RETIREMENT,
    GM_SMIQ_ACCOUNTING,
    GM_SMIQ_ENCODER_STATS,
    GM_SMIQ_SUPPORTED_GPU_TARGET_TEMP,
    GM_SMIQ_VOLTAGE,
    GM_SMIQ_FBC_STATS,
    GM_SMIQ_ROW_REMAPPER,
    GM_SMIQ_RESET_STATUS,
    GM_SMIQ_GSP_FIRMWARE_VERSION,
    GM_SMIQ__COUNT
};

/* The section's -d name ("MEMORY", ...). */
const char *gm_smiq_section_name(int section);

/* Parses -d's comma-separated list (case-insensitive) into a mask over
 * enum gm_smiq_section.  An unknown or empty name: GM_E_INVAL with err
 * naming it and listing the valid ones. */
int gm_smiq_parse_sections(const char *list, uint32_t *mask, struct gm_err *err);

/* Appends the report for the GPUs whose bit is set in gpus (by position in
 * s->gpus): the text of `nvidia-smi -q` (xml = 0) or the XML of
 * `nvidia-smi -q -x` (xml = 1), showing only the sections in mask (0: nvidia-smi's
 * default: all, but the text leaves out Supported Clocks and Target Temp).
 * q[i] holds the report-only values of s->gpus[i] (source/nvml_q.h); NULL
 * prints them N/A.  Text from outside (names, versions, process names) is
 * sanitised for the form: controls and invalid UTF-8 replaced, XML special
 * characters escaped. */
void gm_smiq_render(const struct gm_snapshot *s, const struct gm_q_gpu *q, uint64_t gpus,
                    uint32_t mask, int xml, struct gm_buf *out);

#endif /* GM_VIEW_SMIQ_H */
