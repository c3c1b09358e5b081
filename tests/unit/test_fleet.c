/* test_fleet.c -- unit tests for src/fleet/: the JSON reader (fjson.c),
 * host lists, an agent's status answer read into a node (fleet.c) and the
 * multi-node straggler (render.c), and the Prometheus source's answers
 * read into nodes (prom.c).
 *
 * Tables of inputs with what the reader must do: accept with a value, or
 * refuse with the offset and the words of the error; hosts with their
 * URLs or errors; status documents (good, not JSON, too many GPUs, a
 * driver problem, a newer schema); and utilisations of one job over
 * nodes, with and without the straggler.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/metrics.h"
#include "fleet/fjson.h"
#include "fleet/fleet.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    const char *in;
    const char *err; /* NULL: accepted */
} parse_cases[] = {
    {"{}", NULL},
    {" [1, -2.5e3, true, false, null, \"a\\u00e9\\ud83d\\ude00\"] ", NULL},
    {"{\"a\":{\"b\":[[]]}}", NULL},
    {"", "offset 0: unexpected end"},
    {"{", "offset 1: expected a key"},
    {"[1,]", "offset 3: not a JSON value"},
    {"[1 2]", "offset 3: expected ',' or ']'"},
    {"{\"a\" 1}", "offset 5: expected ':'"},
    {"\"ab", "offset 3: string not terminated"},
    {"\"a\x01\"", "offset 2: control character in a string"},
    {"\"\\x\"", "offset 3: bad escape in a string"},
    {"01", "offset 1: text after the JSON value"},
    {"0x10", "offset 1: text after the JSON value"},
    {"nan", "offset 0: not a JSON value"},
    {"-", "offset 0: not a JSON value"},
    {"1.", "offset 0: not a JSON value"},
    {"tru", "offset 0: not a JSON value"},
    {"{} {}", "offset 3: text after the JSON value"},
};

static void test_parse_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(parse_cases); i++) {
        struct gm_err e = {0};
        struct gm_fj *j = gm_fj_parse(parse_cases[i].in, strlen(parse_cases[i].in), 1000, &e);
        if (!parse_cases[i].err) {
            if (!j)
                fail_msg("case %zu '%s' refused: %s", i, parse_cases[i].in, e.msg);
        } else {
            if (j)
                fail_msg("case %zu '%s' accepted", i, parse_cases[i].in);
            if (strcmp(e.msg, parse_cases[i].err) != 0)
                fail_msg("case %zu: '%s', want '%s'", i, e.msg, parse_cases[i].err);
        }
        gm_fj_free(j);
    }
}

static void test_parse_values(void **state)
{
    (void)state;
    const char *in = "{\"s\":\"a\\u0000b\\ud800\",\"n\":-2.5e3,\"k\":1,\"k\":2}";
    struct gm_fj *j = gm_fj_parse(in, strlen(in), 100, NULL);
    assert_non_null(j);
    /* \u0000 and a lone surrogate become U+FFFD: no NUL cuts a name */
    assert_string_equal(gm_fj_str(gm_fj_get(j, "s")), "a\xef\xbf\xbd"
                                                      "b\xef\xbf\xbd");
    double v;
    assert_true(gm_fj_num(gm_fj_get(j, "n"), &v));
    assert_true(v == -2500.0);
    assert_true(gm_fj_num(gm_fj_get(j, "k"), &v) && v == 1.0); /* the first of two */
    assert_null(gm_fj_get(j, "missing"));
    assert_false(gm_fj_num(gm_fj_get(j, "s"), &v));
    gm_fj_free(j);
}

static void test_parse_limits(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    for (int i = 0; i < GM_FJ_MAX_DEPTH + 2; i++)
        gm_buf_putc(&b, '[');
    for (int i = 0; i < GM_FJ_MAX_DEPTH + 2; i++)
        gm_buf_putc(&b, ']');
    struct gm_err e = {0};
    assert_null(gm_fj_parse(b.p, b.len, 1000, &e));
    assert_non_null(strstr(e.msg, "nested too deep"));
    gm_buf_reset(&b);
    gm_buf_putc(&b, '[');
    for (int i = 0; i < 100; i++)
        gm_buf_puts(&b, i ? ",0" : "0");
    gm_buf_putc(&b, ']');
    assert_null(gm_fj_parse(b.p, b.len, 50, &e));
    assert_non_null(strstr(e.msg, "too many values"));
    struct gm_fj *j = gm_fj_parse(b.p, b.len, 101, &e);
    assert_non_null(j);
    assert_int_equal(j->len, 100);
    gm_fj_free(j);
    gm_buf_free(&b);
}

static const struct {
    const char *in;
    int tls;
    const char *base; /* NULL: refused with err inside the message */
    const char *err;
} host_cases[] = {
    {"gpu01", 0, "http://gpu01:9842", NULL},
    {"gpu01:9100", 0, "http://gpu01:9100", NULL},
    {"gpu01", 1, "https://gpu01:9842", NULL},
    {"http://10.0.0.1:80", 1, "http://10.0.0.1:80", NULL},
    {"https://n1", 0, "https://n1:9842", NULL},
    {"[::1]:9842", 0, "http://[::1]:9842", NULL},
    {"::1", 0, NULL, "in brackets"},
    {"n1:0", 0, NULL, "port not 1-65535"},
    {"n1:65536", 0, NULL, "port not 1-65535"},
    {"n1:", 0, NULL, "port not 1-65535"},
    {"n1/metrics", 0, NULL, "not a host[:port]"},
    {"u:secret@n1", 0, NULL,
     "credentials before '@' in a host (give them apart: gpumon fleet's --user and "
     "--password-file, the agent's fleet-user and fleet-password-file)"},
    {"n\x1b[2J", 0, NULL, "not a host[:port]"},
    {"", 0, NULL, "empty"},
};

static void test_hosts(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(host_cases); i++) {
        struct gm_fleet f = {0};
        struct gm_err e = {0};
        int rc = gm_fleet_add(&f, host_cases[i].in, host_cases[i].tls, &e);
        if (host_cases[i].base) {
            if (rc != 0)
                fail_msg("host case %zu '%s': %s", i, host_cases[i].in, e.msg);
            assert_string_equal(f.node[0].base, host_cases[i].base);
        } else {
            assert_int_not_equal(rc, 0);
            if (!strstr(e.msg, host_cases[i].err))
                fail_msg("host case %zu: '%s' lacks '%s'", i, e.msg, host_cases[i].err);
            assert_null(strstr(e.msg, "secret"));
            assert_null(strchr(e.msg, '\x1b'));
        }
        gm_fleet_clear(&f);
    }
    struct gm_fleet f = {0};
    assert_int_equal(gm_fleet_add_list(&f, " a, b:1 ,,c ", 0, NULL), 0);
    assert_int_equal(f.n, 3);
    assert_string_equal(f.node[1].base, "http://b:1");
    gm_fleet_clear(&f);
}

#define STATUS(drv, gpus)                                                                          \
    "{\"schema\":\"gpumon.status/1\",\"hostname\":\"n\",\"time_unix_ns\":1000000000000,"           \
    "\"driver\":{\"status\":\"" drv "\",\"message\":null},\"gpus\":[" gpus "]}"
#define GPU(i, util, job)                                                                          \
    "{\"index\":" #i ",\"status\":\"ok\",\"name\":\"H100\",\"uuid\":\"GPU-" #i "\","               \
    "\"utilization_gpu_percent\":" #util ",\"memory_total_bytes\":100,\"memory_free_bytes\":90,"   \
    "\"diagnosis\":[\"input-starved\"],\"hpc_jobs\":[\"" job "\"],\"processes\":[]}"

static const struct {
    const char *body;
    int64_t now_s;
    int state;
    uint32_t ngpu;
    const char *reason; /* a part of it; "" for none */
} status_cases[] = {
    {STATUS("ok", GPU(0, 50, "j") "," GPU(1, 60, "j")), 1005, GM_FLEET_OK, 2, ""},
    {STATUS("ok", GPU(0, 50, "j")), 1100, GM_FLEET_STALE, 1, "100 s old"},
    {STATUS("driver_not_loaded", ""), 1000, GM_FLEET_DRIVER, 0, "driver_not_loaded"},
    {"{\"schema\":\"x\"}", 1000, GM_FLEET_INVALID, 0, "not a gpumon status document"},
    {"<html>", 1000, GM_FLEET_INVALID, 0, "not JSON: offset 0"},
    {"{\"schema\":\"gpumon.status/1\",\"gpus\":{}}", 1000, GM_FLEET_INVALID, 0, "no gpus array"},
};

static void test_status(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(status_cases); i++) {
        struct gm_fleet f = {0};
        assert_int_equal(gm_fleet_add(&f, "n1", 0, NULL), 0);
        struct gm_fleet_node *nd = &f.node[0];
        gm_fleet_node_status(nd, status_cases[i].body, strlen(status_cases[i].body),
                             status_cases[i].now_s * 1000000000LL, 30000000000LL);
        if (nd->state != status_cases[i].state)
            fail_msg("status case %zu: state %s (%s)", i, gm_fleet_state_name(nd->state),
                     nd->reason);
        assert_int_equal(nd->s ? nd->s->ngpu : 0, status_cases[i].ngpu);
        if (!strstr(nd->reason, status_cases[i].reason))
            fail_msg("status case %zu: reason '%s'", i, nd->reason);
        if (nd->s && nd->s->ngpu) {
            assert_true(nd->s->gpus[0].diag_known);
            assert_int_equal(nd->g[0].sev, 2); /* the input-starved finding */
            assert_string_equal(nd->g[0].job, "hpc:j");
            assert_int_equal(nd->s->gpus[0].m[GM_M_MEM_FREE].v.u, 90);
            assert_int_equal(nd->s->gpus[0].m[GM_M_POWER_DRAW].status, GM_VS_NA);
        }
        gm_fleet_clear(&f);
    }
}

static void test_too_many_gpus(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "{\"schema\":\"gpumon.status/1\",\"gpus\":[");
    for (int i = 0; i <= GM_FLEET_MAX_GPUS; i++)
        gm_buf_puts(&b, i ? ",{}" : "{}");
    gm_buf_puts(&b, "]}");
    struct gm_fleet f = {0};
    gm_fleet_add(&f, "n1", 0, NULL);
    assert_int_equal(gm_fleet_node_status(&f.node[0], b.p, b.len, 0, 0), -1);
    assert_int_equal(f.node[0].state, GM_FLEET_INVALID);
    assert_string_equal(f.node[0].reason, "claims 1025 GPUs (at most 1024 are read)");
    gm_fleet_clear(&f);
    gm_buf_free(&b);
}

/* Nodes with the utilisations of job j's GPUs; the straggler's node or -1. */
static const struct {
    const char *job[3];
    int util[3];
    int straggler;
} strag_cases[] = {
    {{"j", "j", "j"}, {95, 94, 20}, 2},  /* one node far behind */
    {{"j", "j", "j"}, {95, 80, 70}, -1}, /* uneven, none far behind */
    {{"a", "b", "c"}, {95, 94, 20}, -1}, /* independent jobs */
    {{"j", "j", "k"}, {95, 20, 10}, 1},  /* two nodes of j, one far behind */
    {{"j", "j", "j"}, {20, 10, 5}, -1},  /* all slow: not a straggler */
};

static void test_stragglers(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(strag_cases); i++) {
        struct gm_fleet f = {0};
        for (int n = 0; n < 3; n++) {
            char host[16], body[1024];
            snprintf(host, sizeof(host), "n%d", n);
            gm_fleet_add(&f, host, 0, NULL);
            snprintf(body, sizeof(body),
                     "{\"schema\":\"gpumon.status/1\",\"time_unix_ns\":1,\"driver\":"
                     "{\"status\":\"ok\"},\"gpus\":[{\"index\":0,\"utilization_gpu_percent\":%d,"
                     "\"hpc_jobs\":[\"%s\"]},{\"index\":1,\"utilization_gpu_percent\":%d,"
                     "\"hpc_jobs\":[\"%s\"]}]}",
                     strag_cases[i].util[n], strag_cases[i].job[n], strag_cases[i].util[n],
                     strag_cases[i].job[n]);
            assert_int_equal(gm_fleet_node_status(&f.node[n], body, strlen(body), 1, 0), 0);
        }
        struct gm_fleet_straggler st[8];
        size_t ns = gm_fleet_stragglers(&f, st, 8);
        if (strag_cases[i].straggler < 0) {
            if (ns)
                fail_msg("straggler case %zu: node %u found", i, st[0].node);
        } else {
            if (ns != 1 || (int)st[0].node != strag_cases[i].straggler)
                fail_msg("straggler case %zu: %zu found", i, ns);
        }
        gm_fleet_clear(&f);
    }
}

/* ------------------------------------------------------------------ Prometheus */

#define VEC(samples)                                                                               \
    "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" samples "]}}"
#define S(labels, v) "{\"metric\":{" labels "},\"value\":[1,\"" v "\"]}"
#define A "\"job\":\"gpumon\",\"instance\":\"a:1\""
#define G0 A ",\"gpu\":\"0\""
#define G1 A ",\"gpu\":\"1\""

/* The answers to gm_fleet_prom_queries, in order: node a:1 with GPU 0 ok
 * and GPU 1 lost, b:2 of the same job not scraped (up 0), c:3 of another
 * job (node_exporter: not a node).  AGE is a:1's sample age.  GPU 0 runs
 * pid 5 (ann, job slurm:42: memory and SM share) and pid 7 (bob: memory
 * only), has a row remap pending and is in compute mode prohibited; the
 * job-mapping directory names 77 for GPU 1; a process of b:2, which is
 * not read, is left out.  DROPPED: a:1's processes left out by its
 * series cap. */
#define PROM_ANSWERS(AGE, DROPPED)                                                                 \
    {                                                                                              \
        VEC(S(A, AGE)),                                                                            \
            VEC(S(A, "1") "," S("\"job\":\"gpumon\",\"instance\":\"b:2\"",                         \
                                "0") "," S("\"job\":\"node\",\"instance\":\"c:3\"", "1")),         \
            VEC(S(G0 ",\"uuid\":\"GPU-0\",\"name\":\"H100\"", "1") "," S(G1, "0")),                \
            VEC(S(G0, "0.5")), VEC(S(G0, "10")), VEC(S(G0, "100")), VEC(S(G0, "90")),              \
            VEC(S(G0, "300.5")), VEC(S(G0, "NaN")),                                                \
            VEC(S(G0 ",\"cause\":\"input-starved\"", "1")),                                        \
            VEC(S(G0 ",\"alertname\":\"hot\",\"severity\":\"critical\"", "1")),                    \
            VEC(S(G0 ",\"pid\":\"7\",\"process\":\"train\",\"user\":\"bob\\u001b]0;x\\u0007\"",    \
                  "1000") "," S(G0 ",\"pid\":\"5\",\"process\":\"py\",\"user\":\"ann\",\"job_"     \
                                   "id\":\"slurm:42\"",                                            \
                                "2000")),                                                          \
            VEC(S(G0 ",\"pid\":\"5\",\"process\":\"py\",\"user\":\"ann\"", "0.25") "," S(          \
                "\"job\":\"gpumon\",\"instance\":\"b:2\",\"gpu\":\"0\",\"pid\":\"9\"", "0.5")),    \
            VEC(S(A, DROPPED)),                                                                    \
            VEC(S(G1 ",\"job_id\":\"slurm:77\",\"source\":\"job-mapping\"", "1")),                 \
            VEC(S(G0, "1")), VEC(S(G0, "0")), VEC(S(G1, "0")), VEC(S(G0, "2"))                     \
    }

static void prom_run(const char *const *ans, struct gm_fleet *f, int want_rc)
{
    size_t len[32];
    size_t n = 0;
    while (gm_fleet_prom_queries[n])
        n++;
    assert_int_equal(n, 19);
    for (size_t i = 0; i < n; i++)
        len[i] = strlen(ans[i]);
    struct gm_err e = {0};
    int rc = gm_fleet_from_prometheus(f, ans, len, 30000000000LL, &e);
    if (rc != want_rc)
        fail_msg("from_prometheus: %d (%s)", rc, e.msg);
}

static void test_prometheus(void **state)
{
    (void)state;
    const char *ans[] = PROM_ANSWERS("2", "0");
    struct gm_fleet f = {0};
    prom_run(ans, &f, 0);
    assert_int_equal(f.n, 2); /* c:3 is not a gpumon target */
    struct gm_fleet_node *a = &f.node[0], *b = &f.node[1];
    assert_string_equal(a->host, "a:1");
    assert_int_equal(a->state, GM_FLEET_OK);
    assert_int_equal(b->state, GM_FLEET_UNREACHABLE);
    assert_string_equal(b->reason, "Prometheus cannot scrape it (up 0)");
    assert_int_equal(a->s->ngpu, 2);
    const struct gm_gpu *g = &a->s->gpus[0];
    assert_string_equal(g->str[GM_S_UUID], "GPU-0");
    assert_int_equal(g->m[GM_M_UTIL_GPU].v.u, 50);
    assert_int_equal(g->m[GM_M_MEM_FREE].v.u, 90);
    assert_true(g->m[GM_M_POWER_DRAW].v.d == 300.5);
    assert_int_equal(g->m[GM_M_TEMP_GPU].status, GM_VS_NA); /* "NaN" is no value */
    assert_int_equal(a->s->gpus[1].state, GM_GPU_LOST);
    assert_int_equal(a->g[0].sev, 3); /* the critical alert */
    assert_non_null(strstr(a->g[0].problem, "input-starved"));
    assert_int_equal(a->g[1].sev, 4);
    /* the processes, merged by pid and in pid order, each a compute process */
    assert_string_equal(a->reason, "");
    assert_int_equal(a->s->nproc, 2);
    assert_int_equal(g->proc_first, 0);
    assert_int_equal(g->nproc, 2);
    assert_true(g->procs_listed);
    const struct gm_proc *p = &a->s->procs[0];
    assert_int_equal(p->pid, 5);
    assert_string_equal(p->user, "ann");
    assert_string_equal(p->name, "py");
    assert_int_equal(p->used_memory.v.u, 2000);
    assert_int_equal(p->sm_util.v.u, 25);
    assert_int_equal(p->type, GM_PT_COMPUTE);
    assert_int_equal(a->s->procs[1].pid, 7);
    assert_string_equal(a->s->procs[1].user, "bob\x1b]0;x\a");
    assert_int_equal(a->s->procs[1].sm_util.status, GM_VS_NA);
    assert_true(a->g[0].busy); /* 50 % and processes */
    assert_string_equal(a->g[0].job, "slurm:42");
    assert_string_equal(a->g[1].job, "hpc:77");
    assert_int_equal(a->s->gpus[1].nhpc_jobs, 1);
    assert_string_equal(a->s->gpus[1].hpc_jobs[0], "77");
    assert_int_equal(g->m[GM_M_REMAP_PENDING].v.u, 1);
    assert_int_equal(g->m[GM_M_RETIRED_PENDING].v.u, 0);
    assert_int_equal(g->m[GM_M_MIG_CURRENT].v.u, 0);
    assert_int_equal(g->m[GM_M_COMPUTE_MODE].v.u, 2); /* prohibited */
    /* the user's ESC and BEL never reach an output */
    struct gm_buf out = GM_BUF_INIT;
    struct gm_fleet_view_opts vo = {.gpus = 1};
    gm_fleet_render_status(&f, &vo, &out);
    gm_fleet_render_json(&f, 0, &out);
    gm_buf_putc(&out, '\0');
    assert_non_null(strstr(out.p, "bob"));
    assert_null(strchr(out.p, '\x1b'));
    assert_null(strchr(out.p, '\a'));
    gm_buf_free(&out);
    gm_fleet_clear(&f);

    /* an agent without process series: unknown, said; one that left some out */
    const char *none[] = PROM_ANSWERS("2", "0");
    none[11] = none[12] = none[13] = VEC();
    prom_run(none, &f, 0);
    assert_int_equal(f.node[0].state, GM_FLEET_OK);
    assert_string_equal(f.node[0].reason, "processes unknown: the agent exports no process "
                                          "series (process-metrics off)");
    assert_false(f.node[0].s->gpus[0].procs_listed);
    gm_fleet_clear(&f);
    const char *cut[] = PROM_ANSWERS("2", "3");
    prom_run(cut, &f, 0);
    assert_string_equal(f.node[0].reason,
                        "processes incomplete: 3 left out by the agent's series cap");
    gm_fleet_clear(&f);

    const char *old[] = PROM_ANSWERS("100", "0");
    prom_run(old, &f, 0);
    assert_int_equal(f.node[0].state, GM_FLEET_STALE);
    assert_string_equal(f.node[0].reason, "latest sample 100 s old");
    gm_fleet_clear(&f);

    const char *bad[] = PROM_ANSWERS("2", "0");
    bad[4] = "{\"status\":\"error\",\"error\":\"bad query\"}";
    prom_run(bad, &f, GM_E_INVAL);
    assert_int_equal(f.n, 0);
    bad[4] = "not json";
    prom_run(bad, &f, GM_E_INVAL);
    gm_fleet_clear(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),  cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_parse_limits), cmocka_unit_test(test_hosts),
        cmocka_unit_test(test_status),       cmocka_unit_test(test_too_many_gpus),
        cmocka_unit_test(test_stragglers),   cmocka_unit_test(test_prometheus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
