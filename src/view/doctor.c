/* doctor.c -- `gpumon doctor`'s report as text or JSON.  Every evidence
 * line and remedy came from files and libraries outside gpumon, so each is
 * written through the text sanitisers (core/text.h). */
#include "doctor.h"

#include <string.h>

#include "../core/json.h"
#include "../core/text.h"

int gm_doctor_count(const struct gm_doc_report *r, enum gm_doc_status st)
{
    int n = 0;
    for (int i = 0; i < GM_DOC__COUNT; i++)
        n += r->c[i].status == st;
    return n;
}

static const char *label(enum gm_doc_status s)
{
    static const char *const l[] = {"PASS", "WARN", "FAIL", "????"};
    return (unsigned)s < 4 ? l[s] : "????";
}

void gm_doctor_text(struct gm_buf *b, const struct gm_doc_report *r, const char *root, int utf8)
{
    gm_buf_puts(b, "gpumon doctor: checks from the PCI bus up, reading ");
    gm_text_term(b, root, strlen(root), utf8);
    gm_buf_puts(b, r->nvml_replayed ? " (NVML checks as captured)\n" : "\n");
    for (int i = 0; i < GM_DOC__COUNT; i++) {
        const struct gm_doc_check *c = &r->c[i];
        gm_buf_printf(b, "\n%s  %-10s %s\n", label(c->status), c->id, c->title);
        for (const char *l = c->evidence; *l;) {
            const char *nl = strchr(l, '\n');
            size_t n = nl ? (size_t)(nl - l) : strlen(l);
            gm_buf_puts(b, "      ");
            gm_text_term(b, l, n, utf8);
            gm_buf_putc(b, '\n');
            l += n + (nl != NULL);
        }
        if (c->remedy[0] &&
            (c->status == GM_DOC_FAIL || c->status == GM_DOC_WARN || c->status == GM_DOC_UNKNOWN)) {
            gm_buf_puts(b, "      next: ");
            gm_text_term(b, c->remedy, strlen(c->remedy), utf8);
            gm_buf_putc(b, '\n');
        }
    }
    int f = gm_doctor_count(r, GM_DOC_FAIL), w = gm_doctor_count(r, GM_DOC_WARN);
    int p = gm_doctor_count(r, GM_DOC_PASS), u = gm_doctor_count(r, GM_DOC_UNKNOWN);
    gm_buf_printf(b, "\n%d failed, %d warning%s, %d passed, %d unknown", f, w, w == 1 ? "" : "s", p,
                  u);
    if (f) {
        /* the lowest failure is where to start */
        for (int i = 0; i < GM_DOC__COUNT; i++)
            if (r->c[i].status == GM_DOC_FAIL) {
                gm_buf_printf(b, "; start with '%s'", r->c[i].id);
                break;
            }
    }
    gm_buf_puts(b, "\n");
    if (!r->pci_gpus && r->c[GM_DOC_PCI].status == GM_DOC_FAIL)
        gm_buf_puts(b, "No NVIDIA GPU here. The simulator shows gpumon at work without one: "
                       "gpumon --sim scenarios/h100x8-training.ini status\n");
}

void gm_doctor_json(struct gm_buf *b, const struct gm_doc_report *r, const char *root)
{
    struct gm_json j;
    gm_json_init(&j, b, 1);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "root");
    gm_json_str(&j, root);
    gm_json_key(&j, "nvml_captured");
    gm_json_bool(&j, r->nvml_replayed);
    gm_json_key(&j, "checks");
    gm_json_arr_begin(&j);
    for (int i = 0; i < GM_DOC__COUNT; i++) {
        const struct gm_doc_check *c = &r->c[i];
        gm_json_obj_begin(&j);
        gm_json_key(&j, "id");
        gm_json_str(&j, c->id);
        gm_json_key(&j, "title");
        gm_json_str(&j, c->title);
        gm_json_key(&j, "status");
        gm_json_str(&j, gm_doc_status_name(c->status));
        gm_json_key(&j, "evidence");
        gm_json_arr_begin(&j);
        for (const char *l = c->evidence; *l;) {
            const char *nl = strchr(l, '\n');
            size_t n = nl ? (size_t)(nl - l) : strlen(l);
            gm_json_strn(&j, l, n);
            l += n + (nl != NULL);
        }
        gm_json_arr_end(&j);
        gm_json_key(&j, "remedy");
        if (c->remedy[0] && c->status != GM_DOC_PASS)
            gm_json_str(&j, c->remedy);
        else
            gm_json_null(&j);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_key(&j, "failed");
    gm_json_i64(&j, gm_doctor_count(r, GM_DOC_FAIL));
    gm_json_key(&j, "warnings");
    gm_json_i64(&j, gm_doctor_count(r, GM_DOC_WARN));
    gm_json_obj_end(&j);
    gm_buf_putc(b, '\n');
}
