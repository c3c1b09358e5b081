/* gen_store.c -- writes a history store as the agent would after N days of
 * 8 GPUs sampled every second, for the report benchmark and as a measure of
 * the store's write throughput.
 *
 * Uses the store's own writer (gm_store_open / gm_store_write /
 * gm_store_event), so the schema, the integer scaling, the rollups and the
 * batching are the real ones; only the snapshots are synthetic.  They follow
 * a node running one job at a time on all GPUs: training runs of 4 to 20
 * hours (utilisation 90-99 % with the odd data-loader stall, ~72 GiB used,
 * 450-700 W with the power cap hit now and then, temperature following the
 * power) separated by idle gaps of 15 minutes to 3 hours (0 %, ~70 W, the
 * gpu_idle reason).  GPU 3 is data-starved (utilisation jumps between 0 and
 * ~97 %), GPU 5 runs hot and throttles (thermal reasons, lower SM clock).
 * GPU 6 falls off the bus for 20 minutes on day 12 (status rows, GPU
 * events).  A mark is written at every job start and every 6 hours of
 * training ("job 3 checkpoint 2").  Timestamps carry a few milliseconds of
 * jitter, as a real sampler's do.  Everything comes from a fixed seed: the
 * same arguments give the same rows.
 *
 * Prints "key value" lines (what was written, how long it took, the file's
 * size) that scripts/bench.sh reads.  Refuses to write into an existing
 * file: the store would append, and the rows would collide.
 *
 * Leaves out: processes (the agent stores them with `procs`; the report does
 * not read them), retention (every tier is kept, as in a store younger than
 * its raw retention), the driver going away.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/event.h"
#include "core/snapshot.h"
#include "core/timeutil.h"
#include "store/store.h"
#include "store/store_schema.h"

#define MIB (UINT64_C(1) << 20)
#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define MAX_GPUS 64
#define NVML_ERROR_GPU_IS_LOST 15

static void usage(FILE *f)
{
    fprintf(f, "usage: gen_store [OPTIONS] DB\n"
               "       gen_store --schema-version\n\n"
               "Writes DAYS of GPUS GPUs sampled every INTERVAL into a new history store DB.\n\n"
               "  -d, --days N          days of history (default 30)\n"
               "  -g, --gpus N          GPUs (default 8)\n"
               "  -i, --interval-ms MS  sampling interval (default 1000)\n"
               "  -e, --end UNIX_S      end of the history (default: the last full UTC hour)\n"
               "  -s, --seed N          seed of the synthetic values (default 1)\n"
               "      --schema-version  print the store schema version this binary writes\n"
               "  -h, --help            this help\n");
}

static long parse_long(const char *s, const char *flag, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi) {
        fprintf(stderr, "gen_store: %s: '%s' is not a number from %ld to %ld\n", flag, s, lo, hi);
        exit(2);
    }
    return v;
}

/* xorshift64*: cheap, good enough for plausible values. */
static uint64_t rnd(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

/* Uniform in [lo, hi]. */
static int64_t uni(uint64_t *x, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd(x) % (uint64_t)(hi - lo + 1));
}

static void store_log(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level <= 4)
        fprintf(stderr, "gen_store: %s\n", msg);
}

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* What one GPU carries from sample to sample. */
struct gpu_model {
    double temp;      /* °C, follows the power with a lag */
    double energy_j;  /* the driver's counter */
    int64_t stall;    /* samples left in a data-loader stall */
    int64_t lost_end; /* lost until this sample (exclusive); 0 = never */
    int64_t lost_at;
};

static int mark(struct gm_store *st, int64_t wall_ns, int type, int gpu, const char *uuid,
                int64_t code, const char *text)
{
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = (uint8_t)type;
    e.gpu = gpu;
    e.wall_ns = wall_ns;
    e.code = code;
    if (uuid)
        snprintf(e.uuid, sizeof(e.uuid), "%s", uuid);
    snprintf(e.text, sizeof(e.text), "%s", text);
    return gm_store_event(st, &e);
}

int main(int argc, char **argv)
{
    enum { O_SCHEMA = 256 };
    static const struct option opts[] = {
        {"days", required_argument, NULL, 'd'},
        {"gpus", required_argument, NULL, 'g'},
        {"interval-ms", required_argument, NULL, 'i'},
        {"end", required_argument, NULL, 'e'},
        {"seed", required_argument, NULL, 's'},
        {"schema-version", no_argument, NULL, O_SCHEMA},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    long days = 30, ngpu = 8, interval_ms = 1000, seed = 1;
    int64_t end_s = 0;
    int c;
    while ((c = getopt_long(argc, argv, "d:g:i:e:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            days = parse_long(optarg, "--days", 1, 3650);
            break;
        case 'g':
            ngpu = parse_long(optarg, "--gpus", 1, MAX_GPUS);
            break;
        case 'i':
            interval_ms = parse_long(optarg, "--interval-ms", 10, 3600000);
            break;
        case 'e':
            end_s = parse_long(optarg, "--end", 1, 4102444800L);
            break;
        case 's':
            seed = parse_long(optarg, "--seed", 0, 1000000000L);
            break;
        case O_SCHEMA:
            printf("%d\n", GM_STORE_SCHEMA_VERSION);
            return 0;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    const char *path = argv[optind];
    struct stat sb;
    if (stat(path, &sb) == 0) {
        fprintf(stderr, "gen_store: %s exists; give a new path (the store would append to it)\n",
                path);
        return 2;
    }
    if (end_s == 0)
        end_s = gm_wall_ns() / NS_PER_S / 3600 * 3600;
    const int64_t n = (int64_t)days * 86400 * 1000 / interval_ms; /* snapshots */
    const int64_t start_ms = end_s * 1000 - n * interval_ms;
    const int64_t per_hour = 3600 * 1000 / interval_ms;

    struct gm_store_opts so = {
        .path = path,
        .task = "train",
        .commit_interval_ns = 3600 * NS_PER_S, /* batches of the store's maximum, 8192 rows */
        .interval_ns = interval_ms * NS_PER_MS,
        .log = store_log,
    };
    struct gm_err err = {0};
    int64_t w0 = gm_mono_ns(), c0 = cpu_ns();
    struct gm_store *st = gm_store_open(&so, &err);
    if (!st) {
        fprintf(stderr, "gen_store: %s\n", err.msg);
        return 1;
    }

    /* One snapshot, refilled for every sample: the writer only reads it. */
    struct gm_snapshot *s = gm_snapshot_new();
    gm_snapshot_set_gpus(s, (uint32_t)ngpu);
    snprintf(s->hostname, sizeof(s->hostname), "gen-node");
    struct gpu_model gm[MAX_GPUS];
    memset(gm, 0, sizeof(gm));
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)seed;
    for (long i = 0; i < ngpu; i++) {
        struct gm_gpu *g = &s->gpus[i];
        snprintf(g->str[GM_S_UUID], sizeof(g->str[GM_S_UUID]),
                 "GPU-%08" PRIx64 "-%04x-%04x-%04x-%012" PRIx64, rnd(&x) >> 32,
                 (unsigned)(rnd(&x) >> 48), (unsigned)(rnd(&x) >> 48), (unsigned)(rnd(&x) >> 48),
                 rnd(&x) >> 16);
        g->m[GM_M_UUID] = gm_v_u64(0);
        snprintf(g->str[GM_S_NAME], sizeof(g->str[GM_S_NAME]), "NVIDIA H100 80GB HBM3");
        g->m[GM_M_NAME] = gm_v_u64(0);
        g->m[GM_M_MEM_TOTAL] = gm_v_u64(81559 * MIB);
        g->m[GM_M_POWER_LIMIT] = gm_v_f64(700.0);
        g->m[GM_M_CLK_MEM] = gm_v_u64(2619);
        g->m[GM_M_FAN] = gm_v_status(GM_VS_UNSUPPORTED, 3); /* an H100 has no fan */
        gm[i].temp = 32.0;
        gm[i].energy_j = 4.0e8 + 1.0e6 * (double)i; /* ~12 days since the driver loaded */
    }
    if (ngpu > 6 && days >= 13) {
        gm[6].lost_at = 12 * 86400 * 1000 / interval_ms + 7 * per_hour; /* day 12, 07:00 */
        gm[6].lost_end = gm[6].lost_at + per_hour / 3;
    }

    int training = 0, job = 0, checkpoint = 0;
    int64_t phase_end = 0, phase_start = 0, marks = 0, events = 0;
    int64_t mem_job = 0;
    double dt = (double)interval_ms / 1000.0;
    int rc = 0;
    for (int64_t k = 0; k < n && rc == 0; k++) {
        int64_t ts_ms = start_ms + k * interval_ms;
        int64_t wall_ns = ts_ms * NS_PER_MS + uni(&x, 0, 4) * NS_PER_MS + uni(&x, 0, 999999);
        if (k >= phase_end) {
            training = !training;
            phase_start = k;
            if (training) {
                phase_end = k + uni(&x, 4 * per_hour, 20 * per_hour);
                mem_job = uni(&x, 60000, 78000);
                checkpoint = 0;
                char text[64];
                snprintf(text, sizeof(text), "job %d start", ++job);
                rc = mark(st, wall_ns, GM_EV_MARK, -1, NULL, 0, text);
                marks++;
            } else {
                phase_end = k + uni(&x, per_hour / 4, 3 * per_hour);
            }
        } else if (training && (k - phase_start) % (6 * per_hour) == 0) {
            char text[64];
            snprintf(text, sizeof(text), "job %d checkpoint %d", job, ++checkpoint);
            rc = mark(st, wall_ns, GM_EV_MARK, -1, NULL, 0, text);
            marks++;
        }
        s->seq = (uint64_t)k + 1;
        s->wall_ns = wall_ns;
        s->mono_ns = k * interval_ms * NS_PER_MS;
        for (long i = 0; i < ngpu && rc == 0; i++) {
            struct gm_gpu *g = &s->gpus[i];
            struct gpu_model *m = &gm[i];
            int lost = m->lost_end && k >= m->lost_at && k < m->lost_end;
            if (m->lost_end && (k == m->lost_at || k == m->lost_end)) {
                rc = mark(st, wall_ns, GM_EV_GPU, (int)i, g->str[GM_S_UUID],
                          lost ? NVML_ERROR_GPU_IS_LOST : 0,
                          lost ? "gpu_lost: GPU is lost" : "ok: GPU is back");
                events++;
            }
            g->state = lost ? GM_GPU_LOST : GM_GPU_OK;
            g->state_code = lost ? NVML_ERROR_GPU_IS_LOST : 0;
            int64_t util, mem_mib, sm = 1980;
            uint64_t reasons = 0;
            double power;
            if (training) {
                if (m->stall > 0) {
                    m->stall--;
                    util = uni(&x, 0, 40);
                } else {
                    util = uni(&x, 90, 99);
                    if (rnd(&x) % 400 == 0)
                        m->stall = uni(&x, 1, 8);
                }
                if (i == 3) /* data-starved: a 1 s sample lands on a burst or a gap */
                    util = rnd(&x) % 100 < 35 ? uni(&x, 92, 99) : uni(&x, 0, 6);
                mem_mib = mem_job + uni(&x, -64, 64);
                power = 180.0 + 5.2 * (double)util + (double)uni(&x, -2500, 2500) / 100.0;
                if (power >= 700.0) {
                    power = 700.0 - (double)uni(&x, 0, 300) / 100.0;
                    reasons |= 0x4; /* sw_power_cap */
                }
            } else {
                util = 0;
                mem_mib = uni(&x, 0, 2) ? 0 : 512;
                power = 68.0 + (double)uni(&x, 0, 700) / 100.0;
                sm = 345;
                reasons |= 0x1; /* gpu_idle */
            }
            double target = 28.0 + power / (i == 5 ? 9.0 : 13.0);
            m->temp += (target - m->temp) * (1.0 - 1.0 / (1.0 + dt / 60.0));
            int64_t temp = (int64_t)(m->temp + (double)uni(&x, -50, 50) / 100.0 + 0.5);
            if (temp >= 87) {
                temp = 87 + uni(&x, 0, 2);
                reasons |= 0x20 | (temp >= 89 ? 0x40 : 0); /* sw / hw thermal slowdown */
                sm = uni(&x, 990, 1400);
                power *= 0.85;
            }
            m->energy_j += power * dt;
            /* a lost GPU's values are not stored (its row has the status only) */
            g->m[GM_M_UTIL_GPU] = gm_v_u64((uint64_t)util);
            g->m[GM_M_UTIL_MEM] = gm_v_u64((uint64_t)(util * 45 / 100));
            g->m[GM_M_MEM_USED] = gm_v_u64((uint64_t)mem_mib * MIB + (uint64_t)uni(&x, 0, 1 << 19));
            g->m[GM_M_POWER_DRAW] = gm_v_f64((double)(int64_t)(power * 1000.0) / 1000.0);
            g->m[GM_M_TEMP_GPU] = gm_v_u64((uint64_t)temp);
            g->m[GM_M_CLK_SM] = gm_v_u64((uint64_t)sm);
            g->m[GM_M_CER_ACTIVE] = gm_v_u64(reasons);
            g->m[GM_M_ENERGY] = gm_v_f64((double)(int64_t)m->energy_j);
        }
        if (rc == 0)
            rc = gm_store_write(st, s);
    }
    if (rc == 0)
        rc = gm_store_flush(st); /* commits the last batch, so the counters include it */
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    int64_t w1 = gm_mono_ns();
    gm_store_close(st); /* commits, checkpoints the WAL into the file and removes it */
    int64_t w2 = gm_mono_ns(), c2 = cpu_ns();
    gm_snapshot_free(s);
    if (rc != 0) {
        fprintf(stderr, "gen_store: writing failed (%d) after %" PRIu64 " GPU-samples\n", rc,
                ss.samples);
        return 1;
    }
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "gen_store: %s: %s\n", path, strerror(errno));
        return 1;
    }
    double secs = (double)(w2 - w0) / 1e9;
    printf("schema_version %d\n", GM_STORE_SCHEMA_VERSION);
    printf("days %ld\n", days);
    printf("gpus %ld\n", ngpu);
    printf("interval_ms %ld\n", interval_ms);
    printf("start_unix %" PRId64 "\n", start_ms / 1000);
    printf("end_unix %" PRId64 "\n", end_s);
    printf("snapshots %" PRId64 "\n", n);
    printf("gpu_samples %" PRIu64 "\n", ss.samples);
    printf("lost %" PRIu64 "\n", ss.lost);
    printf("marks %" PRId64 "\n", marks);
    printf("gpu_events %" PRId64 "\n", events);
    printf("commits %" PRIu64 "\n", ss.commits);
    printf("write_s %.3f\n", (double)(w1 - w0) / 1e9);
    printf("close_s %.3f\n", (double)(w2 - w1) / 1e9);
    printf("wall_s %.3f\n", secs);
    printf("cpu_s %.3f\n", (double)(c2 - c0) / 1e9);
    printf("rate_gpu_samples_per_s %.0f\n", (double)ss.samples / secs);
    printf("file_bytes %lld\n", (long long)sb.st_size);
    printf("bytes_per_gpu_sample %.2f\n", (double)sb.st_size / (double)ss.samples);
    return 0;
}
