/* plotdata.h -- the history a chart needs, read from the store (or CSV
 * logs) into memory: per GPU a series of points with low/average/high per
 * metric, the clock event (throttle) reasons of each point, the limits to
 * draw, and the marks and fired alerts of the window (`gpumon plot`).
 *
 * The tier is chosen by the window's length so that a month stays a few
 * thousand rows per GPU: raw samples up to 6 h, the 1-minute rollups up to
 * 8 days, the 1-hour rollups beyond (a tier with no rows in the window
 * falls back to the next one).  Rollups keep their min and max, so a spike
 * shorter than a pixel column stays visible.  A value not recorded is NAN,
 * never 0; a point where the GPU or driver was down has down set.  Nothing
 * here draws: view/plot.h renders a struct gm_plot_data.
 */
#ifndef GM_STORE_PLOTDATA_H
#define GM_STORE_PLOTDATA_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* The metrics a chart can show, one panel each (docs/plot.md). */
enum gm_plot_metric {
    GM_PM_UTIL,    /* utilization.gpu, percent */
    GM_PM_MEMUTIL, /* utilization.memory, percent (raw samples and CSV only) */
    GM_PM_MEM,     /* memory.used, bytes; the limit is memory.total */
    GM_PM_POWER,   /* power.draw, W; the limit is power.limit */
    GM_PM_TEMP,    /* temperature.gpu, degrees C */
    GM_PM_CLOCKS,  /* clocks.sm, MHz */
    GM_PM__COUNT
};

struct gm_plot_metric_info {
    const char *name;  /* --metrics name */
    const char *title; /* panel title */
    const char *unit;  /* axis unit */
    double scale;      /* stored base unit -> axis unit */
};
extern const struct gm_plot_metric_info gm_plot_metrics[GM_PM__COUNT];

/* Parses "util,mem,power" into a bit mask of (1 << GM_PM_*).  Returns 0,
 * or -1 with the offending name copied into bad. */
int gm_plot_parse_metrics(const char *s, unsigned *mask, char *bad, size_t blen);

/* Throttle reasons shaded on the chart (bits of the registry's clock event
 * reasons that lower clocks). */
enum { GM_PT_THERMAL, GM_PT_POWER_CAP, GM_PT_POWER_BRAKE, GM_PT_HW_SLOWDOWN, GM_PT__COUNT };
extern const char *const gm_plot_throttle_names[GM_PT__COUNT];

struct gm_plot_point {
    int64_t t_ns; /* start (rollups: of the period), UTC */
    int down;     /* 1: GPU lost or unreadable or driver down: no values */
    int throttle; /* bits (1 << GM_PT_*); -1 unknown */
    double lo[GM_PM__COUNT], avg[GM_PM__COUNT], hi[GM_PM__COUNT]; /* NAN: not recorded */
};

struct gm_plot_gpu {
    uint32_t index;
    char uuid[96];
    char name[128];          /* hostile: escape before showing */
    double power_limit_w;    /* NAN when unknown */
    double mem_total_b;      /* NAN when unknown */
    double temp_slowdown_c;  /* NAN: the store does not keep it */
    int64_t step_ns;         /* the usual time between points (median; rollups: the period) */
    struct gm_plot_point *p; /* in time order */
    size_t n, cap;
};

enum { GM_PE_MARK, GM_PE_ALERT };
struct gm_plot_event {
    int64_t t_ns;
    int kind;       /* GM_PE_* */
    char text[160]; /* hostile: escape before showing; cut at 159 bytes */
};

enum { GM_PTIER_RAW, GM_PTIER_1M, GM_PTIER_1H, GM_PTIER_CSV };

struct gm_plot_data {
    int64_t from_ns, to_ns;
    int tier;                /* GM_PTIER_* */
    struct gm_plot_gpu *gpu; /* by index order */
    size_t ngpu;
    struct gm_plot_event *ev; /* in time order (from the store) */
    size_t nev, evcap;
};

/* Reads the store at path for [from_ns, to_ns], only task's rows when task
 * is not NULL, only the GPUs in ids (NVML indices; all when ids is 0).  d is
 * initialised here; free it with gm_plot_data_free even on failure.  Returns
 * 0 or a GM_E code with err naming the file (GM_E_NOTFOUND: no such store). */
int gm_plot_read_store(struct gm_plot_data *d, const char *path, int64_t from_ns, int64_t to_ns,
                       const char *task, uint64_t ids, struct gm_err *err);

/* Adds the GPU rows of one agent CSV log (store/history_csv.c) in the window
 * (0 = no bound) to d (initialised with gm_plot_data_init); call
 * gm_plot_data_finish after the last file.  Errors name the file. */
void gm_plot_data_init(struct gm_plot_data *d);
int gm_plot_read_csv(struct gm_plot_data *d, const char *path, int64_t from_ns, int64_t to_ns,
                     uint64_t ids, struct gm_err *err);
/* Sorts each GPU's points, sets step_ns and, when the window was open
 * (0), from_ns/to_ns from the points. */
void gm_plot_data_finish(struct gm_plot_data *d);

/* The times of the first and the last point over all GPUs; returns 0, or
 * -1 when d has no point (*first and *last left alone). */
int gm_plot_data_span(const struct gm_plot_data *d, int64_t *first, int64_t *last);

/* Total points over all GPUs. */
size_t gm_plot_data_points(const struct gm_plot_data *d);

void gm_plot_data_free(struct gm_plot_data *d);

#endif /* GM_STORE_PLOTDATA_H */
