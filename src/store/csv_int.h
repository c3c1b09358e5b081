/* csv_int.h -- what the CSV log writer's files share (private to
 * src/store/; csv.h is the contract): the limits, the kinds of file, the
 * state of one file (struct cfile) and of the writer (struct gm_csv), the
 * janitor's messages, the log macro, and the functions one file defines
 * for another, named gm_cv_*.  csv.c has the columns, rows, lifecycle and
 * sink; csv_file.c the files (names, headers, tail repair, choosing and
 * opening) and the writing and its errors; csv_janitor.c the janitor
 * thread (retention and gzip).
 */
#ifndef GM_STORE_CSV_INT_H
#define GM_STORE_CSV_INT_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/log.h"
#include "../core/safefile.h"
#include "csv.h"

#define NS_PER_S INT64_C(1000000000)
#define MINUTE_NS (60 * NS_PER_S)
#define DAY_NS (86400 * NS_PER_S)
#define MAX_SUFFIX 9999 /* <task>_<day>-9999.csv at most */
#define NAME_LEN 256    /* a file name in dir (the task name is at most 128) */
#define MAX_MSGS 32     /* janitor messages waiting for the sink thread */

/* The three kinds of file, each with at most one open descriptor. */
enum { K_GPU = 0, K_PROCS, K_EVENTS, K__N };

/* What the janitor finds in dir. */
enum { EXT_CSV = 0, EXT_GZ, EXT_TMP };

struct cfile {
    int fd;              /* -1 when closed */
    int dirty;           /* written since the last fsync */
    int failed;          /* the last write failed: check the tail before the next */
    char day[16];        /* YYYYMMDD of the open file */
    char name[NAME_LEN]; /* open file's name in dir ("" when closed); under mu */
    char path[NAME_LEN + 4096];
    /* What the last scan or write found: the file (dev, ino) was size bytes
     * long, its first valid bytes whole records.  Lets a reopen of the same
     * file skip the scan. */
    /* a run of failed writes of this kind of file, logged for itself */
    int failing;           /* in a run of failed writes */
    uint64_t outage_lost;  /* rows lost in this run */
    int fail_logged;       /* last_fail_log is set */
    int64_t last_fail_log; /* monotonic */
    int known;
    dev_t known_dev;
    ino_t known_ino;
    off_t known_size, known_valid;
};

struct jmsg {
    struct jmsg *next;
    int level;
    char text[];
};

struct gm_csv {
    /* options (copied) */
    char *dir, *task, *host;
    struct gm_safefile_lock *lock; /* on dir, for the writer's life */
    int *cols, ncols;
    int procs, sync;
    int64_t retention_ns, compress_after_ns;
    void (*log)(void *arg, int level, const char *msg);
    void *log_arg;

    /* the sink thread's side */
    char *header[K__N];
    size_t hlen[K__N];
    struct cfile f[K__N];
    struct gm_buf rows, out, status;
    struct gm_csv_stats st; /* all but the janitor's counters */
    int64_t last_sync;      /* monotonic */
    int64_t tick_last;      /* wall time of the last janitor wake-up */
    char tick_day[16];

    /* shared with the janitor: mu guards f[].name, busy, wake, stop, msgs;
     * pass_mu is held for a whole pass (janitor or gm_csv_maintain) */
    pthread_mutex_t pass_mu;
    int pass_inline; /* under pass_mu: the pass runs in gm_csv_maintain (log directly) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int janitor_started;
    int wake, stop;
    int64_t wake_now;
    char busy[NAME_LEN]; /* the file being compressed */
    struct jmsg *msgs, **msgs_tail;
    int nmsgs;
    uint64_t msgs_dropped;
    uint64_t files_compressed, files_deleted, janitor_runs; /* atomics */
};

#define csv_log(c, level, ...) gm_logf((c)->log, (c)->log_arg, (level), __VA_ARGS__)

static inline int errno_code(int e)
{
    return (e == ENOSPC || e == EFBIG || e == EDQUOT) ? GM_E_NOSPC : GM_E_IO;
}

/* ------------------------------------------- functions shared between files */

/* csv_file.c */
/* Parses a file name of this task: its kind, day (YYYYMMDD), suffix n and
 * extension (EXT_*); -1 when it is not one of the task's files. */
int gm_cv_parse_name(const struct gm_csv *c, const char *name, int *kind, char *day, int *n,
                     int *ext);
/* fdatasync of a dirty open file; 0 or -errno. */
int gm_cv_fsync_file(struct cfile *f);
/* Closes the file of kind k (fsync first unless sync is none). */
void gm_cv_file_close(struct gm_csv *c, int k);
/* Opens (after closing) the file of kind k for day; 0 or -errno. */
int gm_cv_file_open(struct gm_csv *c, int k, const char *day);
/* With sync "second": fsyncs the files when a second has passed. */
void gm_cv_sync_due(struct gm_csv *c);
/* Appends c->rows (nrows rows) to the file of kind k for day; 0 or a
 * negative GM_E code (the rows are counted as lost). */
int gm_cv_write_rows(struct gm_csv *c, int k, const char *day, uint64_t nrows);

/* csv_janitor.c */
/* Logs what the janitor said since the last call, on the caller's thread. */
void gm_cv_janitor_drain_log(struct gm_csv *c);
/* One pass over this task's files in dir, as of wall time now. */
void gm_cv_janitor_pass(struct gm_csv *c, int64_t now);
/* Starts the janitor thread (a failure is logged: no retention, no gzip). */
void gm_cv_janitor_start(struct gm_csv *c);
/* Asks the janitor for a pass as of now_wall_ns. */
void gm_cv_janitor_wake(struct gm_csv *c, int64_t now_wall_ns);
/* Stops the janitor thread and waits for it. */
void gm_cv_janitor_stop(struct gm_csv *c);

#endif /* GM_STORE_CSV_INT_H */
