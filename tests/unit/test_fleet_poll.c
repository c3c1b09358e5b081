/* test_fleet_poll.c -- unit tests for src/fleet/poll.c: the round over
 * nodes and the poller behind the fleet page, through a fake HTTP client
 * module (the table gm_fleet_fetch_module, as gpumon_fleet.so exports it)
 * that answers from the node's name, counts its calls and can be held
 * (a gate) or made to fail as a whole.
 *
 * A table of nodes with the state and reason a round gives each; then the
 * poller: no document while its first round runs, the document with its
 * round number once it ended, no request to the nodes for any number of
 * readers, and the last document kept (round and nodes) while rounds fail
 * as a whole.  Waits are conditions with a generous deadline, never sleeps
 * that assume a speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/timeutil.h"
#include "fleet/fleet.h"
#include "fleet/poll.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define DEADLINE_NS (60LL * 1000000000LL)

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;     /* fetch calls (one per round) */
    int gate;      /* 0: a call waits until it is 1 */
    int fail_from; /* calls numbered from this fail as a whole (0: none) */
} fk = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 1, 0};

static void fake_reset(int gate)
{
    pthread_mutex_lock(&fk.mu);
    fk.calls = 0;
    fk.gate = gate;
    fk.fail_from = 0;
    pthread_mutex_unlock(&fk.mu);
}

static int calls(void)
{
    pthread_mutex_lock(&fk.mu);
    int n = fk.calls;
    pthread_mutex_unlock(&fk.mu);
    return n;
}

static int fake_init(char *why, size_t wlen)
{
    (void)why;
    (void)wlen;
    return 0;
}

static const char *fake_version(void)
{
    return "fake";
}

static char *dup_len(const char *s, size_t *len)
{
    *len = strlen(s);
    char *p = malloc(*len + 1);
    memcpy(p, s, *len + 1);
    return p;
}

/* Answers by the node's name: "refused" no connection, "e500" an HTTP
 * error, "hostile" a GPU named with markup, anything else a good node. */
static int fake_fetch(struct gm_fleet_xfer *x, size_t n, const struct gm_fleet_fetch_opts *o,
                      char *why, size_t wlen)
{
    (void)o;
    pthread_mutex_lock(&fk.mu);
    while (!fk.gate)
        pthread_cond_wait(&fk.cv, &fk.mu);
    int call = ++fk.calls;
    int fail = fk.fail_from && call >= fk.fail_from;
    pthread_mutex_unlock(&fk.mu);
    if (fail) {
        snprintf(why, wlen, "fake: cannot ask");
        return -1;
    }
    char doc[1024];
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < GM_FLEET_MAX_PATHS; k++) {
            x[i].body[k] = NULL;
            x[i].len[k] = 0;
            x[i].status[k] = 0;
            x[i].fail[k] = GM_FLEET_F_NONE;
            x[i].error[k][0] = '\0';
        }
        if (strstr(x[i].base, "refused")) {
            x[i].fail[0] = GM_FLEET_F_REFUSED;
            snprintf(x[i].error[0], sizeof(x[i].error[0]), "Couldn't connect to server");
            continue;
        }
        if (strstr(x[i].base, "e500")) {
            x[i].status[0] = 500;
            x[i].body[0] = dup_len("oops", &x[i].len[0]);
            continue;
        }
        snprintf(doc, sizeof(doc),
                 "{\"schema\":\"gpumon.status/1\",\"hostname\":\"h\",\"time_unix_ns\":%lld,"
                 "\"driver\":{\"status\":\"ok\",\"message\":null},\"gpus\":[{\"index\":0,"
                 "\"status\":\"ok\",\"name\":\"%s\",\"uuid\":\"GPU-0\","
                 "\"utilization_gpu_percent\":50,\"processes\":[]}]}",
                 (long long)gm_wall_ns(),
                 strstr(x[i].base, "hostile") ? "<script>x\\u001b</script>" : "H100");
        x[i].status[0] = 200;
        x[i].body[0] = dup_len(doc, &x[i].len[0]);
        x[i].status[1] = 200;
        x[i].body[1] =
            dup_len("{\"schema\":\"gpumon.alerts/1\",\"enabled\":true,\"count\":0,\"alerts\":[]}",
                    &x[i].len[1]);
    }
    return 0;
}

static const struct gm_fleet_fetch_module fake_mod = {
    .abi = GM_FLEET_FETCH_ABI,
    .init = fake_init,
    .fetch = fake_fetch,
    .version = fake_version,
};

/* ------------------------------------------------------------- round */

static const struct {
    const char *host;
    int state;
    const char *reason; /* a part of it; "" for none */
} round_cases[] = {
    {"good", GM_FLEET_OK, ""},
    {"refused", GM_FLEET_UNREACHABLE, "connection refused"},
    {"e500", GM_FLEET_INVALID, "HTTP 500"},
    {"hostile", GM_FLEET_OK, ""},
};

static void test_round(void **state)
{
    (void)state;
    fake_reset(1);
    struct gm_fleet f = {0};
    for (size_t i = 0; i < N_ELEM(round_cases); i++)
        assert_int_equal(gm_fleet_add(&f, round_cases[i].host, 0, NULL), 0);
    struct gm_fleet_fetch_opts fo = {.total_ns = 1000000000LL, .node_ns = 1000000000LL};
    char why[128] = "";
    assert_int_equal(gm_fleet_fetch_round(&fake_mod, &f, &fo, 30000000000LL, why, sizeof(why)), 0);
    for (size_t i = 0; i < N_ELEM(round_cases); i++) {
        const struct gm_fleet_node *nd = &f.node[i];
        if (nd->state != round_cases[i].state || !strstr(nd->reason, round_cases[i].reason))
            fail_msg("round case %s: state %s, reason '%s'", round_cases[i].host,
                     gm_fleet_state_name(nd->state), nd->reason);
        assert_int_equal(nd->s ? nd->s->ngpu : 0, nd->state == GM_FLEET_OK ? 1 : 0);
    }
    assert_true(f.node[0].alerts_known);
    struct gm_buf out = GM_BUF_INIT;
    gm_fleet_render_json(&f, 0, &out);
    gm_buf_putc(&out, '\0');
    assert_non_null(strstr(out.p, "\"name\":\"<script>x\\u001b</script>\""));
    gm_buf_free(&out);
    /* a round that cannot ask at all: -1 with why, the nodes left alone */
    pthread_mutex_lock(&fk.mu);
    fk.fail_from = fk.calls + 1;
    pthread_mutex_unlock(&fk.mu);
    assert_int_equal(gm_fleet_fetch_round(&fake_mod, &f, &fo, 30000000000LL, why, sizeof(why)), -1);
    assert_string_equal(why, "fake: cannot ask");
    assert_int_equal(f.node[0].state, GM_FLEET_OK);
    gm_fleet_clear(&f);
}

/* ------------------------------------------------------------ poller */

static struct gm_fleet_poller *start(struct gm_fleet *f, int64_t interval_ns)
{
    assert_int_equal(gm_fleet_add_list(f, "good,refused", 0, NULL), 0);
    struct gm_fleet_poll_opts po = {
        .nodes = f,
        .module = &fake_mod,
        .fetch = {.total_ns = 1000000000LL, .node_ns = 1000000000LL},
        .interval_ns = interval_ns,
        .stale_ns = 30000000000LL,
    };
    struct gm_err err = {0};
    struct gm_fleet_poller *p = gm_fleet_poller_start(&po, &err);
    assert_non_null(p);
    gm_fleet_clear(f); /* the poller keeps its own copy */
    return p;
}

/* The document once gm_fleet_poller_json has one whose round is at
 * least min (a deadline, not a speed); its round in *round. */
static void wait_doc(struct gm_fleet_poller *p, unsigned long long min, struct gm_buf *out,
                     unsigned long long *round)
{
    int64_t end = gm_mono_ns() + DEADLINE_NS;
    for (;;) {
        out->len = 0;
        if (gm_fleet_poller_json(p, out) == 0) {
            gm_buf_putc(out, '\0');
            assert_int_equal(sscanf(out->p, "{\"round\":%llu,", round), 1);
            if (*round >= min)
                return;
        }
        if (gm_mono_ns() > end)
            fail_msg("no document of round %llu within the deadline", min);
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
}

static void test_poller_readers(void **state)
{
    (void)state;
    fake_reset(0); /* the first round waits at the gate */
    struct gm_fleet f = {0};
    struct gm_fleet_poller *p = start(&f, 3600LL * 1000000000LL);
    struct gm_buf out = GM_BUF_INIT;
    assert_int_equal(gm_fleet_poller_json(p, &out), -1); /* its first round has not ended */
    assert_int_equal(out.len, 0);
    pthread_mutex_lock(&fk.mu);
    fk.gate = 1;
    pthread_cond_broadcast(&fk.cv);
    pthread_mutex_unlock(&fk.mu);
    unsigned long long round;
    wait_doc(p, 1, &out, &round);
    assert_int_equal(round, 1);
    assert_non_null(strstr(out.p, ",\"schema\":\"gpumon.fleet/1\",\"nodes\":["));
    assert_non_null(strstr(out.p, "\"age_seconds\":"));
    assert_non_null(strstr(out.p, "\"interval_seconds\":3600.000,\"round_error\":null,"));
    assert_non_null(strstr(out.p, "\"host\":\"good\",\"state\":\"ok\""));
    assert_non_null(strstr(out.p, "\"host\":\"refused\",\"state\":\"unreachable\""));
    /* readers never make a round: the interval is an hour */
    for (int i = 0; i < 1000; i++) {
        out.len = 0;
        assert_int_equal(gm_fleet_poller_json(p, &out), 0);
    }
    assert_int_equal(calls(), 1);
    gm_buf_free(&out);
    gm_fleet_poller_stop(p); /* wakes the thread from its hour */
}

static void test_poller_failed_rounds(void **state)
{
    (void)state;
    fake_reset(1);
    struct gm_fleet f = {0};
    struct gm_fleet_poller *p = start(&f, 5000000LL);
    struct gm_buf out = GM_BUF_INIT;
    unsigned long long round;
    wait_doc(p, 2, &out, &round);
    pthread_mutex_lock(&fk.mu);
    fk.fail_from = fk.calls + 1; /* every round from the next fails as a whole */
    int failing = fk.fail_from;
    pthread_mutex_unlock(&fk.mu);
    int64_t end = gm_mono_ns() + DEADLINE_NS;
    while (calls() < failing + 2) { /* two failed rounds have ended */
        if (gm_mono_ns() > end)
            fail_msg("the poller stopped asking");
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    unsigned long long kept;
    wait_doc(p, 1, &out, &kept);
    /* the last good round: the one before the failures, and why they failed */
    assert_int_equal(kept, (unsigned long long)failing - 1);
    assert_non_null(strstr(out.p, "\"round_error\":\"fake: cannot ask\","));
    assert_non_null(strstr(out.p, "\"host\":\"good\",\"state\":\"ok\""));
    gm_buf_free(&out);
    gm_fleet_poller_stop(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_poller_readers),
        cmocka_unit_test(test_poller_failed_rounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
