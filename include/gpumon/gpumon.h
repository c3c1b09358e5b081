/* gpumon.h -- libgpumon, gpumon's C API for programs that want GPU numbers
 * from inside themselves (a training loop, a benchmark harness) and marks
 * on the running gpumon agent's timeline.
 *
 * Link with `pkg-config --cflags --libs gpumon` (libgpumon.so.1).  What it
 * offers:
 *
 *  - a collector: gpumon_open() loads NVML (the real libnvidia-ml.so.1, or
 *    gpumon's simulator through $GPUMON_NVML_LIB and $GPUSIM_SCENARIO, what
 *    `gpumon --sim` sets), gpumon_sample() takes one snapshot of every GPU,
 *    gpumon_read() / gpumon_read_text() read a value from it by the metric's
 *    name, gpumon_snapshot_free() and gpumon_close() end them;
 *  - the timeline: gpumon_mark() and gpumon_step() talk to the agent
 *    (`gpumon agent`) over its control socket (docs/control.md).
 *
 * What it leaves out: process lists, the agent's derived metrics (rates,
 * energy over time), history (read the store with SQL or `gpumon report`).
 *
 * Conventions.  Functions that can fail return an int: 0 or a non-negative
 * value status on success, a negative GPUMON_E_* code on failure; an
 * optional struct gpumon_error * (may be NULL) receives the code and a
 * message that names what was wrong.  The library never prints and never
 * exits; out of memory aborts with a message.  Values are in the metric's
 * base unit (bytes, watts, degrees Celsius, MHz, percent; gpumon_metric_unit
 * names it), whatever unit the name the caller used suggests
 * ("memory.used" is bytes here, not MiB).  A value that is not real is never
 * a 0: it is a status.  Text read from a sample (a GPU's name) comes from
 * the driver as it is: escape it before showing it.
 *
 * Threads: a collector and its samples may be used from one thread at a
 * time; different collectors, and gpumon_mark/gpumon_step, from any thread.
 *
 * The API is versioned by the library's soname: functions are only added
 * within libgpumon.so.1; GPUMON_API_VERSION grows with each addition.
 */
#ifndef GPUMON_GPUMON_H
#define GPUMON_GPUMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUMON_API_VERSION 1

/* Value statuses: what gpumon_read and gpumon_read_text return when the
 * metric exists (0 = the value is real). */
enum gpumon_status {
    GPUMON_OK = 0,            /* the value is real */
    GPUMON_NOT_AVAILABLE = 1, /* not applicable here or not known yet */
    GPUMON_NOT_SUPPORTED = 2, /* this GPU or driver does not have it */
    GPUMON_NOT_PERMITTED = 3, /* the driver refused (permissions) */
    GPUMON_GPU_LOST = 4,      /* the GPU fell off the bus */
    GPUMON_READ_ERROR = 5,    /* NVML failed to read it */
    GPUMON_NOT_COLLECTED = 6, /* not asked for in gpumon_open's metrics */
};

/* Errors (negative). */
enum gpumon_errcode {
    GPUMON_E_INVAL = -1,    /* a bad argument (NULL handle, a text too long, a bad task) */
    GPUMON_E_IO = -3,       /* a system call failed; the agent did not answer */
    GPUMON_E_NOLIB = -4,    /* libnvidia-ml.so.1 could not be loaded */
    GPUMON_E_DRIVER = -5,   /* NVML's init failed: no driver, version mismatch, ... */
    GPUMON_E_NOAGENT = -7,  /* no gpumon agent runs for that data directory */
    GPUMON_E_TIMEOUT = -8,  /* a sample did not finish in time (the driver hangs) */
    GPUMON_E_METRIC = -20,  /* no metric of that name */
    GPUMON_E_GPU = -21,     /* no GPU of that index in the sample */
    GPUMON_E_TYPE = -22,    /* a number read as text, or text read as a number */
    GPUMON_E_REFUSED = -23, /* the agent answered with an error (message: its words) */
    GPUMON_E_WEDGED = -24,  /* the collector was abandoned after a timeout: close it */
};

/* The code and the message of a failure (a NUL-terminated line). */
struct gpumon_error {
    int code;
    char message[512];
};

typedef struct gpumon_collector gpumon_collector;
typedef struct gpumon_snapshot gpumon_snapshot;

/* The library's version, "MAJOR.MINOR.PATCH" (gpumon's release). */
const char *gpumon_version(void);

/* A short lower-case name for a status or an error code ("ok",
 * "not_supported", "no_agent"); "unknown" for any other number. */
const char *gpumon_status_name(int code);

/* Opens a collector: loads NVML from nvml_lib (NULL: $GPUMON_NVML_LIB, else
 * the system's libnvidia-ml.so.1) and initialises it.  metrics is a
 * comma-separated list of metric names to collect (see gpumon_read), or
 * NULL for gpumon's default set (everything but PCIe throughput).  On
 * success *out is a new collector (free it with gpumon_close); on failure
 * *out is NULL and the code says why (GPUMON_E_NOLIB, GPUMON_E_DRIVER,
 * GPUMON_E_METRIC naming the unknown name, GPUMON_E_INVAL). */
int gpumon_open(gpumon_collector **out, const char *nvml_lib, const char *metrics,
                struct gpumon_error *err);

/* Takes one sample of every GPU into a new sample (*out; free it with
 * gpumon_snapshot_free), every metric read afresh in it.  timeout_ms > 0
 * bounds the time it may take: a
 * driver that hangs makes it return GPUMON_E_TIMEOUT naming the NVML call
 * still running, and the collector is then unusable (GPUMON_E_WEDGED for
 * every later call; close it and open another).  timeout_ms <= 0 waits as
 * long as NVML does.  A driver that went away is not a failure: the sample
 * has no GPUs and gpumon_snapshot_driver says why. */
int gpumon_sample(gpumon_collector *c, int timeout_ms, gpumon_snapshot **out,
                  struct gpumon_error *err);

/* Closes the collector (NVML shut down, the library unloaded).  Samples
 * taken from it stay valid.  Accepts NULL. */
void gpumon_close(gpumon_collector *c);

/* Frees a sample.  Accepts NULL. */
void gpumon_snapshot_free(gpumon_snapshot *s);

/* The number of GPUs in the sample; their indexes are 0 .. count-1. */
unsigned gpumon_snapshot_gpu_count(const gpumon_snapshot *s);

/* When the sample was taken: nanoseconds since the Unix epoch (UTC). */
int64_t gpumon_snapshot_time_ns(const gpumon_snapshot *s);

/* The driver's state in the sample: "ok", or why there are no GPUs
 * ("no_library", "driver_not_loaded", "no_permission", "version_mismatch",
 * "error"). */
const char *gpumon_snapshot_driver(const gpumon_snapshot *s);

/* Reads a numeric metric of GPU gpu by name: an nvidia-smi key
 * ("utilization.gpu", "memory.used", "power.draw"), a full JSON key
 * ("memory_used_bytes") or a full CSV column ("memory_used_mib") -- the
 * names `gpumon metrics` lists.  Returns GPUMON_OK with *value set (in the
 * base unit), another enum gpumon_status with *value untouched when the
 * value is not real, or GPUMON_E_METRIC / GPUMON_E_GPU / GPUMON_E_TYPE (a
 * text metric such as "name") / GPUMON_E_INVAL. */
int gpumon_read(const gpumon_snapshot *s, unsigned gpu, const char *metric, double *value);

/* Reads a text metric ("name", "uuid", "driver_version", "serial") into
 * buf[len] (NUL-terminated; cut to fit).  Returns as gpumon_read; a
 * numeric metric is GPUMON_E_TYPE.  The text is the driver's, unescaped. */
int gpumon_read_text(const gpumon_snapshot *s, unsigned gpu, const char *metric, char *buf,
                     size_t len);

/* The base unit of a metric's values ("bytes", "watts", "celsius", "mhz",
 * "percent", "" for a plain number or text), or NULL for an unknown name. */
const char *gpumon_metric_unit(const char *metric);

/* Puts a mark (e.g. "epoch 3 start", at most 4096 bytes of UTF-8, one
 * line) on the timeline of the agent that runs for data_dir (NULL: the
 * data-dir of the default config file, else the agent's default:
 * $STATE_DIRECTORY, /var/lib/gpumon for root, ~/.local/state/gpumon),
 * under task (NULL: the agent's own task; else 1-63 letters, digits, '.',
 * '_', '-').  The mark is timed now.  Errors: GPUMON_E_NOAGENT when no agent
 * runs there, GPUMON_E_REFUSED with the agent's reason, GPUMON_E_INVAL,
 * GPUMON_E_IO. */
int gpumon_mark(const char *data_dir, const char *task, const char *text, struct gpumon_error *err);

/* Puts training step `step` (>= 0) and the caller's numbers on the agent's
 * timeline: n values named names[i] (a letter or '_', then letters, digits,
 * '_'; at most 64 bytes) with values[i] (finite).  The agent keeps it as
 * the mark "step <step> <name>=<value> ...", shown by `gpumon report` and
 * `gpumon plot` (docs/control.md).  data_dir and task as gpumon_mark;
 * errors as gpumon_mark, and GPUMON_E_INVAL for a bad name or a value that
 * is not finite (nothing is sent). */
int gpumon_step(const char *data_dir, const char *task, int64_t step, size_t n,
                const char *const names[], const double values[], struct gpumon_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GPUMON_GPUMON_H */
