/* value.h -- a sampled value that knows whether it is real.
 *
 * DESIGN principle 3: every value is ok, not supported, not permitted, not
 * available or an error; never a silent 0.  A gm_value carries the status,
 * the NVML return code that caused it (for messages) and the number in the
 * metric's base unit (bytes, watts, degrees Celsius, MHz, percent, ...; see
 * metrics.h).  Strings (names, UUIDs) live beside the numbers in the
 * snapshot; their status is a gm_value with no number.
 */
#ifndef GM_VALUE_H
#define GM_VALUE_H

#include <stdint.h>

enum gm_vstatus {
    GM_VS_OK = 0,      /* value is real */
    GM_VS_NA,          /* not available: not applicable here, or not known yet (e.g. a
                          rate before the second sample, NVML_VALUE_NOT_AVAILABLE) */
    GM_VS_UNSUPPORTED, /* the GPU/driver does not support it (NVML_ERROR_NOT_SUPPORTED,
                          or the symbol is missing from this driver's library) */
    GM_VS_NOPERM,      /* not permitted (NVML_ERROR_NO_PERMISSION, /proc access denied) */
    GM_VS_LOST,        /* the GPU is lost (fell off the bus) */
    GM_VS_ERROR        /* any other failure; `code` holds the NVML return code */
};

/* `code` of a GM_VS_NA value that was not read because nothing asked for it
 * (costly metrics such as PCIe throughput are read only on request). */
#define GM_CODE_NOT_COLLECTED (-1)

enum gm_vtype { GM_VT_U64 = 0, GM_VT_I64, GM_VT_F64 };

struct gm_value {
    uint8_t status; /* enum gm_vstatus */
    uint8_t type;   /* enum gm_vtype: which member of v holds the number */
    int16_t code;   /* NVML return code when status != OK, else 0 */
    /* How old the value is at its snapshot, in ms: 0 read in this sample;
     * more for a slow read group's value read that long before and reused
     * (source/nvml.h, gm_nvml_set_cadence).  Every output that shows such
     * a value shows its age too: it is real, not fresh. */
    uint32_t age_ms;
    union {
        uint64_t u;
        int64_t i;
        double d;
    } v;
};

/* Constructors. */
static inline struct gm_value gm_v_u64(uint64_t u)
{
    struct gm_value x = {.status = GM_VS_OK, .type = GM_VT_U64};
    x.v.u = u;
    return x;
}
static inline struct gm_value gm_v_i64(int64_t i)
{
    struct gm_value x = {.status = GM_VS_OK, .type = GM_VT_I64};
    x.v.i = i;
    return x;
}
static inline struct gm_value gm_v_f64(double d)
{
    struct gm_value x = {.status = GM_VS_OK, .type = GM_VT_F64};
    x.v.d = d;
    return x;
}
static inline struct gm_value gm_v_status(enum gm_vstatus st, int code)
{
    struct gm_value x = {.status = (uint8_t)st, .code = (int16_t)code};
    return x;
}

static inline int gm_v_ok(const struct gm_value *v)
{
    return v->status == GM_VS_OK;
}

/* The number as a double, whatever its type (callers check gm_v_ok first). */
double gm_v_as_double(const struct gm_value *v);

/* Maps an NVML return code to a value status: NOT_SUPPORTED and
 * FUNCTION_NOT_FOUND -> UNSUPPORTED, NO_PERMISSION -> NOPERM, GPU_IS_LOST ->
 * LOST, NOT_FOUND / NO_DATA -> NA, anything else -> ERROR. */
enum gm_vstatus gm_v_status_from_nvml(int nvml_code);

/* Stable lower-case name of a status ("ok", "not_supported", ...), used in
 * JSON, CSV status columns and logs. */
const char *gm_vstatus_name(enum gm_vstatus st);

/* Human text for an NVML return code ("GPU is lost"), from our own table. */
const char *gm_nvml_error_text(int nvml_code);

#endif /* GM_VALUE_H */
