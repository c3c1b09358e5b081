/* fuzz_rule.c -- libFuzzer harness for the alert rule condition language
 * (src/alert/rule.c: gm_rule_parse, then gm_rule_eval, gm_rule_uses and
 * gm_rule_value_text on what parsed).
 *
 * Input: one byte of options, then the condition text (up to a NUL byte).
 *   bit 0      scope = host (else gpu)
 *   bits 1-7   the size of the error buffer, 1 to 128 bytes (allocated to
 *              the byte, so AddressSanitizer sees any write past it)
 * Checks besides crashes, leaks and undefined behaviour:
 *   - a failed parse writes a NUL-terminated reason into the buffer;
 *   - a parsed condition has 1 to GM_RULE_NODES nodes, and its stored text
 *     (shown in notices and `config show`) parses again to the same nodes;
 *   - evaluated against a healthy GPU, a GPU whose values are all unknown,
 *     a lost GPU and the host (no GPU), the result is 1, 0 or -1, and
 *     "not (C)" evaluates to the three-valued negation of C.
 * Deterministic: the snapshots are built once and never change.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert/rule.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "fuzz_tmp.h"

#define NCTX 4

static struct gm_snapshot *snap;
static struct gm_rule_ctx ctx[NCTX];

static void fatal(const char *what, const char *cond)
{
    fprintf(stderr, "fuzz_rule: %s: \"%s\"\n", what, cond);
    abort();
}

/* GPU 0 healthy (the values of test_rule.c), GPU 1 with every value
 * unknown, GPU 2 lost; ctx[3] is the host. */
static void setup(void)
{
    snap = gm_snapshot_new();
    gm_snapshot_set_gpus(snap, 3);
    for (uint32_t i = 0; i < 3; i++) {
        struct gm_gpu *g = &snap->gpus[i];
        g->index = i;
        g->state = i == 2 ? GM_GPU_LOST : GM_GPU_OK;
        for (int m = 0; m < GM_M__GPU_END; m++)
            g->m[m] = gm_v_status(i == 2 ? GM_VS_LOST : GM_VS_NA, 0);
    }
    struct gm_gpu *g = &snap->gpus[0];
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(80ULL << 30);
    g->m[GM_M_MEM_USED] = gm_v_u64(60ULL << 30);
    g->m[GM_M_MEM_FREE] = gm_v_u64(20ULL << 30);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(300.0);
    g->m[GM_M_POWER_ENFORCED] = gm_v_f64(400.0);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(70);
    g->m[GM_M_TEMP_SLOWDOWN] = gm_v_u64(87);
    g->m[GM_M_UTIL_GPU] = gm_v_u64(97);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(gm_metrics[GM_M_CER_SW_THERMAL].bit);
    g->m[GM_M_ECC_UNCORR_AGG] = gm_v_u64(3);
    for (int i = 0; i < 3; i++)
        ctx[i] = (struct gm_rule_ctx){.s = snap, .g = &snap->gpus[i], .prev_agg_ok = 1};
    ctx[3] = (struct gm_rule_ctx){.s = snap, .g = NULL};
}

static int eval(const struct gm_rule_expr *e, int i, const char *cond)
{
    double first = 0;
    int first_op = -1, first_ok = -1;
    int r = gm_rule_eval(e, &ctx[i], &first, &first_op, &first_ok);
    if (r < -1 || r > 1)
        fatal("gm_rule_eval is not 1, 0 or -1", cond);
    if (!gm_rule_uses(e, first_op))
        fatal("the first operand is not one the condition uses", cond);
    if (first_ok != 0 && first_ok != 1)
        fatal("first_ok is not 0 or 1", cond);
    if (first_ok) {
        char text[24];
        gm_rule_value_text(first_op, first, &ctx[i], text, sizeof(text));
        if (!memchr(text, '\0', sizeof(text)))
            fatal("gm_rule_value_text does not terminate", cond);
    }
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!snap)
        setup();
    int scope = data[0] & 1 ? GM_RS_HOST : GM_RS_GPU;
    size_t wlen = 1 + (data[0] >> 1);
    char *cond = fuzz_cstr(data + 1, size - 1);
    char *why = malloc(wlen);
    struct gm_rule_expr *e = malloc(sizeof(*e)), *e2 = malloc(sizeof(*e2));
    if (!why || !e || !e2)
        abort();
    memset(why, 'x', wlen);
    if (gm_rule_parse(cond, scope, e, why, wlen) != 0) {
        if (!memchr(why, '\0', wlen))
            fatal("a failed parse left no NUL-terminated reason", cond);
        goto out;
    }
    if (e->n < 1 || e->n > GM_RULE_NODES)
        fatal("a parsed condition with no nodes or too many", cond);
    char why2[256];
    if (gm_rule_parse(e->text, scope, e2, why2, sizeof(why2)) != 0)
        fatal("the stored text does not parse again", e->text);
    if (e2->n != e->n || memcmp(e2->node, e->node, sizeof(e->node[0]) * (size_t)e->n) != 0 ||
        strcmp(e2->text, e->text) != 0)
        fatal("the stored text parses to another condition", e->text);

    char neg[sizeof(e->text) + 8];
    snprintf(neg, sizeof(neg), "not (%s)", e->text);
    int negated = gm_rule_parse(neg, scope, e2, why2, sizeof(why2)) == 0;
    for (int i = 0; i < NCTX; i++) {
        if (scope == GM_RS_HOST && i != NCTX - 1)
            continue; /* host rules are evaluated once, without a GPU */
        int r = eval(e, i, cond);
        if (negated && eval(e2, i, neg) != (r < 0 ? r : !r))
            fatal("not (C) is not the negation of C", cond);
    }
out:
    free(cond);
    free(why);
    free(e);
    free(e2);
    return 0;
}
