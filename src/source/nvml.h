/* nvml.h -- the NVML source: loads libnvidia-ml.so.1 at run time and fills
 * snapshots with everything NVML says about each GPU and its processes.
 *
 * dlopen + dlsym with our own declarations (nvml_abi.h).  Versioned entry
 * points are preferred with fallbacks (nvmlInit_v2 -> nvmlInit, MemoryInfo_v2
 * -> v1, processes _v3 -> _v2 -> v1 with the right stride).  A symbol missing
 * from an older driver marks the metrics that need it "not supported"; it
 * never fails the program.  Static facts (name, UUID, limits, max clocks,
 * thresholds) are read once per GPU and again after a reconnect.
 *
 * Not thread-safe: one sampler thread owns a gm_nvml.  The only exception is
 * gm_nvml_current_call(), which another thread may call to learn which NVML
 * call is in progress (to name a hung call).
 */
#ifndef GM_SOURCE_NVML_H
#define GM_SOURCE_NVML_H

#include <stdint.h>

#include "../core/err.h"
#include "../core/rgset.h"
#include "../core/snapshot.h"

struct gm_nvml;

/* Loads the library (lib_path, or $GPUMON_NVML_LIB, or "libnvidia-ml.so.1"),
 * resolves symbols and calls nvmlInit.  On failure returns GM_E_NOLIB or
 * GM_E_DRIVER with err->nvml_code set and a message naming the cause; *out is
 * still set to a handle that gm_nvml_sample() can use to retry (the agent's
 * reconnect) and gm_nvml_close() must free. */
int gm_nvml_open(struct gm_nvml **out, const char *lib_path, struct gm_err *err);

/* Fills s (cleared by the caller) with host facts, every GPU's values,
 * MIG devices and processes.  Never fails as a whole because one GPU or one
 * metric failed: those are recorded as value/GPU states.  If the library is
 * not initialised (open failed, or the driver went away) it retries init,
 * at most once per call, and records the driver state in s->driver.
 * Returns 0, or a negative code only for programming errors. */
int gm_nvml_sample(struct gm_nvml *n, struct gm_snapshot *s);

/* The most processes of one GPU that gm_nvml_sample puts in the snapshot
 * (compute and graphics merged, in NVML's order: the compute list first).
 * The others are counted in the GPU's proc_dropped, and every view says how
 * many were left out (status: "[+N processes not listed]"). */
#define GM_NVML_PROC_MAX 65536u

/* The most entries gm_nvml_sample reads from one process list (compute or
 * graphics, per GPU) or one GPU's process samples: Linux's PID_MAX_LIMIT
 * (2^22), more than there can be distinct processes, so every real list is
 * read whole (96 MiB of NVML entries at most, only while NVML asks for that
 * many).  NVML cannot hand out part of a list, so a longer one, which only a
 * library answering with a garbage count can claim, is left out and the
 * GPU's proc_list says why. */
#define GM_NVML_PROC_READ_MAX 4194304u

/* Chooses what gm_nvml_sample collects: groups is a set of read groups
 * (enum gm_read_group; static groups are always read), copied; procs != 0
 * lists processes and their utilisation; flags are GM_NVML_* options below
 * (0: none).  The default is gm_nvml_groups_default() with processes and no
 * flags: everything except PCIe throughput, which costs ~20 ms per counter
 * on real hardware and is read only on request (GPM is in, without
 * GM_NVML_GPM_PRIME). */
void gm_nvml_set_groups(struct gm_nvml *n, const struct gm_rgset *groups, int procs,
                        unsigned flags);

/* An option beside the read groups.  GPM metrics (GM_RG_GPM)
 * are computed over the interval between two GPM samples; the previous one
 * is kept per GPU between gm_nvml_sample calls, so a sample after the first
 * costs one nvmlGpmSampleGet and one nvmlGpmMetricsGet per GPU.  With the MIG
 * devices read (GM_RG_MIG_MODE), each GPU instance of a GPU in MIG mode has
 * its own (nvmlGpmMigSampleGet, struct gm_mig's gpm[]), kept the same way.  A
 * first read has no interval: its GPM values are "not yet available"
 * (GM_VS_NA, NVML_ERROR_NO_DATA), unless this flag is set, in which case the
 * first reads take their second sample after one wait of
 * GM_NVML_GPM_PRIME_MS for the whole sample (the cost of a one-shot command
 * that shows GPM metrics). */
#define GM_NVML_GPM_PRIME 0x1u
#define GM_NVML_GPM_PRIME_MS 100
/* Another option beside the read groups: with GM_RG_NVLINK, also each link one
 * by one (struct gm_gpu's nvlink[]): its state and error counters from the
 * same walk as the sums, its throughput counters in the same field-value
 * call as the sums, and its NVLink version and remote PCI bus id (two calls
 * a link, made once per GPU and kept until the GPU is opened again). */
#define GM_NVML_NVLINK_LINKS 0x2u
/* And another: every wanted group read in every sample, none reused with an
 * age (gm_nvml_set_cadence then has no effect).  For outputs that have no
 * place for an age -- nvidia-smi's query and -q forms and their -l loops,
 * which nvidia-smi itself answers afresh each time -- so that they never
 * show a value read in an earlier sample as this one's (issue 30). */
#define GM_NVML_EVERY_SAMPLE 0x4u

/* The default read groups (above), and the static ones (read once per GPU
 * whatever is wanted). */
struct gm_rgset gm_nvml_groups_default(void);
struct gm_rgset gm_nvml_groups_static(void);

/* The cadence of the slow read groups: values that change on a fault or an
 * administrator's action, not from second to second -- settings
 * (persistence, compute, display and MIG modes, application clocks, ECC
 * mode), health counters (ECC counts, retired pages, row remapping, PCIe
 * replays) and the PCIe link state -- are read
 * every slow_ns when gm_nvml_sample is called again and again (the agent;
 * due in the period's last 1/16, so that a sample on a grid of the same
 * interval does not skip a read by starting a few ms early), and their
 * last values reused in between with their age
 * (struct gm_value's age_ms).  A read that failed is not reused: the next
 * sample asks again.  The groups that were slow before this setting
 * (power management, GPU operation mode, accounting, the remapping
 * histogram, ECC by location and unit) and the NVLink states and error
 * counters are read every 10 s when slow_ns is 0, else every slow_ns;
 * everything else is read every sample.  The default, 0, reads the other
 * slow groups every sample (one-shot commands and their loops). */
void gm_nvml_set_cadence(struct gm_nvml *n, int64_t slow_ns);

/* Reconnect policy after the driver failed or went away: the first retry
 * waits min_ns, each further failure doubles the wait up to max_ns.  The
 * default (0, 60 s) retries at the next sample, then backs off. */
void gm_nvml_set_backoff(struct gm_nvml *n, int64_t min_ns, int64_t max_ns);

/* Name of the NVML function being called right now and the GPU index it is
 * called for (-1 for none), or NULL when no call is in progress.  Safe to
 * call from another thread. */
const char *gm_nvml_current_call(const struct gm_nvml *n, int *gpu);

/* One entry of NVML's sample buffer (nvmlDeviceGetSamples): CPU time in
 * µs since the epoch and the value in base units (percent, MHz; power
 * samples converted from mW to W). */
struct gm_nvml_sample {
    uint64_t t_us;
    double v;
};

/* The samples of type (nvmlSamplingType_t: 0 power, 1 GPU utilisation, 2
 * memory utilisation, 5 SM clock, ...) newer than since_us of the GPU with
 * NVML index `index`, oldest first, at most cap into out; *count receives
 * how many.  Returns 0 (an empty buffer, NOT_FOUND, is 0 with *count 0) or
 * the NVML return code.  NVML keeps about 1/6 s resolution for ~20 s, so
 * polling once a second loses nothing.  Not thread-safe with
 * gm_nvml_sample: call it between samples, from the sampling thread. */
int gm_nvml_samples(struct gm_nvml *n, uint32_t index, int type, uint64_t since_us,
                    struct gm_nvml_sample *out, size_t cap, size_t *count);

/* For queries outside the read groups (source/topo.c): the address of an
 * NVML function in the loaded library, or NULL when it lacks it; and GPU
 * index's device handle (an nvmlDevice_t) once a sample has obtained it,
 * else NULL.  Both are valid until gm_nvml_close. */
void *gm_nvml_symbol(struct gm_nvml *n, const char *name);
void *gm_nvml_device(struct gm_nvml *n, uint32_t index);

/* Shuts NVML down and unloads the library.  Accepts NULL. */
void gm_nvml_close(struct gm_nvml *n);

/* Symbols that were found / not found in the loaded library, for `doctor`
 * and tests: writes a comma-separated list into buf. */
const char *gm_nvml_missing_symbols(const struct gm_nvml *n, char *buf, size_t len);

/* The human text for an NVML return code, from our own table (valid even
 * when the library is not loaded). */
const char *gm_nvml_strerror(int code);

#endif /* GM_SOURCE_NVML_H */
