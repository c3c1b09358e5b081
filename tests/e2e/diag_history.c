/* diag_history.c -- writes a scenario's history into a store and a CSV log
 * at scenario time, for the diagnosis scenario generator
 * (tests/e2e/diagnose_gen.py).
 *
 * The agent stamps samples with the host's clock, so a history of days
 * would take days to record.  This tool walks scenario time instead: for
 * each t from FROM to TO in steps of STEP it pins the simulator there
 * (GPUSIM_TIME, read at each NVML init), takes one sample through the real
 * collector (NVML values, processes and their /proc enrichment, PCIe
 * throughput and GPM as `--pcie --store-gpm` take them) and writes it with
 * the store's and the CSV writer's own code, stamped END - (TO - t) in wall
 * time.  Only the timestamps are made; every value is the simulator's.
 *
 * Leaves out: events, the agent's diagnosis stage (its `diag` fields stay
 * empty, as in a store the agent wrote with `diagnose = false`), rotation
 * and retention.  Refuses an existing store: rows would collide.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/collector.h"
#include "core/snapshot.h"
#include "source/nvml.h"
#include "store/csv.h"
#include "store/store.h"

#define NS_PER_S 1000000000.0
#define MAX_COLS 128

static void usage(FILE *f)
{
    fprintf(f, "usage: diag_history --from S --to S --step S --end UNIX_S --store DB "
               "[--csv-dir DIR --columns LIST]\n\n"
               "Samples the simulator (GPUSIM_SCENARIO, GPUMON_NVML_LIB) at scenario times\n"
               "FROM, FROM+STEP, ... TO and writes each sample into the new store DB (and\n"
               "the CSV log in DIR), stamped so that TO falls at END (unix seconds).\n");
}

static double number(const char *s, const char *flag)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno || !(v >= 0) || v > 1e10) {
        fprintf(stderr, "diag_history: %s: '%s' is not a number of seconds\n", flag, s);
        exit(2);
    }
    return v;
}

static void say(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level <= 4)
        fprintf(stderr, "diag_history: %s\n", msg);
}

/* One sample at scenario time t: a collector opened with GPUSIM_TIME = t
 * (the simulator reads it when a session starts), closed again. */
static int sample_at(double t, struct gm_snapshot *s)
{
    char v[64];
    snprintf(v, sizeof(v), "%.6f", t);
    setenv("GPUSIM_TIME", v, 1);
    struct gm_collector_opts co = {.procs = 1, .procfs = 1, .log = say};
    co.groups = gm_nvml_groups_default();
    gm_rgset_add(&co.groups, GM_RG_PCIE_TPUT);
    co.nvml_flags |= GM_NVML_GPM_PRIME;
    struct gm_collector *c = NULL;
    struct gm_err err = {0};
    if (gm_collector_open(&c, &co, &err) != 0) {
        fprintf(stderr, "diag_history: NVML at t=%s: %s\n", v, err.msg);
        gm_collector_close(c);
        return -1;
    }
    int rc = gm_collector_sample(c, s, 0, &err);
    gm_collector_close(c);
    if (rc != 0)
        fprintf(stderr, "diag_history: sample at t=%s: %s\n", v, err.msg);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {{"from", required_argument, NULL, 'f'},
                                             {"to", required_argument, NULL, 't'},
                                             {"step", required_argument, NULL, 's'},
                                             {"end", required_argument, NULL, 'e'},
                                             {"store", required_argument, NULL, 'd'},
                                             {"csv-dir", required_argument, NULL, 'c'},
                                             {"columns", required_argument, NULL, 'k'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    double from = -1, to = -1, step = -1, end = -1;
    const char *db = NULL, *csvdir = NULL, *columns = NULL;
    int o;
    while ((o = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (o) {
        case 'f':
            from = number(optarg, "--from");
            break;
        case 't':
            to = number(optarg, "--to");
            break;
        case 's':
            step = number(optarg, "--step");
            break;
        case 'e':
            end = number(optarg, "--end");
            break;
        case 'd':
            db = optarg;
            break;
        case 'c':
            csvdir = optarg;
            break;
        case 'k':
            columns = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc || from < 0 || to < from || !(step > 0) || end < 0 || !db ||
        (csvdir && !columns)) {
        usage(stderr);
        return 2;
    }
    struct stat st;
    if (lstat(db, &st) == 0) {
        fprintf(stderr, "diag_history: %s exists: the rows would collide with its own\n", db);
        return 2;
    }

    struct gm_err err = {0};
    struct gm_store_opts so = {.path = db,
                               .task = "gen",
                               .interval_ns = (int64_t)(step * NS_PER_S),
                               .procs = 1,
                               .gpm = 1,
                               .log = say};
    struct gm_store *store = gm_store_open(&so, &err);
    if (!store) {
        fprintf(stderr, "diag_history: %s: %s\n", db, err.msg);
        return 1;
    }
    struct gm_csv *csv = NULL;
    int cols[MAX_COLS], ncols = 0;
    if (csvdir) {
        if (gm_csv_parse_columns(columns, cols, MAX_COLS, &ncols, &err) != 0) {
            fprintf(stderr, "diag_history: --columns: %s\n", err.msg);
            gm_store_close(store);
            return 2;
        }
        struct gm_csv_opts cso = {.dir = csvdir,
                                  .task = "gen",
                                  .host = "gen",
                                  .columns = cols,
                                  .ncolumns = ncols,
                                  .procs = 1,
                                  .compress_after_ns = -1,
                                  .log = say};
        csv = gm_csv_open(&cso, &err);
        if (!csv) {
            fprintf(stderr, "diag_history: %s: %s\n", csvdir, err.msg);
            gm_store_close(store);
            return 1;
        }
    }

    int status = 0;
    long n = 0;
    struct gm_snapshot *s = gm_snapshot_new();
    for (long i = 0;; i++) {
        double t = from + (double)i * step;
        if (t > to + 1e-9)
            break;
        if (sample_at(t, s) != 0) {
            status = 1;
            break;
        }
        int64_t wall = (int64_t)((end - (to - t)) * NS_PER_S);
        s->mono_ns += wall - s->wall_ns; /* keep their difference: one timeline */
        s->wall_ns = wall;
        if (gm_store_write(store, s) != 0 || (csv && gm_csv_write(csv, s) != 0)) {
            fprintf(stderr, "diag_history: writing the sample at t=%.3f failed\n", t);
            status = 1;
            break;
        }
        n++;
    }
    gm_snapshot_free(s);
    if (gm_store_flush(store) != 0)
        status = 1;
    gm_store_close(store);
    gm_csv_close(csv);
    if (status == 0)
        printf("samples %ld\n", n);
    return status;
}
