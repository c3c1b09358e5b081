/* value.c -- value statuses and conversions (see value.h). */
#include "value.h"

#include <stddef.h>

#include "nvmlrc.h"

double gm_v_as_double(const struct gm_value *v)
{
    switch (v->type) {
    case GM_VT_I64:
        return (double)v->v.i;
    case GM_VT_F64:
        return v->v.d;
    default:
        return (double)v->v.u;
    }
}

/* NVML's return codes (nvmlrc.h) as a table: what a value read with each
 * is, and the text nvmlErrorString gives for it. */
static const struct {
    int code;
    enum gm_vstatus vstatus;
    const char *text;
} nvml_codes[] = {
#define GM_NVML_RC_ROW(name, num, text, vstatus) {num, vstatus, text},
    GM_NVML_RETURN_CODES(GM_NVML_RC_ROW)
#undef GM_NVML_RC_ROW
};

static int nvml_code_row(int code)
{
    for (size_t i = 0; i < sizeof(nvml_codes) / sizeof(nvml_codes[0]); i++)
        if (nvml_codes[i].code == code)
            return (int)i;
    return -1;
}

enum gm_vstatus gm_v_status_from_nvml(int code)
{
    int i = nvml_code_row(code);
    return i < 0 ? GM_VS_ERROR : nvml_codes[i].vstatus;
}

const char *gm_vstatus_name(enum gm_vstatus st)
{
    switch (st) {
    case GM_VS_OK:
        return "ok";
    case GM_VS_NA:
        return "not_available";
    case GM_VS_UNSUPPORTED:
        return "not_supported";
    case GM_VS_NOPERM:
        return "not_permitted";
    case GM_VS_LOST:
        return "gpu_lost";
    case GM_VS_ERROR:
        return "error";
    }
    return "error";
}

/* The texts nvmlErrorString gives (nvmlrc.h). */
const char *gm_nvml_error_text(int code)
{
    int i = nvml_code_row(code);
    return i < 0 ? "Unknown Error" : nvml_codes[i].text;
}
