/* exporter_int.h -- what the exporter's files share (private to
 * src/export/; exporter.h is the contract): the rendered body, the
 * security context, the exporter and its listener with the connection
 * guard's list, a verifier job, the limits of held answers, and the
 * functions and request markers one file defines for another, named
 * gm_ex_*.  exporter.c holds the body, the sink, the connection guard, the
 * listener with its request-target check, and (re)configuration;
 * exporter_http.c the answers; exporter_verify.c the password checks.
 */
#ifndef GM_EXPORT_EXPORTER_INT_H
#define GM_EXPORT_EXPORTER_INT_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../core/buf.h"
#include "../core/log.h"
#include "exporter.h"
#include "webconfig.h"

#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"

#define CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"
/* held answers (the section of that name, exporter_http.c) */
#define HELD_MAX ((size_t)32 << 20)   /* bytes of one-off answers waiting, at most */
#define HELD_SMALL ((size_t)64 << 10) /* answers never refused */
#define TRIM_MIN ((size_t)256 << 10)  /* freeing this much is worth a malloc_trim */
#define TRIM_EVERY_NS 100000000LL     /* at most this often while answers are held */
#define TRIM_DELAY_NS 200000000LL     /* the deferred trim, after the last close */

struct rendering {
    int done;
    struct gm_buf plain;
    struct gm_buf gz; /* empty until first asked for */
    int gz_done;
};

/* The four forms a scrape may get, each with its own cached response. */
enum { V_TEXT, V_TEXT_GZ, V_OM, V_OM_GZ, NVARIANTS };

/* A published sample: rendered on the first scrape that wants each form
 * (text or OpenMetrics, plain or gzip), then kept, so an exporter nobody
 * scrapes costs almost nothing and a scraped one renders once per sample.
 *
 * Two counts: refs are its users (the exporter's current pointer, requests
 * being answered); mem keeps the buffers alive for the users as a whole
 * (one) and for each MHD response made from them (one each, released by
 * MHD's free callback once the last connection sending it is done).  When
 * the last user goes, the cached responses are let go (MHD may still be
 * sending them), and the buffers follow when the last response does. */
struct body {
    int refs;
    int mem;
    pthread_mutex_t mu;          /* lazy rendering, gzip, the response cache */
    struct gm_snapshot *snap;    /* reference */
    struct gm_prom_state *state; /* the counters as of this sample */
    struct gm_prom_opts prom;
    struct gm_prom_self self;
    struct rendering text, om;
    /* /api/v1/status: the status document, rendered on the first request
     * (status_json NULL: none), with command lines or without
     * (status_cmd), and its cached response */
    void (*status_json)(const struct gm_snapshot *s, int command_lines, struct gm_buf *out);
    struct gm_buf status;
    int status_done;
    int status_cmd;
    struct MHD_Response *status_resp;
    uint64_t status_gen;
    /* the live page (/): rendered on the first request, then copied */
    struct gm_buf page;
    int page_done;
    struct MHD_Response *resp[NVARIANTS]; /* set once; one MHD reference each */
    uint64_t resp_gen[NVARIANTS];         /* the security context they carry headers of */
    int64_t wall_ns;
    uint8_t driver;
    char driver_msg[256];
};

/* What requests are checked against: the web config and its basic-auth
 * checker.  Immutable once made; refcounted, so that a reload can swap it
 * while requests still use the old one.  gen tells responses made with one
 * context's headers from another's. */
struct sec {
    int refs;
    uint64_t gen;
    struct gm_webconfig *web; /* NULL: plain HTTP, no auth, no extra headers */
    struct gm_auth *auth;     /* NULL: no basic auth */
    /* the Host check (DNS rebinding; gm_request_host_ok): on unless basic
     * auth or RequireAndVerifyClientCert authenticates every request */
    int host_check;
    char hostname[256];       /* gethostname() when the context was made */
    char allowed_hosts[1024]; /* allowed-hosts */
    /* /api/v1/status with command lines: authenticated (!host_check) or
     * api-command-lines */
    int command_lines;
};

struct listener;

struct gm_exporter {
    pthread_mutex_t mu;        /* cur, sec and the option copies below */
    pthread_mutex_t render_mu; /* state: two sink threads may overlap during a reload */
    struct body *cur;
    struct sec *sec;
    uint64_t sec_gen;
    struct gm_prom_state *state;
    struct gm_prom_opts prom;
    char textfile_dir[4096];
    char store_path[4096]; /* /api/v1/usage reads it; "" = the agent keeps no store */
    int (*usage_json)(const char *path, int64_t from_ns, int by, struct gm_buf *out,
                      struct gm_err *err);
    int64_t stale_after_ns;
    /* the live page's sources (exporter.h) */
    void (*status_json)(const struct gm_snapshot *s, int command_lines, struct gm_buf *out);
    int (*alerts)(void *arg, struct gm_alert_now *out, int max);
    void *alerts_arg;
    struct gm_live_ring *ring;                          /* the last hour, for /api/v1/history */
    void (*log)(void *arg, int level, const char *msg); /* set once, at start */
    void *log_arg;

    /* the fleet page (exporter.h), under mu */
    int (*fleet_json)(void *arg, struct gm_buf *out); /* NULL: no fleet here */
    void *fleet_arg;
    int fleet_only; /* gpumon fleet serve: the fleet page only */

    /* the HTTP server, or NULL; only the thread that starts, reconfigures
     * and stops the exporter touches this pointer */
    struct listener *lis;

    size_t held;           /* atomic: bytes of one-off answers MHD holds (held answers) */
    int trim_owed;         /* atomic: a big answer was freed since the last deferred trim */
    int64_t trim_ns;       /* atomic: monotonic ns of the last malloc_trim */
    int64_t held_logged;   /* atomic: monotonic ns of the last notice about HELD_MAX */
    uint64_t scrapes;      /* atomic */
    uint64_t page_renders; /* atomic: live pages (/) rendered */
    uint64_t dropped;      /* atomic, from the agent */
    int textfile_failing;
};

/* The exporter's log (x->log may be NULL). */
#define xlog(x, level, ...) gm_logf((x)->log, (x)->log_arg, (level), __VA_ARGS__)

/* One accepted connection, as the guard sees it.  Lives from MHD's
 * "started" notification to its "closed" one; the fd is valid in between,
 * and the guard touches it only under the listener's lock, which the
 * "closed" notification takes too, so it never shuts down a reused fd. */
struct conn {
    struct conn *prev, *next;
    struct listener *l;
    int fd;
    int64_t since; /* monotonic ns: the start of the current deadline */
    int waiting;   /* waiting for a request's headers (not answering one) */
    int cut;       /* shut down by the guard; MHD closes it soon */
};

struct verifier; /* the password checks that need bcrypt (exporter_verify.c) */

struct listener {
    struct gm_exporter *x;
    struct MHD_Daemon *mhd;
    int fd; /* the listening socket (MHD serves a duplicate of it) */
    struct sockaddr_storage ss;
    socklen_t sl;
    char addr[256];
    unsigned max_connections;
    int64_t timeout_ns;
    struct sec *sec; /* the TLS material MHD was started with */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct conn head; /* sentinel of the list of connections */
    unsigned live;    /* connections not cut */
    int guard_idle;   /* the guard waits with no deadline (no connection) */
    int quit;
    int guard_started;
    pthread_t guard;
    int64_t evict_logged; /* monotonic ns of the last notice about a full server */
    int64_t trim_at;      /* monotonic ns of the deferred malloc_trim, or 0 (held answers) */

    struct verifier *ver; /* made with the listener, its thread started on first use */
};

enum job_state { JOB_UNCHECKED, JOB_ALLOWED, JOB_DENIED, JOB_BUSY, JOB_DROPPED };

/* A suspended request's check; the request's *req_cls from submission until
 * the handler (or on_completed, when the client went away) releases it. */
struct vjob {
    struct vjob *next;
    struct MHD_Connection *c;
    struct sec *sec; /* a reference: the context whose checker decides */
    struct gm_auth_pending *pending;
    int64_t due; /* monotonic ns: when a held-back job gets its 429 */
    int state;   /* enum job_state; written by the thread before it resumes c */
};

enum { SUBMIT_OK, SUBMIT_BUSY, SUBMIT_CLOSING };

/* *req_cls of a request whose headers are in and that has no job
 * (exporter.c). */
extern char gm_ex_headers_in;

/* *req_cls, from on_target, of a request whose target is refused: 400
 * (%00) or 414 (too many parameters).  Neither is a job (exporter.c). */
extern char gm_ex_target_nul, gm_ex_target_params;

/* ------------------------------------------- functions shared between files */

/* exporter.c */
/* MHD's free callback of a response made from a body's buffers. */
void gm_ex_body_mem_release_cb(void *cls);
/* Lets go of a reference to b (accepts NULL). */
void gm_ex_body_unref(struct body *b);
/* The plain and gzip forms of r, made on first use (under b's lock). */
const struct gm_buf *gm_ex_rendering_plain(struct body *b, struct rendering *r);
const struct gm_buf *gm_ex_rendering_gz(struct body *b, struct rendering *r);
/* Takes and lets go of a reference to a security context. */
struct sec *gm_ex_sec_ref(struct sec *s);
void gm_ex_sec_unref(struct sec *s);
/* A reference to the current body (and the staleness limit), and to the
 * current security context. */
struct body *gm_ex_current(struct gm_exporter *x, int64_t *stale_after_ns);
struct sec *gm_ex_current_sec(struct gm_exporter *x);
/* A request's headers are in (waiting 0) or its response was sent
 * (waiting 1): the connection's next deadline starts. */
void gm_ex_conn_phase(struct MHD_Connection *mc, int waiting);

/* exporter_verify.c */
/* The job's request is done with it (answered, or its connection closed). */
void gm_ex_job_release(struct verifier *v, struct vjob *j);
/* Queues a check of p's credentials for the request on c and suspends c
 * (SUBMIT_OK, *req_cls the job), or says SUBMIT_BUSY / SUBMIT_CLOSING;
 * takes p, also on failure.  On an HTTP thread. */
int gm_ex_verifier_submit(struct verifier *v, struct MHD_Connection *c, struct sec *s,
                          struct gm_auth_pending *p, void **req_cls);
/* The listener's verifier (its thread starts on first use); stopped,
 * before MHD, and freed, after it.  Both accept NULL. */
struct verifier *gm_ex_verifier_new(struct listener *l);
void gm_ex_verifier_stop(struct verifier *v);
void gm_ex_verifier_free(struct verifier *v);

/* exporter_http.c */
/* MHD's access handler of every listener (cls: the listener). */
enum MHD_Result gm_ex_handler(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **req_cls);

#endif /* GM_EXPORT_EXPORTER_INT_H */
