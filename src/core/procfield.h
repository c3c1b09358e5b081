/* procfield.h -- the per-process fields, declared once: for each GM_P_* row
 * of the metric registry, how its value is read from a snapshot's process
 * record (struct gm_proc).
 *
 * The registry (metrics.h) holds what a field is called and in which unit
 * (gm_metrics[id]: nvidia-smi key, CSV column, JSON key, unit); this table
 * holds only the reading, so that the outputs that show processes (CSV and
 * JSON through fmt.c, pmon, top) never name a struct member themselves.
 * Adding a per-process field is a GM_P_* id, its registry row and one row
 * here.  What it leaves out: how a view spells a field (pmon's "sm"/"fb",
 * top's "SM%"), which stays with the view.
 */
#ifndef GM_PROCFIELD_H
#define GM_PROCFIELD_H

#include "metrics.h"
#include "snapshot.h"

#define GM_P__FIRST GM_P_PID
#define GM_P__N (GM_M__COUNT - GM_P__FIRST)

struct gm_proc_field {
    int id; /* GM_P_*: its name and unit are gm_metrics[id] */
    /* Offset of the struct gm_value member that holds it, or -1 when the value
     * is computed from other members by value(). */
    long member;
    /* The computed value (an id, a presence, a state): *out, ok or absent. */
    void (*value)(const struct gm_proc *p, struct gm_value *out);
    /* The text of a text field (name, user, command line, exe), or NULL. */
    const char *(*text)(const struct gm_proc *p);
};

/* Indexed by id - GM_P__FIRST. */
extern const struct gm_proc_field gm_proc_fields[GM_P__N];

/* The row of id, or NULL when id is not a per-process field. */
const struct gm_proc_field *gm_proc_field(int id);

/* The value of field id of p: a pointer into p, or to *tmp (which it fills),
 * or to an NA value when id is not a per-process field.  Valid while p and
 * *tmp are. */
const struct gm_value *gm_proc_value(const struct gm_proc *p, int id, struct gm_value *tmp);

/* The text of a text field of p when its value is real, else NULL (also for
 * a field that is not text).  Points into p: outside text, escape it. */
const char *gm_proc_text(const struct gm_proc *p, int id);

#endif
