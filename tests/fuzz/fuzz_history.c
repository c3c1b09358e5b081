/* fuzz_history.c -- libFuzzer harness for the history query of the agent's
 * JSON API: the query string of GET /api/v1/history (metric=, since=, id=;
 * src/export/live.c: gm_live_query_param, gm_live_query_finish,
 * gm_live_history_json) and the check of the raw request target before it
 * (src/export/request.c: gm_request_target_check).
 *
 * The input is the query string (up to a NUL byte), as a client writes it
 * after "/api/v1/history?".  libmicrohttpd, which splits queries in the
 * exporter, is not in the loop; the harness does what it does: the target
 * is checked first (a %00 or more than 32 parameters is refused there and
 * never parsed), then the query is split at '&', each part at its first
 * '=' (no '=': a parameter without a value), '+' becomes a space and %XX
 * is decoded in names and values, and the parameters are handed over in
 * order until one is refused (the exporter stops there too).
 *
 * The ring holds three samples of three GPUs (GPU 1's utilisation not
 * real in one), made once at start-up.  Checks besides crashes, leaks and
 * undefined behaviour:
 *   - a refused parameter leaves a 400 error document that names a
 *     parameter: one line, '{' to "}\n", "status":400, valid UTF-8 and no
 *     raw control byte (the value is the client's text);
 *   - an accepted query holds 1 to 16 distinct metrics, each one the ring
 *     keeps; a since of 1 s to 1 h, or an after_wall (since=@NS) of 0 or
 *     more, not both;
 *   - the history document of an accepted query is 200 with the schema and
 *     the metrics in the order asked, or a 400 error naming "id" (a GPU the
 *     ring does not have), and the same bytes when made twice.
 * Deterministic: the ring does not change after start-up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "core/text.h"
#include "export/live.h"
#include "export/request.h"
#include "fuzz_tmp.h"

#define NGPU 3
#define T0 1764640800000000000LL
#define SEC 1000000000LL

static struct gm_live_ring *ring;
static int kept[64], nkept;

static void fatal(const char *what, const char *query, const struct gm_buf *doc)
{
    fprintf(stderr, "fuzz_history: %s\n  query: %s\n  document: %.*s\n", what, query,
            doc ? (int)doc->len : 0, doc && doc->p ? doc->p : "");
    abort();
}

static void setup(void)
{
    ring = gm_live_ring_new();
    for (int k = 0; k < 3; k++) {
        struct gm_snapshot *s = gm_snapshot_new();
        s->wall_ns = T0 + k * SEC;
        gm_snapshot_set_gpus(s, NGPU);
        for (uint32_t i = 0; i < NGPU; i++) {
            struct gm_gpu *g = &s->gpus[i];
            g->index = i;
            g->state = GM_GPU_OK;
            g->m[GM_M_UTIL_GPU] =
                i == 1 && k == 1 ? gm_v_status(GM_VS_UNSUPPORTED, 3) : gm_v_u64(10 * i + k);
            g->m[GM_M_POWER_DRAW] = gm_v_f64(100.125 + k);
            g->m[GM_M_MEM_USED] = gm_v_u64(UINT64_C(76451466445) + (uint64_t)k);
        }
        gm_live_ring_add(ring, s);
        gm_snapshot_free(s);
    }
    nkept = gm_live_history_metrics(kept, 64);
    if (nkept <= 0 || nkept > 16)
        fatal("the ring keeps no metric, or more than a query holds", "", NULL);
}

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* '+' to a space, %XX decoded, in place (libmicrohttpd's argument decoding). */
static void decode(char *s)
{
    char *o = s;
    for (char *i = s; *i; i++) {
        if (*i == '+') {
            *o++ = ' ';
        } else if (*i == '%' && hex(i[1]) >= 0 && hex(i[2]) >= 0) {
            *o++ = (char)(hex(i[1]) * 16 + hex(i[2]));
            i += 2;
        } else {
            *o++ = *i;
        }
    }
    *o = '\0';
}

/* A 400 error document of live.c: one line, the status, a parameter. */
static void check_error(const struct gm_buf *err, const char *query, const char *param)
{
    if (err->len < 3 || err->p[0] != '{' || err->p[err->len - 2] != '}' ||
        err->p[err->len - 1] != '\n' || memchr(err->p, '\n', err->len - 1))
        fatal("a refusal that is not one JSON line", query, err);
    if (!memmem(err->p, err->len, "\"status\":400}", 13))
        fatal("a refusal without status 400", query, err);
    if (param && !memmem(err->p, err->len, "\"parameter\":\"", 13))
        fatal("a refused parameter not named", query, err);
    if (!gm_text_is_utf8(err->p, err->len))
        fatal("a refusal that is not UTF-8", query, err);
    for (size_t i = 0; i < err->len; i++)
        if ((unsigned char)err->p[i] < 0x20 && err->p[i] != '\n')
            fatal("a raw control byte in a refusal", query, err);
}

static void check_query(const struct gm_live_query *q, const char *query)
{
    if (q->nmetrics < 1 || q->nmetrics > 16)
        fatal("an accepted query without metrics or with too many", query, NULL);
    for (int i = 0; i < q->nmetrics; i++) {
        int ok = 0;
        for (int k = 0; k < nkept; k++)
            ok |= kept[k] == q->metrics[i];
        for (int j = 0; j < i; j++)
            if (q->metrics[j] == q->metrics[i])
                fatal("a metric accepted twice", query, NULL);
        if (!ok)
            fatal("a metric the ring does not keep", query, NULL);
    }
    if (q->after_wall < 0 || (q->after_wall && q->since_ns) ||
        (!q->after_wall && (q->since_ns < SEC || q->since_ns > GM_LIVE_WINDOW_NS)))
        fatal("since out of its range", query, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ring)
        setup();
    char *query = fuzz_cstr(data, size);
    size_t qlen = strlen(query);
    char *target = malloc(qlen + 17);
    if (!target)
        abort();
    memcpy(target, "/api/v1/history?", 16);
    memcpy(target + 16, query, qlen + 1);
    const char *why = NULL;
    int refused = gm_request_target_check(target, &why);
    free(target);
    if (refused) {
        if ((refused != 400 && refused != 414) || !why)
            fatal("a target refused without 400 or 414 and a reason", query, NULL);
        free(query);
        return 0;
    }

    char *copy = strdup(query);
    if (!copy)
        abort();
    struct gm_live_query q;
    memset(&q, 0, sizeof(q));
    unsigned seen = 0;
    struct gm_buf err = GM_BUF_INIT;
    int bad = 0;
    for (char *p = copy; p && !bad;) {
        char *amp = strchr(p, '&');
        if (amp)
            *amp = '\0';
        char *eq = strchr(p, '='), *value = NULL;
        if (eq) {
            *eq = '\0';
            value = eq + 1;
            decode(value);
        }
        decode(p);
        if (gm_live_query_param(&q, &seen, p, value, &err) != 0) {
            check_error(&err, query, p);
            bad = 1;
        } else if (err.len) {
            fatal("an accepted parameter with an error document", query, &err);
        }
        p = amp ? amp + 1 : NULL;
    }
    if (!bad) {
        gm_live_query_finish(&q);
        check_query(&q, query);
        struct gm_buf out = GM_BUF_INIT, again = GM_BUF_INIT;
        int rc = gm_live_history_json(ring, &q, &out);
        int rc2 = gm_live_history_json(ring, &q, &again);
        if (rc != rc2 || out.len != again.len || memcmp(out.p, again.p, out.len) != 0)
            fatal("the history document differs when made twice", query, &out);
        if (rc == 0) {
            if (!memmem(out.p, out.len, "{\"schema\":\"gpumon.history/1\"", 28))
                fatal("a history document without its schema", query, &out);
            /* the "metrics" list comes first: each key, quoted, in order */
            char key[128], quoted[132];
            const char *at = out.p, *end = out.p + out.len;
            for (int i = 0; i < q.nmetrics; i++) {
                snprintf(quoted, sizeof(quoted), "\"%s\"",
                         gm_metric_json_key(q.metrics[i], key, sizeof(key)));
                const char *f = memmem(at, (size_t)(end - at), quoted, strlen(quoted));
                if (!f)
                    fatal("the metrics not in the order asked", query, &out);
                at = f + strlen(quoted);
            }
        } else {
            check_error(&out, query, "id");
            if (!memmem(out.p, out.len, "\"parameter\":\"id\"", 16))
                fatal("a history refused for another reason than a GPU index", query, &out);
        }
        gm_buf_free(&out);
        gm_buf_free(&again);
    }
    gm_buf_free(&err);
    free(copy);
    free(query);
    return 0;
}
