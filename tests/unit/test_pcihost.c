/* test_pcihost.c -- pcie.link.gen.hostmax from sysfs (src/source/pcihost.c):
 * the speed texts kernels write, and a fixture tree laid out as sysfs is
 * (a device symlink whose ".." is the upstream port). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/source/pcihost.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static void test_speeds(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned gen;
    } cases[] = {
        {"2.5 GT/s PCIe\n", 1},
        {"5.0 GT/s PCIe\n", 2},
        {"8.0 GT/s PCIe\n", 3},
        {"16.0 GT/s PCIe\n", 4},
        {"32.0 GT/s PCIe\n", 5},
        {"64.0 GT/s PCIe\n", 6},
        {"8 GT/s\n", 3}, /* older kernels: no decimals, no "PCIe" */
        {"16 GT/s", 4},
        {"Unknown\n", 0}, /* the kernel's text for a speed it does not know */
        {"Unknown speed\n", 0},
        {"", 0},
        {"12.0 GT/s PCIe\n", 0}, /* not a PCIe generation */
        {"16.0 Gb/s\n", 0},
        {"-8.0 GT/s\n", 0},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++)
        if (gm_pcihost_gen_of_speed(cases[i].text) != cases[i].gen)
            fail_msg("\"%s\": %u, expected %u", cases[i].text,
                     gm_pcihost_gen_of_speed(cases[i].text), cases[i].gen);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_tree(void **state)
{
    (void)state;
    char root[] = "/tmp/gpumon-pcihost-XXXXXX";
    assert_non_null(mkdtemp(root));
    char p[256], q[512];
    /* devices/pci0000:00/0000:00:01.0 (a gen-4 root port) / 0000:3b:00.0 (the GPU) */
    snprintf(p, sizeof(p), "%s/devices", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof(p), "%s/devices/pci0000:00", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof(p), "%s/devices/pci0000:00/0000:00:01.0", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(q, sizeof(q), "%s/max_link_speed", p);
    put(q, "16.0 GT/s PCIe\n");
    snprintf(p, sizeof(p), "%s/devices/pci0000:00/0000:00:01.0/0000:3b:00.0", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(q, sizeof(q), "%s/max_link_speed", p); /* the GPU's own: not the answer */
    put(q, "32.0 GT/s PCIe\n");
    snprintf(p, sizeof(p), "%s/bus", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof(p), "%s/bus/pci", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof(p), "%s/bus/pci/devices", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof(p), "%s/bus/pci/devices/0000:3b:00.0", root);
    assert_int_equal(symlink("../../../devices/pci0000:00/0000:00:01.0/0000:3b:00.0", p), 0);

    /* NVML's spelling: 8-digit domain, upper-case hex */
    assert_int_equal(gm_pcihost_max_gen(root, "00000000:3B:00.0"), 4);
    assert_int_equal(gm_pcihost_max_gen(root, "0000:3b:00.0"), 4);
    /* no such device, bad bus ids: 0 ([N/A]) */
    assert_int_equal(gm_pcihost_max_gen(root, "00000000:3C:00.0"), 0);
    assert_int_equal(gm_pcihost_max_gen(root, "3B:00.0"), 0);
    assert_int_equal(gm_pcihost_max_gen(root, "00000000:3B:00.0x"), 0);
    assert_int_equal(gm_pcihost_max_gen(root, "00000000:3B:00.0/../.."), 0);
    assert_int_equal(gm_pcihost_max_gen(root, ""), 0);
    assert_int_equal(gm_pcihost_max_gen(root, NULL), 0);
    /* the port says it does not know its speed */
    snprintf(q, sizeof(q), "%s/devices/pci0000:00/0000:00:01.0/max_link_speed", root);
    put(q, "Unknown\n");
    assert_int_equal(gm_pcihost_max_gen(root, "00000000:3B:00.0"), 0);
    unlink(q);
    assert_int_equal(gm_pcihost_max_gen(root, "00000000:3B:00.0"), 0);

    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void test_root_env(void **state)
{
    (void)state;
    unsetenv("GPUMON_SYSFS_ROOT");
    assert_string_equal(gm_pcihost_sysfs_root(), "/sys");
    setenv("GPUMON_SYSFS_ROOT", "", 1);
    assert_string_equal(gm_pcihost_sysfs_root(), "/sys");
    setenv("GPUMON_SYSFS_ROOT", "/tmp/x", 1);
    assert_string_equal(gm_pcihost_sysfs_root(), "/tmp/x");
    unsetenv("GPUMON_SYSFS_ROOT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_speeds),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_root_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
