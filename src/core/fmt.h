/* fmt.h -- how a registry value is spelled by each output.
 *
 * One place turns a (snapshot, GPU, process, metric id) into text:
 *   - nvidia-smi CSV style (gm_fmt_smi): "5213 MiB", "280.12 W", "P0",
 *     "Enabled", "[N/A]", "[GPU is lost]", with or without units;
 *   - our CSV log (gm_fmt_csv): the number in the column's unit, empty when
 *     not available (the status column says why);
 *   - JSON (gm_fmt_json): a JSON number/string in base units, or null.
 * Views and sinks call these instead of formatting metrics themselves.
 */
#ifndef GM_FMT_H
#define GM_FMT_H

#include <stddef.h>

#include "json.h"
#include "snapshot.h"

/* The value of id for GPU g (or process p, for GM_SC_PROC metrics; p may be
 * NULL otherwise).  Host-scope metrics come from the snapshot.
 *
 * The result is borrowed and may point into a buffer of the calling
 * thread (process metrics, timestamp, count): it stays valid only until
 * that thread's next call of gm_fmt_value, gm_fmt_string, gm_fmt_smi,
 * gm_fmt_csv or gm_fmt_json (each reads through it), and while s, g
 * and p live.  Copy the value (struct assignment) to keep it longer;
 * never hand the pointer to another thread.  Calls from different
 * threads do not disturb each other's results. */
const struct gm_value *gm_fmt_value(const struct gm_snapshot *s, const struct gm_gpu *g,
                                    const struct gm_proc *p, int id);

/* The text of a string-valued metric (GM_F_STR), or NULL when unavailable. */
const char *gm_fmt_string(const struct gm_snapshot *s, const struct gm_gpu *g,
                          const struct gm_proc *p, int id);

/* nvidia-smi text for an unavailable value of metric id with status v. */
const char *gm_fmt_smi_absent(int id, const struct gm_value *v);

/* nvidia-smi --query-* style.  nounits drops " MiB" etc. (keeping decimals). */
const char *gm_fmt_smi(const struct gm_snapshot *s, const struct gm_gpu *g, const struct gm_proc *p,
                       int id, int nounits, char *buf, size_t len);

/* nvidia-smi header cell: canonical key plus " [unit]" when it has one. */
const char *gm_fmt_smi_header(int id, char *buf, size_t len);

/* CSV log cell (not yet CSV-quoted): number in the column's unit or text;
 * "" when unavailable. */
const char *gm_fmt_csv(const struct gm_snapshot *s, const struct gm_gpu *g, const struct gm_proc *p,
                       int id, char *buf, size_t len);

/* Writes the JSON value of id (number in base units, string, or null). */
void gm_fmt_json(struct gm_json *j, const struct gm_snapshot *s, const struct gm_gpu *g,
                 const struct gm_proc *p, int id);

/* Human number in the unit's display form with unit, for views: "80.0 GiB",
 * "412 W", "1980 MHz", "87 C", "95 %"; "N/A"-style text when absent. */
const char *gm_fmt_human(const struct gm_value *v, int unit, char *buf, size_t len);

/* Byte count as "5213MiB"-style or "79.6GiB" human text. */
const char *gm_fmt_bytes(double bytes, char *buf, size_t len);

/* A table cell of exactly width columns: s padded with blanks, or cut to
 * width - 1 characters and "…" when longer.  Counts UTF-8 characters, not
 * bytes (each as one column), so "89 °C" pads like "89 C".  Returns dst. */
const char *gm_fmt_cell(char *dst, size_t len, const char *s, int width);

#endif /* GM_FMT_H */
