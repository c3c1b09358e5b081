/* smi_list.c -- nvidia-smi -L's layout, which scripts parse with regular
 * expressions (e.g. `GPU ([0-9]+): .* \(UUID: (.*)\)`):
 *
 *     GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-7fdaf0a5-...)
 *       MIG 1g.10gb     Device  0: (UUID: MIG-feb88891-...)
 *
 * The MIG line is "  MIG ", the profile left-aligned in 12 columns,
 * "Device ", the MIG index right-aligned in 2, as in the nvidia-smi 535 and
 * 550 outputs pasted in DataDog/datadog-agent#33120, influxdata/telegraf
 * #5812 and NVIDIA/go-dcgm#30.  What nvidia-smi does for a GPU it cannot
 * read (it prints an error line) is not copied: the line keeps its shape
 * with N/A in place of the missing name or UUID, and the reason follows in
 * brackets.
 */
#include <string.h>

#include "../core/text.h"
#include "../core/value.h"
#include "smi_list.h"

static void put_str(struct gm_buf *out, const struct gm_value *v, const char *s)
{
    if (gm_v_ok(v) && s[0])
        gm_text_line(out, s, strlen(s));
    else
        gm_buf_puts(out, "N/A");
}

void gm_smi_list(const struct gm_snapshot *s, uint64_t mask, struct gm_buf *out)
{
    for (uint32_t i = 0; i < s->ngpu; i++) {
        if (i < 64 && !(mask & (UINT64_C(1) << i)))
            continue;
        const struct gm_gpu *g = &s->gpus[i];
        gm_buf_printf(out, "GPU %u: ", g->index);
        put_str(out, &g->m[GM_M_NAME], g->str[GM_S_NAME]);
        gm_buf_puts(out, " (UUID: ");
        put_str(out, &g->m[GM_M_UUID], g->str[GM_S_UUID]);
        gm_buf_putc(out, ')');
        if (g->state != GM_GPU_OK)
            gm_buf_printf(out, " [%s: %s]", gm_gpu_state_name((enum gm_gpu_state)g->state),
                          gm_nvml_error_text(g->state_code));
        gm_buf_putc(out, '\n');
        for (uint32_t k = 0; k < g->nmig && k < GM_MIG_MAX; k++) {
            const struct gm_mig *m = &g->mig[k];
            char prof[64];
            gm_text_term_s(prof, sizeof(prof), m->profile[0] ? m->profile : "N/A", 1);
            gm_buf_printf(out, "  MIG %-12sDevice %2u: (UUID: ", prof, m->index);
            if (m->uuid[0])
                gm_text_line(out, m->uuid, strlen(m->uuid));
            else
                gm_buf_puts(out, "N/A");
            gm_buf_puts(out, ")\n");
        }
    }
}
