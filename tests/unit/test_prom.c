/* test_prom.c -- unit tests for the Prometheus renderer (src/export/prom.c).
 *
 * A snapshot built here (two GPUs, one of them lost; a value that is not
 * supported; a process; a MIG device) goes in, the exact exposition comes
 * out, for both name sets: gpumon's own (gpumon_*) and dcgm-exporter's
 * (DCGM_FI_*).  Checked by the expected texts: a value that is not
 * available is an absent series, never 0; a lost GPU keeps gpumon_gpu_up 0
 * (and its identity in gpumon_gpu_info) and nothing else; units are
 * converted to each set's (ratio and bytes, or % and MiB); counters end in
 * _total in the native set only; one HELP/TYPE per family.  Then the
 * cross-snapshot state: throttle seconds accumulate for the reasons active
 * at the earlier sample, a lost GPU earns none, sampling errors are
 * counted by kind; and Xid counts; GPM per MIG GPU instance under both
 * name sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/cause.h"
#include "core/err.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "export/prom.h"
#include "core/usage_acct.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static void set_str(struct gm_gpu *g, int id, const char *v)
{
    snprintf(g->str[gm_metrics[id].sslot], GM_STR_MAX, "%s", v);
    g->m[id] = gm_v_u64(0);
}

/* GPU 0: an H100 at work, power-capped, its fan NOT_SUPPORTED, one MIG
 * device and one process.  GPU 1: lost (its identity learnt before). */
static struct gm_snapshot *snapshot(void)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->seq = 7;
    s->wall_ns = 1700000000250000000LL;
    s->mono_ns = 5000000000LL;
    s->duration_ns = 2500000;
    snprintf(s->hostname, sizeof(s->hostname), "node1");
    s->driver = GM_DRV_OK;
    s->driver_version = gm_v_u64(0);
    snprintf(s->driver_version_s, sizeof(s->driver_version_s), "550.54.15");
    s->nvml_version = gm_v_u64(0);
    snprintf(s->nvml_version_s, sizeof(s->nvml_version_s), "12.550.54.15");
    s->cuda_version = gm_v_u64(12040);
    gm_snapshot_set_gpus(s, 2);

    struct gm_gpu *g = &s->gpus[0];
    g->m[GM_M_INDEX] = gm_v_u64(0);
    g->m[GM_M_MINOR] = gm_v_u64(0);
    set_str(g, GM_M_NAME, "NVIDIA H100 80GB HBM3");
    set_str(g, GM_M_UUID, "GPU-0000aaaa");
    set_str(g, GM_M_PCI_BUS_ID, "00000000:18:00.0");
    set_str(g, GM_M_SERIAL, "1650000000001");
    set_str(g, GM_M_VBIOS, "96.00.99.00.01");
    g->m[GM_M_COMPUTE_CAP] = gm_v_u64(90);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(63);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(612.5);
    g->m[GM_M_MEM_USED] = gm_v_u64(3221225472ULL); /* 3 GiB */
    g->m[GM_M_UTIL_GPU] = gm_v_u64(95);
    g->m[GM_M_ENERGY] = gm_v_f64(123456.789);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x4); /* sw_power_cap */
    g->m[GM_M_FAN] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    g->m[GM_M_POWER_LIMIT] = gm_v_status(GM_VS_ERROR, 999);
    g->nmig = 1;
    struct gm_mig *mg = &g->mig[0];
    mg->index = 0;
    mg->gpu_instance_id = 7;
    mg->compute_instance_id = 0;
    snprintf(mg->uuid, sizeof(mg->uuid), "MIG-0000bbbb");
    snprintf(mg->profile, sizeof(mg->profile), "1g.10gb");
    mg->mem_total = gm_v_u64(10737418240ULL);
    mg->mem_used = gm_v_u64(1048576);
    mg->mem_free = gm_v_status(GM_VS_NA, 0);
    mg->mem_reserved = gm_v_u64(0);
    mg->bar1_total = gm_v_u64(17179869184ULL); /* 16 GiB */
    mg->bar1_used = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);

    g = &s->gpus[1];
    g->state = GM_GPU_LOST;
    g->state_code = 15;
    g->m[GM_M_INDEX] = gm_v_u64(1);
    set_str(g, GM_M_NAME, "NVIDIA H100 80GB HBM3");
    set_str(g, GM_M_UUID, "GPU-1111cccc");
    set_str(g, GM_M_PCI_BUS_ID, "00000000:2A:00.0");
    g->m[GM_M_TEMP_GPU] = gm_v_status(GM_VS_LOST, 15);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(1); /* a number the lost GPU must not show */

    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = 0;
    p.pid = 4242;
    p.type = GM_PT_COMPUTE;
    snprintf(p.name, sizeof(p.name), "python3");
    snprintf(p.user, sizeof(p.user), "alice");
    p.used_memory = gm_v_u64(2147483648ULL);
    p.sm_util = gm_v_status(GM_VS_NA, 0);
    gm_snapshot_add_proc_take(s, &p);
    s->gpus[0].proc_first = 0;
    s->gpus[0].nproc = 1;
    s->gpus[1].proc_first = 1;
    return s;
}

static char *render(const struct gm_snapshot *s, int names, int procs)
{
    struct gm_prom_opts o = {.names = names, .process_metrics = procs};
    struct gm_buf b = GM_BUF_INIT;
    gm_prom_render_once(s, &o, &b);
    return b.p;
}

/* The identifying labels of the two GPUs in each set (the lost GPU has no
 * minor number: no device label). */
#define L0                                                                                         \
    "gpu=\"0\",uuid=\"GPU-0000aaaa\",name=\"NVIDIA H100 80GB "                                     \
    "HBM3\",pci_bus_id=\"00000000:18:00.0\""
#define L1                                                                                         \
    "gpu=\"1\",uuid=\"GPU-1111cccc\",name=\"NVIDIA H100 80GB "                                     \
    "HBM3\",pci_bus_id=\"00000000:2A:00.0\""
#define D0                                                                                         \
    "gpu=\"0\",UUID=\"GPU-0000aaaa\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia0\","          \
    "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"550.54.15\""
#define D1                                                                                         \
    "gpu=\"1\",UUID=\"GPU-1111cccc\",pci_bus_id=\"00000000:2A:00.0\",modelName=\"NVIDIA H100 "     \
    "80GB HBM3\",Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"550.54.15\""

/* The series of both sets: NVML's state and the exporter's own.  The
 * sampling errors are the lost GPU and GPU 0's power limit. */
#define HEALTH                                                                                     \
    "# HELP gpumon_nvml_state State of NVML and the driver: 1 for the current state, 0 for the "   \
    "others.\n"                                                                                    \
    "# TYPE gpumon_nvml_state gauge\n"                                                             \
    "gpumon_nvml_state{state=\"ok\"} 1\n"                                                          \
    "gpumon_nvml_state{state=\"no_library\"} 0\n"                                                  \
    "gpumon_nvml_state{state=\"driver_not_loaded\"} 0\n"                                           \
    "gpumon_nvml_state{state=\"no_permission\"} 0\n"                                               \
    "gpumon_nvml_state{state=\"version_mismatch\"} 0\n"                                            \
    "gpumon_nvml_state{state=\"error\"} 0\n"                                                       \
    "# HELP gpumon_exporter_last_sample_timestamp_seconds When the sample served now was taken "   \
    "(Unix time); these series are rendered once per sample, not per scrape.\n"                    \
    "# TYPE gpumon_exporter_last_sample_timestamp_seconds gauge\n"                                 \
    "gpumon_exporter_last_sample_timestamp_seconds 1700000000.2499998\n"                           \
    "# HELP gpumon_exporter_sample_duration_seconds How long reading NVML and /proc took for the " \
    "sample served now.\n"                                                                         \
    "# TYPE gpumon_exporter_sample_duration_seconds gauge\n"                                       \
    "gpumon_exporter_sample_duration_seconds 0.0025\n"                                             \
    "# HELP gpumon_exporter_sampling_errors_total Failed readings since the exporter started, by " \
    "kind (gpu_lost, not_permitted, driver, error).\n"                                             \
    "# TYPE gpumon_exporter_sampling_errors_total counter\n"                                       \
    "gpumon_exporter_sampling_errors_total{kind=\"gpu_lost\"} 1\n"                                 \
    "gpumon_exporter_sampling_errors_total{kind=\"not_permitted\"} 0\n"                            \
    "gpumon_exporter_sampling_errors_total{kind=\"driver\"} 0\n"                                   \
    "gpumon_exporter_sampling_errors_total{kind=\"error\"} 1\n"                                    \
    "# HELP gpumon_exporter_xid_events_dropped_total Xid events not counted in "                   \
    "gpumon_xid_errors_total because it already had its maximum number of (GPU, Xid) series.\n"    \
    "# TYPE gpumon_exporter_xid_events_dropped_total counter\n"                                    \
    "gpumon_exporter_xid_events_dropped_total 0\n"                                                 \
    "# HELP gpumon_exporter_dropped_snapshots_total Snapshots the agent's sinks dropped because "  \
    "they could not keep up.\n"                                                                    \
    "# TYPE gpumon_exporter_dropped_snapshots_total counter\n"                                     \
    "gpumon_exporter_dropped_snapshots_total 0\n"                                                  \
    "# HELP gpumon_exporter_scrapes_total HTTP requests for /metrics served before the sample "    \
    "served now was rendered.\n"                                                                   \
    "# TYPE gpumon_exporter_scrapes_total counter\n"                                               \
    "gpumon_exporter_scrapes_total 0\n"                                                            \
    "# HELP gpumon_exporter_page_renders_total Live pages (/) rendered before the sample served "  \
    "now was published: one per sample that someone asked for the page in.\n"                      \
    "# TYPE gpumon_exporter_page_renders_total counter\n"                                          \
    "gpumon_exporter_page_renders_total 0\n"

/* The same under dcgm-exporter names: Hostname on every series, as
 * dcgm-exporter 4.x labels them by default. */
#define HEALTH_DCGM                                                                                \
    "# HELP gpumon_nvml_state State of NVML and the driver: 1 for the current state, 0 for the "   \
    "others.\n"                                                                                    \
    "# TYPE gpumon_nvml_state gauge\n"                                                             \
    "gpumon_nvml_state{Hostname=\"node1\",state=\"ok\"} 1\n"                                       \
    "gpumon_nvml_state{Hostname=\"node1\",state=\"no_library\"} 0\n"                               \
    "gpumon_nvml_state{Hostname=\"node1\",state=\"driver_not_loaded\"} 0\n"                        \
    "gpumon_nvml_state{Hostname=\"node1\",state=\"no_permission\"} 0\n"                            \
    "gpumon_nvml_state{Hostname=\"node1\",state=\"version_mismatch\"} 0\n"                         \
    "gpumon_nvml_state{Hostname=\"node1\",state=\"error\"} 0\n"                                    \
    "# HELP gpumon_exporter_last_sample_timestamp_seconds When the sample served now was taken "   \
    "(Unix time); these series are rendered once per sample, not per scrape.\n"                    \
    "# TYPE gpumon_exporter_last_sample_timestamp_seconds gauge\n"                                 \
    "gpumon_exporter_last_sample_timestamp_seconds{Hostname=\"node1\"} 1700000000.2499998\n"       \
    "# HELP gpumon_exporter_sample_duration_seconds How long reading NVML and /proc took for the " \
    "sample served now.\n"                                                                         \
    "# TYPE gpumon_exporter_sample_duration_seconds gauge\n"                                       \
    "gpumon_exporter_sample_duration_seconds{Hostname=\"node1\"} 0.0025\n"                         \
    "# HELP gpumon_exporter_sampling_errors_total Failed readings since the exporter started, by " \
    "kind (gpu_lost, not_permitted, driver, error).\n"                                             \
    "# TYPE gpumon_exporter_sampling_errors_total counter\n"                                       \
    "gpumon_exporter_sampling_errors_total{Hostname=\"node1\",kind=\"gpu_lost\"} 1\n"              \
    "gpumon_exporter_sampling_errors_total{Hostname=\"node1\",kind=\"not_permitted\"} 0\n"         \
    "gpumon_exporter_sampling_errors_total{Hostname=\"node1\",kind=\"driver\"} 0\n"                \
    "gpumon_exporter_sampling_errors_total{Hostname=\"node1\",kind=\"error\"} 1\n"                 \
    "# HELP gpumon_exporter_xid_events_dropped_total Xid events not counted in "                   \
    "gpumon_xid_errors_total because it already had its maximum number of (GPU, Xid) series.\n"    \
    "# TYPE gpumon_exporter_xid_events_dropped_total counter\n"                                    \
    "gpumon_exporter_xid_events_dropped_total{Hostname=\"node1\"} 0\n"                             \
    "# HELP gpumon_exporter_dropped_snapshots_total Snapshots the agent's sinks dropped because "  \
    "they could not keep up.\n"                                                                    \
    "# TYPE gpumon_exporter_dropped_snapshots_total counter\n"                                     \
    "gpumon_exporter_dropped_snapshots_total{Hostname=\"node1\"} 0\n"                              \
    "# HELP gpumon_exporter_scrapes_total HTTP requests for /metrics served before the sample "    \
    "served now was rendered.\n"                                                                   \
    "# TYPE gpumon_exporter_scrapes_total counter\n"                                               \
    "gpumon_exporter_scrapes_total{Hostname=\"node1\"} 0\n"                                        \
    "# HELP gpumon_exporter_page_renders_total Live pages (/) rendered before the sample served "  \
    "now was published: one per sample that someone asked for the page in.\n"                      \
    "# TYPE gpumon_exporter_page_renders_total counter\n"                                          \
    "gpumon_exporter_page_renders_total{Hostname=\"node1\"} 0\n"

/* Not there: GPU 0's fan (not supported), power limit (an error) and free
 * MIG memory (not available), the process's SM utilisation, and every value
 * of the lost GPU 1 (its power draw is set, to prove it is not shown).
 * Two numbers show double arithmetic as it is today: 95 % as a ratio is
 * 95 * 0.01 = 0.9500000000000001, and the sample time in seconds is the
 * nanoseconds as a double / 1e9 (1700000000.2499998). */
static const char native_want[] =
    "# HELP gpumon_gpu_temperature_celsius GPU core temperature.\n"
    "# TYPE gpumon_gpu_temperature_celsius gauge\n"
    "gpumon_gpu_temperature_celsius{" L0 "} 63\n"
    "# HELP gpumon_power_draw_watts Power drawn by the whole board.\n"
    "# TYPE gpumon_power_draw_watts gauge\n"
    "gpumon_power_draw_watts{" L0 "} 612.5\n"
    "# HELP gpumon_energy_consumed_joules_total Energy consumed since the driver was loaded.\n"
    "# TYPE gpumon_energy_consumed_joules_total counter\n"
    "gpumon_energy_consumed_joules_total{" L0 "} 123456.789\n"
    "# HELP gpumon_gpu_utilization_ratio Fraction of the last sample period in which a kernel was "
    "running.\n"
    "# TYPE gpumon_gpu_utilization_ratio gauge\n"
    "gpumon_gpu_utilization_ratio{" L0 "} 0.9500000000000001\n"
    "# HELP gpumon_memory_used_bytes GPU memory allocated by active contexts (excludes reserved "
    "memory).\n"
    "# TYPE gpumon_memory_used_bytes gauge\n"
    "gpumon_memory_used_bytes{" L0 "} 3221225472\n"
    "# HELP gpumon_clock_event_reason_active Whether a clock event (throttle) reason is active (1) "
    "or not (0), by reason.\n"
    "# TYPE gpumon_clock_event_reason_active gauge\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"gpu_idle\"} 0\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"applications_clocks_setting\"} 0\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"sw_power_cap\"} 1\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"hw_slowdown\"} 0\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"sync_boost\"} 0\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"sw_thermal_slowdown\"} 0\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"hw_thermal_slowdown\"} 0\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"hw_power_brake_slowdown\"} 0\n"
    "gpumon_clock_event_reason_active{" L0 ",reason=\"display_clock_setting\"} 0\n"
    "# HELP gpumon_clock_event_reason_seconds_total Seconds the clocks were held down by each "
    "reason, measured by the exporter from its samples since it started.\n"
    "# TYPE gpumon_clock_event_reason_seconds_total counter\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"gpu_idle\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"applications_clocks_setting\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"sw_power_cap\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"hw_slowdown\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"sync_boost\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"sw_thermal_slowdown\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"hw_thermal_slowdown\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"hw_power_brake_slowdown\"} 0\n"
    "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"display_clock_setting\"} 0\n"
    "# HELP gpumon_mig_memory_total_bytes Memory of a MIG device.\n"
    "# TYPE gpumon_mig_memory_total_bytes gauge\n"
    "gpumon_mig_memory_total_bytes{" L0 ",mig_uuid=\"MIG-0000bbbb\",gpu_instance_id=\"7\",compute_"
    "instance_id=\"0\",mig_profile=\"1g.10gb\"} 10737418240\n"
    "# HELP gpumon_mig_memory_used_bytes Memory in use on a MIG device.\n"
    "# TYPE gpumon_mig_memory_used_bytes gauge\n"
    "gpumon_mig_memory_used_bytes{" L0 ",mig_uuid=\"MIG-0000bbbb\",gpu_instance_id=\"7\",compute_"
    "instance_id=\"0\",mig_profile=\"1g.10gb\"} 1048576\n"
    "# HELP gpumon_gpu_up Whether the GPU answers (1) or is lost, not permitted or failing (0); "
    "its other series are absent while it is 0.\n"
    "# TYPE gpumon_gpu_up gauge\n"
    "gpumon_gpu_up{" L0 "} 1\n"
    "gpumon_gpu_up{" L1 "} 0\n"
    "# HELP gpumon_gpu_info Static facts about a GPU and its driver, as labels; the value is "
    "always 1.\n"
    "# TYPE gpumon_gpu_info gauge\n"
    "gpumon_gpu_info{" L0
    ",driver_version=\"550.54.15\",cuda_version=\"12.4\",nvml_version=\"12.550.54.15\",serial="
    "\"1650000000001\",vbios_version=\"96.00.99.00.01\",compute_cap=\"9.0\"} 1\n"
    "gpumon_gpu_info{" L1
    ",driver_version=\"550.54.15\",cuda_version=\"12.4\",nvml_version=\"12.550.54.15\"} 1\n"
    "# HELP gpumon_process_memory_used_bytes GPU memory used by a process.\n"
    "# TYPE gpumon_process_memory_used_bytes gauge\n"
    "gpumon_process_memory_used_bytes{" L0
    ",pid=\"4242\",process=\"python3\",user=\"alice\"} 2147483648\n"
    "# HELP gpumon_exporter_process_series_dropped Processes left out of the per-process series by "
    "the series cap.\n"
    "# TYPE gpumon_exporter_process_series_dropped gauge\n"
    "gpumon_exporter_process_series_dropped 0\n" HEALTH;

/* GPU 0 has MIG enabled with one GPU instance (7, 1g.10gb): as
 * dcgm-exporter does by default ("-d f", devicemonitoring.go), every field is
 * a series of the instance, none of the GPU; its memory is the instance's
 * (10 GiB total, 1 MiB used, 0 reserved, 16 GiB BAR1; free and BAR1 used not
 * available: absent), as DCGM reads FB and BAR1 on the instance's NVML
 * device (DcgmCacheManager.cpp), every other field
 * the GPU's (temperature, power, energy, clocks: dcgm-exporter issues #257
 * and #353 show power repeated per GPU_I_ID).  Field 112 under both names,
 * the Xid with err_code and err_msg (collector/gpu_collector.go, toMetric),
 * Hostname on every series (render_metrics.go of the 4.5-4.8 releases).
 * gpumon_gpu_up and gpumon_gpu_info stay per GPU. */
#define DM0                                                                                        \
    "gpu=\"0\",UUID=\"GPU-0000aaaa\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia0\","          \
    "modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"7\","                \
    "Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"550.54.15\""
static const char dcgm_want[] =
    "# HELP DCGM_FI_DEV_GPU_TEMP GPU core temperature. (in C).\n"
    "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
    "DCGM_FI_DEV_GPU_TEMP{" DM0 "} 63\n"
    "# HELP DCGM_FI_DEV_POWER_USAGE Power drawn by the whole board. (in W).\n"
    "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
    "DCGM_FI_DEV_POWER_USAGE{" DM0 "} 612.5\n"
    "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Energy consumed since the driver was loaded. (in "
    "mJ).\n"
    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" DM0 "} 123456789\n"
    "# HELP DCGM_FI_DEV_GPU_UTIL Fraction of the last sample period in which a kernel was running. "
    "(in %).\n"
    "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
    "DCGM_FI_DEV_GPU_UTIL{" DM0 "} 95\n"
    "# HELP DCGM_FI_DEV_FB_TOTAL Total installed GPU memory. (in MiB).\n"
    "# TYPE DCGM_FI_DEV_FB_TOTAL gauge\n"
    "DCGM_FI_DEV_FB_TOTAL{" DM0 "} 10240\n"
    "# HELP DCGM_FI_DEV_FB_RESERVED GPU memory reserved by the driver and firmware. (in MiB).\n"
    "# TYPE DCGM_FI_DEV_FB_RESERVED gauge\n"
    "DCGM_FI_DEV_FB_RESERVED{" DM0 "} 0\n"
    "# HELP DCGM_FI_DEV_FB_USED GPU memory allocated by active contexts (excludes reserved "
    "memory). (in MiB).\n"
    "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
    "DCGM_FI_DEV_FB_USED{" DM0 "} 1\n"
    "# HELP DCGM_FI_DEV_BAR1_TOTAL Total BAR1 memory. (in MiB).\n"
    "# TYPE DCGM_FI_DEV_BAR1_TOTAL gauge\n"
    "DCGM_FI_DEV_BAR1_TOTAL{" DM0 "} 16384\n"
    "# HELP DCGM_FI_DEV_CLOCK_THROTTLE_REASONS Bitmask of the clock event (throttle) reasons "
    "active now.\n"
    "# TYPE DCGM_FI_DEV_CLOCK_THROTTLE_REASONS gauge\n"
    "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{" DM0 "} 4\n"
    "# HELP DCGM_FI_DEV_CLOCKS_EVENT_REASONS Bitmask of the clock event (throttle) reasons "
    "active now.\n"
    "# TYPE DCGM_FI_DEV_CLOCKS_EVENT_REASONS gauge\n"
    "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{" DM0 "} 4\n"
    "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
    "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
    "DCGM_FI_DEV_XID_ERRORS{" DM0 ",err_code=\"0\",err_msg=\"No Error\"} 0\n"
    "DCGM_FI_DEV_XID_ERRORS{" D1 ",err_code=\"0\",err_msg=\"No Error\"} 0\n"
    "# HELP gpumon_gpu_up Whether the GPU answers (1) or is lost, not permitted or failing (0); "
    "its other series are absent while it is 0.\n"
    "# TYPE gpumon_gpu_up gauge\n"
    "gpumon_gpu_up{" D0 "} 1\n"
    "gpumon_gpu_up{" D1 "} 0\n"
    "# HELP gpumon_gpu_info Static facts about a GPU and its driver, as labels; the value is "
    "always 1.\n"
    "# TYPE gpumon_gpu_info gauge\n"
    "gpumon_gpu_info{" D0
    ",driver_version=\"550.54.15\",cuda_version=\"12.4\",nvml_version=\"12.550.54.15\",serial="
    "\"1650000000001\",vbios_version=\"96.00.99.00.01\",compute_cap=\"9.0\"} 1\n"
    "gpumon_gpu_info{" D1 ",driver_version=\"550.54.15\",cuda_version=\"12.4\",nvml_version=\"12."
    "550.54.15\"} 1\n" HEALTH_DCGM;

static void check_text(const char *got, const char *want, const char *what)
{
    if (strcmp(got, want) == 0)
        return;
    size_t i = 0;
    while (got[i] && got[i] == want[i])
        i++;
    size_t from = i > 200 ? i - 200 : 0;
    fail_msg("%s differs at byte %zu:\n--- got ---\n%.400s\n--- want ---\n%.400s", what, i,
             got + from, want + from);
}

static void test_native(void **state)
{
    (void)state;
    struct gm_snapshot *s = snapshot();
    char *got = render(s, GM_PROM_NATIVE, 1);
    check_text(got, native_want, "native exposition");
    free(got);
    gm_snapshot_free(s);
}

static void test_dcgm(void **state)
{
    (void)state;
    struct gm_snapshot *s = snapshot();
    char *got = render(s, GM_PROM_DCGM, 0);
    check_text(got, dcgm_want, "dcgm-exporter exposition");
    free(got);
    gm_snapshot_free(s);
}

/* Whether text has this exact line. */
static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

static char *render_with(const struct gm_prom_state *st, const struct gm_snapshot *s,
                         const struct gm_prom_opts *o)
{
    struct gm_prom_self self = {.scrapes = 12, .dropped = 3};
    struct gm_buf b = GM_BUF_INIT;
    gm_prom_render(st, s, o, &self, &b);
    return b.p;
}

#define CHECK_LINES(text, ...)                                                                     \
    do {                                                                                           \
        const char *lines_[] = {__VA_ARGS__};                                                      \
        for (size_t k_ = 0; k_ < N_ELEM(lines_); k_++)                                             \
            if (!has_line(text, lines_[k_]))                                                       \
                fail_msg("no line \"%s\" in:\n%s", lines_[k_], text);                              \
    } while (0)

/* Seconds per throttle reason go to the reasons active at the earlier of two
 * samples; a GPU earns none while lost, nor for the time before it came
 * back; sampling errors count by kind, per snapshot. */
static void test_state(void **state)
{
    (void)state;
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_prom_opts o = {.names = GM_PROM_NATIVE};
    struct gm_snapshot *s1 = snapshot(), *s2 = snapshot(), *s3 = snapshot();
    s1->mono_ns = 5000000000LL; /* GPU 0: sw_power_cap; GPU 1 lost */
    s2->mono_ns = 7500000000LL; /* GPU 0: sw_thermal_slowdown; GPU 1 back, sw_power_cap */
    s2->gpus[0].m[GM_M_CER_ACTIVE] = gm_v_u64(0x20);
    s2->gpus[1].state = GM_GPU_OK;
    s2->gpus[1].m[GM_M_CER_ACTIVE] = gm_v_u64(0x4);
    s3->mono_ns = 9500000000LL;
    s3->gpus[0].m[GM_M_CER_ACTIVE] = gm_v_u64(0x20);
    s3->gpus[1].state = GM_GPU_OK;
    s3->gpus[1].m[GM_M_CER_ACTIVE] = gm_v_u64(0);
    gm_prom_observe(st, s1);
    gm_prom_observe(st, s2);
    gm_prom_observe(st, s3);
    char *t = render_with(st, s3, &o);
    CHECK_LINES(t, "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"sw_power_cap\"} 2.5",
                "gpumon_clock_event_reason_seconds_total{" L0 ",reason=\"sw_thermal_slowdown\"} 2",
                "gpumon_clock_event_reason_seconds_total{" L1 ",reason=\"sw_power_cap\"} 2",
                "gpumon_clock_event_reason_active{" L1 ",reason=\"sw_power_cap\"} 0",
                "gpumon_gpu_up{" L1 "} 1",
                /* s1 had GPU 1 lost; each snapshot GPU 0's power limit error */
                "gpumon_exporter_sampling_errors_total{kind=\"gpu_lost\"} 1",
                "gpumon_exporter_sampling_errors_total{kind=\"error\"} 3",
                "gpumon_exporter_scrapes_total 12", "gpumon_exporter_dropped_snapshots_total 3");
    free(t);

    /* a clone renders the same later, whatever the state does meanwhile */
    struct gm_prom_state *c = gm_prom_state_clone(st);
    gm_prom_observe(st, s1);
    char *a = render_with(c, s3, &o);
    t = render_with(st, s3, &o);
    assert_true(has_line(a, "gpumon_exporter_sampling_errors_total{kind=\"gpu_lost\"} 1"));
    assert_true(has_line(t, "gpumon_exporter_sampling_errors_total{kind=\"gpu_lost\"} 2"));
    free(a);
    free(t);
    gm_prom_state_free(c);
    gm_prom_state_free(st);
    gm_snapshot_free(s1);
    gm_snapshot_free(s2);
    gm_snapshot_free(s3);
}

/* Xid events: counted per (GPU, Xid) natively, the last one per GPU for
 * dcgm-exporter; a lost GPU's count too; another GPU at the same index
 * (another UUID) starts over. */
static void test_xid(void **state)
{
    (void)state;
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_snapshot *s = snapshot();
    gm_prom_xid(st, 0, "GPU-0000aaaa", 13);
    gm_prom_xid(st, 0, "GPU-0000aaaa", 79);
    gm_prom_xid(st, 0, "GPU-0000aaaa", 79);
    gm_prom_xid(st, 1, "", 48);
    gm_prom_observe(st, s);
    struct gm_prom_opts o = {.names = GM_PROM_NATIVE};
    char *t = render_with(st, s, &o);
    CHECK_LINES(t, "# TYPE gpumon_xid_errors_total counter",
                "gpumon_xid_errors_total{" L0 ",xid=\"13\"} 1",
                "gpumon_xid_errors_total{" L0 ",xid=\"79\"} 2",
                "gpumon_xid_errors_total{" L1 ",xid=\"48\"} 1");
    free(t);
    o.names = GM_PROM_DCGM;
    t = render_with(st, s, &o);
    /* err_code and err_msg as dcgm-exporter's toMetric adds them, the
     * texts of its xid_errors.go (79, 48) */
    CHECK_LINES(
        t,
        "DCGM_FI_DEV_XID_ERRORS{" DM0 ",err_code=\"79\",err_msg=\"GPU has fallen off the bus\"} 79",
        "DCGM_FI_DEV_XID_ERRORS{" D1 ",err_code=\"48\",err_msg=\"Double Bit ECC Error\"} 48");
    free(t);
    /* an Xid past dcgm-exporter's table: "Unknown Error", as it says */
    gm_prom_xid(st, 1, "", 999);
    t = render_with(st, s, &o);
    CHECK_LINES(t, "DCGM_FI_DEV_XID_ERRORS{" D1 ",err_code=\"999\",err_msg=\"Unknown Error\"} 999");
    free(t);
    /* GPU 0 replaced */
    gm_prom_xid(st, 0, "GPU-9999ffff", 79);
    snprintf(s->gpus[0].str[GM_S_UUID], GM_STR_MAX, "GPU-9999ffff");
    o.names = GM_PROM_NATIVE;
    t = render_with(st, s, &o);
    assert_null(strstr(t, "xid=\"13\""));
    assert_non_null(strstr(t, "uuid=\"GPU-9999ffff\",name=\"NVIDIA H100 80GB HBM3\",pci_bus_id="
                              "\"00000000:18:00.0\",xid=\"79\"} 1\n"));
    free(t);
    gm_prom_state_free(st);
    gm_snapshot_free(s);
}

/* The agent's diagnosis: every cause 0 or 1 for a GPU it diagnoses, under
 * both name sets; nothing for a GPU it does not (one-shot scrapes). */
static void test_diagnosis(void **state)
{
    (void)state;
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_snapshot *s = snapshot();
    struct gm_prom_opts o = {.names = GM_PROM_NATIVE};
    char *t = render_with(st, s, &o);
    assert_null(strstr(t, "gpumon_diagnosis_active"));
    free(t);
    s->gpus[0].diag_known = 1;
    s->gpus[0].diag = 1u << GM_CAUSE_THERMAL;
    for (int names = 0; names < 2; names++) {
        o.names = names ? GM_PROM_DCGM : GM_PROM_NATIVE;
        t = render_with(st, s, &o);
        CHECK_LINES(t, "# TYPE gpumon_diagnosis_active gauge");
        if (!names) {
            CHECK_LINES(t, "gpumon_diagnosis_active{" L0 ",cause=\"thermal-throttle\"} 1",
                        "gpumon_diagnosis_active{" L0 ",cause=\"input-starved\"} 0",
                        "gpumon_diagnosis_active{" L0 ",cause=\"gpu-lost\"} 0");
            assert_null(strstr(t, "gpumon_diagnosis_active{" L1));
        }
        size_t n = 0;
        for (const char *p = t; (p = strstr(p, "\ngpumon_diagnosis_active{")) != NULL; p++)
            n++;
        assert_int_equal(n, GM_CAUSE__COUNT);
        free(t);
    }
    gm_prom_state_free(st);
    gm_snapshot_free(s);
}

/* The slow groups' ages (gpumon_value_age_seconds): absent when every
 * value is read afresh; with a cadence, one series per slow group of which
 * a live GPU has a real value, the oldest value's age in seconds; none for
 * a lost GPU or a group without a real value. */
static void test_value_ages(void **state)
{
    (void)state;
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_snapshot *s = snapshot();
    s->gpus[0].m[GM_M_ECC_CORR_VOL] = gm_v_u64(3);
    s->gpus[0].m[GM_M_ECC_CORR_VOL].age_ms = 2500;
    s->gpus[0].m[GM_M_ECC_UNCORR_VOL] = gm_v_u64(0);
    s->gpus[0].m[GM_M_ECC_UNCORR_VOL].age_ms = 2400;
    s->gpus[0].m[GM_M_PCIE_GEN_CUR] = gm_v_u64(5);
    struct gm_prom_opts o = {.names = GM_PROM_NATIVE};
    char *t = render_with(st, s, &o);
    assert_null(strstr(t, "gpumon_value_age_seconds"));
    free(t);
    s->slow_ns = 10000000000LL;
    t = render_with(st, s, &o);
    CHECK_LINES(t, "# TYPE gpumon_value_age_seconds gauge",
                "gpumon_value_age_seconds{" L0 ",group=\"ecc_counts\"} 2.5",
                "gpumon_value_age_seconds{" L0 ",group=\"pcie_link\"} 0");
    assert_null(strstr(t, "gpumon_value_age_seconds{" L1));
    assert_null(strstr(t, "group=\"retired_pages\""));
    assert_null(strstr(t, "group=\"temp\""));
    free(t);
    gm_prom_state_free(st);
    gm_snapshot_free(s);
}

/* Options: OpenMetrics, the hostname label, the process series cap; and a
 * driver that is not there. */
static void test_options(void **state)
{
    (void)state;
    struct gm_snapshot *s = snapshot();
    struct gm_proc p = s->procs[0];
    p.pid = 4343;
    p.cmdline = p.exe = p.cgroup = NULL;
    gm_snapshot_add_proc_take(s, &p);
    s->gpus[0].nproc = 2;
    s->gpus[1].proc_first = 2;

    struct gm_prom_opts o = {.names = GM_PROM_NATIVE,
                             .openmetrics = 1,
                             .hostname_label = 1,
                             .process_metrics = 1,
                             .max_process_series = 1};
    struct gm_buf b = GM_BUF_INIT;
    gm_prom_render_once(s, &o, &b);
    const char *h = ",hostname=\"node1\"";
    char line[512];
    snprintf(line, sizeof(line), "gpumon_power_draw_watts{" L0 "%s} 612.5", h);
    CHECK_LINES(b.p, "# TYPE gpumon_energy_consumed_joules counter",
                "# HELP gpumon_energy_consumed_joules Energy consumed since the driver was loaded.",
                line, "gpumon_exporter_process_series_dropped{hostname=\"node1\"} 1",
                "gpumon_nvml_state{hostname=\"node1\",state=\"ok\"} 1");
    assert_non_null(strstr(b.p, "pid=\"4242\""));
    assert_null(strstr(b.p, "pid=\"4343\""));
    size_t n = strlen(b.p);
    assert_true(n > 6 && strcmp(b.p + n - 6, "# EOF\n") == 0);
    gm_buf_free(&b);

    /* dcgm-exporter's counters are not _total: "unknown" in OpenMetrics */
    o.names = GM_PROM_DCGM;
    gm_prom_render_once(s, &o, &b);
    CHECK_LINES(b.p, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown");
    assert_null(strstr(b.p, "pid=\""));
    gm_buf_free(&b);

    /* no driver: only the health series, which say why */
    s->driver = GM_DRV_NOT_LOADED;
    o = (struct gm_prom_opts){.names = GM_PROM_NATIVE};
    gm_prom_render_once(s, &o, &b);
    CHECK_LINES(b.p, "gpumon_nvml_state{state=\"driver_not_loaded\"} 1",
                "gpumon_nvml_state{state=\"ok\"} 0",
                "gpumon_exporter_sampling_errors_total{kind=\"driver\"} 1");
    assert_null(strstr(b.p, "gpu=\""));
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

/* GPM per MIG GPU instance: each instance's values go into the GPM families
 * beside its GPU's, with the MIG labels (ours: mig_uuid, gpu_instance_id,
 * compute_instance_id, mig_profile; dcgm-exporter's: GPU_I_PROFILE and
 * GPU_I_ID after modelName); a metric an instance does not have (PCIe: not
 * per instance) is no series, never 0; a family only instances have still
 * comes out; a MIG device without GPM values adds nothing. */
static void test_mig_gpm(void **state)
{
    (void)state;
    struct gm_snapshot *s = snapshot();
    struct gm_gpu *g = &s->gpus[0];
    g->m[GM_M_GPM_SM_ACTIVE] = gm_v_f64(75);
    g->m[GM_M_GPM_PCIE_TX] = gm_v_u64(2097152);
    struct gm_mig *mg = &g->mig[0];
    mg->gpm[GM_M_GPM_SM_ACTIVE - GM_GPM_FIRST] = gm_v_f64(40.25);
    mg->gpm[GM_M_GPM_TENSOR_ACTIVE - GM_GPM_FIRST] = gm_v_f64(12.5);
    mg->gpm[GM_M_GPM_PCIE_TX - GM_GPM_FIRST] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    /* a second instance whose GPM is not supported */
    g->nmig = 2;
    struct gm_mig *m2 = &g->mig[1];
    m2->index = 1;
    m2->gpu_instance_id = 8;
    m2->compute_instance_id = 0;
    snprintf(m2->uuid, sizeof(m2->uuid), "MIG-0000dddd");
    snprintf(m2->profile, sizeof(m2->profile), "1g.10gb");
    m2->mem_total = m2->mem_used = m2->mem_free = gm_v_status(GM_VS_NA, 0);
    m2->mem_reserved = m2->bar1_total = m2->bar1_used = gm_v_status(GM_VS_NA, 0);
    for (int k = 0; k < GM_GPM_COUNT; k++)
        m2->gpm[k] = gm_v_status(GM_VS_UNSUPPORTED, 3);

    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_prom_opts o = {.names = GM_PROM_NATIVE};
    char *t = render_with(st, s, &o);
#define MIG0                                                                                       \
    ",mig_uuid=\"MIG-0000bbbb\",gpu_instance_id=\"7\",compute_instance_id=\"0\","                  \
    "mig_profile=\"1g.10gb\""
    CHECK_LINES(t, "# TYPE gpumon_gpm_sm_active_ratio gauge",
                "gpumon_gpm_sm_active_ratio{" L0 "} 0.75",
                "gpumon_gpm_sm_active_ratio{" L0 MIG0 "} 0.4025",
                "# TYPE gpumon_gpm_tensor_active_ratio gauge",
                "gpumon_gpm_tensor_active_ratio{" L0 MIG0 "} 0.125",
                "gpumon_gpm_pcie_tx_bytes_per_second{" L0 "} 2097152");
    assert_null(strstr(t, "gpumon_gpm_pcie_tx_bytes_per_second{" L0 ",mig_uuid"));
    assert_null(strstr(t, "gpumon_gpm_tensor_active_ratio{" L0 "}"));
    assert_null(strstr(t, "MIG-0000dddd\",gpu_instance_id=\"8\",compute_instance_id=\"0\","
                          "mig_profile=\"1g.10gb\"} "));
    assert_null(strstr(t, "gpumon_gpm_dram"));
    free(t);

    /* dcgm-exporter: the instances only, no whole-GPU PROF series beside
     * them (a sum over the Tensor panel would count GPU 0 twice); PCIe and
     * NVLink, which NVML does not count per instance, have no series on a
     * MIG GPU; instance 8 (no GPM) has no PROF series but its GPU's fields */
    o.names = GM_PROM_DCGM;
    t = render_with(st, s, &o);
#define DM8                                                                                        \
    "gpu=\"0\",UUID=\"GPU-0000aaaa\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia0\","          \
    "modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"8\","                \
    "Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"550.54.15\""
    CHECK_LINES(t, "DCGM_FI_PROF_SM_ACTIVE{" DM0 "} 0.4025",
                "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{" DM0 "} 0.125",
                "DCGM_FI_DEV_GPU_TEMP{" DM0 "} 63", "DCGM_FI_DEV_GPU_TEMP{" DM8 "} 63",
                "DCGM_FI_DEV_FB_USED{" DM0 "} 1");
    assert_null(strstr(t, "DCGM_FI_PROF_SM_ACTIVE{" D0));
    assert_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" D0));
    assert_null(strstr(t, "DCGM_FI_PROF_PCIE_TX_BYTES"));
    assert_null(strstr(t, "DCGM_FI_PROF_SM_ACTIVE{" DM8));
    assert_null(strstr(t, "DCGM_FI_DEV_FB_USED{" DM8));
    assert_null(strstr(t, "gpumon_gpm_"));
    free(t);

    /* a second compute instance in GPU instance 7 is the same DCGM entity */
    g->nmig = 3;
    g->mig[2] = g->mig[0];
    g->mig[2].index = 2;
    g->mig[2].compute_instance_id = 1;
    t = render_with(st, s, &o);
    const char *p = strstr(t, "DCGM_FI_DEV_GPU_TEMP{" DM0 "} 63\n");
    assert_non_null(p);
    assert_null(strstr(p + 1, "DCGM_FI_DEV_GPU_TEMP{" DM0 "} 63\n"));
    free(t);
#undef DM8
#undef MIG0
    gm_prom_state_free(st);
    gm_snapshot_free(s);
}

/* A GPU without MIG devices is one dcgm-exporter entity: its own series,
 * its own memory, no GPU_I labels.  Hostname is there by default and goes
 * with no_hostname (dcgm-exporter's --no-hostname) unless hostname_label
 * asks for it. */
static void test_dcgm_options(void **state)
{
    (void)state;
    struct gm_snapshot *s = snapshot();
    s->gpus[0].nmig = 0;
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_prom_opts o = {.names = GM_PROM_DCGM};
    char *t = render_with(st, s, &o);
    CHECK_LINES(t, "DCGM_FI_DEV_FB_USED{" D0 "} 3072", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{" D0 "} 4",
                "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{" D0 "} 4",
                "DCGM_FI_DEV_XID_ERRORS{" D0 ",err_code=\"0\",err_msg=\"No Error\"} 0");
    assert_null(strstr(t, "GPU_I_"));
    assert_null(strstr(t, "DCGM_FI_DEV_FB_TOTAL"));
    free(t);
    o.no_hostname = 1;
    t = render_with(st, s, &o);
    assert_null(strstr(t, "Hostname"));
    CHECK_LINES(t, "gpumon_exporter_scrapes_total 12");
    free(t);
    o.hostname_label = 1;
    t = render_with(st, s, &o);
    CHECK_LINES(t, "gpumon_exporter_scrapes_total{Hostname=\"node1\"} 12",
                "DCGM_FI_DEV_FB_USED{" D0 "} 3072");
    free(t);
    /* the native set keeps its default: no hostname label */
    o = (struct gm_prom_opts){.names = GM_PROM_NATIVE};
    t = render_with(st, s, &o);
    assert_null(strstr(t, "ostname"));
    free(t);
    gm_prom_state_free(st);
    gm_snapshot_free(s);
}

/* dcgm-exporter's label-type fields: those asked for that the GPU has, in
 * its template's order (sorted by name, after Hostname); an empty list is
 * none (not even the driver version); an unknown name is refused. */
static void test_dcgm_label_fields(void **state)
{
    (void)state;
    struct gm_snapshot *s = snapshot();
    s->gpus[0].nmig = 0;
    set_str(&s->gpus[0], GM_M_BRAND, "NVIDIA");
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_prom_opts o = {.names = GM_PROM_DCGM, .no_hostname = 1};
    char why[300];
    assert_int_equal(gm_prom_label_fields("DCGM_FI_NVML_VERSION, DCGM_FI_DEV_SERIAL,"
                                          "DCGM_FI_DEV_BRAND,DCGM_FI_DEV_VBIOS_VERSION,"
                                          "DCGM_FI_DEV_OEM_INFOROM_VER,DCGM_FI_DRIVER_VERSION",
                                          &o.dcgm_labels, why, sizeof why),
                     0);
    char *t = render_with(st, s, &o);
    CHECK_LINES(t,
                "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-0000aaaa\",pci_bus_id=\"00000000:18:00."
                "0\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\",DCGM_FI_DEV_BRAND="
                "\"NVIDIA\",DCGM_FI_DEV_SERIAL=\"1650000000001\",DCGM_FI_DEV_VBIOS_VERSION=\"96.00."
                "99.00.01\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",DCGM_FI_NVML_VERSION=\"12.550.54."
                "15\"} 63");
    assert_null(strstr(t, "INFOROM")); /* asked for, but the GPU has none */
    free(t);
    /* DCGM_FI_DEV_BRAND is DCGM's text for nvmlBrandType_t, which spells
     * three brands other than nvidia-smi -q's Product Brand and has
     * "Unknown" for one it does not know (NVIDIA/DCGM
     * dcgmlib/src/DcgmCacheManager.cpp, case DCGM_FI_DEV_BRAND); "23" is
     * a brand past gpumon's table, which the sample holds as its number */
    static const struct {
        const char *smi, *dcgm;
    } brands[] = {
        {"GRID", "Grid"},           {"NVIDIA Cloud Gaming", "NVIDIA vGaming"},
        {"TITAN RTX", "Titan RTX"}, {"23", "Unknown"},
        {"GeForce", "GeForce"},     {"Quadro RTX", "Quadro RTX"},
        {"Tesla", "Tesla"},
    };
    for (size_t k = 0; k < sizeof(brands) / sizeof(brands[0]); k++) {
        set_str(&s->gpus[0], GM_M_BRAND, brands[k].smi);
        t = render_with(st, s, &o);
        char want[128];
        snprintf(want, sizeof want, ",DCGM_FI_DEV_BRAND=\"%s\",", brands[k].dcgm);
        if (!strstr(t, want))
            fail_msg("brand %s: want %s in\n%.600s", brands[k].smi, want, t);
        free(t);
    }
    assert_int_equal(gm_prom_label_fields("", &o.dcgm_labels, why, sizeof why), 0);
    t = render_with(st, s, &o);
    CHECK_LINES(t,
                "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-0000aaaa\",pci_bus_id=\"00000000:18:00."
                "0\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\"} 63");
    free(t);
    assert_int_equal(gm_prom_label_fields("DCGM_FI_DEV_SERIAL,DCGM_FI_DEV_NOPE", &o.dcgm_labels,
                                          why, sizeof why),
                     GM_E_INVAL);
    assert_non_null(strstr(why, "\"DCGM_FI_DEV_NOPE\""));
    gm_prom_state_free(st);
    gm_snapshot_free(s);
}

/* A snapshot of one GPU (index 0, energy counter e J, 500 W) whose NVML
 * process list holds n processes of users[k] (NULL: a vanished one). */
static struct gm_snapshot *usage_snapshot(int64_t mono_ms, double e, const char *const *users,
                                          int n)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->mono_ns = mono_ms * 1000000LL;
    s->driver = GM_DRV_OK;
    gm_snapshot_set_gpus(s, 1);
    struct gm_gpu *g = &s->gpus[0];
    g->m[GM_M_INDEX] = gm_v_u64(0);
    set_str(g, GM_M_UUID, "GPU-0000aaaa");
    g->m[GM_M_ENERGY] = gm_v_f64(e);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(500);
    g->procs_listed = 1;
    for (int k = 0; k < n; k++) {
        struct gm_proc p;
        memset(&p, 0, sizeof(p));
        p.pid = 100 + (uint32_t)k;
        p.type = GM_PT_COMPUTE;
        snprintf(p.name, sizeof(p.name), "python3");
        snprintf(p.user, sizeof(p.user), "%s", users[k] ? users[k] : "");
        p.host_state = users[k] ? GM_HS_ALIVE : GM_HS_GONE;
        p.used_memory = gm_v_u64(1048576);
        gm_snapshot_add_proc_take(s, &p);
    }
    g->proc_first = 0;
    g->nproc = (uint32_t)n;
    return s;
}

/* gpumon_usage_*: the interval after a sample to that sample's groups in
 * equal parts, a vanished process charged nothing beside live ones, the
 * energy counter split the same way, nothing while the GPU is lost, and
 * pairs past the series cap counted as dropped. */
static void test_usage(void **state)
{
    (void)state;
    struct gm_prom_state *st = gm_prom_state_new();
    struct gm_prom_opts o = {.names = GM_PROM_NATIVE};
    const char *const who[] = {"alice", "bob\x1b[2J", NULL};
    struct gm_snapshot *s1 = usage_snapshot(5000, 1000, who, 3);
    struct gm_snapshot *s2 = usage_snapshot(7000, 1200, who, 1); /* alice alone next */
    struct gm_snapshot *s3 = usage_snapshot(8000, 1300, who, 1);
    s3->gpus[0].state = GM_GPU_LOST; /* alice until then (500 W), nobody after */
    struct gm_snapshot *s4 = usage_snapshot(9000, 1400, who, 1);
    gm_prom_observe(st, s1);
    char *t = render_with(st, s1, &o); /* one sample: no interval, no series */
    assert_null(strstr(t, "gpumon_usage"));
    free(t);
    gm_prom_observe(st, s2);
    gm_prom_observe(st, s3);
    gm_prom_observe(st, s4);
    t = render_with(st, s4, &o);
    CHECK_LINES(t, "# TYPE gpumon_usage_gpu_seconds_total counter",
                "gpumon_usage_gpu_seconds_total{user=\"alice\"} 2",
                "gpumon_usage_gpu_seconds_total{user=\"bob\xef\xbf\xbd[2J\"} 1",
                "gpumon_usage_gpu_seconds_total{job_id=\"(vanished)\",user=\"(vanished)\"} 0",
                "gpumon_usage_energy_joules_total{user=\"alice\"} 600",
                "gpumon_usage_energy_joules_total{user=\"bob\xef\xbf\xbd[2J\"} 100",
                "gpumon_exporter_usage_series_dropped_total 0");
    free(t);
    gm_snapshot_free(s1);
    gm_snapshot_free(s2);
    gm_snapshot_free(s3);
    gm_snapshot_free(s4);

    /* 20 samples of 16 new users each: 256 pairs get series, the groups
     * of samples 16 to 18 are charged into nothing (the last one's
     * interval has not come) and counted */
    gm_prom_state_free(st);
    st = gm_prom_state_new();
    char names[16][16];
    const char *users[16];
    for (int r = 0; r < 20; r++) {
        for (int k = 0; k < 16; k++) {
            snprintf(names[k], sizeof(names[k]), "u%d", r * 16 + k);
            users[k] = names[k];
        }
        struct gm_snapshot *s = usage_snapshot(10000 + r * 1000, 2000 + r, users, 16);
        gm_prom_observe(st, s);
        gm_snapshot_free(s);
    }
    t = render_with(st, s1 = usage_snapshot(40000, 3000, who, 1), &o);
    CHECK_LINES(t, "gpumon_usage_gpu_seconds_total{user=\"u0\"} 0.0625",
                "gpumon_exporter_usage_series_dropped_total 48");
    assert_null(strstr(t, "user=\"u260\""));
    free(t);
    gm_snapshot_free(s1);
    gm_prom_state_free(st);
}

/* The shared accounting rules (core/usage_acct.h), by table. */
static void test_usage_rules(void **state)
{
    (void)state;
    /* shares: live groups in equal parts, vanished ones nothing beside them */
    static const struct {
        int vanished[4];
        int n;
        double want[4];
    } shares[] = {
        {{0}, 1, {1}},
        {{0, 0, 0, 0}, 4, {0.25, 0.25, 0.25, 0.25}},
        {{0, 1, 0}, 3, {0.5, 0, 0.5}},
        {{1, 1}, 2, {0.5, 0.5}},
    };
    for (size_t i = 0; i < N_ELEM(shares); i++) {
        struct gm_uacct_group ug[4];
        memset(ug, 0, sizeof(ug));
        for (int k = 0; k < shares[i].n; k++)
            ug[k].vanished = shares[i].vanished[k];
        for (int k = 0; k < shares[i].n; k++)
            assert_true(gm_uacct_share(ug, shares[i].n, k) == shares[i].want[k]);
    }
    /* the gap cap: twice the median of the recent intervals, or of the fixed one */
    static const struct {
        int64_t fixed;
        int64_t dt[5];
        int n;
        int64_t want_last;
    } gaps[] = {
        {0, {1000}, 1, 1000},
        {0, {1000, 1000, 1000, 10000}, 4, 2000},
        {500, {5000}, 1, 1000},
        {0, {1000, 1500, 1200, 1100, 1300}, 5, 1300},
    };
    for (size_t i = 0; i < N_ELEM(gaps); i++) {
        struct gm_uacct_gaps g;
        memset(&g, 0, sizeof(g));
        int64_t got = 0;
        for (int k = 0; k < gaps[i].n; k++)
            got = gm_uacct_gap(&g, gaps[i].dt[k], gaps[i].fixed);
        assert_int_equal(got, gaps[i].want_last);
    }
    /* energy: the counter over dt scaled to d, else power x d */
    static const struct {
        struct gm_uacct_energy_at prev, cur;
        int64_t d, dt;
        int src;
        double e;
    } en[] = {
        {{1, 100, 1, 300}, {1, 400, 1, 300}, 1000, 1000, GM_UACCT_ESRC_COUNTER, 300},
        {{1, 100, 1, 300}, {1, 400, 1, 300}, 1000, 3000, GM_UACCT_ESRC_COUNTER, 100},
        {{1, 500, 1, 300}, {1, 400, 1, 300}, 2000, 2000, GM_UACCT_ESRC_POWER, 600},
        {{0, 0, 1, 250}, {0, 0, 1, 300}, 4000, 4000, GM_UACCT_ESRC_POWER, 1000},
        {{0, 0, 0, 0}, {1, 5, 1, 5}, 1000, 1000, GM_UACCT_ESRC_NONE, 0},
    };
    for (size_t i = 0; i < N_ELEM(en); i++) {
        double e = -1;
        assert_int_equal(gm_uacct_energy(&en[i].prev, &en[i].cur, en[i].d, en[i].dt, &e),
                         en[i].src);
        assert_true(e == en[i].e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native),       cmocka_unit_test(test_dcgm),
        cmocka_unit_test(test_state),        cmocka_unit_test(test_xid),
        cmocka_unit_test(test_options),      cmocka_unit_test(test_diagnosis),
        cmocka_unit_test(test_mig_gpm),      cmocka_unit_test(test_value_ages),
        cmocka_unit_test(test_dcgm_options), cmocka_unit_test(test_dcgm_label_fields),
        cmocka_unit_test(test_usage),        cmocka_unit_test(test_usage_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
