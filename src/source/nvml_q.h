/* nvml_q.h -- the NVML values only `gpumon -q` shows (nvidia-smi's full
 * report): brand, architecture, inforom, accounting, application clocks,
 * per-location ECC counters, the row remapper's histogram, encoder/FBC
 * sessions, supported clocks, ...
 *
 * They are not metrics (no history, no exporter series), so they stay out of
 * the registry and the snapshot: a one-shot read beside the sample, for the
 * report only.  Each value keeps its status: a function the loaded library
 * does not export reads as "not supported", like NOT_SUPPORTED from the
 * driver, and prints N/A.  Reads on the caller's thread, without the
 * collector's hung-call watchdog: call it after a sample succeeded.
 */
#ifndef GM_SOURCE_NVML_Q_H
#define GM_SOURCE_NVML_Q_H

#include <stdint.h>

#include "../core/err.h"
#include "../core/snapshot.h"
#include "../core/value.h"

enum gm_q_id {
    GM_Q_BRAND = 0,      /* nvmlBrandType_t */
    GM_Q_ARCH,           /* nvmlDeviceArchitecture_t */
    GM_Q_ACCOUNTING,     /* 0/1 */
    GM_Q_ACCOUNTING_BUF, /* entries */
    GM_Q_DM_CUR,         /* nvmlDriverModel_t */
    GM_Q_DM_PEND,
    GM_Q_MULTIGPU, /* 0/1 */
    GM_Q_BOARD_ID,
    GM_Q_MODULE_ID,
    GM_Q_GOM_CUR, /* nvmlGpuOperationMode_t */
    GM_Q_GOM_PEND,
    GM_Q_VIRT,   /* nvmlGpuVirtualizationMode_t */
    GM_Q_APP_GR, /* MHz */
    GM_Q_APP_MEM,
    GM_Q_DEFAPP_GR,
    GM_Q_DEFAPP_MEM,
    GM_Q_BOOST_GR,
    GM_Q_AUTOBOOST, /* 0/1 */
    GM_Q_AUTOBOOST_DEF,
    GM_Q_ENC_SESSIONS,
    GM_Q_ENC_FPS,
    GM_Q_ENC_LATENCY, /* µs */
    GM_Q_FBC_SESSIONS,
    GM_Q_FBC_FPS,
    GM_Q_FBC_LATENCY,
    GM_Q_JPG_UTIL, /* % */
    GM_Q_OFA_UTIL,
    /* per-location ECC counters: volatile/aggregate x SRAM/DRAM x corr/uncorr */
    GM_Q_ECC_VOL_SRAM_CORR,
    GM_Q_ECC_VOL_SRAM_UNCORR,
    GM_Q_ECC_VOL_DRAM_CORR,
    GM_Q_ECC_VOL_DRAM_UNCORR,
    GM_Q_ECC_AGG_SRAM_CORR,
    GM_Q_ECC_AGG_SRAM_UNCORR,
    GM_Q_ECC_AGG_DRAM_CORR,
    GM_Q_ECC_AGG_DRAM_UNCORR,
    GM_Q_HIST_MAX, /* row remapper bank availability, banks */
    GM_Q_HIST_HIGH,
    GM_Q_HIST_PARTIAL,
    GM_Q_HIST_LOW,
    GM_Q_HIST_NONE,
    GM_Q_TARGET_TEMP, /* C: NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR */
    GM_Q_TARGET_MIN,
    GM_Q_TARGET_MAX,
    GM_Q_PCIE_GEN_DEV_MAX, /* nvmlDeviceGetGpuMaxPcieLinkGeneration */
    /* strings (their text in gm_q_gpu.str) */
    GM_Q_INFOROM_IMG,
    GM_Q_INFOROM_OEM,
    GM_Q_INFOROM_ECC,
    GM_Q_INFOROM_PWR,
    GM_Q_GSP_FW,
    GM_Q__COUNT
};
#define GM_Q__FIRST_STR GM_Q_INFOROM_IMG

#define GM_Q_MEM_CLOCKS_MAX 16
#define GM_Q_GR_CLOCKS_MAX 256

struct gm_q_gpu {
    struct gm_value v[GM_Q__COUNT];
    char str[GM_Q__COUNT - GM_Q__FIRST_STR][96];
    /* nvmlDeviceGetSupportedMemoryClocks, then the graphics clocks of each */
    struct gm_value supported; /* OK when the memory clocks were read */
    uint32_t nmem;
    uint32_t mem[GM_Q_MEM_CLOCKS_MAX];
    struct gm_value gr_status[GM_Q_MEM_CLOCKS_MAX];
    uint32_t ngr[GM_Q_MEM_CLOCKS_MAX];
    uint32_t gr[GM_Q_MEM_CLOCKS_MAX][GM_Q_GR_CLOCKS_MAX];
    /* MIG devices by MIG device index (nvmlDeviceGetMigDeviceHandleByIndex):
     * nvmlDeviceGetAttributes_v2's six engine counts (SMs, copy engines,
     * decoders, encoders, JPEG, OFA) and BAR1 total/used in bytes */
    struct gm_value mig_attr[GM_MIG_MAX];
    uint32_t mig_counts[GM_MIG_MAX][6];
    struct gm_value mig_bar1[GM_MIG_MAX];
    uint64_t mig_bar1_total[GM_MIG_MAX];
    uint64_t mig_bar1_used[GM_MIG_MAX];
    /* and, on the MIG device's handle, the volatile uncorrected SRAM ECC
     * count (nvmlDeviceGetMemoryErrorCounter) and the memory the driver
     * reserves (nvmlDeviceGetMemoryInfo_v2's reserved), in bytes */
    struct gm_value mig_sram_unc[GM_MIG_MAX];
    struct gm_value mig_reserved[GM_MIG_MAX];
};

/* The text of a string value, or NULL when it is not OK. */
const char *gm_q_str(const struct gm_q_gpu *q, int id);

/* Reads the values of the GPUs with NVML indices idx[0..n) into out[0..n)
 * (each zeroed first).  lib_path as gm_nvml_open (NULL: $GPUMON_NVML_LIB or
 * libnvidia-ml.so.1).  A GPU whose handle cannot be had gets every value
 * with that status.  Returns 0, or GM_E_NOLIB / GM_E_DRIVER (err says why)
 * when the library cannot be loaded or initialised: out then holds every
 * value as an error. */
int gm_q_read(const char *lib_path, const uint32_t *idx, uint32_t n, struct gm_q_gpu *out,
              struct gm_err *err);

#endif /* GM_SOURCE_NVML_Q_H */
