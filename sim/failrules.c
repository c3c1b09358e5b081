/* failrules.c -- GPUSIM_FAIL: failures injected on purpose (see gpusim.h).
 *
 * A client's error paths are hard to reach with the scenario's fault windows
 * alone: those model what a real GPU does (it is lost, forbidden, hangs),
 * while a test wants "the 3rd nvmlDeviceGetPowerUsage on GPU 2 fails with
 * NVML_ERROR_UNKNOWN" -- collectd's habit of failing the N-th vendor call to
 * prove every error path.  This file parses the rules and counts calls; the
 * API prologue (sim/api_core.c) asks gs_fail_call() once per call.
 *
 * Parsing is strict, like the scenario loader: a rule that does not parse
 * stops init with a message quoting it, never a rule silently ignored.
 * Left out on purpose: nvmlInit*, nvmlShutdown and nvmlErrorString cannot be
 * failed (they run outside a session, where nothing is counted; a failing
 * init is a driver_not_loaded fault), and a rule cannot fail a single field
 * id of nvmlDeviceGetFieldValues.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpusim.h"

/* ------------------------------------------------------------ code names */

/* The names, from the one list of NVML's return codes (core/nvmlrc.h). */
static const struct {
    nvmlReturn_t code;
    const char *name;
} codes[] = {
#define GS_RC_NAME(name, num, text, vstatus) {name, #name},
    GM_NVML_RETURN_CODES(GS_RC_NAME)
#undef GS_RC_NAME
};

const char *gs_return_name(nvmlReturn_t code)
{
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        if (codes[i].code == code)
            return codes[i].name;
    return NULL;
}

/* "NVML_ERROR_UNKNOWN", "unknown" or "Unknown" -> NVML_ERROR_UNKNOWN; also
 * NVML_SUCCESS, which the caller refuses.  -1 when there is no such name. */
static int code_by_name(const char *name, nvmlReturn_t *out)
{
    static const char prefix[] = "NVML_ERROR_";
    const size_t plen = sizeof(prefix) - 1;
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        const char *full = codes[i].name;
        const char *shortname = strncmp(full, prefix, plen) == 0 ? full + plen : full + 5;
        if (strcasecmp(name, full) == 0 || strcasecmp(name, shortname) == 0) {
            *out = codes[i].code;
            return 0;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- parser */

#define SYNTAX "expected FUNCTION[@GPU]:N|N+|*:CODE, e.g. nvmlDeviceGetPowerUsage@2:3+:UNKNOWN"

/* Digits only, at most 10^12; *out >= min. */
static int parse_number(const char *s, size_t n, unsigned long long min, unsigned long long *out)
{
    unsigned long long v = 0;
    if (n == 0 || n > 13)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (unsigned long long)(s[i] - '0');
    }
    if (v < min || v > 1000000000000ULL)
        return -1;
    *out = v;
    return 0;
}

/* Writes "GPUSIM_FAIL: " and the reason into err, empties f, returns -1. */
__attribute__((format(printf, 4, 5))) static int fail(struct gs_fail *f, char *err, size_t errlen,
                                                      const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "GPUSIM_FAIL: %s", why);
    f->n = 0;
    return -1;
}

/* One rule, blanks already trimmed. */
static int parse_rule(const char *rule, unsigned ngpus, struct gs_fail_rule *r, struct gs_fail *f,
                      char *err, size_t errlen)
{
    char target[128], when[32], code[64];
    const char *c1 = strchr(rule, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || strchr(c2 + 1, ':'))
        return fail(f, err, errlen, "bad rule '%s' (%s)", rule, SYNTAX);
    size_t nt = (size_t)(c1 - rule), nw = (size_t)(c2 - c1 - 1), nc = strlen(c2 + 1);
    if (nt == 0 || nt >= sizeof(target) || nw >= sizeof(when) || nc == 0 || nc >= sizeof(code))
        return fail(f, err, errlen, "bad rule '%s' (%s)", rule, SYNTAX);
    memcpy(target, rule, nt);
    target[nt] = '\0';
    memcpy(when, c1 + 1, nw);
    when[nw] = '\0';
    memcpy(code, c2 + 1, nc + 1);

    memset(r, 0, sizeof(*r));
    r->gpu = GS_NO_GPU;
    char *at = strchr(target, '@');
    if (at) {
        unsigned long long g;
        *at = '\0';
        if (parse_number(at + 1, strlen(at + 1), 0, &g) != 0)
            return fail(f, err, errlen, "bad GPU '@%s' in rule '%s' (a GPU index)", at + 1, rule);
        if (g >= ngpus)
            return fail(f, err, errlen, "no GPU %llu in rule '%s' (the scenario has %u)", g, rule,
                        ngpus);
        r->gpu = (int)g;
    }
    r->fn = gs_name_index(target);
    if (r->fn < 0 || gs_names[r->fn].kind != GS_NAME_FUNCTION)
        return fail(f, err, errlen,
                    "unknown function '%s' in rule '%s' (the exported functions are listed in "
                    "docs/simulator.md)",
                    target, rule);
    if (strncmp(target, "nvmlInit", 8) == 0 || strcmp(target, "nvmlShutdown") == 0 ||
        strcmp(target, "nvmlErrorString") == 0)
        return fail(f, err, errlen,
                    "%s cannot be failed (rule '%s'): calls are counted inside a session; for "
                    "an init that fails use a driver_not_loaded fault",
                    target, rule);

    size_t lw = strlen(when);
    if (strcmp(when, "*") == 0) {
        r->first = 1;
        r->last = 0;
    } else if (lw > 1 && when[lw - 1] == '+' && parse_number(when, lw - 1, 1, &r->first) == 0) {
        r->last = 0;
    } else if (parse_number(when, lw, 1, &r->first) == 0) {
        r->last = r->first;
    } else {
        return fail(f, err, errlen,
                    "bad call number '%s' in rule '%s' (N for the N-th call only, N+ for the "
                    "N-th and later ones, * for every call; N from 1)",
                    when, rule);
    }

    if (code_by_name(code, &r->code) != 0)
        return fail(f, err, errlen,
                    "unknown return code '%s' in rule '%s' (an nvmlReturn_t name such as "
                    "NVML_ERROR_UNKNOWN or NOT_SUPPORTED)",
                    code, rule);
    if (r->code == NVML_SUCCESS)
        return fail(f, err, errlen, "'%s' in rule '%s' is not a failure", code, rule);
    return 0;
}

int gs_fail_parse(const char *text, unsigned ngpus, struct gs_fail *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof(*f));
    if (!text)
        return 0;
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *b = p, *e = end;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        char rule[256];
        if (b == e)
            return fail(f, err, errlen, "an empty rule in '%s' (rules are separated by one comma)",
                        text);
        if ((size_t)(e - b) >= sizeof(rule)) {
            snprintf(rule, sizeof(rule), "%.40s...", b);
            return fail(f, err, errlen, "rule '%s' is too long (%s)", rule, SYNTAX);
        }
        if (f->n == GS_FAIL_MAX)
            return fail(f, err, errlen, "more than %d rules", GS_FAIL_MAX);
        memcpy(rule, b, (size_t)(e - b));
        rule[e - b] = '\0';
        if (parse_rule(rule, ngpus, &f->rule[f->n], f, err, errlen) != 0)
            return -1;
        f->n++;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

/* ------------------------------------------------------------- counting */

nvmlReturn_t gs_fail_call(struct gs_fail *f, int fn, int gpu)
{
    nvmlReturn_t r = NVML_SUCCESS;
    for (size_t i = 0; i < f->n; i++) {
        struct gs_fail_rule *x = &f->rule[i];
        if (x->fn != fn || (x->gpu != GS_NO_GPU && x->gpu != gpu))
            continue;
        x->calls++;
        if (r == NVML_SUCCESS && x->calls >= x->first && (x->last == 0 || x->calls <= x->last))
            r = x->code;
    }
    return r;
}
