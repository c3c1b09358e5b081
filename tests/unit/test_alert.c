/* test_alert.c -- unit tests for src/alert/alert.c.
 *
 * The names of severities and states (including out-of-range values), and
 * the JSON form of an alert as exact strings: a GPU alert firing, a host
 * alert resolved without a value, a repeat with a bare number, another time
 * zone, escaping of hostile text, and a struct whose strings lack their NUL
 * and whose label count is out of range (the output stays bounded and
 * valid).  Zones are POSIX TZ strings, so no tzdata is needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alert/alert.h"
#include "core/err.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NS INT64_C(1000000000)
#define MS INT64_C(1000000)
#define T_DEC INT64_C(1796176800) /* 2026-12-02T02:00:00Z */

static void use_tz(const char *tz)
{
    setenv("TZ", tz, 1);
    tzset();
}

static void test_names(void **state)
{
    (void)state;
    static const struct {
        int v;
        const char *sev, *st;
    } rows[] = {
        {0, "warning", "inactive"}, {1, "critical", "pending"}, {2, "unknown", "firing"},
        {3, "unknown", "resolved"}, {-1, "unknown", "unknown"}, {99, "unknown", "unknown"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        assert_string_equal(gm_alert_severity_name(rows[i].v), rows[i].sev);
        assert_string_equal(gm_alert_state_name(rows[i].v), rows[i].st);
    }
    assert_string_equal(gm_alert_severity_name(GM_SEV_CRITICAL), "critical");
    assert_string_equal(gm_alert_state_name(GM_AL_FIRING), "firing");
}

static void base(struct gm_alert *a)
{
    memset(a, 0, sizeof(*a));
    gm_strlcpy(a->rule, "gpu_hot", sizeof(a->rule));
    a->severity = GM_SEV_CRITICAL;
    a->state = GM_AL_FIRING;
    a->gpu = 5;
    gm_strlcpy(a->uuid, "GPU-5e1c2d3a-0000-1111-2222-333344445555", sizeof(a->uuid));
    gm_strlcpy(a->gpu_name, "NVIDIA H100 80GB HBM3", sizeof(a->gpu_name));
    gm_strlcpy(a->pci_bus_id, "00000000:8A:00.0", sizeof(a->pci_bus_id));
    gm_strlcpy(a->job, "slurm:4242", sizeof(a->job));
    gm_strlcpy(a->host, "gpu-node-07", sizeof(a->host));
    gm_strlcpy(a->summary,
               "GPU 5 at 89 \xc2\xb0"
               "C",
               sizeof(a->summary));
    gm_strlcpy(a->condition, "temperature.gpu > 85", sizeof(a->condition));
    gm_strlcpy(a->value_text,
               "89 \xc2\xb0"
               "C",
               sizeof(a->value_text));
    a->value = 89;
    a->value_ok = 1;
    a->active_ns = T_DEC * NS;
    a->fired_ns = (T_DEC + 30) * NS + 123 * MS + 456789;
    a->sent_ns = a->fired_ns;
    gm_strlcpy(a->fingerprint, "0123456789abcdef", sizeof(a->fingerprint));
    a->nlabels = 1;
    gm_strlcpy(a->labels[0].name, "team", sizeof(a->labels[0].name));
    gm_strlcpy(a->labels[0].value, "ml", sizeof(a->labels[0].value));
}

static void m_none(struct gm_alert *a)
{
    (void)a;
}

static void m_host_resolved(struct gm_alert *a)
{
    a->gpu = -1;
    a->uuid[0] = a->gpu_name[0] = a->pci_bus_id[0] = a->job[0] = '\0';
    gm_strlcpy(a->rule, "driver_lost", sizeof(a->rule));
    gm_strlcpy(a->summary, "the NVIDIA driver is back", sizeof(a->summary));
    gm_strlcpy(a->condition, "driver_lost", sizeof(a->condition));
    a->value_text[0] = '\0';
    a->value_ok = 0;
    a->value_age_ms = 3000; /* no value: no age */
    a->state = GM_AL_RESOLVED;
    a->resolved_ns = (T_DEC + 300) * NS;
    a->sent_ns = a->resolved_ns;
    a->nlabels = 0;
}

static void m_repeat_number(struct gm_alert *a)
{
    a->repeat = 1;
    a->severity = GM_SEV_WARNING;
    a->value_text[0] = '\0';
    a->value = 0.1;
    a->value_age_ms = 7250; /* a slow read group's value, read 7.25 s before */
}

static void m_hostile(struct gm_alert *a)
{
    gm_strlcpy(a->summary, "say \"hi\"\\\n\x01 \xff end", sizeof(a->summary));
    gm_strlcpy(a->labels[0].name, "we\"ird", sizeof(a->labels[0].name));
    gm_strlcpy(a->labels[0].value, "</script>", sizeof(a->labels[0].value));
}

static void m_unterminated(struct gm_alert *a)
{
    memset(a->rule, 'r', sizeof(a->rule)); /* no NUL anywhere */
    memset(a->fingerprint, 'f', sizeof(a->fingerprint));
    a->nlabels = 99; /* clamped to GM_ALERT_MAX_LABELS; empty names skipped */
    for (int i = 1; i < GM_ALERT_MAX_LABELS; i++) {
        if (i == 3)
            a->labels[i].name[0] = '\0';
        else
            snprintf(a->labels[i].name, sizeof(a->labels[i].name), "l%d", i);
        snprintf(a->labels[i].value, sizeof(a->labels[i].value), "v%d", i);
    }
}

#define GPU_FIELDS                                                                                 \
    "\"host\":\"gpu-node-07\",\"gpu\":5,\"uuid\":\"GPU-5e1c2d3a-0000-1111-2222-333344445555\","    \
    "\"gpu_name\":\"NVIDIA H100 80GB HBM3\",\"pci_bus_id\":\"00000000:8A:00.0\","              \
    "\"job_id\":\"slurm:4242\","
#define TIMES_CST                                                                                  \
    "\"active_at\":\"2026-12-02T10:00:00.000+08:00\",\"active_at_unix_ms\":1796176800000,"         \
    "\"fired_at\":\"2026-12-02T10:00:30.123+08:00\",\"fired_at_unix_ms\":1796176830123,"           \
    "\"resolved_at\":null,\"resolved_at_unix_ms\":null,"                                           \
    "\"sent_at\":\"2026-12-02T10:00:30.123+08:00\",\"sent_at_unix_ms\":1796176830123,"

static void test_json(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *tz;
        void (*mutate)(struct gm_alert *a);
        const char *want;
    } rows[] = {
        {"gpu firing", "CST-8", m_none,
         "{\"rule\":\"gpu_hot\",\"state\":\"firing\",\"severity\":\"critical\",\"repeat\":"
         "false," GPU_FIELDS "\"summary\":\"GPU 5 at 89 \xc2\xb0"
         "C\",\"condition\":\"temperature.gpu > 85\",\"value\":89,"
         "\"value_text\":\"89 \xc2\xb0"
         "C\",\"value_age_seconds\":0," TIMES_CST
         "\"fingerprint\":\"0123456789abcdef\",\"labels\":{\"team\":\"ml\"}}"},
        {"host resolved", "CST-8", m_host_resolved,
         "{\"rule\":\"driver_lost\",\"state\":\"resolved\",\"severity\":\"critical\","
         "\"repeat\":false,\"host\":\"gpu-node-07\",\"gpu\":null,\"uuid\":null,"
         "\"gpu_name\":null,\"pci_bus_id\":null,\"job_id\":null,"
         "\"summary\":\"the NVIDIA driver is back\","
         "\"condition\":\"driver_lost\",\"value\":null,\"value_text\":null,"
         "\"value_age_seconds\":null,"
         "\"active_at\":\"2026-12-02T10:00:00.000+08:00\",\"active_at_unix_ms\":1796176800000,"
         "\"fired_at\":\"2026-12-02T10:00:30.123+08:00\",\"fired_at_unix_ms\":1796176830123,"
         "\"resolved_at\":\"2026-12-02T10:05:00.000+08:00\",\"resolved_at_unix_ms\":1796177100000,"
         "\"sent_at\":\"2026-12-02T10:05:00.000+08:00\",\"sent_at_unix_ms\":1796177100000,"
         "\"fingerprint\":\"0123456789abcdef\",\"labels\":{}}"},
        {"repeat, bare number, west of UTC", "EST5", m_repeat_number,
         "{\"rule\":\"gpu_hot\",\"state\":\"firing\",\"severity\":\"warning\",\"repeat\":"
         "true," GPU_FIELDS "\"summary\":\"GPU 5 at 89 \xc2\xb0"
         "C\",\"condition\":\"temperature.gpu > 85\",\"value\":0.1,"
         "\"value_text\":null,\"value_age_seconds\":7.25,"
         "\"active_at\":\"2026-12-01T21:00:00.000-05:00\",\"active_at_unix_ms\":1796176800000,"
         "\"fired_at\":\"2026-12-01T21:00:30.123-05:00\",\"fired_at_unix_ms\":1796176830123,"
         "\"resolved_at\":null,\"resolved_at_unix_ms\":null,"
         "\"sent_at\":\"2026-12-01T21:00:30.123-05:00\",\"sent_at_unix_ms\":1796176830123,"
         "\"fingerprint\":\"0123456789abcdef\",\"labels\":{\"team\":\"ml\"}}"},
        {"hostile text", "UTC0", m_hostile,
         "{\"rule\":\"gpu_hot\",\"state\":\"firing\",\"severity\":\"critical\",\"repeat\":"
         "false," GPU_FIELDS "\"summary\":\"say \\\"hi\\\"\\\\\\n\\u0001 \xef\xbf\xbd "
                             "end\",\"condition\":\"temperature.gpu > 85\","
         "\"value\":89,\"value_text\":\"89 \xc2\xb0"
         "C\",\"value_age_seconds\":0,"
         "\"active_at\":\"2026-12-02T02:00:00.000+00:00\",\"active_at_unix_ms\":1796176800000,"
         "\"fired_at\":\"2026-12-02T02:00:30.123+00:00\",\"fired_at_unix_ms\":1796176830123,"
         "\"resolved_at\":null,\"resolved_at_unix_ms\":null,"
         "\"sent_at\":\"2026-12-02T02:00:30.123+00:00\",\"sent_at_unix_ms\":1796176830123,"
         "\"fingerprint\":\"0123456789abcdef\",\"labels\":{\"we\\\"ird\":\"</script>\"}}"},
        {"unterminated strings, label count out of range", "CST-8", m_unterminated,
         "{\"rule\":\"rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr\","
         "\"state\":\"firing\",\"severity\":\"critical\",\"repeat\":false," GPU_FIELDS
         "\"summary\":\"GPU 5 at 89 \xc2\xb0"
         "C\",\"condition\":\"temperature.gpu > 85\",\"value\":89,"
         "\"value_text\":\"89 \xc2\xb0"
         "C\",\"value_age_seconds\":0," TIMES_CST "\"fingerprint\":\"fffffffffffffffff\","
         "\"labels\":{\"team\":\"ml\",\"l1\":\"v1\",\"l2\":\"v2\",\"l4\":\"v4\",\"l5\":\"v5\","
         "\"l6\":\"v6\",\"l7\":\"v7\"}}"},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_alert a;
        struct gm_buf b = GM_BUF_INIT;
        use_tz(rows[i].tz);
        base(&a);
        rows[i].mutate(&a);
        gm_alert_json(&a, &b);
        if (strcmp(b.p, rows[i].want) != 0) {
            print_error("%s:\n got %s\nwant %s\n", rows[i].name, b.p, rows[i].want);
            bad++;
        }
        gm_buf_free(&b);
    }
    assert_int_equal(bad, 0);
}

/* The JSON is appended: what the buffer held stays, nothing follows. */
static void test_json_appends(void **state)
{
    (void)state;
    struct gm_alert a;
    struct gm_buf b = GM_BUF_INIT;
    use_tz("UTC0");
    base(&a);
    gm_buf_puts(&b, "x ");
    gm_alert_json(&a, &b);
    assert_memory_equal(b.p, "x {\"rule\":\"gpu_hot\",", 20);
    assert_int_equal(b.p[b.len - 1], '}');
    assert_null(strchr(b.p, '\n'));
    gm_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_appends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
