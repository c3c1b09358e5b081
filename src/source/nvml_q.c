/* nvml_q.c -- the extra NVML reads of `gpumon -q` (see nvml_q.h).
 *
 * The same library as the sampler's (dlopen of the same path returns the
 * same loaded object; nvmlInit_v2/nvmlShutdown are reference counted), its
 * symbols looked up by name here: a symbol the library lacks leaves its
 * values "not supported" (NVML_ERROR_FUNCTION_NOT_FOUND), as an older
 * driver would.  Signatures and enum values are nvml.h's
 * (/work/shared/reference/nvml-abi.md); the prototypes are declared in this
 * file because nothing else calls these functions.
 */
#include "nvml_q.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_abi.h"

typedef nvmlReturn_t (*fn_void)(void);
typedef nvmlReturn_t (*fn_handle)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_u32)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*fn_u32_u32)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_u32_u32_u32)(nvmlDevice_t, unsigned int *, unsigned int *,
                                       unsigned int *);
typedef nvmlReturn_t (*fn_in_u32)(nvmlDevice_t, unsigned int, unsigned int *);
typedef nvmlReturn_t (*fn_str)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*fn_gsp)(nvmlDevice_t, char *);
typedef nvmlReturn_t (*fn_in_str)(nvmlDevice_t, unsigned int, char *, unsigned int);
typedef nvmlReturn_t (*fn_memerr)(nvmlDevice_t, unsigned int, unsigned int, unsigned int,
                                  unsigned long long *);
typedef nvmlReturn_t (*fn_hist)(nvmlDevice_t, unsigned int *); /* 5 x u32 */
typedef nvmlReturn_t (*fn_clocks)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_grclocks)(nvmlDevice_t, unsigned int, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_clock_id)(nvmlDevice_t, unsigned int, unsigned int, unsigned int *);
typedef nvmlReturn_t (*fn_mig)(nvmlDevice_t, unsigned int, nvmlDevice_t *);

/* nvmlDeviceAttributes_t (nvml.h): 8 x u32, then memorySizeMB */
struct q_attributes {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB;
};
typedef nvmlReturn_t (*fn_attr)(nvmlDevice_t, struct q_attributes *);
/* nvmlBAR1Memory_t: bar1Total, bar1Free, bar1Used (u64) */
typedef nvmlReturn_t (*fn_bar1)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*fn_mem2)(nvmlDevice_t, nvmlMemory_v2_t *);

struct lib {
    void *dl;
};

static void *sym(struct lib *l, const char *name)
{
    return dlsym(l->dl, name);
}

const char *gm_q_str(const struct gm_q_gpu *q, int id)
{
    if (id < GM_Q__FIRST_STR || id >= GM_Q__COUNT || !gm_v_ok(&q->v[id]))
        return NULL;
    return q->str[id - GM_Q__FIRST_STR];
}

static struct gm_value from(nvmlReturn_t rc, uint64_t u)
{
    return rc == NVML_SUCCESS ? gm_v_u64(u) : gm_v_status(gm_v_status_from_nvml(rc), rc);
}

#define MISSING NVML_ERROR_FUNCTION_NOT_FOUND

static void one_u32(struct lib *l, nvmlDevice_t d, const char *name, struct gm_q_gpu *q, int id)
{
    fn_u32 f = (fn_u32)sym(l, name);
    unsigned int v = 0;
    nvmlReturn_t rc = f ? f(d, &v) : MISSING; /* before v is read */
    q->v[id] = from(rc, v);
}

static void two_u32(struct lib *l, nvmlDevice_t d, const char *name, struct gm_q_gpu *q, int a,
                    int b)
{
    fn_u32_u32 f = (fn_u32_u32)sym(l, name);
    unsigned int x = 0, y = 0;
    nvmlReturn_t rc = f ? f(d, &x, &y) : MISSING;
    q->v[a] = from(rc, x);
    q->v[b] = from(rc, y);
}

/* (utilization %, sampling period µs): the percentage is kept */
static void util(struct lib *l, nvmlDevice_t d, const char *name, struct gm_q_gpu *q, int id)
{
    fn_u32_u32 f = (fn_u32_u32)sym(l, name);
    unsigned int u = 0, period = 0;
    nvmlReturn_t rc = f ? f(d, &u, &period) : MISSING;
    q->v[id] = from(rc, u);
}

static void in_u32(struct lib *l, nvmlDevice_t d, const char *name, unsigned int in,
                   struct gm_q_gpu *q, int id)
{
    fn_in_u32 f = (fn_in_u32)sym(l, name);
    unsigned int v = 0;
    nvmlReturn_t rc = f ? f(d, in, &v) : MISSING;
    q->v[id] = from(rc, v);
}

static void set_str(struct gm_q_gpu *q, int id, nvmlReturn_t rc, const char *s)
{
    q->v[id] = from(rc, 0);
    if (rc == NVML_SUCCESS)
        snprintf(q->str[id - GM_Q__FIRST_STR], sizeof(q->str[0]), "%s", s);
}

static void strings(struct lib *l, nvmlDevice_t d, struct gm_q_gpu *q)
{
    char buf[96];
    fn_str img = (fn_str)sym(l, "nvmlDeviceGetInforomImageVersion");
    memset(buf, 0, sizeof(buf));
    set_str(q, GM_Q_INFOROM_IMG, img ? img(d, buf, sizeof(buf) - 1) : MISSING, buf);
    /* nvmlInforomObject_t: 0 OEM, 1 ECC, 2 POWER */
    fn_in_str obj = (fn_in_str)sym(l, "nvmlDeviceGetInforomVersion");
    static const int ids[3] = {GM_Q_INFOROM_OEM, GM_Q_INFOROM_ECC, GM_Q_INFOROM_PWR};
    for (unsigned int k = 0; k < 3; k++) {
        memset(buf, 0, sizeof(buf));
        set_str(q, ids[k], obj ? obj(d, k, buf, sizeof(buf) - 1) : MISSING, buf);
    }
    /* no length argument: the caller's buffer holds
     * NVML_GSP_FIRMWARE_VERSION_BUF_SIZE (0x40) bytes */
    fn_gsp gsp = (fn_gsp)sym(l, "nvmlDeviceGetGspFirmwareVersion");
    memset(buf, 0, sizeof(buf));
    set_str(q, GM_Q_GSP_FW, gsp ? gsp(d, buf) : MISSING, buf);
}

static void sessions(struct lib *l, nvmlDevice_t d, struct gm_q_gpu *q)
{
    fn_u32_u32_u32 enc = (fn_u32_u32_u32)sym(l, "nvmlDeviceGetEncoderStats");
    unsigned int a = 0, b = 0, c = 0;
    nvmlReturn_t rc = enc ? enc(d, &a, &b, &c) : MISSING;
    q->v[GM_Q_ENC_SESSIONS] = from(rc, a);
    q->v[GM_Q_ENC_FPS] = from(rc, b);
    q->v[GM_Q_ENC_LATENCY] = from(rc, c);
    /* nvmlFBCStats_t: sessionsCount, averageFPS, averageLatency (3 x u32) */
    fn_u32 fbc = (fn_u32)sym(l, "nvmlDeviceGetFBCStats");
    unsigned int st[3] = {0, 0, 0};
    rc = fbc ? fbc(d, st) : MISSING;
    q->v[GM_Q_FBC_SESSIONS] = from(rc, st[0]);
    q->v[GM_Q_FBC_FPS] = from(rc, st[1]);
    q->v[GM_Q_FBC_LATENCY] = from(rc, st[2]);
}

static void ecc_locations(struct lib *l, nvmlDevice_t d, struct gm_q_gpu *q)
{
    fn_memerr f = (fn_memerr)sym(l, "nvmlDeviceGetMemoryErrorCounter");
    /* counter 0 volatile, 1 aggregate; location 7 SRAM, 2 DRAM; type 0 corrected, 1 not */
    static const unsigned int counter[2] = {0, 1}, loc[2] = {7, 2}, type[2] = {0, 1};
    int id = GM_Q_ECC_VOL_SRAM_CORR;
    for (int c = 0; c < 2; c++)
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++) {
                unsigned long long v = 0;
                nvmlReturn_t rc = f ? f(d, type[t], counter[c], loc[m], &v) : MISSING;
                q->v[id++] = from(rc, v);
            }
}

static void supported_clocks(struct lib *l, nvmlDevice_t d, struct gm_q_gpu *q)
{
    fn_clocks mem = (fn_clocks)sym(l, "nvmlDeviceGetSupportedMemoryClocks");
    fn_grclocks gr = (fn_grclocks)sym(l, "nvmlDeviceGetSupportedGraphicsClocks");
    unsigned int n = GM_Q_MEM_CLOCKS_MAX;
    nvmlReturn_t rc = mem ? mem(d, &n, q->mem) : MISSING;
    q->supported = from(rc, 0);
    if (rc != NVML_SUCCESS || n > GM_Q_MEM_CLOCKS_MAX) {
        if (rc == NVML_SUCCESS) /* a library that claims more than it was given room for */
            q->supported = gm_v_status(GM_VS_ERROR, NVML_ERROR_INSUFFICIENT_SIZE);
        return;
    }
    q->nmem = n;
    for (uint32_t k = 0; k < n; k++) {
        unsigned int m = GM_Q_GR_CLOCKS_MAX;
        nvmlReturn_t r = gr ? gr(d, q->mem[k], &m, q->gr[k]) : MISSING;
        if (r == NVML_SUCCESS && m > GM_Q_GR_CLOCKS_MAX)
            r = NVML_ERROR_INSUFFICIENT_SIZE;
        q->gr_status[k] = from(r, 0);
        q->ngr[k] = r == NVML_SUCCESS ? m : 0;
    }
}

/* The MIG devices' engine counts and BAR1, by MIG device index. */
static void mig_devices(struct lib *l, nvmlDevice_t d, struct gm_q_gpu *q)
{
    fn_mig mig = (fn_mig)sym(l, "nvmlDeviceGetMigDeviceHandleByIndex");
    fn_attr attr = (fn_attr)sym(l, "nvmlDeviceGetAttributes_v2");
    if (!attr)
        attr = (fn_attr)sym(l, "nvmlDeviceGetAttributes");
    fn_bar1 bar1 = (fn_bar1)sym(l, "nvmlDeviceGetBAR1MemoryInfo");
    fn_memerr memerr = (fn_memerr)sym(l, "nvmlDeviceGetMemoryErrorCounter");
    fn_mem2 mem2 = (fn_mem2)sym(l, "nvmlDeviceGetMemoryInfo_v2");
    for (unsigned int k = 0; k < GM_MIG_MAX; k++) {
        nvmlDevice_t md = NULL;
        nvmlReturn_t rc = mig ? mig(d, k, &md) : MISSING;
        if (rc != NVML_SUCCESS) {
            q->mig_attr[k] = q->mig_bar1[k] = q->mig_sram_unc[k] = q->mig_reserved[k] = from(rc, 0);
            continue;
        }
        struct q_attributes a;
        memset(&a, 0, sizeof(a));
        rc = attr ? attr(md, &a) : MISSING;
        q->mig_attr[k] = from(rc, 0);
        unsigned int c[6] = {a.multiprocessorCount, a.sharedCopyEngineCount, a.sharedEncoderCount,
                             a.sharedDecoderCount,  a.sharedOfaCount,        a.sharedJpegCount};
        memcpy(q->mig_counts[k], c, sizeof(c)); /* the report's order */
        unsigned long long b[3] = {0, 0, 0};
        rc = bar1 ? bar1(md, b) : MISSING;
        q->mig_bar1[k] = from(rc, 0);
        q->mig_bar1_total[k] = b[0];
        q->mig_bar1_used[k] = b[2];
        /* uncorrected (1), volatile (0), SRAM (7) */
        unsigned long long u = 0;
        rc = memerr ? memerr(md, 1, 0, 7, &u) : MISSING;
        q->mig_sram_unc[k] = from(rc, u);
        nvmlMemory_v2_t m;
        memset(&m, 0, sizeof(m));
        m.version = nvmlMemory_v2;
        rc = mem2 ? mem2(md, &m) : MISSING;
        q->mig_reserved[k] = from(rc, m.reserved);
    }
}

static void read_gpu(struct lib *l, nvmlDevice_t d, struct gm_q_gpu *q)
{
    one_u32(l, d, "nvmlDeviceGetBrand", q, GM_Q_BRAND);
    one_u32(l, d, "nvmlDeviceGetArchitecture", q, GM_Q_ARCH);
    one_u32(l, d, "nvmlDeviceGetAccountingMode", q, GM_Q_ACCOUNTING);
    one_u32(l, d, "nvmlDeviceGetAccountingBufferSize", q, GM_Q_ACCOUNTING_BUF);
    const char *dm = sym(l, "nvmlDeviceGetDriverModel_v2") ? "nvmlDeviceGetDriverModel_v2"
                                                           : "nvmlDeviceGetDriverModel";
    two_u32(l, d, dm, q, GM_Q_DM_CUR, GM_Q_DM_PEND);
    one_u32(l, d, "nvmlDeviceGetMultiGpuBoard", q, GM_Q_MULTIGPU);
    one_u32(l, d, "nvmlDeviceGetBoardId", q, GM_Q_BOARD_ID);
    one_u32(l, d, "nvmlDeviceGetModuleId", q, GM_Q_MODULE_ID);
    two_u32(l, d, "nvmlDeviceGetGpuOperationMode", q, GM_Q_GOM_CUR, GM_Q_GOM_PEND);
    one_u32(l, d, "nvmlDeviceGetVirtualizationMode", q, GM_Q_VIRT);
    /* nvmlClockType_t: 0 graphics, 2 memory */
    in_u32(l, d, "nvmlDeviceGetApplicationsClock", 0, q, GM_Q_APP_GR);
    in_u32(l, d, "nvmlDeviceGetApplicationsClock", 2, q, GM_Q_APP_MEM);
    in_u32(l, d, "nvmlDeviceGetDefaultApplicationsClock", 0, q, GM_Q_DEFAPP_GR);
    in_u32(l, d, "nvmlDeviceGetDefaultApplicationsClock", 2, q, GM_Q_DEFAPP_MEM);
    if (sym(l, "nvmlDeviceGetMaxCustomerBoostClock")) {
        in_u32(l, d, "nvmlDeviceGetMaxCustomerBoostClock", 0, q, GM_Q_BOOST_GR);
    } else {
        /* nvmlDeviceGetClock(graphics, NVML_CLOCK_ID_CUSTOMER_BOOST_MAX = 3) */
        fn_clock_id f = (fn_clock_id)sym(l, "nvmlDeviceGetClock");
        unsigned int v = 0;
        nvmlReturn_t rc = f ? f(d, 0, 3, &v) : MISSING;
        q->v[GM_Q_BOOST_GR] = from(rc, v);
    }
    one_u32(l, d, "nvmlDeviceGetGpuMaxPcieLinkGeneration", q, GM_Q_PCIE_GEN_DEV_MAX);
    two_u32(l, d, "nvmlDeviceGetAutoBoostedClocksEnabled", q, GM_Q_AUTOBOOST, GM_Q_AUTOBOOST_DEF);
    sessions(l, d, q);
    util(l, d, "nvmlDeviceGetJpgUtilization", q, GM_Q_JPG_UTIL);
    util(l, d, "nvmlDeviceGetOfaUtilization", q, GM_Q_OFA_UTIL);
    ecc_locations(l, d, q);
    fn_hist h = (fn_hist)sym(l, "nvmlDeviceGetRowRemapperHistogram");
    unsigned int hv[5] = {0, 0, 0, 0, 0};
    nvmlReturn_t rc = h ? h(d, hv) : MISSING;
    for (int k = 0; k < 5; k++)
        q->v[GM_Q_HIST_MAX + k] = from(rc, hv[k]);
    /* nvmlTemperatureThresholds_t: 4 ACOUSTIC_MIN, 5 ACOUSTIC_CURR, 6 ACOUSTIC_MAX */
    in_u32(l, d, "nvmlDeviceGetTemperatureThreshold", 5, q, GM_Q_TARGET_TEMP);
    in_u32(l, d, "nvmlDeviceGetTemperatureThreshold", 4, q, GM_Q_TARGET_MIN);
    in_u32(l, d, "nvmlDeviceGetTemperatureThreshold", 6, q, GM_Q_TARGET_MAX);
    strings(l, d, q);
    supported_clocks(l, d, q);
    mig_devices(l, d, q);
}

static void fill(struct gm_q_gpu *q, struct gm_value v)
{
    for (int k = 0; k < GM_Q__COUNT; k++)
        q->v[k] = v;
    q->supported = v;
    for (int k = 0; k < GM_MIG_MAX; k++)
        q->mig_attr[k] = q->mig_bar1[k] = q->mig_sram_unc[k] = q->mig_reserved[k] = v;
}

int gm_q_read(const char *lib_path, const uint32_t *idx, uint32_t n, struct gm_q_gpu *out,
              struct gm_err *err)
{
    for (uint32_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof(out[i]));
    if (!lib_path || !*lib_path)
        lib_path = getenv("GPUMON_NVML_LIB");
    if (!lib_path || !*lib_path)
        lib_path = "libnvidia-ml.so.1";
    struct lib l = {dlopen(lib_path, RTLD_NOW | RTLD_LOCAL)};
    struct gm_value bad = gm_v_status(GM_VS_ERROR, NVML_ERROR_LIBRARY_NOT_FOUND);
    if (!l.dl) {
        for (uint32_t i = 0; i < n; i++)
            fill(&out[i], bad);
        const char *why = dlerror();
        return gm_err_set(err, GM_E_NOLIB, "cannot load %s (%s)", lib_path,
                          why ? why : "unknown reason");
    }
    fn_void init = (fn_void)sym(&l, "nvmlInit_v2");
    if (!init)
        init = (fn_void)sym(&l, "nvmlInit");
    fn_void shutdown = (fn_void)sym(&l, "nvmlShutdown");
    nvmlReturn_t rc = init ? init() : MISSING;
    if (rc != NVML_SUCCESS) {
        for (uint32_t i = 0; i < n; i++)
            fill(&out[i], gm_v_status(gm_v_status_from_nvml(rc), rc));
        dlclose(l.dl);
        return gm_err_set(err, GM_E_DRIVER, "nvmlInit failed: %s", gm_nvml_error_text(rc));
    }
    fn_handle handle = (fn_handle)sym(&l, "nvmlDeviceGetHandleByIndex_v2");
    if (!handle)
        handle = (fn_handle)sym(&l, "nvmlDeviceGetHandleByIndex");
    for (uint32_t i = 0; i < n; i++) {
        nvmlDevice_t d = NULL;
        nvmlReturn_t hr = handle ? handle(idx[i], &d) : MISSING;
        if (hr != NVML_SUCCESS) {
            fill(&out[i], gm_v_status(gm_v_status_from_nvml(hr), hr));
            continue;
        }
        read_gpu(&l, d, &out[i]);
    }
    if (shutdown)
        shutdown();
    dlclose(l.dl);
    return 0;
}
