/* exporter_verify.c -- the exporter's password checks (see exporter.c and
 * exporter_int.h): basic-auth credentials not in the cache of verified
 * ones are checked with bcrypt on one thread per listener, never on the
 * HTTP threads, their connections suspended meanwhile, in a bounded queue
 * served in turn per client address.
 */
#include "exporter_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "../core/timeutil.h"

/* -------------------------------------------------------------- verifier */

/* The password checks that need bcrypt run here, on one thread per
 * listener, never on the HTTP threads.  A request whose credentials are not
 * in the cache of verified ones (gm_auth_begin) is suspended
 * (MHD_suspend_connection) and queued; the thread computes the bcrypt
 * (gm_auth_verify), records the verdict in the job and resumes the
 * connection, and MHD calls the handler again, which answers.  Meanwhile
 * the HTTP threads go on serving everyone else, and a client whose
 * credentials were verified once is answered from the cache at once, however
 * many wrong passwords are waiting.  One thread: bcrypt is CPU, and the
 * exporter's work is serving scrapes, so at most one core goes to checking
 * passwords.
 *
 * The queue is bounded and fair: the waiting checks are grouped by client
 * address (an IPv4 address, or the /64 of an IPv6 one) and taken in turn, one
 * per address, so a flood from one address delays another address's first
 * login by at most one check per flooding address.  An address may have
 * VERIFY_PER_CLIENT checks waiting and all addresses VERIFY_MAX_WAITING.  A
 * request beyond that is refused unchecked (its credentials neither
 * accepted nor refused): 429 with Retry-After: 1, held back for
 * VERIFY_BUSY_DELAY_NS first, so that a client that asks again at once
 * costs one request a second per connection instead of a busy loop; at most
 * VERIFY_MAX_DELAYED are held back (they hold connection slots), the others
 * get their 429 at once.
 *
 * MHD must not be stopped while a connection is suspended: gm_ex_verifier_stop
 * stops the thread, which first answers every job still queued or held back
 * (503, 429) without a check, and then waits until every job's request has
 * let go of it. */

#define VERIFY_MAX_WAITING 64

#define VERIFY_PER_CLIENT 4

#define VERIFY_MAX_DELAYED 64

#define VERIFY_BUSY_DELAY_NS 1000000000LL

#define VERIFY_DRAIN_NS 5000000000LL /* gm_ex_verifier_stop's wait for requests to let go */

/* A client address with checks waiting; in the ring while it has any. */
struct vclient {
    struct vclient *next;
    unsigned char addr[17]; /* family byte, then 4 or 8 address bytes, zero-padded */
    struct vjob *head, *tail;
    unsigned n;
};

struct verifier {
    struct listener *l;
    pthread_mutex_t mu;
    pthread_cond_t cv;    /* work for the thread; or, when quitting, a job let go */
    struct vclient *ring; /* the address whose turn it is; then the others in turn */
    struct vclient *ring_tail;
    struct vjob *delayed, *delayed_tail; /* held-back refusals, by due time */
    unsigned waiting;                    /* jobs queued, all addresses */
    unsigned ndelayed;
    unsigned outstanding; /* jobs submitted and not yet released */
    int quit;
    int started;
    pthread_t thread;
    int64_t busy_logged; /* monotonic ns of the last notice about a full queue */
};

/* The address key of the connection's client. */
static void client_key(struct MHD_Connection *c, unsigned char key[17])
{
    memset(key, 0, 17);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a6)) { /* an IPv4 client of a [::] listener */
            key[0] = 4;
            memcpy(key + 1, a6->s6_addr + 12, 4);
        } else {
            key[0] = 6;
            memcpy(key + 1, a6->s6_addr, 8); /* one /64 is one client */
        }
    }
}

/* The job's request is done with it (answered, or its connection closed). */
void gm_ex_job_release(struct verifier *v, struct vjob *j)
{
    gm_auth_pending_free(j->pending);
    gm_ex_sec_unref(j->sec);
    free(j);
    pthread_mutex_lock(&v->mu);
    if (--v->outstanding == 0 && v->quit)
        pthread_cond_broadcast(&v->cv);
    pthread_mutex_unlock(&v->mu);
}

/* Under v->mu: the next queued job, the ring turned to the next address. */
static struct vjob *take_queued(struct verifier *v)
{
    struct vclient *vc = v->ring;
    struct vjob *j = vc->head;
    vc->head = j->next;
    if (!vc->head)
        vc->tail = NULL;
    vc->n--;
    v->waiting--;
    v->ring = vc->next;
    if (!v->ring)
        v->ring_tail = NULL;
    if (vc->n) { /* to the back of the ring */
        vc->next = NULL;
        if (v->ring_tail)
            v->ring_tail->next = vc;
        else
            v->ring = vc;
        v->ring_tail = vc;
    } else {
        free(vc);
    }
    return j;
}

/* Records j's verdict and resumes its connection; after this j belongs to
 * its request.  Called without v->mu. */
static void job_done(struct vjob *j, int state)
{
    __atomic_store_n(&j->state, state, __ATOMIC_RELEASE);
    MHD_resume_connection(j->c);
}

static void *verifier_run(void *arg)
{
    struct verifier *v = arg;
    pthread_mutex_lock(&v->mu);
    for (;;) {
        int64_t now = gm_mono_ns();
        struct vjob *j = NULL;
        int state = JOB_BUSY;
        if (v->delayed && (v->quit || v->delayed->due <= now)) {
            j = v->delayed;
            v->delayed = j->next;
            if (!v->delayed)
                v->delayed_tail = NULL;
            v->ndelayed--;
        } else if (v->ring) {
            j = take_queued(v);
            state = v->quit ? JOB_DROPPED : JOB_UNCHECKED;
        } else if (v->quit) {
            break;
        } else if (v->delayed) {
            struct timespec ts = {.tv_sec = v->delayed->due / 1000000000LL,
                                  .tv_nsec = v->delayed->due % 1000000000LL};
            pthread_cond_timedwait(&v->cv, &v->mu, &ts);
            continue;
        } else {
            pthread_cond_wait(&v->cv, &v->mu);
            continue;
        }
        pthread_mutex_unlock(&v->mu);
        if (state == JOB_UNCHECKED) {
            struct gm_auth_pending *p = j->pending;
            j->pending = NULL;
            state = gm_auth_verify(j->sec->auth, p) ? JOB_ALLOWED : JOB_DENIED;
        }
        job_done(j, state);
        pthread_mutex_lock(&v->mu);
    }
    pthread_mutex_unlock(&v->mu);
    return NULL;
}

/* Queues the check of p for the request on c (or, when the queue is full,
 * holds the request back for its 429) and suspends c; on SUBMIT_OK
 * *req_cls is the job.  SUBMIT_BUSY (answer 429 now) and SUBMIT_CLOSING
 * (503) leave c running.  Takes p, also on failure.  Called on an HTTP
 * thread, from the handler. */
int gm_ex_verifier_submit(struct verifier *v, struct MHD_Connection *c, struct sec *s,
                          struct gm_auth_pending *p, void **req_cls)
{
    unsigned char key[17];
    client_key(c, key);
    pthread_mutex_lock(&v->mu);
    struct vclient *vc = v->ring;
    while (vc && memcmp(vc->addr, key, sizeof(key)) != 0)
        vc = vc->next;
    int queue = v->waiting < VERIFY_MAX_WAITING && (!vc || vc->n < VERIFY_PER_CLIENT);
    int rc = SUBMIT_OK;
    if (v->quit)
        rc = SUBMIT_CLOSING;
    else if ((!queue && v->ndelayed >= VERIFY_MAX_DELAYED) ||
             (!v->started && pthread_create(&v->thread, NULL, verifier_run, v) != 0))
        rc = SUBMIT_BUSY;
    else
        v->started = 1;
    int notice = 0;
    int64_t now = gm_mono_ns();
    if (!queue && rc != SUBMIT_CLOSING &&
        (!v->busy_logged || now - v->busy_logged > 60000000000LL)) {
        v->busy_logged = now;
        notice = 1;
    }
    unsigned waiting = v->waiting;
    if (rc == SUBMIT_OK) {
        struct vjob *j = gm_xcalloc(1, sizeof(*j));
        j->c = c;
        j->sec = gm_ex_sec_ref(s);
        j->state = JOB_UNCHECKED;
        /* suspended before the thread can see the job, so that its resume
         * always follows this suspend */
        MHD_suspend_connection(c);
        if (queue) {
            j->pending = p;
            p = NULL;
            if (!vc) {
                vc = gm_xcalloc(1, sizeof(*vc));
                memcpy(vc->addr, key, sizeof(key));
                if (v->ring_tail)
                    v->ring_tail->next = vc;
                else
                    v->ring = vc;
                v->ring_tail = vc;
            }
            if (vc->tail)
                vc->tail->next = j;
            else
                vc->head = j;
            vc->tail = j;
            vc->n++;
            v->waiting++;
        } else {
            j->due = now + VERIFY_BUSY_DELAY_NS;
            if (v->delayed_tail)
                v->delayed_tail->next = j;
            else
                v->delayed = j;
            v->delayed_tail = j;
            v->ndelayed++;
        }
        v->outstanding++;
        pthread_cond_signal(&v->cv);
        *req_cls = j;
    }
    pthread_mutex_unlock(&v->mu);
    gm_auth_pending_free(p);
    if (notice)
        xlog(v->l->x, 5,
             "http: %u password checks are waiting (at most %d, %d per client address): further "
             "logins that need one get 429 until there is room; reported once a minute",
             waiting, VERIFY_MAX_WAITING, VERIFY_PER_CLIENT);
    return rc;
}

struct verifier *gm_ex_verifier_new(struct listener *l)
{
    struct verifier *v = gm_xcalloc(1, sizeof(*v));
    v->l = l;
    pthread_mutex_init(&v->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&v->cv, &ca);
    pthread_condattr_destroy(&ca);
    return v;
}

/* Stops the thread (the jobs still queued or held back are answered
 * unchecked) and waits until every request has let go of its job, so that
 * no connection of the listener stays suspended; then MHD may be stopped.
 * Accepts NULL. */
void gm_ex_verifier_stop(struct verifier *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&v->mu);
    v->quit = 1;
    pthread_cond_broadcast(&v->cv);
    int started = v->started;
    pthread_mutex_unlock(&v->mu);
    if (started)
        pthread_join(v->thread, NULL);
    pthread_mutex_lock(&v->mu);
    int64_t until = gm_mono_ns() + VERIFY_DRAIN_NS;
    struct timespec ts = {.tv_sec = until / 1000000000LL, .tv_nsec = until % 1000000000LL};
    while (v->outstanding && pthread_cond_timedwait(&v->cv, &v->mu, &ts) != ETIMEDOUT)
        ;
    unsigned left = v->outstanding;
    pthread_mutex_unlock(&v->mu);
    if (left) /* resumed; MHD takes them up as it stops */
        xlog(v->l->x, 7, "http: %u checked requests not answered yet at shutdown", left);
}

/* After gm_ex_verifier_stop and MHD_stop_daemon.  Accepts NULL. */
void gm_ex_verifier_free(struct verifier *v)
{
    if (!v)
        return;
    pthread_cond_destroy(&v->cv);
    pthread_mutex_destroy(&v->mu);
    free(v);
}
