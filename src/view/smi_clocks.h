/* smi_clocks.h -- nvidia-smi's list queries that print several rows per
 * GPU: --query-supported-clocks (one row per (memory clock, graphics
 * clock) pair), --query-retired-pages (one row per retired page) and
 * --query-accounted-apps (one row per accounted process), and
 * --query-remapped-rows (one row per GPU) beside them. */
#ifndef GM_VIEW_SMI_CLOCKS_H
#define GM_VIEW_SMI_CLOCKS_H

#include <stddef.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/snapshot.h"
#include "../source/accounting.h"
#include "../source/clocks.h"
#include "../source/pages.h"

#define GM_SCLK_MAX_FIELDS 32

enum gm_sclk_kind { GM_SCLK_CLOCKS = 0, GM_SCLK_PAGES, GM_SCLK_REMAP, GM_SCLK_ACCOUNTED };

struct gm_sclk_query {
    int kind; /* enum gm_sclk_kind */
    int n;
    int field[GM_SCLK_MAX_FIELDS]; /* index into the field table */
    int noheader, nounits;
};

/* Parses the field list and --format (csv[,noheader][,nounits]).  An
 * unknown field is GM_E_INVAL with nvidia-smi's message. */
int gm_sclk_parse(struct gm_sclk_query *q, int kind, const char *fields, const char *format,
                  struct gm_err *err);

void gm_sclk_header(const struct gm_sclk_query *q, struct gm_buf *out);

/* The rows of GPU g: one per pair; when rc is not 0 (the pairs could not
 * be read), one row whose clock cells give the reason. */
void gm_sclk_rows(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                  const struct gm_gpu *g, const struct gm_clock_pair *pairs, size_t n, int rc,
                  struct gm_buf *out);

/* The rows of GPU g for --query-retired-pages: one per page; when rc is
 * not 0, one row whose page cells give the reason. */
void gm_spages_rows(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                    const struct gm_gpu *g, const struct gm_retired_page *pages, size_t n, int rc,
                    struct gm_buf *out);

/* The rows of GPU g for --query-accounted-apps: one per process; none
 * when rc is NOT_SUPPORTED (accounting is off: nothing was accounted);
 * for another failure, one row whose process cells give the reason. */
void gm_sacct_rows(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                   const struct gm_gpu *g, const struct gm_accounted *procs, size_t n, int rc,
                   struct gm_buf *out);

/* The row of GPU g for --query-remapped-rows (from the snapshot). */
void gm_sremap_row(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                   const struct gm_gpu *g, struct gm_buf *out);

/* The field names of a kind, for completions: the i-th name, then its
 * alias when it has one (i counts both); NULL past the end. */
const char *gm_sclk_field_name(int kind, size_t i);

/* --help-query-supported-clocks / -retired-pages / -remapped-rows / -accounted-apps. */
void gm_sclk_help(int kind, struct gm_buf *out);

#endif /* GM_VIEW_SMI_CLOCKS_H */
