/* doctor.h -- `gpumon doctor`'s report as text or JSON (docs/doctor.md). */
#ifndef GM_VIEW_DOCTOR_H
#define GM_VIEW_DOCTOR_H

#include "../core/buf.h"
#include "../source/doctor.h"

/* Text: one block per check (status, id, title, evidence, "next:" remedy)
 * and a summary line.  Evidence is escaped for a terminal (utf8: the
 * locale's). */
void gm_doctor_text(struct gm_buf *b, const struct gm_doc_report *r, const char *root, int utf8);

/* JSON: {"root":..., "checks":[{"id","title","status","evidence":[...],
 * "remedy": string or null}], "failed": N, "warnings": N}. */
void gm_doctor_json(struct gm_buf *b, const struct gm_doc_report *r, const char *root);

/* How many checks have status st. */
int gm_doctor_count(const struct gm_doc_report *r, enum gm_doc_status st);

#endif /* GM_VIEW_DOCTOR_H */
