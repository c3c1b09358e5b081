/* test_smiq.c -- unit tests for nvidia-smi's -q report (src/view/smiq.c).
 *
 * -d parsing (case, lists, unknown and empty names, a hostile name in the
 * message); a hand-made one-GPU snapshot whose name carries XML specials,
 * an escape sequence and U+FFFE: the XML escapes them and stays one line,
 * the text replaces the controls; values that are not there print N/A,
 * "Insufficient Permissions" or "GPU is lost" as nvidia-smi does; the label
 * column; -d keeps only its sections.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "view/smiq.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static void test_parse_sections(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int ok;
        uint32_t mask;
    } cases[] = {
        {"MEMORY", 1, 1u << GM_SMIQ_MEMORY},
        {"memory", 1, 1u << GM_SMIQ_MEMORY},
        {"TEMPERATURE,POWER,CLOCK,ECC", 1,
         (1u << GM_SMIQ_TEMPERATURE) | (1u << GM_SMIQ_POWER) | (1u << GM_SMIQ_CLOCK) |
             (1u << GM_SMIQ_ECC)},
        {"GSP_FIRMWARE_VERSION", 1, 1u << GM_SMIQ_GSP_FIRMWARE_VERSION},
        {"PIDS,PIDS", 1, 1u << GM_SMIQ_PIDS},
        {"", 0, 0},
        {"MEMORY,", 0, 0},
        {"MEM", 0, 0},
        {"MEMORYX", 0, 0},
        {"NVLINK", 0, 0},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        uint32_t m = 0;
        struct gm_err err = {0};
        int rc = gm_smiq_parse_sections(cases[i].in, &m, &err);
        if (cases[i].ok) {
            assert_int_equal(rc, 0);
            assert_int_equal(m, cases[i].mask);
        } else {
            assert_int_equal(rc, GM_E_INVAL);
            assert_non_null(strstr(err.msg, "unknown display section"));
            assert_non_null(strstr(err.msg, "ROW_REMAPPER"));
        }
    }
    /* a control character in the name does not reach the terminal */
    uint32_t m;
    struct gm_err err = {0};
    assert_int_equal(gm_smiq_parse_sections("X\x1b[2J", &m, &err), GM_E_INVAL);
    assert_null(strchr(err.msg, '\x1b'));
    assert_non_null(strstr(err.msg, "'X?[2J'"));
}

/* One GPU: a hostile name, memory known, power not permitted, the
 * temperature of a lost GPU, ECC not supported. */
static struct gm_snapshot *snap(void)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->driver_version = gm_v_u64(0);
    snprintf(s->driver_version_s, sizeof(s->driver_version_s), "550.54.15");
    s->cuda_version = gm_v_u64(12040);
    gm_snapshot_set_gpus(s, 1);
    struct gm_gpu *g = &s->gpus[0];
    snprintf(g->str[GM_S_NAME], sizeof(g->str[GM_S_NAME]), "A<b>&\"c'\x1b[2J\xEF\xBF\xBE");
    g->m[GM_M_NAME] = gm_v_u64(0);
    snprintf(g->str[GM_S_PCI_BUS_ID], sizeof(g->str[GM_S_PCI_BUS_ID]), "00000000:18:00.0");
    g->m[GM_M_PCI_BUS_ID] = gm_v_u64(0);
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(UINT64_C(81559) * 1048576);
    g->m[GM_M_POWER_DRAW] = gm_v_status(GM_VS_NOPERM, 4);
    g->m[GM_M_TEMP_GPU] = gm_v_status(GM_VS_LOST, 15);
    g->m[GM_M_ECC_CUR] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    g->proc_list = gm_v_u64(0);
    g->procs_listed = 1;
    return s;
}

static void test_xml_escapes(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    struct gm_buf b = GM_BUF_INIT;
    gm_smiq_render(s, NULL, 1, 0, 1, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(strstr(b.p, "<product_name>A&lt;b&gt;&amp;&quot;c&apos;\xEF\xBF\xBD[2J"
                                "\xEF\xBF\xBD</product_name>\n"));
    assert_null(strchr(b.p, '\x1b'));
    assert_null(strstr(b.p, "\xEF\xBF\xBE"));
    assert_non_null(strstr(b.p, "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">"));
    assert_non_null(strstr(b.p, "\t<gpu id=\"00000000:18:00.0\">\n"));
    assert_non_null(strstr(b.p, "\t\t\t<total>81559 MiB</total>\n"));
    assert_non_null(strstr(b.p, "<power_draw>Insufficient Permissions</power_draw>"));
    assert_non_null(strstr(b.p, "<gpu_temp>GPU is lost</gpu_temp>"));
    assert_non_null(strstr(b.p, "<current_ecc>N/A</current_ecc>"));
    assert_non_null(strstr(b.p, "<cuda_version>12.4</cuda_version>"));
    assert_non_null(strstr(b.p, "<processes>\n\t\t</processes>\n"));
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

static void test_text_layout(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    struct gm_buf b = GM_BUF_INIT;
    gm_smiq_render(s, NULL, 1, 0, 0, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(strstr(b.p, "\n==============NVSMI LOG==============\n\n"));
    assert_non_null(strstr(b.p, "\nDriver Version                            : 550.54.15\n"));
    assert_non_null(strstr(b.p, "\nAttached GPUs                             : 1\n"
                                "GPU 00000000:18:00.0\n"));
    /* controls replaced, XML specials kept as they are */
    assert_non_null(
        strstr(b.p, "    Product Name                          : A<b>&\"c'\xEF\xBF\xBD"));
    assert_non_null(strstr(
        b.p, "    FB Memory Usage\n        Total                             : 81559 MiB\n"));
    assert_non_null(strstr(b.p, "        GPU Current Temp                  : GPU is lost\n"));
    assert_non_null(strstr(b.p, "        HW Slowdown                       : N/A\n"
                                "            HW Thermal Slowdown           : N/A\n"));
    assert_non_null(strstr(b.p, "    Processes                             : None\n"));
    /* no accounted processes in the full text report, as nvidia-smi */
    assert_null(strstr(b.p, "Accounted Processes"));
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

static void test_sections_only(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    struct gm_buf b = GM_BUF_INIT;
    gm_smiq_render(s, NULL, 1, 1u << GM_SMIQ_TEMPERATURE, 0, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(strstr(b.p, "GPU 00000000:18:00.0\n    Temperature\n"));
    assert_null(strstr(b.p, "Product Name"));
    assert_null(strstr(b.p, "FB Memory Usage"));
    assert_null(strstr(b.p, "Power Readings"));
    gm_buf_reset(&b);
    gm_smiq_render(s, NULL, 1, 1u << GM_SMIQ_ACCOUNTING, 0, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(strstr(b.p, "    Accounting Mode                       : N/A\n"
                                "    Accounting Mode Buffer Size           : N/A\n"
                                "    Accounted Processes                   : N/A\n"));
    /* no GPU selected: the header only, the system's GPU count kept */
    gm_buf_reset(&b);
    gm_smiq_render(s, NULL, 0, 0, 1, &b);
    gm_buf_putc(&b, 0);
    assert_null(strstr(b.p, "<gpu "));
    assert_non_null(strstr(b.p, "<attached_gpus>1</attached_gpus>"));
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

/* Report-only values: named enums, units, a refused read, and the supported
 * clocks nested under their memory clock (text) or as elements (XML). */
static void test_report_values(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    static struct gm_q_gpu q;
    memset(&q, 0, sizeof(q));
    for (int k = 0; k < GM_Q__COUNT; k++)
        q.v[k] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    q.v[GM_Q_BRAND] = gm_v_u64(14);
    q.v[GM_Q_ARCH] = gm_v_u64(9);
    q.v[GM_Q_BOARD_ID] = gm_v_u64(0x1800);
    q.v[GM_Q_APP_GR] = gm_v_u64(1755);
    q.v[GM_Q_HIST_MAX] = gm_v_u64(2560);
    q.v[GM_Q_ACCOUNTING] = gm_v_status(GM_VS_NOPERM, 4);
    q.v[GM_Q_DEFAPP_GR] = gm_v_status(GM_VS_ERROR, 26); /* NVML_ERROR_DEPRECATED */
    q.v[GM_Q_INFOROM_IMG] = gm_v_u64(0);
    snprintf(q.str[GM_Q_INFOROM_IMG - GM_Q__FIRST_STR], sizeof(q.str[0]), "G520.0200.00.05");
    q.supported = gm_v_u64(0);
    q.nmem = 1;
    q.mem[0] = 2619;
    q.gr_status[0] = gm_v_u64(0);
    q.ngr[0] = 2;
    q.gr[0][0] = 1980;
    q.gr[0][1] = 1965;
    struct gm_buf b = GM_BUF_INIT;
    gm_smiq_render(s, &q, 1, 0, 0, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(strstr(b.p, "    Product Brand                         : NVIDIA\n"
                                "    Product Architecture                  : Hopper\n"));
    assert_non_null(strstr(b.p, "    Board ID                              : 0x1800\n"));
    assert_non_null(
        strstr(b.p, "    Accounting Mode                       : Insufficient Permissions\n"));
    assert_non_null(strstr(b.p, "        Image Version                     : G520.0200.00.05\n"));
    assert_non_null(strstr(
        b.p, "    Applications Clocks\n        Graphics                          : 1755 MHz\n"
             "        Memory                            : N/A\n"));
    assert_non_null(strstr(b.p, "    Default Applications Clocks\n"
                                "        Graphics                          : Requested "
                                "functionality has been deprecated\n"));
    /* the text report leaves the supported clocks out unless -d names them,
     * as nvidia-smi does (docs/compat-q.md) */
    assert_null(strstr(b.p, "    Supported Clocks\n"));
    gm_buf_reset(&b);
    gm_smiq_render(s, &q, 1, 1u << GM_SMIQ_SUPPORTED_CLOCKS, 0, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(strstr(b.p, "    Supported Clocks\n"
                                "        Memory                            : 2619 MHz\n"
                                "            Graphics                      : 1980 MHz\n"
                                "            Graphics                      : 1965 MHz\n"));
    gm_buf_reset(&b);
    gm_smiq_render(s, &q, 1, 1u << GM_SMIQ_SUPPORTED_CLOCKS, 1, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(
        strstr(b.p, "\t\t<supported_clocks>\n\t\t\t<supported_mem_clock>\n"
                    "\t\t\t\t<value>2619 MHz</value>\n"
                    "\t\t\t\t<supported_graphics_clock>1980 MHz</supported_graphics_clock>\n"));
    /* the remapped rows are not read on this GPU: one line, not the histogram */
    gm_buf_reset(&b);
    gm_smiq_render(s, &q, 1, 1u << GM_SMIQ_ROW_REMAPPER, 0, &b);
    gm_buf_putc(&b, 0);
    assert_non_null(strstr(b.p, "    Remapped Rows                         : N/A\n"));
    assert_null(strstr(b.p, "bank(s)"));
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_sections), cmocka_unit_test(test_xml_escapes),
        cmocka_unit_test(test_text_layout),    cmocka_unit_test(test_sections_only),
        cmocka_unit_test(test_report_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
