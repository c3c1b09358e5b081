/* nvml.c -- the NVML source (see nvml.h): dlopen, symbol resolution with
 * version fallbacks, the per-GPU static cache, and one pass per snapshot.
 * The readers of each NVML area are nvml_<area>.c; what the files share is
 * nvml_int.h.
 *
 * Every symbol gpumon uses is named once, in NVML_SYMS, which makes both
 * the function-pointer struct and the dlsym table.  Every NVML call goes
 * through CALL(), which records the function and GPU in progress
 * (gm_nvml_current_call) so a caller's watchdog can name a call that hangs.
 * A missing symbol reads as NVML_ERROR_FUNCTION_NOT_FOUND, which the value
 * layer maps to "not supported" (DESIGN principle 3).
 *
 * Values are read by one small function per read group (metrics.h), listed
 * in readers[]: the static groups once per GPU, the wanted dynamic groups
 * on every sample.
 *
 * Left out here: NVML events (XID) live with the agent's event thread, and
 * /proc enrichment lives in procfs.c.
 */
#include "nvml.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/timeutil.h"
#include "nvml_int.h"

/* ------------------------------------------------------------ symbol table */

static const struct {
    const char *name;
    size_t off;
} symtab[] = {
#define X(name) {#name, offsetof(struct nvml_fns, name)},
    NVML_SYMS(X)
#undef X
};

#define NSYMS (sizeof(symtab) / sizeof(symtab[0]))

/* --------------------------------------------------------------- messages */

const char *gm_nvml_strerror(int code)
{
    return gm_nvml_error_text(code);
}

static void set_state(struct gm_nvml *n, enum gm_driver_state st, int code, const char *msg)
{
    n->state = (uint8_t)st;
    n->state_code = (int16_t)code;
    gm_strlcpy(n->state_msg, msg, sizeof(n->state_msg));
}

static void explain_init_failure(struct gm_nvml *n, int rc)
{
    char msg[512];
    switch (rc) {
    case NVML_ERROR_DRIVER_NOT_LOADED:
        snprintf(msg, sizeof(msg),
                 "the NVIDIA kernel driver is not loaded (NVML: %s); run 'gpumon doctor' (check "
                 "'modules'), or by hand 'lsmod | grep nvidia', 'sudo modprobe nvidia' and "
                 "'dmesg | grep -i nvrm'",
                 gm_nvml_strerror(rc));
        set_state(n, GM_DRV_NOT_LOADED, rc, msg);
        break;
    case NVML_ERROR_NO_PERMISSION:
        snprintf(
            msg, sizeof(msg),
            "no permission to talk to the NVIDIA driver (NVML: %s); run 'gpumon doctor' (check "
            "'devnodes'): /dev/nvidiactl and /dev/nvidia* must be open to you",
            gm_nvml_strerror(rc));
        set_state(n, GM_DRV_NOPERM, rc, msg);
        break;
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        snprintf(
            msg, sizeof(msg),
            "driver/library version mismatch: the loaded kernel module and libnvidia-ml.so "
            "come from different driver versions (usually an upgrade without a reboot); "
            "reboot or reload the nvidia modules; 'gpumon doctor' (check 'version') shows both");
        set_state(n, GM_DRV_MISMATCH, rc, msg);
        break;
    default:
        snprintf(msg, sizeof(msg),
                 "NVML failed to initialize: %s (code %d); run 'gpumon doctor' (check 'nvml')",
                 gm_nvml_strerror(rc), rc);
        set_state(n, GM_DRV_ERROR, rc, msg);
        break;
    }
}

/* ------------------------------------------------------------ open / init */

static void free_devices(struct gm_nvml *n)
{
    for (unsigned i = 0; i < n->ndev; i++)
        gm_nv_free_gpm(n, &n->dev[i]);
    free(n->dev);
}

static void reset_devices(struct gm_nvml *n)
{
    free_devices(n);
    n->dev = NULL;
    n->ndev = 0;
    n->host_done = 0;
}

static int try_init(struct gm_nvml *n)
{
    nvmlReturn_t rc = n->f.nvmlInit_v2 ? CALL(n, -1, nvmlInit_v2) : CALL(n, -1, nvmlInit);
    if (rc != NVML_SUCCESS) {
        explain_init_failure(n, rc);
        return rc;
    }
    n->inited = 1;
    n->backoff_ns = 0;
    set_state(n, GM_DRV_OK, 0, "");
    reset_devices(n);
    return NVML_SUCCESS;
}

static void schedule_retry(struct gm_nvml *n)
{
    n->backoff_ns = n->backoff_ns ? n->backoff_ns * 2 : n->backoff_min_ns;
    if (n->backoff_ns > n->backoff_max_ns)
        n->backoff_ns = n->backoff_max_ns;
    n->next_init_ns = gm_mono_ns() + n->backoff_ns;
}

int gm_nvml_open(struct gm_nvml **out, const char *lib_path, struct gm_err *err)
{
    struct gm_nvml *n = gm_xcalloc(1, sizeof(*n));
    *out = n;
    n->backoff_min_ns = 0;
    n->backoff_max_ns = 60LL * 1000000000LL;
    n->groups = gm_nvml_groups_default();
    n->want_procs = 1;
    atomic_init(&n->cur_call, NULL);
    atomic_init(&n->cur_gpu, -1);
    if (gethostname(n->hostname, sizeof(n->hostname) - 1) != 0)
        gm_strlcpy(n->hostname, "unknown", sizeof(n->hostname));

    if (!lib_path || !*lib_path)
        lib_path = getenv("GPUMON_NVML_LIB");
    if (!lib_path || !*lib_path)
        lib_path = "libnvidia-ml.so.1";
    gm_strlcpy(n->lib_path, lib_path, sizeof(n->lib_path));

    n->dl = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!n->dl) {
        const char *why = dlerror();
        char msg[512];
        snprintf(msg, sizeof(msg),
                 "cannot load the NVIDIA management library %s (%s); the NVIDIA driver is not "
                 "installed or its library is not on the loader path; run 'gpumon doctor' (check "
                 "'nvml')",
                 lib_path, why ? why : "unknown reason");
        set_state(n, GM_DRV_NOLIB, NVML_ERROR_LIBRARY_NOT_FOUND, msg);
        if (err)
            err->nvml_code = NVML_ERROR_LIBRARY_NOT_FOUND;
        return gm_err_set(err, GM_E_NOLIB, "%s", msg);
    }
    for (size_t i = 0; i < NSYMS; i++) {
        void *p = dlsym(n->dl, symtab[i].name);
        memcpy((char *)&n->f + symtab[i].off, &p, sizeof(p));
    }
    if (!n->f.nvmlInit_v2 && !n->f.nvmlInit) {
        char msg[512];
        snprintf(msg, sizeof(msg), "%s does not export nvmlInit: not an NVML library", lib_path);
        set_state(n, GM_DRV_NOLIB, NVML_ERROR_FUNCTION_NOT_FOUND, msg);
        if (err)
            err->nvml_code = NVML_ERROR_FUNCTION_NOT_FOUND;
        return gm_err_set(err, GM_E_NOLIB, "%s", msg);
    }
    int rc = try_init(n);
    if (rc != NVML_SUCCESS) {
        schedule_retry(n);
        if (err)
            err->nvml_code = rc;
        return gm_err_set(err, GM_E_DRIVER, "%s", n->state_msg);
    }
    return 0;
}

void gm_nvml_close(struct gm_nvml *n)
{
    if (!n)
        return;
    free_devices(n);
    if (n->inited && n->f.nvmlShutdown)
        n->f.nvmlShutdown();
    if (n->dl)
        dlclose(n->dl);
    free(n->pbuf);
    free(n->ubuf);
    free(n->pent);
    free(n->pix);
    free(n);
}

void gm_nvml_set_backoff(struct gm_nvml *n, int64_t min_ns, int64_t max_ns)
{
    n->backoff_min_ns = min_ns;
    n->backoff_max_ns = max_ns < min_ns ? min_ns : max_ns;
}

void gm_nvml_set_groups(struct gm_nvml *n, const struct gm_rgset *groups, int procs, unsigned flags)
{
    struct gm_rgset st = gm_nvml_groups_static();
    n->groups = *groups;
    gm_rgset_union(&n->groups, &st);
    n->want_procs = procs;
    n->flags = flags;
}

struct gm_rgset gm_nvml_groups_static(void)
{
    struct gm_rgset m = GM_RGSET_EMPTY;
    for (int g = 0; g < GM_RG__COUNT; g++)
        if (gm_read_groups[g].is_static)
            gm_rgset_add(&m, (unsigned)g);
    return m;
}

struct gm_rgset gm_nvml_groups_default(void)
{
    /* PCIe throughput costs ~20 ms per counter on real hardware: only on request.
     * GPM is in, without GM_NVML_GPM_PRIME: one interval per sample.  The
     * groups behind nvidia-smi's rarer --query-gpu fields (issue 14) are in
     * too: each is one or a few cheap calls (inforom and driver model once
     * per GPU), and `status --json --pcie --gpm` making every call that a
     * query can make is what tests/e2e/fault_sweep.py relies on. */
    struct gm_rgset m = gm_rgset_all();
    gm_rgset_del(&m, GM_RG_PCIE_TPUT);
    return m;
}

const char *gm_nvml_current_call(const struct gm_nvml *n, int *gpu)
{
    struct gm_nvml *m = (struct gm_nvml *)n;
    const char *c = atomic_load(&m->cur_call);
    if (gpu)
        *gpu = c ? atomic_load(&m->cur_gpu) : -1;
    return c;
}

const char *gm_nvml_missing_symbols(const struct gm_nvml *n, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NSYMS && n->dl; i++) {
        void *p;
        memcpy(&p, (const char *)&n->f + symtab[i].off, sizeof(p));
        if (p)
            continue;
        int w = snprintf(buf + off, len - off, "%s%s", off ? "," : "", symtab[i].name);
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
    return buf;
}

/* ------------------------------------------------------ the readers' table */

/* One reader per read group (metrics.h), in the order they are called:
 * the static groups once per GPU (read_statics), then each wanted dynamic
 * group per sample (read_dynamic).  Adding a group is one row here and one
 * function in the nvml_<area>.c of its NVML area, declared in nvml_int.h
 * (docs/architecture.md). */
static const struct reader {
    uint8_t rg; /* enum gm_read_group */
    void (*fn)(struct rd *r);
} readers[] = {
    {GM_RG_INDEX, gm_nv_rd_index},
    {GM_RG_MINOR, gm_nv_rd_minor},
    {GM_RG_NAME, gm_nv_rd_name},
    {GM_RG_UUID, gm_nv_rd_uuid},
    {GM_RG_SERIAL, gm_nv_rd_serial},
    {GM_RG_VBIOS, gm_nv_rd_vbios},
    {GM_RG_BOARD_PART, gm_nv_rd_board_part},
    {GM_RG_PCI, gm_nv_rd_pci},
    {GM_RG_CC, gm_nv_rd_cc},
    {GM_RG_TEMP_THRESH, gm_nv_rd_temp_thresh},
    {GM_RG_POWER_LIMITS, gm_nv_rd_power_limits},
    {GM_RG_MAX_CLOCKS, gm_nv_rd_max_clocks},
    {GM_RG_MAX_PCIE, gm_nv_rd_max_pcie},
    {GM_RG_PERSISTENCE, gm_nv_rd_persistence},
    {GM_RG_COMPUTE_MODE, gm_nv_rd_compute_mode},
    {GM_RG_DISPLAY, gm_nv_rd_display},
    {GM_RG_MIG_MODE, gm_nv_rd_mig_mode},
    {GM_RG_PSTATE, gm_nv_rd_pstate},
    {GM_RG_FAN, gm_nv_rd_fan},
    {GM_RG_TEMP, gm_nv_rd_temp},
    {GM_RG_TEMP_MEM, gm_nv_rd_temp_mem},
    {GM_RG_POWER, gm_nv_rd_power},
    {GM_RG_POWER_INSTANT, gm_nv_rd_power_instant},
    {GM_RG_POWER_LIMIT, gm_nv_rd_power_limit},
    {GM_RG_ENERGY, gm_nv_rd_energy},
    {GM_RG_UTIL, gm_nv_rd_util},
    {GM_RG_ENC, gm_nv_rd_enc},
    {GM_RG_DEC, gm_nv_rd_dec},
    {GM_RG_MEMORY, gm_nv_rd_memory},
    {GM_RG_BAR1, gm_nv_rd_bar1},
    {GM_RG_CLOCKS, gm_nv_rd_clocks},
    {GM_RG_CLOCK_REASONS, gm_nv_rd_clock_reasons},
    {GM_RG_VIOLATION, gm_nv_rd_violation},
    {GM_RG_PCIE_LINK, gm_nv_rd_pcie_link},
    {GM_RG_PCIE_TPUT, gm_nv_rd_pcie_tput},
    {GM_RG_PCIE_REPLAY, gm_nv_rd_pcie_replay},
    {GM_RG_ECC_MODE, gm_nv_rd_ecc_mode},
    {GM_RG_ECC_COUNTS, gm_nv_rd_ecc_counts},
    {GM_RG_RETIRED, gm_nv_rd_retired},
    {GM_RG_REMAPPED, gm_nv_rd_remapped},
    {GM_RG_GPM, gm_nv_rd_gpm},
    {GM_RG_POWER_MGMT, gm_nv_rd_power_mgmt},
    {GM_RG_APP_CLOCKS, gm_nv_rd_app_clocks},
    {GM_RG_DRIVER_MODEL, gm_nv_rd_driver_model},
    {GM_RG_GOM, gm_nv_rd_gom},
    {GM_RG_ACCOUNTING, gm_nv_rd_accounting},
    {GM_RG_ENC_STATS, gm_nv_rd_enc_stats},
    {GM_RG_INFOROM, gm_nv_rd_inforom},
    {GM_RG_BRAND, gm_nv_rd_brand},
    {GM_RG_REMAP_HIST, gm_nv_rd_remap_hist},
    {GM_RG_FABRIC, gm_nv_rd_fabric},
    {GM_RG_ECC_LOCATIONS, gm_nv_rd_ecc_locations},
    {GM_RG_CER_COUNTERS, gm_nv_rd_cer_counters},
    {GM_RG_NVLINK, gm_nv_rd_nvlink},
    {GM_RG_TEMP_MARGIN, gm_nv_rd_temp_margin},
    {GM_RG_MODULE_POWER, gm_nv_rd_module_power},
    {GM_RG_PCIE_HOSTMAX, gm_nv_rd_pcie_hostmax},
    {GM_RG_ECC_UNITS, gm_nv_rd_ecc_units},
    {GM_RG_ENGINE_UTIL, gm_nv_rd_engine_util},
    {GM_RG_PCI_EXT, gm_nv_rd_pci_ext},
    {GM_RG_GSP_MODE, gm_nv_rd_gsp_mode},
    {GM_RG_PROT_MEM, gm_nv_rd_prot_mem},
    {GM_RG_SRAM_STATUS, gm_nv_rd_sram_status},
    {GM_RG_INFOROM_CHECK, gm_nv_rd_inforom_check},
    {GM_RG_C2C, gm_nv_rd_c2c},
    {GM_RG_RECOVERY, gm_nv_rd_recovery},
    {GM_RG_ADDR_MODE, gm_nv_rd_addr_mode},
    {GM_RG_DRAM_ENC, gm_nv_rd_dram_enc},
    {GM_RG_GPU_HOSTNAME, gm_nv_rd_gpu_hostname},
    {GM_RG_PLATFORM, gm_nv_rd_platform},
    {GM_RG_MODULE_ID, gm_nv_rd_module_id},
    {GM_RG_POWER_SMOOTH, gm_nv_rd_power_smoothing},
    {GM_RG_EDPP, gm_nv_rd_edpp},
    {GM_RG_REMAP_INACT, gm_nv_rd_remap_inactive},
};

#define NREADERS (sizeof(readers) / sizeof(readers[0]))

/* The static facts of GPU i into d's template: every value "not collected"
 * until a reader fills it, then each static group's reader. */
static void read_statics(struct gm_nvml *n, int i, struct dev *d)
{
    struct gm_gpu *g = &d->tmpl;
    memset(g, 0, sizeof(*g));
    for (int id = 0; id < GM_M__GPU_END; id++)
        g->m[id] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->proc_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->mig_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->nvlink_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->index = (uint32_t)i;
    struct rd r = {n, i, d->h, g, NVML_SUCCESS};
    for (size_t k = 0; k < NREADERS; k++)
        if (gm_read_groups[readers[k].rg].is_static)
            readers[k].fn(&r);
    d->static_done = 1;
    d->have_tmpl = 1;
}

/* How often read group rg is read when sampling again and again (the
 * agent), in ns; 0: every sample.  The registry says which groups are slow
 * (gm_read_groups[].slow): those of the cadence follow it, the others are
 * read every NVLINK_SLOW_NS without one; none with GM_NVML_EVERY_SAMPLE.
 * NVLink paces its own walk
 * (nvml_nvlink.c: the throughput counters in the same group are read every
 * sample).  Slow groups hold no strings. */
static int64_t slow_period(const struct gm_nvml *n, int rg)
{
    if (rg == GM_RG_NVLINK || (n->flags & GM_NVML_EVERY_SAMPLE))
        return 0;
    switch (gm_read_groups[rg].slow) {
    case GM_RG_SLOW_ALWAYS:
        return n->slow_ns ? n->slow_ns : NVLINK_SLOW_NS;
    case GM_RG_SLOW_CADENCE:
        return n->slow_ns;
    default:
        return 0;
    }
}

void gm_nvml_set_cadence(struct gm_nvml *n, int64_t slow_ns)
{
    n->slow_ns = slow_ns > 0 ? slow_ns : 0;
}

/* Reads slow group k of r's GPU, or reuses its values with their age when
 * the last read is younger than period (slow_reuse). */
static void read_slow(struct rd *r, size_t k, int64_t now, int64_t period)
{
    struct dev *d = &r->n->dev[r->i];
    int rg = readers[k].rg;
    if (slow_reuse(now, d->slow_at[rg], period)) {
        uint32_t age = age_ms(now, d->slow_at[rg]);
        for (int id = 0; id < GM_M__GPU_END; id++)
            if (gm_metrics[id].rg == rg) {
                r->g->m[id] = d->slow_v[id];
                r->g->m[id].age_ms = age;
            }
        return;
    }
    readers[k].fn(r);
    int clean = 1; /* a failed read is not reused: the next sample asks again */
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (gm_metrics[id].rg == rg) {
            d->slow_v[id] = r->g->m[id];
            clean &= r->g->m[id].status != GM_VS_ERROR && r->g->m[id].status != GM_VS_LOST;
        }
    d->slow_at[rg] = clean ? (now ? now : 1) : 0;
}

/* The wanted dynamic groups of GPU i.  Returns NVML_ERROR_GPU_IS_LOST if a
 * call reported the GPU lost, or the code of a call that says the whole
 * driver went away (the last such code noted); else SUCCESS. */
static nvmlReturn_t read_dynamic(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_gpu *g)
{
    struct rd r = {n, i, h, g, NVML_SUCCESS};
    int64_t now = gm_mono_ns();
    for (size_t k = 0; k < NREADERS; k++) {
        int rg = readers[k].rg;
        if (gm_read_groups[rg].is_static || !want(n, (enum gm_read_group)rg))
            continue;
        int64_t period = slow_period(n, rg);
        if (period > 0)
            read_slow(&r, k, now, period);
        else
            readers[k].fn(&r);
    }
    return r.lost;
}

/* ------------------------------------------------------------------ sample */

void gm_nv_mark_gpu_down(struct gm_gpu *g, int rc)
{
    enum gm_vstatus st = gm_v_status_from_nvml(rc);
    if (st == GM_VS_OK || st == GM_VS_NA)
        st = GM_VS_ERROR;
    g->state = rc == NVML_ERROR_GPU_IS_LOST     ? GM_GPU_LOST
               : rc == NVML_ERROR_NO_PERMISSION ? GM_GPU_NOPERM
                                                : GM_GPU_ERROR;
    g->state_code = (int16_t)rc;
    for (int id = 0; id < GM_M__GPU_END; id++) {
        /* identity learnt earlier stays (it is static); live values do not */
        if (gm_metrics[id].kind == GM_K_INFO && gm_v_ok(&g->m[id]))
            continue;
        if (gm_metrics[id].scope != GM_SC_GPU)
            continue;
        g->m[id] = gm_v_status(st, rc);
    }
    g->m[GM_M_INDEX] = gm_v_u64(g->index); /* the index is ours, not NVML's answer */
    g->nmig = 0;
    /* no link of a GPU that is down (the array, if any, goes with the snapshot) */
    g->nnvlink = 0;
    g->nvlink_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
}

static void read_host(struct gm_nvml *n)
{
    char buf[80];
    nvmlReturn_t rc = CALL(n, -1, nvmlSystemGetDriverVersion, buf, sizeof(buf));
    n->driver_version_v =
        rc == NVML_SUCCESS ? gm_v_u64(0) : gm_v_status(gm_v_status_from_nvml(rc), rc);
    gm_strlcpy(n->driver_version, rc == NVML_SUCCESS ? buf : "", sizeof(n->driver_version));
    rc = CALL(n, -1, nvmlSystemGetNVMLVersion, buf, sizeof(buf));
    n->nvml_version_v =
        rc == NVML_SUCCESS ? gm_v_u64(0) : gm_v_status(gm_v_status_from_nvml(rc), rc);
    gm_strlcpy(n->nvml_version, rc == NVML_SUCCESS ? buf : "", sizeof(n->nvml_version));
    int cv = 0;
    rc = n->f.nvmlSystemGetCudaDriverVersion_v2
             ? CALL(n, -1, nvmlSystemGetCudaDriverVersion_v2, &cv)
             : CALL(n, -1, nvmlSystemGetCudaDriverVersion, &cv);
    n->cuda_version_v =
        rc == NVML_SUCCESS ? gm_v_u64((uint64_t)cv) : gm_v_status(gm_v_status_from_nvml(rc), rc);
    n->host_done = 1;
}

static void lose_driver(struct gm_nvml *n, nvmlReturn_t rc)
{
    if (n->f.nvmlShutdown)
        n->f.nvmlShutdown();
    n->inited = 0;
    explain_init_failure(n, rc);
    reset_devices(n);
    schedule_retry(n);
}

static void fill_header(struct gm_nvml *n, struct gm_snapshot *s)
{
    s->wall_ns = gm_wall_ns();
    s->mono_ns = gm_mono_ns();
    s->utc_offset_s = gm_utc_offset(s->wall_ns);
    memcpy(s->hostname, n->hostname, sizeof(s->hostname));
}

static void fill_driver(struct gm_nvml *n, struct gm_snapshot *s)
{
    s->driver = n->state;
    s->driver_code = n->state_code;
    s->slow_ns = n->slow_ns;
    gm_strlcpy(s->driver_msg, n->state_msg, sizeof(s->driver_msg));
    if (n->host_done && n->state == GM_DRV_OK) {
        s->driver_version = n->driver_version_v;
        s->nvml_version = n->nvml_version_v;
        s->cuda_version = n->cuda_version_v;
        memcpy(s->driver_version_s, n->driver_version, sizeof(s->driver_version_s));
        memcpy(s->nvml_version_s, n->nvml_version, sizeof(s->nvml_version_s));
    } else {
        int code = n->state_code;
        s->driver_version = s->nvml_version = s->cuda_version = gm_v_status(GM_VS_ERROR, code);
    }
}

int gm_nvml_sample(struct gm_nvml *n, struct gm_snapshot *s)
{
    fill_header(n, s);
    int64_t t0 = s->mono_ns;
    if (!n->dl) {
        fill_driver(n, s);
        s->duration_ns = gm_mono_ns() - t0;
        return 0;
    }
    if (!n->inited) {
        if (s->mono_ns < n->next_init_ns || try_init(n) != NVML_SUCCESS) {
            if (!n->inited && s->mono_ns >= n->next_init_ns)
                schedule_retry(n);
            fill_driver(n, s);
            s->duration_ns = gm_mono_ns() - t0;
            return 0;
        }
    }
    if (!n->host_done)
        read_host(n);

    unsigned int count = 0;
    nvmlReturn_t rc = n->f.nvmlDeviceGetCount_v2 ? CALL(n, -1, nvmlDeviceGetCount_v2, &count)
                                                 : CALL(n, -1, nvmlDeviceGetCount, &count);
    if (rc != NVML_SUCCESS) {
        if (driver_gone(rc))
            lose_driver(n, rc);
        else {
            char msg[160];
            snprintf(msg, sizeof(msg), "nvmlDeviceGetCount failed: %s", gm_nvml_strerror(rc));
            set_state(n, GM_DRV_ERROR, rc, msg);
        }
        fill_driver(n, s);
        s->duration_ns = gm_mono_ns() - t0;
        return 0;
    }
    set_state(n, GM_DRV_OK, 0, "");
    if (count != n->ndev) {
        free_devices(n);
        n->dev = gm_xcalloc(count ? count : 1, sizeof(struct dev));
        n->ndev = count;
    }
    gm_snapshot_set_gpus(s, count);

    int driver_lost = 0;
    for (unsigned int i = 0; i < count && !driver_lost; i++) {
        struct dev *d = &n->dev[i];
        struct gm_gpu *g = &s->gpus[i];
        if (!d->have_handle) {
            rc = n->f.nvmlDeviceGetHandleByIndex_v2
                     ? CALL(n, (int)i, nvmlDeviceGetHandleByIndex_v2, i, &d->h)
                     : CALL(n, (int)i, nvmlDeviceGetHandleByIndex, i, &d->h);
            if (rc != NVML_SUCCESS) {
                if (driver_gone(rc)) {
                    driver_lost = (int)rc;
                    break;
                }
                if (d->have_tmpl)
                    *g = d->tmpl; /* the identity learnt before it was lost */
                g->index = i;
                gm_nv_mark_gpu_down(g, rc);
                d->static_done = 0; /* re-read identity when it comes back */
                d->nvl_ident = 0;   /* and the links' version and far end */
                continue;
            }
            d->have_handle = 1;
        }
        /* The static reads of this sample count too: a narrow query (one
         * dynamic read) whose one read fails has a GPU that answers. */
        struct tally t = {0};
        n->tally = &t;
        if (!d->static_done)
            read_statics(n, (int)i, d);
        *g = d->tmpl;
        rc = read_dynamic(n, (int)i, d->h, g);
        n->tally = NULL;
        if (driver_gone(rc)) {
            driver_lost = (int)rc;
            break;
        }
        if (rc == NVML_ERROR_GPU_IS_LOST) {
            gm_nv_mark_gpu_down(g, rc);
            gm_nv_gpm_restart(d); /* a GPU that comes back starts new intervals */
            d->have_handle = 0;
            d->static_done = 0;
            d->nvl_ident = 0; /* and the links' version and far end */
            continue;
        }
        if (t.ok == 0 && t.perm + t.err > 0) {
            /* Every value failed (permission revoked while the handle was
             * held, or a GPU that answers nothing): the GPU is down, with the
             * most common reason.  The handle and identity are kept; the next
             * read that answers brings it back. */
            gm_nv_mark_gpu_down(g, t.perm >= t.err ? NVML_ERROR_NO_PERMISSION : t.first_err);
            continue;
        }
        if (want(n, GM_RG_MIG_MODE)) {
            gm_nv_read_mig(n, (int)i, d->h, g);
            if (want(n, GM_RG_GPM))
                gm_nv_read_mig_gpm(n, (int)i, d, g);
        }
        if (n->want_procs) {
            gm_nv_add_procs(n, (int)i, d->h, s, g, i);
            gm_nv_read_proc_util(n, (int)i, d, s, g);
        }
    }
    if (!driver_lost)
        gm_nv_gpm_primed(n, s);
    n->gpm_prime_ns = 0;
    if (driver_lost) {
        for (uint32_t q = 0; q < s->nproc; q++) {
            free(s->procs[q].cmdline);
            free(s->procs[q].exe);
            free(s->procs[q].cgroup);
        }
        s->nproc = 0;
        gm_snapshot_set_gpus(s, 0); /* frees what the GPUs held */
        lose_driver(n, (nvmlReturn_t)driver_lost);
    }
    fill_driver(n, s);
    s->duration_ns = gm_mono_ns() - t0;
    return 0;
}

/* ---------------------------------------------------- NVML sample buffers */

int gm_nvml_samples(struct gm_nvml *n, uint32_t index, int type, uint64_t since_us,
                    struct gm_nvml_sample *out, size_t cap, size_t *count)
{
    *count = 0;
    if (!n->inited || index >= n->ndev || !n->dev[index].have_handle)
        return NVML_ERROR_UNINITIALIZED;
    nvmlDevice_t h = n->dev[index].h;
    nvmlValueType_t vt;
    unsigned int cnt = 0;
    nvmlReturn_t rc = CALL(n, (int)index, nvmlDeviceGetSamples, h, (nvmlSamplingType_t)type,
                           since_us, &vt, &cnt, NULL);
    if (rc == NVML_ERROR_NOT_FOUND)
        return 0; /* an empty buffer: nothing new */
    if (rc != NVML_SUCCESS)
        return rc;
    if (cnt == 0)
        return 0;
    if (cnt > 4096) /* a garbage count: NVML keeps about 120 entries per type */
        cnt = 4096;
    nvmlSample_t *buf = calloc(cnt, sizeof *buf);
    if (!buf)
        gm_oom();
    unsigned int got = cnt;
    rc = CALL(n, (int)index, nvmlDeviceGetSamples, h, (nvmlSamplingType_t)type, since_us, &vt, &got,
              buf);
    if (rc == NVML_ERROR_NOT_FOUND)
        rc = NVML_SUCCESS, got = 0;
    if (got > cnt)
        got = cnt;
    for (unsigned int k = 0; rc == NVML_SUCCESS && k < got && *count < cap; k++) {
        double v;
        switch (vt) {
        case NVML_VALUE_TYPE_DOUBLE:
            v = buf[k].sampleValue.dVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_INT:
            v = buf[k].sampleValue.uiVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_LONG:
            v = (double)buf[k].sampleValue.ulVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
            v = (double)buf[k].sampleValue.ullVal;
            break;
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
            v = (double)buf[k].sampleValue.sllVal;
            break;
        case NVML_VALUE_TYPE_SIGNED_INT:
            v = buf[k].sampleValue.siVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_SHORT:
            v = buf[k].sampleValue.usVal;
            break;
        default:
            continue;
        }
        if (type == NVML_TOTAL_POWER_SAMPLES)
            v /= 1000.0; /* mW -> W */
        out[*count].t_us = buf[k].timeStamp;
        out[*count].v = v;
        (*count)++;
    }
    free(buf);
    return rc == NVML_SUCCESS ? 0 : rc;
}

void *gm_nvml_symbol(struct gm_nvml *n, const char *name)
{
    return n && n->dl ? dlsym(n->dl, name) : NULL;
}

void *gm_nvml_device(struct gm_nvml *n, uint32_t index)
{
    if (!n || !n->inited || index >= n->ndev || !n->dev[index].have_handle)
        return NULL;
    return n->dev[index].h;
}
