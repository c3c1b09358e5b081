/* nvml_clocks.c -- the NVML source's readers of clocks (see nvml_int.h):
 * current, maximum and application clocks, the clock event (throttle)
 * reasons and their counters, and the violation times.  The simulator
 * answers these in sim/api_clocks.c.
 */
#include "nvml_int.h"

#include <string.h>

void gm_nv_rd_max_clocks(struct rd *r)
{
    static const struct {
        int id;
        nvmlClockType_t t;
    } mc[] = {{GM_M_CLK_MAX_GR, NVML_CLOCK_GRAPHICS},
              {GM_M_CLK_MAX_SM, NVML_CLOCK_SM},
              {GM_M_CLK_MAX_MEM, NVML_CLOCK_MEM},
              {GM_M_CLK_MAX_VIDEO, NVML_CLOCK_VIDEO}};
    for (size_t k = 0; k < sizeof(mc) / sizeof(mc[0]); k++) {
        unsigned int u = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMaxClockInfo, mc[k].t, &u);
        setv(r->g, mc[k].id, rc, gm_v_u64(u));
    }
}

void gm_nv_rd_clocks(struct rd *r)
{
    static const struct {
        int id;
        nvmlClockType_t t;
    } ck[] = {{GM_M_CLK_GR, NVML_CLOCK_GRAPHICS},
              {GM_M_CLK_SM, NVML_CLOCK_SM},
              {GM_M_CLK_MEM, NVML_CLOCK_MEM},
              {GM_M_CLK_VIDEO, NVML_CLOCK_VIDEO}};
    for (size_t k = 0; k < sizeof(ck) / sizeof(ck[0]); k++) {
        unsigned int u = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetClockInfo, ck[k].t, &u);
        setv(r->g, ck[k].id, rc, gm_v_u64(u));
        note(r, rc);
    }
}

void gm_nv_rd_clock_reasons(struct rd *r)
{
    unsigned long long act = 0, sup = 0;
    nvmlReturn_t rc = r->n->f.nvmlDeviceGetCurrentClocksEventReasons
                          ? RCALL(r, nvmlDeviceGetCurrentClocksEventReasons, &act)
                          : RCALL(r, nvmlDeviceGetCurrentClocksThrottleReasons, &act);
    setv(r->g, GM_M_CER_ACTIVE, rc, gm_v_u64(act));
    for (int id = GM_M_CER_GPU_IDLE; id <= GM_M_CER_DISPLAY_CLOCK; id++)
        setv(r->g, id, rc, gm_v_u64((act & gm_metrics[id].bit) ? 1 : 0));
    note(r, rc);
    rc = r->n->f.nvmlDeviceGetSupportedClocksEventReasons
             ? RCALL(r, nvmlDeviceGetSupportedClocksEventReasons, &sup)
             : RCALL(r, nvmlDeviceGetSupportedClocksThrottleReasons, &sup);
    setv(r->g, GM_M_CER_SUPPORTED, rc, gm_v_u64(sup));
    note(r, rc);
}

/* The violation time of each policy NVML counts (DCGM's *_VIOLATION
 * fields 240-245 read the same calls). */
void gm_nv_rd_violation(struct rd *r)
{
    static const struct {
        int id;
        nvmlPerfPolicyType_t policy;
    } pol[] = {{GM_M_VIOL_POWER, NVML_PERF_POLICY_POWER},
               {GM_M_VIOL_THERMAL, NVML_PERF_POLICY_THERMAL},
               {GM_M_VIOL_SYNC_BOOST, NVML_PERF_POLICY_SYNC_BOOST},
               {GM_M_VIOL_BOARD_LIMIT, NVML_PERF_POLICY_BOARD_LIMIT},
               {GM_M_VIOL_LOW_UTIL, NVML_PERF_POLICY_LOW_UTILIZATION},
               {GM_M_VIOL_RELIABILITY, NVML_PERF_POLICY_RELIABILITY}};
    for (size_t k = 0; k < sizeof(pol) / sizeof(pol[0]); k++) {
        nvmlViolationTime_t vt = {0, 0};
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetViolationStatus, pol[k].policy, &vt);
        setv(r->g, pol[k].id, rc, gm_v_f64(vt.violationTime / 1e9));
        note(r, rc);
    }
}

void gm_nv_rd_app_clocks(struct rd *r)
{
    static const struct {
        int id;
        nvmlClockType_t type;
        int dflt;
    } parts[] = {{GM_M_CLK_APP_GR, NVML_CLOCK_GRAPHICS, 0},
                 {GM_M_CLK_APP_MEM, NVML_CLOCK_MEM, 0},
                 {GM_M_CLK_DEFAPP_GR, NVML_CLOCK_GRAPHICS, 1},
                 {GM_M_CLK_DEFAPP_MEM, NVML_CLOCK_MEM, 1}};
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        unsigned int mhz = 0;
        rc = parts[k].dflt ? RCALL(r, nvmlDeviceGetDefaultApplicationsClock, parts[k].type, &mhz)
                           : RCALL(r, nvmlDeviceGetApplicationsClock, parts[k].type, &mhz);
        setv(r->g, parts[k].id, rc, gm_v_u64(mhz));
    }
    note(r, rc);
}

/* Clock event reason durations (ns in NVML) as seconds; nvidia-smi prints
 * them in microseconds (GM_U_US). */
void gm_nv_rd_cer_counters(struct rd *r)
{
    static const struct {
        int id;
        unsigned int field;
    } parts[] = {{GM_M_CERC_SW_POWER_CAP, 74},
                 {GM_M_CERC_SYNC_BOOST, 76},
                 {GM_M_CERC_SW_THERMAL, 269},
                 {GM_M_CERC_HW_THERMAL, 270},
                 {GM_M_CERC_HW_POWER_BRAKE, 271}};
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        uint64_t ns = 0;
        rc = read_field(r, parts[k].field, &ns);
        setv(r->g, parts[k].id, rc, gm_v_f64((double)ns / 1e9));
    }
    note(r, rc);
}

/* The recovery action the driver asks for (field 230,
 * nvmlDeviceGpuRecoveryAction_t: 0 none, 1 GPU reset, 2 node reboot, 3 drain
 * peer-to-peer, 4 drain and reset). */
void gm_nv_rd_recovery(struct rd *r)
{
    uint64_t a = 0;
    nvmlReturn_t rc = read_field(r, 230, &a); /* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION */
    setv(r->g, GM_M_GPU_RECOVERY_ACTION, rc, gm_v_u64(a));
    note(r, rc);
}
