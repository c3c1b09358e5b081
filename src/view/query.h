/* query.h -- nvidia-smi compatible --query-gpu / --query-compute-apps output.
 *
 * Field lists use nvidia-smi's keys and aliases (from the registry); the CSV
 * matches nvidia-smi's: header "name [unit]" with canonical names, ", "
 * separators, units as nvidia-smi prints them, [N/A] and friends for absent
 * values, timestamps "YYYY/MM/DD HH:MM:SS.mmm".  As extensions, registry
 * metrics without an nvidia-smi key can be asked for by their JSON key
 * ("energy_joules", "pcie_tx_bytes_per_second"); compute-apps fields include
 * "user", "command", "host_state" and the other process fields.
 */
#ifndef GM_VIEW_QUERY_H
#define GM_VIEW_QUERY_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/rgset.h"
#include "../core/snapshot.h"

#define GM_QUERY_MAX_FIELDS 256

enum gm_query_kind { GM_QUERY_GPU = 0, GM_QUERY_APPS };

struct gm_query {
    int kind;
    int n;
    int ids[GM_QUERY_MAX_FIELDS];
    char header[GM_QUERY_MAX_FIELDS][160]; /* header cell per field */
    int noheader;
    int nounits;
};

/* Parses a comma-separated field list.  Unknown field: GM_E_INVAL with
 * nvidia-smi's message 'Field "x" is not a valid field to query.' */
int gm_query_parse_fields(struct gm_query *q, int kind, const char *list, struct gm_err *err);

/* Parses --format: "csv" plus optional "noheader", "nounits" (any order). */
int gm_query_parse_format(struct gm_query *q, const char *fmt, struct gm_err *err);

/* Read groups the fields need, and whether processes are needed; adds
 * GM_NVML_GPM_PRIME to *flags when a GPM field is asked for. */
struct gm_rgset gm_query_groups(const struct gm_query *q, int *need_procs, unsigned *flags);

void gm_query_header(const struct gm_query *q, struct gm_buf *out);

/* Rows for the GPUs whose bit is set in mask (by position in s->gpus). */
void gm_query_rows(const struct gm_query *q, const struct gm_snapshot *s, uint64_t mask,
                   struct gm_buf *out);

/* Resolves an -i/--id list (indices, UUIDs, PCI bus ids; comma-separated)
 * against a snapshot into a mask over s->gpus.  Unknown id: GM_E_INVAL. */
int gm_query_select(const struct gm_snapshot *s, const char *ids, uint64_t *mask,
                    struct gm_err *err);

/* nvidia-smi --help-query-gpu / --help-query-compute-apps style listing of
 * every field gpumon knows. */
void gm_query_help(int kind, struct gm_buf *out);

#endif /* GM_VIEW_QUERY_H */
