/* nvml_sensors.c -- the NVML source's readers of temperatures, fans,
 * performance state and power (see nvml_int.h): thresholds and margin,
 * power limits, draw (average, instant, Grace Hopper module), energy and
 * power management mode, power smoothing and the EDPp multiplier.  The simulator answers these in
 * sim/api_sensors.c and sim/api_ecc.c (the field values).
 */
#include "nvml_int.h"

#include <math.h>
#include <string.h>

void gm_nv_rd_temp_thresh(struct rd *r)
{
    static const struct {
        int id;
        nvmlTemperatureThresholds_t t;
    } th[] = {{GM_M_TEMP_SHUTDOWN, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN},
              {GM_M_TEMP_SLOWDOWN, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN},
              {GM_M_TEMP_GPU_MAX, NVML_TEMPERATURE_THRESHOLD_GPU_MAX},
              {GM_M_TEMP_MEM_MAX, NVML_TEMPERATURE_THRESHOLD_MEM_MAX}};
    for (size_t k = 0; k < sizeof(th) / sizeof(th[0]); k++) {
        unsigned int u = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetTemperatureThreshold, th[k].t, &u);
        setv(r->g, th[k].id, rc, gm_v_u64(u));
    }
}

void gm_nv_rd_power_limits(struct rd *r)
{
    unsigned int u = 0, u2 = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerManagementDefaultLimit, &u);
    setv(r->g, GM_M_POWER_DEFAULT, rc, gm_v_f64(u / 1000.0));
    rc = RCALL(r, nvmlDeviceGetPowerManagementLimitConstraints, &u, &u2);
    setv(r->g, GM_M_POWER_MIN, rc, gm_v_f64(u / 1000.0));
    setv(r->g, GM_M_POWER_MAX, rc, gm_v_f64(u2 / 1000.0));
}

void gm_nv_rd_pstate(struct rd *r)
{
    nvmlPstates_t ps = NVML_PSTATE_UNKNOWN;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPerformanceState, &ps);
    setv(r->g, GM_M_PSTATE, rc, gm_v_u64((uint64_t)ps));
    note(r, rc);
}

void gm_nv_rd_fan(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFanSpeed, &u);
    setv(r->g, GM_M_FAN, rc, gm_v_u64(u));
    note(r, rc);
}

void gm_nv_rd_temp(struct rd *r)
{
    nvmlReturn_t rc;
    if (r->n->f.nvmlDeviceGetTemperature) {
        unsigned int u = 0;
        rc = RCALL(r, nvmlDeviceGetTemperature, NVML_TEMPERATURE_GPU, &u);
        setv(r->g, GM_M_TEMP_GPU, rc, gm_v_u64(u));
    } else {
        nvmlTemperature_t t = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
        rc = RCALL(r, nvmlDeviceGetTemperatureV, &t);
        setv(r->g, GM_M_TEMP_GPU, rc, gm_v_i64(t.temperature));
    }
    note(r, rc);
}

void gm_nv_rd_temp_mem(struct rd *r)
{
    uint64_t v = 0;
    nvmlReturn_t rc = read_field(r, NVML_FI_DEV_MEMORY_TEMP, &v);
    if (rc == NVML_SUCCESS)
        /* a zero memory temperature is how some boards say "no sensor" */
        r->g->m[GM_M_TEMP_MEM] = v ? gm_v_u64(v) : gm_v_status(GM_VS_NA, 0);
    else
        setv(r->g, GM_M_TEMP_MEM, rc, gm_v_u64(0));
    note(r, rc);
}

void gm_nv_rd_power(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerUsage, &u);
    setv(r->g, GM_M_POWER_DRAW, rc, gm_v_f64(u / 1000.0));
    note(r, rc);
}

void gm_nv_rd_power_instant(struct rd *r)
{
    uint64_t mw = 0;
    nvmlReturn_t rc = read_field(r, NVML_FI_DEV_POWER_AVERAGE, &mw);
    setv(r->g, GM_M_POWER_AVERAGE, rc, gm_v_f64((double)mw / 1000.0));
    rc = read_field(r, NVML_FI_DEV_POWER_INSTANT, &mw);
    setv(r->g, GM_M_POWER_INSTANT, rc, gm_v_f64((double)mw / 1000.0));
    note(r, rc);
}

void gm_nv_rd_power_limit(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerManagementLimit, &u);
    setv(r->g, GM_M_POWER_LIMIT, rc, gm_v_f64(u / 1000.0));
    rc = RCALL(r, nvmlDeviceGetEnforcedPowerLimit, &u);
    setv(r->g, GM_M_POWER_ENFORCED, rc, gm_v_f64(u / 1000.0));
    note(r, rc);
}

void gm_nv_rd_energy(struct rd *r)
{
    unsigned long long ull = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetTotalEnergyConsumption, &ull);
    setv(r->g, GM_M_ENERGY, rc, gm_v_f64(ull / 1000.0));
    note(r, rc);
}

void gm_nv_rd_power_mgmt(struct rd *r)
{
    unsigned int mode = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerManagementMode, &mode);
    setv(r->g, GM_M_POWER_MGMT, rc, gm_v_u64(mode));
    note(r, rc);
}

void gm_nv_rd_temp_margin(struct rd *r)
{
    nvmlMarginTemperature_t m;
    memset(&m, 0, sizeof(m));
    m.version = nvmlMarginTemperature_v1;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMarginTemperature, &m);
    setv(r->g, GM_M_TEMP_TLIMIT, rc, gm_v_i64(m.marginTemperature));
    note(r, rc);
}

/* Module power (Grace Hopper): the power fields with scopeId
 * NVML_POWER_SCOPE_MODULE in one call.  NVML has no getter for the module
 * scope besides the field values; a board that is not a module answers
 * NOT_SUPPORTED per entry ([N/A]), and is not asked again while the
 * handle lives (the agent samples every second). */
void gm_nv_rd_module_power(struct rd *r)
{
    static const struct {
        int id;
        unsigned int field;
    } parts[] = {{GM_M_MODULE_POWER_AVERAGE, NVML_FI_DEV_POWER_AVERAGE},
                 {GM_M_MODULE_POWER_INSTANT, NVML_FI_DEV_POWER_INSTANT},
                 {GM_M_MODULE_POWER_LIMIT, 192},    /* NVML_FI_DEV_POWER_REQUESTED_LIMIT */
                 {GM_M_MODULE_POWER_ENFORCED, 190}, /* NVML_FI_DEV_POWER_CURRENT_LIMIT */
                 {GM_M_MODULE_POWER_DEFAULT, 189},  /* NVML_FI_DEV_POWER_DEFAULT_LIMIT */
                 {GM_M_MODULE_POWER_MIN, 187},      /* NVML_FI_DEV_POWER_MIN_LIMIT */
                 {GM_M_MODULE_POWER_MAX, 188}};     /* NVML_FI_DEV_POWER_MAX_LIMIT */
    enum { N = sizeof(parts) / sizeof(parts[0]) };
    struct dev *d = &r->n->dev[r->i];
    if (d->module_none) {
        for (size_t k = 0; k < N; k++)
            setv(r->g, parts[k].id, NVML_ERROR_NOT_SUPPORTED, gm_v_f64(0));
        return;
    }
    nvmlFieldValue_t fv[N];
    memset(fv, 0, sizeof(fv));
    for (size_t k = 0; k < N; k++) {
        fv[k].fieldId = parts[k].field;
        fv[k].scopeId = NVML_POWER_SCOPE_MODULE;
    }
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFieldValues, (int)N, fv);
    int none = 1;
    for (size_t k = 0; k < N; k++) {
        nvmlReturn_t one = rc == NVML_SUCCESS ? fv[k].nvmlReturn : rc;
        uint64_t mw = fv[k].valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? fv[k].value.ullVal
                                                                            : fv[k].value.uiVal;
        setv(r->g, parts[k].id, one, gm_v_f64((double)mw / 1000.0));
        none &= one == NVML_ERROR_NOT_SUPPORTED;
    }
    d->module_none = none;
    note(r, rc);
}

/* A field value of any type as a double. */
static double fv_double(const nvmlFieldValue_t *f)
{
    switch (f->valueType) {
    case NVML_VALUE_TYPE_DOUBLE:
        return f->value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
        return (double)f->value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
        return (double)f->value.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        return (double)f->value.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT:
        return (double)f->value.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
        return (double)f->value.usVal;
    default:
        return (double)f->value.uiVal;
    }
}

/* The EDPp multiplier (field 274), a percentage of any value type. */
void gm_nv_rd_edpp(struct rd *r)
{
    nvmlFieldValue_t fv;
    memset(&fv, 0, sizeof(fv));
    fv.fieldId = NVML_FI_DEV_EDPP_MULTIPLIER;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFieldValues, 1, &fv);
    setv(r->g, GM_M_EDPP_MULTIPLIER, rc != NVML_SUCCESS ? rc : fv.nvmlReturn,
         gm_v_f64(fv_double(&fv)));
    note(r, rc);
}

/* Power smoothing (R570+, Blackwell datacenter boards; NOT_SUPPORTED per
 * field elsewhere).  nvml.h does not say each field's value type, so any
 * is taken.  The current profile's fields are asked with the active
 * profile (field 264) in scopeId; without it they share its error.  An
 * admin override that is not set (0xFFFFFFFF) is absent. */
void gm_nv_rd_power_smoothing(struct rd *r)
{
    enum { W, MS, COUNT, YESNO };
    static const struct {
        int id;
        unsigned int field;
        int kind, profile, admin;
    } parts[] = {
        {GM_M_PS_DELAYED_SUPPORTED, NVML_FI_PWR_SMOOTHING_DELAYED_PWR_SMOOTHING_SUPPORTED, YESNO, 0,
         0},
        {GM_M_PS_PRIMARY_FLOOR, NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR, W, 0, 0},
        {GM_M_PS_SECONDARY_FLOOR, NVML_FI_PWR_SMOOTHING_SECONDARY_POWER_FLOOR, W, 0, 0},
        {GM_M_PS_MIN_ACT_OFFSET, NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_OFFSET, W, 0, 0},
        {GM_M_PS_MIN_ACT_POINT, NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_POINT, W, 0, 0},
        {GM_M_PS_WINDOW_MULT, NVML_FI_PWR_SMOOTHING_WINDOW_MULTIPLIER, MS, 0, 0},
        {GM_M_PS_CUR_SECONDARY_FLOOR, NVML_FI_PWR_SMOOTHING_PROFILE_SECONDARY_POWER_FLOOR, W, 1, 0},
        {GM_M_PS_CUR_ACT_WIN_MULT, NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_WIN_MULT, COUNT,
         1, 0},
        {GM_M_PS_CUR_TAR_WIN_MULT, NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_TAR_WIN_MULT, COUNT,
         1, 0},
        {GM_M_PS_CUR_ACT_OFFSET, NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_OFFSET, W, 1, 0},
        {GM_M_PS_ADM_SECONDARY_FLOOR, NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_SECONDARY_POWER_FLOOR, W,
         0, 1},
        {GM_M_PS_ADM_ACT_WIN_MULT, NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_WIN_MULT,
         COUNT, 0, 1},
        {GM_M_PS_ADM_TAR_WIN_MULT, NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_TAR_WIN_MULT,
         COUNT, 0, 1},
        {GM_M_PS_ADM_ACT_OFFSET, NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_OFFSET, W,
         0, 1},
    };
    enum { N = sizeof(parts) / sizeof(parts[0]) };
    uint64_t profile = 0;
    nvmlReturn_t prc = read_field(r, NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE, &profile);
    nvmlFieldValue_t fv[N];
    memset(fv, 0, sizeof(fv));
    for (size_t k = 0; k < N; k++) {
        fv[k].fieldId = parts[k].field;
        fv[k].scopeId = parts[k].profile ? (unsigned int)profile : 0;
    }
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFieldValues, (int)N, fv);
    for (size_t k = 0; k < N; k++) {
        nvmlReturn_t one = rc != NVML_SUCCESS                        ? rc
                           : parts[k].profile && prc != NVML_SUCCESS ? prc
                                                                     : fv[k].nvmlReturn;
        double x = fv_double(&fv[k]);
        if (one == NVML_SUCCESS && parts[k].admin &&
            x == (double)NVML_POWER_SMOOTHING_ADMIN_OVERRIDE_NOT_SET)
            one = NVML_ERROR_NOT_SUPPORTED;
        struct gm_value v = parts[k].kind == W       ? gm_v_f64(x)
                            : parts[k].kind == MS    ? gm_v_f64(x / 1000.0)
                            : parts[k].kind == YESNO ? gm_v_u64(x != 0)
                                                     : gm_v_u64(x > 0 ? (uint64_t)llround(x) : 0);
        setv(r->g, parts[k].id, one, v);
    }
    note(r, rc);
}
