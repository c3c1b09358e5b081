/* csv.h -- the agent's daily CSV log: what the seeds' shell loggers and
 * logrotate rules try to be, without their data loss.
 *
 * Files (in dir): <task>_<YYYYMMDD>.csv with one row per GPU per sample,
 * <task>_procs_<YYYYMMDD>.csv (with procs) with one row per GPU process per
 * sample, and <task>_events_<YYYYMMDD>.csv with marks and state changes.
 * The day is the snapshot's local calendar day, so a new file starts at local
 * midnight by the data's own time; every row lands whole in exactly one file.
 *
 * Rows (header cells are registry CSV columns, gm_metric_csv_col):
 *   GPU:       time,host,task_id,<columns...>,status
 *   processes: time,host,task_id,gpu,uuid,pid,user,process_name,command,
 *              used_memory_mib,type,host_state
 *   events:    time,host,task_id,type,gpu,uuid,code,text
 * time is ISO 8601 local time with milliseconds and offset, the same for
 * every row of a snapshot.  Cells are gm_fmt_csv text ("" when absent),
 * except clock event reasons: names joined by '|' ("none" for none).  RFC
 * 4180 quoting for cells with a comma, quote or line break.  status is "ok";
 * the GPU's state ("gpu_lost", "no_permission", "error") for a GPU that is
 * down; "ok;missing=<col>:<why>[,<col>:<why>...]" (why: gm_vstatus_name,
 * "not_collected", or "between_reads": a slow read group's value reused
 * from an earlier sample, value.h's age_ms, is written only on the row of
 * the sample that read it); or, on the one row written when there are no
 * GPUs, the driver state (gm_driver_state_name) or "no_gpus".
 *
 * Zero loss, no copytruncate: rows are appended with write(2) (one call per
 * sample), so what was written survives kill -9; a header is written exactly
 * once per file, also across restarts; a torn last record left by a crash
 * is cut off when the file is reopened (records, not lines: a quoted cell
 * may hold a line break; see gm_csv_valid_prefix), unless that would cut
 * more than GM_CSV_MAX_TORN bytes -- then the file is left as it is and a
 * new one started; a file whose header does not match the current columns
 * is never appended to (a "-2", "-3", ... file is started).
 * Disk full: rows are counted as lost and each file's failure logged at most
 * once a minute; writing resumes by itself when space returns (a partial
 * write is truncated back so no torn row stays), and each file that failed
 * logs "writing again after N rows lost (PATH)" with its own N when it is
 * written again (a small events row that still fits says nothing about the
 * GPU file).  Retention and gzip of finished days
 * run on a janitor thread of their own, never on the write path; a short
 * run (cron) calls gm_csv_maintain instead.
 *
 * Flush policy: every sample is written with one write(2); fsync per the
 * sync option (gm_csv_flush and gm_csv_close always fsync).
 *
 * Not thread-safe: one sink thread calls everything except that the janitor
 * is internal.  The library never prints; problems are reported through
 * gm_csv_stats() and the log callback, which is only ever called from the
 * thread calling gm_csv_* (the janitor's messages are handed over in
 * gm_csv_tick and gm_csv_close).
 */
#ifndef GM_STORE_CSV_H
#define GM_STORE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "../core/event.h"
#include "../core/err.h"
#include "../core/sinkops.h"
#include "../core/log.h"
#include "../core/snapshot.h"

enum gm_csv_sync { GM_CSV_SYNC_NONE = 0, GM_CSV_SYNC_SAMPLE, GM_CSV_SYNC_SECOND };

struct gm_csv_opts {
    const char *dir;           /* created (with parents) if missing */
    const char *task;          /* [A-Za-z0-9._-]+, at most 128, not ending in _procs/_events */
    const char *host;          /* value of the host column; NULL or "" = gethostname() */
    const int *columns;        /* registry ids (GPU or host scope) after time,host,task_id */
    int ncolumns;              /* 0 = the default set (gm_csv_default_columns) */
    int procs;                 /* also write the processes file */
    int64_t retention_ns;      /* delete files whose day ended longer ago; 0 = keep forever */
    int64_t compress_after_ns; /* gzip files whose day ended longer ago; 0 = 1 day; <0 = never */
    int sync;                  /* enum gm_csv_sync: fsync policy (write(2) happens every sample) */
    /* Log callback for the agent's log (level: 3 err, 4 warning, 6 info); may be NULL. */
    gm_log_fn log; /* may be NULL */
    void *log_arg;
};

struct gm_csv_stats {
    uint64_t rows; /* GPU rows written */
    uint64_t proc_rows;
    uint64_t event_rows;
    uint64_t rows_lost; /* rows of any file not written (disk full, I/O error) */
    uint64_t bytes;     /* bytes written */
    uint64_t files_opened;
    uint64_t files_compressed;
    uint64_t files_deleted;
    uint64_t torn_repaired; /* torn last lines cut off at open */
    int last_errno;         /* of the last failed write, 0 once no file is failing */
    uint64_t janitor_runs;  /* janitor passes completed */
};

/* The seeds' column set: gpu index, uuid, name, utilization.gpu,
 * utilization.memory, memory.used, memory.total, power.draw, power.limit,
 * temperature.gpu, clocks.sm, clocks.mem, clock event reasons. */
const int *gm_csv_default_columns(int *n);

/* Parses --columns: a comma list of nvidia-smi field names (or JSON keys or
 * CSV columns), into ids (at most max).  "timestamp" is skipped (the time is
 * always the first column).  GM_E_INVAL with the bad name in err (also for a
 * field given twice). */
int gm_csv_parse_columns(const char *list, int *ids, int max, int *n, struct gm_err *err);

struct gm_csv *gm_csv_open(const struct gm_csv_opts *o, struct gm_err *err);

/* Appends one row per GPU (one row with status = the driver state when
 * there are no GPUs because the driver is unavailable, "no_gpus" when the
 * driver is fine but has none), and the processes when enabled.
 * Returns 0, or a negative code when rows were lost (already counted). */
int gm_csv_write(struct gm_csv *c, const struct gm_snapshot *s);
int gm_csv_event(struct gm_csv *c, const struct gm_event *e);
int gm_csv_flush(struct gm_csv *c);  /* fsync the open files */
int gm_csv_reopen(struct gm_csv *c); /* close and reopen (SIGHUP, moved files) */
/* Call about once a second: fsync when the sync option says so, hand the
 * janitor's messages to the log callback, and wake the janitor (retention,
 * gzip) at most once a minute and when the day of now_wall_ns changes. */
void gm_csv_tick(struct gm_csv *c, int64_t now_wall_ns);
/* Runs one janitor pass (retention, gzip, stale .tmp files) now, as of
 * now_wall_ns, on the calling thread, then hands its messages to the log
 * callback: for a process that does not live for the janitor's minute
 * (record --once from cron).  A pass the janitor thread is running is
 * waited for first; the open files are left alone, as always. */
void gm_csv_maintain(struct gm_csv *c, int64_t now_wall_ns);
void gm_csv_stats(const struct gm_csv *c, struct gm_csv_stats *out);
void gm_csv_close(struct gm_csv *c); /* flushes, stops the janitor; accepts NULL */

/* ------------------------------------------------------ the record scanner */

/* The scanner behind the torn-tail repair, on its own so that it can be
 * tested and fuzzed: pure (no I/O, no allocation, no global state), defined
 * for every input.
 *
 * Records are RFC 4180 as this writer makes them and as Python's csv module
 * reads them: fields are separated by ','; a field that starts with '"' is
 * quoted and runs to the next '"' that is not doubled ("" is one quote
 * inside it), so it may hold ',', '\r' and '\n'; a record ends at a '\n'
 * outside quotes (a '\r' before it is part of the line ending; a bare '\r'
 * outside quotes ends one too, as in Python's reader).  Leniently, like
 * Python's reader, a '"' inside an unquoted field and bytes after a quoted
 * field's closing quote are ordinary bytes.  A prefix is whole only up to a
 * '\n': the writer ends every row with one, so a last record without it (an
 * unterminated quoted field included, or a CRLF cut after the CR) is torn.
 *
 * gm_csv_valid_prefix returns the length of the longest prefix of p[0..n)
 * that is whole records: the end of the last complete record, 0 when there
 * is none (p may be NULL when n is 0).  Properties a fuzzer may check:
 * the result r <= n; r == 0 or p[r - 1] == '\n'; the prefix is its own
 * valid prefix (valid_prefix(p, r) == r); appending bytes never makes it
 * shorter; feeding the same bytes in pieces of any sizes to
 * gm_csv_scan_feed gives the same r; and r is the longest prefix ending in
 * '\n' that Python's csv.reader (default dialect) reads as whole records,
 * i.e. whose records do not change when another record is appended. */
size_t gm_csv_valid_prefix(const char *p, size_t n);

/* The same, incrementally (for a file read in chunks): initialise, then
 * feed consecutive pieces; valid is then gm_csv_valid_prefix of all the
 * bytes fed so far (fed of them). */
struct gm_csv_scan {
    uint64_t fed;   /* bytes fed so far */
    uint64_t valid; /* end of the last complete record */
    int state;      /* internal */
};
void gm_csv_scan_init(struct gm_csv_scan *s);
void gm_csv_scan_feed(struct gm_csv_scan *s, const char *p, size_t n);

/* The repair never cuts more than this: a longer unfinished tail (an
 * unbalanced quote far back) is no torn row of this writer's, and the file
 * is left alone (rows go to a new "-N" file). */
#define GM_CSV_MAX_TORN ((size_t)1 << 20)

/* The sink interface (core/sinkops.h): ctx is a struct gm_csv, which the
 * sink's close frees.  The once variant runs one janitor pass (gm_csv_maintain) before it
 * closes: `record --once` ends before the first pass of its own. */
extern const struct gm_sink_ops gm_csv_sink_ops;
extern const struct gm_sink_ops gm_csv_once_sink_ops;

#endif /* GM_STORE_CSV_H */
