/* value.c -- value statuses and conversions (see value.h). */
#include "value.h"

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

enum gm_vstatus gm_v_status_from_nvml(int code)
{
    switch (code) {
#define GM_NVML_RC_STATUS(name, num, text, vstatus)                                                \
    case num:                                                                                      \
        return vstatus;
        GM_NVML_RETURN_CODES(GM_NVML_RC_STATUS)
#undef GM_NVML_RC_STATUS
    }
    return GM_VS_ERROR;
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
    switch (code) {
#define GM_NVML_RC_TEXT(name, num, text, vstatus)                                                  \
    case num:                                                                                      \
        return text;
        GM_NVML_RETURN_CODES(GM_NVML_RC_TEXT)
#undef GM_NVML_RC_TEXT
    }
    return "Unknown Error";
}
