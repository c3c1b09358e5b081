/* prom.h -- Prometheus exposition of a snapshot: gpumon's native names or
 * dcgm-exporter's, in text format 0.0.4 or OpenMetrics 1.0.
 *
 * Native names follow the Prometheus rules (docs/exporter.md): a gpumon_
 * prefix, base units (_bytes, _celsius, _watts, _joules_total, _hertz,
 * _ratio 0-1), _total only on counters, one HELP/TYPE per family, label
 * values escaped.  A value that is not available is an absent series, never
 * 0; a lost GPU keeps only gpumon_gpu_up 0.  The dcgm-exporter set uses
 * DCGM_FI_* names, dcgm's labels (gpu, UUID, device, modelName, pci_bus_id,
 * Hostname) and units, so dashboards and rules written for dcgm-exporter work;
 * on a MIG GPU, as dcgm-exporter's default, every field per GPU instance
 * (GPU_I_PROFILE, GPU_I_ID) and none for the GPU as a whole.
 *
 * Some series need memory across snapshots (seconds throttled per reason,
 * sampling errors by kind, Xid events per GPU and Xid, GPU time and energy
 * per job and user): a gm_prom_state carries them.  Not thread-safe: the exporter sink's thread
 * owns the state.
 */
#ifndef GM_EXPORT_PROM_H
#define GM_EXPORT_PROM_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/snapshot.h"

enum gm_prom_names { GM_PROM_NATIVE = 0, GM_PROM_DCGM };

struct gm_prom_opts {
    int names;                   /* enum gm_prom_names */
    int openmetrics;             /* OpenMetrics 1.0 (with # EOF) instead of text 0.0.4 */
    int hostname_label;          /* add hostname= (native) / Hostname= (dcgm) */
    unsigned dcgm_labels;        /* dcgm: label-type fields, from gm_prom_label_fields;
                                    0 = DCGM_FI_DRIVER_VERSION alone, dcgm-exporter's default */
    int no_hostname;             /* dcgm: no Hostname= (it is there by default, as in
                                    dcgm-exporter 4.x, unless hostname_label) */
    int process_metrics;         /* per-process series */
    unsigned max_process_series; /* cap on processes exported (0 = 256) */
};

/* Exporter self-metrics that come from outside the snapshot. */
struct gm_prom_self {
    uint64_t scrapes;         /* scrapes served before this rendering */
    uint64_t dropped;         /* snapshots sinks dropped */
    uint64_t process_dropped; /* processes left out by the series cap */
    uint64_t page_renders;    /* live pages (/) rendered before this rendering */
};

/* Parses list, dcgm-exporter label-type field names separated by commas
 * (the "label" rows of its counters CSV that gpumon fills: the driver and
 * NVML versions, brand, serial, the InfoROM versions, VBIOS) into *mask for
 * gm_prom_opts.dcgm_labels; an empty list is none.  0, or GM_E_INVAL with
 * the name it does not know in why. */
int gm_prom_label_fields(const char *list, unsigned *mask, char *why, size_t wlen);

struct gm_prom_state;

struct gm_prom_state *gm_prom_state_new(void);
void gm_prom_state_free(struct gm_prom_state *st);
/* A copy, so a rendering can happen later with the counters of its sample. */
struct gm_prom_state *gm_prom_state_clone(const struct gm_prom_state *st);

/* Folds a snapshot into the cross-snapshot counters; call once per snapshot,
 * in order, before rendering it. */
void gm_prom_observe(struct gm_prom_state *st, const struct gm_snapshot *s);

/* Distinct (GPU, Xid) pairs gm_prom_xid counts; events of further pairs
 * are counted as dropped. */
#define GM_PROM_MAX_XID_SERIES 64

/* Counts an NVML Xid event of GPU index gpu (uuid: the GPU's UUID when
 * known, else "" or NULL): gpumon_xid_errors_total{xid} and dcgm-exporter's
 * DCGM_FI_DEV_XID_ERRORS (the last Xid) in the next rendering. */
void gm_prom_xid(struct gm_prom_state *st, int gpu, const char *uuid, int64_t xid);

/* Distinct (job, user) pairs of the usage counters (gpumon_usage_*, the
 * rules of the store's usage_1h: core/usage_acct.h); the GPU time of
 * further pairs is not counted, and each of its intervals counts in
 * gpumon_exporter_usage_series_dropped_total. */
#define GM_PROM_MAX_USAGE_SERIES 256

/* Renders the snapshot (after gm_prom_observe) into out. */
void gm_prom_render(const struct gm_prom_state *st, const struct gm_snapshot *s,
                    const struct gm_prom_opts *o, const struct gm_prom_self *self,
                    struct gm_buf *out);

/* Renders one snapshot with fresh counters (`gpumon serve --print`). */
void gm_prom_render_once(const struct gm_snapshot *s, const struct gm_prom_opts *o,
                         struct gm_buf *out);

/* Appends v as a Prometheus label value body: gm_text_prom (core/text.h),
 * valid UTF-8 with \\, \" and \n escaped and other controls as U+FFFD. */
void gm_prom_escape(struct gm_buf *b, const char *v);

#endif /* GM_EXPORT_PROM_H */
