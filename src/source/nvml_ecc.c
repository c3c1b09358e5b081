/* nvml_ecc.c -- the NVML source's readers of memory errors (see
 * nvml_int.h): ECC mode and counts, by location and by unit, retired
 * pages, remapped rows (active and inactive) and the row remapper's histogram.  The simulator
 * answers these in sim/api_ecc.c.
 */
#include "nvml_int.h"

#include <string.h>

void gm_nv_rd_ecc_mode(struct rd *r)
{
    nvmlEnableState_t cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetEccMode, &cur, &pend);
    setv(r->g, GM_M_ECC_CUR, rc, gm_v_u64(cur));
    setv(r->g, GM_M_ECC_PENDING, rc, gm_v_u64(pend));
    note(r, rc);
}

void gm_nv_rd_ecc_counts(struct rd *r)
{
    static const struct {
        int id;
        nvmlMemoryErrorType_t e;
        nvmlEccCounterType_t c;
    } ec[] = {{GM_M_ECC_CORR_VOL, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC},
              {GM_M_ECC_UNCORR_VOL, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC},
              {GM_M_ECC_CORR_AGG, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC},
              {GM_M_ECC_UNCORR_AGG, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC}};
    for (size_t k = 0; k < sizeof(ec) / sizeof(ec[0]); k++) {
        unsigned long long ull = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetTotalEccErrors, ec[k].e, ec[k].c, &ull);
        setv(r->g, ec[k].id, rc, gm_v_u64(ull));
        note(r, rc);
        if (rc == NVML_ERROR_NOT_SUPPORTED) {
            for (size_t rest = k + 1; rest < sizeof(ec) / sizeof(ec[0]); rest++)
                setv(r->g, ec[rest].id, rc, gm_v_u64(0));
            break;
        }
    }
}

void gm_nv_rd_retired(struct rd *r)
{
    static const struct {
        int id;
        nvmlPageRetirementCause_t c;
    } rp[] = {{GM_M_RETIRED_SBE, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS},
              {GM_M_RETIRED_DBE, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR}};
    nvmlReturn_t rc;
    for (size_t k = 0; k < sizeof(rp) / sizeof(rp[0]); k++) {
        unsigned int cnt = 0;
        rc = RCALL(r, nvmlDeviceGetRetiredPages, rp[k].c, &cnt, NULL);
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
            rc = NVML_SUCCESS; /* the size query answers with the count */
        setv(r->g, rp[k].id, rc, gm_v_u64(cnt));
        note(r, rc);
    }
    nvmlEnableState_t pend = 0;
    rc = RCALL(r, nvmlDeviceGetRetiredPagesPendingStatus, &pend);
    setv(r->g, GM_M_RETIRED_PENDING, rc, gm_v_u64(pend));
    note(r, rc);
}

void gm_nv_rd_remapped(struct rd *r)
{
    unsigned int corr = 0, unc = 0, pend = 0, fail = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetRemappedRows, &corr, &unc, &pend, &fail);
    setv(r->g, GM_M_REMAP_CORR, rc, gm_v_u64(corr));
    setv(r->g, GM_M_REMAP_UNCORR, rc, gm_v_u64(unc));
    setv(r->g, GM_M_REMAP_PENDING, rc, gm_v_u64(pend ? 1 : 0));
    setv(r->g, GM_M_REMAP_FAILURE, rc, gm_v_u64(fail ? 1 : 0));
    note(r, rc);
}

/* Inactive row remappings (fields 301, 302, in 595's nvidia-smi): one
 * batched call; each field keeps its own code.  Counts of any integer
 * type are taken (nvml.h names none). */
void gm_nv_rd_remap_inactive(struct rd *r)
{
    static const struct {
        int id;
        unsigned int field;
    } parts[] = {
        {GM_M_REMAP_CORR_INACTIVE, NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE},
        {GM_M_REMAP_UNCORR_INACTIVE, NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE},
    };
    enum { N = sizeof(parts) / sizeof(parts[0]) };
    nvmlFieldValue_t fv[N];
    memset(fv, 0, sizeof(fv));
    for (size_t k = 0; k < N; k++)
        fv[k].fieldId = parts[k].field;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFieldValues, (int)N, fv);
    for (size_t k = 0; k < N; k++) {
        uint64_t x = fv[k].valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? fv[k].value.ullVal
                     : fv[k].valueType == NVML_VALUE_TYPE_SIGNED_LONG_LONG
                         ? (uint64_t)fv[k].value.sllVal
                         : fv[k].value.uiVal;
        setv(r->g, parts[k].id, rc != NVML_SUCCESS ? rc : fv[k].nvmlReturn, gm_v_u64(x));
    }
    note(r, rc);
}

void gm_nv_rd_remap_hist(struct rd *r)
{
    nvmlRowRemapperHistogramValues_t h;
    memset(&h, 0, sizeof(h));
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetRowRemapperHistogram, &h);
    setv(r->g, GM_M_REMAP_HIST_MAX, rc, gm_v_u64(h.max));
    setv(r->g, GM_M_REMAP_HIST_HIGH, rc, gm_v_u64(h.high));
    setv(r->g, GM_M_REMAP_HIST_PARTIAL, rc, gm_v_u64(h.partial));
    setv(r->g, GM_M_REMAP_HIST_LOW, rc, gm_v_u64(h.low));
    setv(r->g, GM_M_REMAP_HIST_NONE, rc, gm_v_u64(h.none));
    note(r, rc);
}

void gm_nv_rd_ecc_locations(struct rd *r)
{
    static const struct {
        int id;
        nvmlMemoryErrorType_t type;
        nvmlEccCounterType_t counter;
        unsigned int location;
    } parts[] = {
        {GM_M_ECC_CORR_VOL_DRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_UNCORR_VOL_DRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_CORR_AGG_DRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_UNCORR_AGG_DRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_CORR_VOL_SRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
        {GM_M_ECC_UNCORR_VOL_SRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
        {GM_M_ECC_CORR_AGG_SRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
        {GM_M_ECC_UNCORR_AGG_SRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
    };
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        unsigned long long n = 0;
        rc = RCALL(r, nvmlDeviceGetMemoryErrorCounter, parts[k].type, parts[k].counter,
                   parts[k].location, &n);
        setv(r->g, parts[k].id, rc, gm_v_u64(n));
    }
    note(r, rc);
}

/* ECC counts in the locations besides DRAM and SRAM (and device_memory,
 * nvidia-smi's other name for DRAM).  A board counts a location or it does
 * not (Ampere and later split SRAM and DRAM only): when the first counter
 * of a location is NOT_SUPPORTED the other three are too, without asking. */
void gm_nv_rd_ecc_units(struct rd *r)
{
    static const struct {
        int first; /* CV; UV, CA, UA follow (metrics.h) */
        unsigned int location;
    } locs[] = {{GM_M_ECCU_DEVMEM_CV, NVML_MEMORY_LOCATION_DRAM},
                {GM_M_ECCU_REGFILE_CV, NVML_MEMORY_LOCATION_REGISTER_FILE},
                {GM_M_ECCU_L1_CV, NVML_MEMORY_LOCATION_L1_CACHE},
                {GM_M_ECCU_L2_CV, NVML_MEMORY_LOCATION_L2_CACHE},
                {GM_M_ECCU_TEX_CV, NVML_MEMORY_LOCATION_TEXTURE_MEMORY},
                {GM_M_ECCU_CBU_CV, NVML_MEMORY_LOCATION_CBU}};
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t l = 0; l < sizeof(locs) / sizeof(locs[0]); l++) {
        for (int k = 0; k < 4; k++) {
            unsigned long long n = 0;
            if (k == 0 || rc != NVML_ERROR_NOT_SUPPORTED)
                rc = RCALL(r, nvmlDeviceGetMemoryErrorCounter,
                           k & 1 ? NVML_MEMORY_ERROR_TYPE_UNCORRECTED
                                 : NVML_MEMORY_ERROR_TYPE_CORRECTED,
                           k & 2 ? NVML_AGGREGATE_ECC : NVML_VOLATILE_ECC, locs[l].location, &n);
            setv(r->g, locs[l].first + k, rc, gm_v_u64(n));
        }
    }
    note(r, rc);
}

/* The SRAM error status (Ampere and later datacenter boards): uncorrected
 * parity and SEC-DED counts, the threshold flag and the aggregate counts by
 * unit, in the GM_M_SRAM_* rows' order. */
void gm_nv_rd_sram_status(struct rd *r)
{
    nvmlEccSramErrorStatus_t e;
    memset(&e, 0, sizeof(e));
    e.version = nvmlEccSramErrorStatus_v1;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetSramEccErrorStatus, &e);
    const unsigned long long v[] = {e.volatileUncParity,       e.volatileUncSecDed,
                                    e.aggregateUncParity,      e.aggregateUncSecDed,
                                    e.bThresholdExceeded != 0, e.aggregateUncBucketL2,
                                    e.aggregateUncBucketSm,    e.aggregateUncBucketMcu,
                                    e.aggregateUncBucketPcie,  e.aggregateUncBucketOther};
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
        setv(r->g, GM_M_SRAM_UV_PARITY + (int)k, rc, gm_v_u64(v[k]));
    note(r, rc);
}
