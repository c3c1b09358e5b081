/* test_scenario.c -- unit tests for the simulator core (sim/gpusim.h):
 * scenario parsing and its error messages, presets and defaults, ${ENV}
 * expansion, determinism, and the workload model's physical properties at
 * pinned scenario times.  Every shipped scenario in scenarios/ must load.
 *
 * Error cases are a table of (scenario text, expected "FILE:LINE: reason"
 * prefix): adding a validation rule means adding a row.  GPUSIM_FAIL rules
 * (sim/failrules.c) likewise: a table of (text, rules or exact error) and a
 * table of (rules, a sequence of calls, the code each call gets).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpusim.h"

#ifndef SCENARIO_DIR
#error "SCENARIO_DIR must point at the shipped scenarios/"
#endif

#define GIB 1073741824.0
#define MIB 1048576.0

static struct gs_scenario *load_ok(const char *text)
{
    struct gs_scenario *s = NULL;
    char err[600];
    int rc = gs_scenario_parse_string("t.ini", text, &s, err, sizeof(err));
    if (rc != 0)
        fail_msg("scenario failed to load: %s", err);
    assert_non_null(s);
    return s;
}

/* ---------------------------------------------------------- error table */

struct err_case {
    const char *text;
    const char *expect; /* prefix of the message */
};

static const struct err_case err_cases[] = {
    {"[machine]\ngpus = 1\n[gpu]\nmodel = H100-SXM5-80GB\n[bogus]\nx = 1\n",
     "t.ini:5: unknown section [bogus]"},
    {"[machine]\ncolour = red\n", "t.ini:2: unknown key 'colour' in [machine]"},
    {"[machine]\nnvlink = mesh\n[gpu.0]\nmodel = L40S\n",
     "t.ini:2: bad value 'mesh' for 'nvlink' (expected nvswitch or none)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nfrobnicate = 3\n", "t.ini:3: unknown key 'frobnicate'"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nnvlink_down = 3,18\n",
     "t.ini:3: nvlink_down: bad link '18' (expected link numbers 0-17 such as 3,7, or none)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nnvlink_down = -1\n", "t.ini:3: nvlink_down: bad link '-1'"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nnvlink_down = 2x\n", "t.ini:3: nvlink_down: bad link '2x'"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nutil = 150\n",
     "t.ini:3: bad value '150' for 'util' (expected a percentage from 0 to 100)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nmemory_total = lots\n",
     "t.ini:3: bad value 'lots' for 'memory_total'"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nleak_rate = 20MiB\n",
     "t.ini:3: bad value '20MiB' for 'leak_rate'"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = sprint\n",
     "t.ini:3: bad value 'sprint' for 'workload'"},
    {"[gpu.0]\nname = x\n", "t.ini:1: gpu 0: missing required key 'model'"},
    {"[gpu.0]\nmodel = GTX-480\n", "t.ini:2: unknown model 'GTX-480' (known: H100-SXM5-80GB"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\n[gpu.1]\nmodel = H100-SXM5-80GB\n[gpu.01]\n",
     "t.ini:5: duplicate gpu index 1: [gpu.01] and [gpu.1] (line 3)"},
    {"[gpu.0]\nmodel = L40S\n[gpu.2]\nmodel = L40S\n", "t.ini:3: [gpu.1] is missing"},
    {"[machine]\ngpus = 2\n[gpu]\nmodel = L40S\n[gpu.2]\n", "t.ini:5: [gpu.2] is out of range"},
    {"[gpu.0]\nmodel = L40S\nutil = 1\nutil = 2\n",
     "t.ini:4: duplicate key 'util' in [gpu.0] (first at line 3)"},
    {"util = 5\n[gpu.0]\nmodel = L40S\n", "t.ini:1: key 'util' outside any section"},
    {"[gpu.0]\nmodel = L40S\nthis line has no equals sign\n", "t.ini:3: syntax error"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 3\npid = 5\n",
     "t.ini:4: gpu 3 does not exist (the scenario has 1 GPU)"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\n",
     "t.ini:3: [process.a]: missing required key 'pid'"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\npid = 7\n",
     "t.ini:3: [process.a]: missing required key 'gpu'"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 0\n", "t.ini:5: bad value '0' for 'pid'"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = ${GS_TEST_SURELY_UNSET}\n",
     "t.ini:5: pid: environment variable GS_TEST_SURELY_UNSET is not set"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 5\nused_memory = 900GiB\n",
     "t.ini: processes on gpu 0 hold"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 5\nstart = 10\nend = 5\n",
     "t.ini:3: [process.a]: end (5 s) must be after start (10 s)"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = meltdown\n",
     "t.ini:4: bad value 'meltdown' for 'type' (expected driver_not_loaded, version_mismatch"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\nat = 5\n",
     "t.ini:3: [fault.f]: missing required key 'type'"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = hang\ncall = nvmlDeviceGetName\n",
     "t.ini:3: [fault.f]: missing required key 'seconds'"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = hang\ncall = nvmlDeviceGetWarpDrive\nseconds = 1\n",
     "t.ini:5: bad value 'nvmlDeviceGetWarpDrive' for 'call'"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = xid\ngpu = 0\nxid = 79\nuntil = 9\n",
     "t.ini:7: key 'until' does not apply to a fault of type xid"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = gpu_lost\nat = 50\nuntil = 40\n",
     "t.ini:3: [fault.f]: until (40 s) must be after at (50 s)"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = xid\ngpu = 0\n",
     "t.ini:3: [fault.f]: missing required key 'xid'"},
    {"[gpu.0]\nmodel = L40S\necc = off\n[fault.f]\ntype = ecc\ngpu = 0\ncorrected = 1\n",
     "t.ini:4: [fault.f]: gpu 0 has ECC disabled"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = driver_not_loaded\ngpu = 0\n",
     "t.ini:5: key 'gpu' does not apply to a fault of type driver_not_loaded"},
    {"[gpu.0]\nmodel = RTX-4090\necc = on\n", "t.ini:3: gpu 0: model RTX-4090 has no ECC memory"},
    {"[gpu.0]\nmodel = L40S\nmig = 1g.10gb\n", "t.ini:3: gpu 0: model L40S does not support MIG"},
    {"[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 5g.50gb\n", "t.ini:3: mig: bad profile '5g.50gb'"},
    {"[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 4g.40gb,4g.40gb\n",
     "t.ini:3: mig: profiles use more than the GPU's 7 slices"},
    /* Profiles are the board's (sim/mig.c) and must fit its placements. */
    {"[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 1g.12gb\n",
     "t.ini:3: gpu 0: mig: '1g.12gb' is not a GPU instance profile of A100-SXM4-80GB (1g.10gb, "
     "1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nmig = 3g.40gb,3g.40gb,1g.10gb\n",
     "t.ini:3: gpu 0: mig: the profiles do not fit the GPU's 8 memory slices"},
    {"[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 1g.20gb,1g.20gb,1g.20gb,1g.20gb,1g.20gb\n",
     "t.ini:3: gpu 0: mig: A100-SXM4-80GB has at most 4 GPU instance(s) of profile 1g.20gb"},
    {"[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 1g.10gb+me,1g.10gb+me\n",
     "t.ini:3: gpu 0: mig: A100-SXM4-80GB has at most 1 GPU instance(s) of profile 1g.10gb+me"},
    {"[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 2g.20gb+me\n",
     "t.ini:3: mig: bad profile '2g.20gb+me' (expected profiles such as"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\npower_limit = 900W\n",
     "t.ini:3: gpu 0: power_limit 900 W is outside the board's range 200-700 W"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = thermal\ncooling = 5\n",
     "t.ini:4: gpu 0: workload thermal never reaches temp_slowdown"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = powercap\npower_demand = 90%\n",
     "t.ini:4: gpu 0: workload powercap needs power_demand above power_limit"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nunsupported = nvmlDeviceGetFanSpeed, nvmlFly\n",
     "t.ini:3: unsupported: unknown NVML function or field 'nvmlFly'"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nunsupported = nvmlInit_v2\n",
     "t.ini:3: unsupported: 'nvmlInit_v2' does not take a device handle"},
    {"[machine]\ncuda_version = twelve\n", "t.ini:2: bad value 'twelve' for 'cuda_version'"},
    {"[machine]\ndriver_version = 1\n", "t.ini: no GPUs"},
    {"[gpu.0]\nmodel = L40S\npci_bus_id = 00000000:18:00.0\n[gpu.1]\nmodel = L40S\n"
     "pci_bus_id = 18:00.0\n",
     "t.ini:6: gpu 1 has the same PCI bus id as gpu 0"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\n[process.b]\ngpu = 0\npid = 9\n",
     "t.ini: [process.a] and [process.b] both use pid 9"},
    {"[gpu.0]\nmodel = A100-SXM4-80GB\n[process.a]\ngpu = 0\npid = 9\nmig = 0\n",
     "t.ini:6: gpu 0 has MIG disabled"},
    /* count: many processes from one section (pids pid .. pid + count - 1) */
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\ncount = 0\n",
     "t.ini:6: bad value '0' for 'count' (expected a number of processes from 1 to 100000)"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\ncount = 100001\n",
     "t.ini:6: bad value '100001' for 'count'"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 4294967290\ncount = 7\n",
     "t.ini:3: [process.a]: pids 4294967290 to 4294967296 go past 4294967295"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 100\ncount = 50\n"
     "[process.b]\ngpu = 0\npid = 149\n",
     "t.ini: [process.a] and [process.b] both use pid 149 on the same GPU"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 100\ncount = 1000\n"
     "used_memory = 100MiB\n",
     "t.ini: processes on gpu 0 hold 100000 MiB"},
    /* the first clash in file order is the one reported */
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 20\n[process.b]\ngpu = 0\npid = 10\n"
     "[process.c]\ngpu = 0\npid = 20\n[process.d]\ngpu = 0\npid = 10\n",
     "t.ini: [process.a] and [process.c] both use pid 20"},
    {"[gpu.0]\nmodel = L40S\nname = "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "x"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "x"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
     "t.ini:3: line too long"},
    {"[gpu.0]\nmodel = L40S\nname = "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xx"
     "xxxxxxxxxxxxxxxxxxxxxxxx\n",
     "t.ini:3: value of 'name' too long (at most 95 characters)"},
    /* string escapes: \xHH (01-ff) and \\ only */
    {"[gpu.0]\nmodel = L40S\nname = a\\qb\n", "t.ini:3: bad escape in 'name'"},
    /* knobs of the Insight issue */
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\nheartbeat_floor = lots\n",
     "t.ini:4: bad value 'lots' for 'heartbeat_floor' (expected a percentage from 0 to 100)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\nutil = 50\nheartbeat_floor = 60\n",
     "t.ini:5: gpu 0: heartbeat_floor (60 %) must be below util (50 %)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nutil_noise = -1\n",
     "t.ini:3: bad value '-1' for 'util_noise' (expected a percentage from 0 to 100)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\napp_clock_graphics = 2500\n",
     "t.ini:3: gpu 0: app_clock_graphics (2500 MHz) must be between the idle clock (345 MHz) and "
     "max_clock_graphics (1980 MHz)"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\napp_clock_mem = fast\n",
     "t.ini:3: bad value 'fast' for 'app_clock_mem'"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\npcie_gen_current = 7\n",
     "t.ini:3: bad value '7' for 'pcie_gen_current' (expected a PCIe generation from 1 to 6)"},
    {"[gpu.0]\nmodel = A100-SXM4-80GB\npcie_gen_current = 5\n",
     "t.ini:3: gpu 0: pcie_gen_current (5) is above pcie_gen (4)"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = hw_slowdown\npower_brake = maybe\n",
     "t.ini:5: bad value 'maybe' for 'power_brake' (expected on or off)"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = gpu_lost\npower_brake = on\n",
     "t.ini:5: key 'power_brake' does not apply to a fault of type gpu_lost"},
    {"[gpu.0]\nmodel = L40S\n[fault.f]\ntype = hw_slowdown\ngpu = 1\n",
     "t.ini:5: gpu 1 does not exist"},
    {"[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = thermal\ncooling = 0.5\napp_clock_graphics = "
     "600\n",
     "t.ini:4: gpu 0: workload thermal never reaches temp_slowdown"},
    {"[gpu.0]\nmodel = L40S\nworkload = warp\n",
     "t.ini:3: bad value 'warp' for 'workload' (expected idle, steady, heartbeat, ramp, leak, "
     "thermal, powercap, lowintensity, membound, transfer, encode, decode or inference)"},
    {"[gpu.0]\nmodel = L40S\nvbios = a\\x00b\n", "t.ini:3: bad escape in 'vbios'"},
    {"[gpu.0]\nmodel = L40S\nname = a\\x4\n", "t.ini:3: bad escape in 'name'"},
    {"[gpu.0]\nmodel = L40S\nname = a\\\n", "t.ini:3: bad escape in 'name'"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\nname = \\xg0\n",
     "t.ini:6: bad escape in 'name'"},
    /* the host side of a process (sim/hostside.c) */
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\ncpu = lots\n",
     "t.ini:6: bad value 'lots' for 'cpu' (expected a CPU use in % of one core, 0 to 6400"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\nworkers = 65\n",
     "t.ini:6: bad value '65' for 'workers' (expected a number of worker processes from 0 to 64)"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\niowait = 120%\n",
     "t.ini:6: bad value '120%' for 'iowait' (expected a percentage from 0 to 100)"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\nthreads = 3\n",
     "t.ini:6: unknown key 'threads' in [process.a] (expected gpu, pid, pid_file, count, type, "
     "name, used_memory, sm_util, mem_util, start, end, mig, alive, cpu, rss, cmdline, or the "
     "host side: workers, worker_cpu, iowait, psi_cpu, psi_io)"},
    {"[machine]\nstart = soon\n[gpu.0]\nmodel = L40S\n",
     "t.ini:2: bad value 'soon' for 'start' (expected a scenario time such as 600s, 10min or 1h)"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\nalive = maybe\n",
     "t.ini:6: bad value 'maybe' for 'alive' (expected yes or no)"},
    /* one cpu key for the /proc view and the host side: up to 64 cores */
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\ncpu = 6401\n",
     "t.ini:6: bad value '6401' for 'cpu' (expected a CPU use in % of one core, 0 to 6400"},
    {"[gpu.0]\nmodel = L40S\n[process.a]\ngpu = 0\npid = 9\nrss = lots\n",
     "t.ini:6: bad value 'lots' for 'rss' (expected a size such as 2GiB)"},
};

static void test_error_messages(void **state)
{
    (void)state;
    unsetenv("GS_TEST_SURELY_UNSET");
    for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
        struct gs_scenario *s = (struct gs_scenario *)1;
        char err[600] = "";
        int rc = gs_scenario_parse_string("t.ini", err_cases[i].text, &s, err, sizeof(err));
        if (rc == 0 || s != NULL || strncmp(err, err_cases[i].expect, strlen(err_cases[i].expect)))
            fail_msg("case %zu: expected '%s...', got rc=%d '%s'", i, err_cases[i].expect, rc, err);
    }
}

/* The host around the GPUs (sim/topo.c): sockets and NUMA nodes by GPU
 * count, PCIe levels, CPU numbering, NVLink only with nvlink = nvswitch on
 * SXM boards. */
static void test_topology(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[machine]\ngpus = 8\nnvlink = nvswitch\n"
                                    "[gpu]\nmodel = H100-SXM5-80GB\n[gpu.7]\nmodel = L40S\n");
    assert_int_equal(gs_topo_sockets(s), 2);
    assert_int_equal(gs_topo_cpus(s), 224);
    assert_int_equal(gs_topo_numa(s, 3), 0);
    assert_int_equal(gs_topo_numa(s, 4), 1);
    assert_int_equal(gs_topo_cpu_node(s, 55), 0);
    assert_int_equal(gs_topo_cpu_node(s, 56), 1);
    assert_int_equal(gs_topo_cpu_node(s, 112), 0); /* second thread of core 0 */
    assert_int_equal(gs_topo_cpu_node(s, 223), 1);
    assert_int_equal(gs_topo_level(s, 2, 2), 0);
    assert_int_equal(gs_topo_level(s, 2, 3), 20); /* one PCIe switch */
    assert_int_equal(gs_topo_level(s, 0, 3), 40); /* same socket */
    assert_int_equal(gs_topo_level(s, 0, 4), 50); /* across sockets */
    assert_int_equal(gs_nvlinks(s, 0), 18);
    assert_int_equal(gs_nvlinks(s, 7), 0); /* a PCIe card has no NVLink */
    assert_int_equal(gs_nvlinks(s, 8), 0); /* no such GPU */
    assert_int_equal(gs_nvlink_version(&s->gpus[0]), 4);
    assert_int_equal(s->gpus[0].nvlink_down, 0); /* every link up */
    gs_scenario_free(s);

    /* links down: [gpu] for all, [gpu.N] replaces the list */
    s = load_ok("[machine]\ngpus = 3\nnvlink = nvswitch\n[gpu]\nmodel = H100-SXM5-80GB\n"
                "nvlink_down = 0,17\n[gpu.1]\nnvlink_down = 5\n[gpu.2]\nnvlink_down = none\n");
    assert_int_equal(s->gpus[0].nvlink_down, (1u << 0) | (1u << 17));
    assert_int_equal(s->gpus[1].nvlink_down, 1u << 5);
    assert_int_equal(s->gpus[2].nvlink_down, 0);
    gs_scenario_free(s);

    s = load_ok("[gpu.0]\nmodel = A100-SXM4-80GB\n[gpu.1]\nmodel = V100-SXM2-32GB\n");
    assert_false(s->nvswitch);
    assert_int_equal(gs_topo_sockets(s), 1);
    assert_int_equal(gs_topo_cpus(s), 32);
    assert_int_equal(gs_topo_level(s, 0, 1), 30); /* host bridge */
    assert_int_equal(gs_nvlinks(s, 0), 0);        /* PCIe only without nvswitch */
    assert_int_equal(gs_nvlink_version(&s->gpus[1]), 2);
    gs_scenario_free(s);

    s = load_ok("[machine]\nnvlink = nvswitch\n[gpu.0]\nmodel = A100-SXM4-80GB\n"
                "[gpu.1]\nmodel = V100-SXM2-32GB\n");
    assert_int_equal(gs_nvlinks(s, 0), 12);
    assert_int_equal(gs_nvlinks(s, 1), 6);
    gs_scenario_free(s);
}

static void test_missing_file(void **state)
{
    struct gs_scenario *s;
    char err[600];
    (void)state;
    assert_int_equal(gs_scenario_load("/nonexistent/x.ini", &s, err, sizeof(err)), -1);
    assert_null(s);
    assert_string_equal(err, "/nonexistent/x.ini: cannot open scenario: No such file or directory");
}

/* ------------------------------------------------- GPUSIM_FAIL rules */

/* (GPUSIM_FAIL text, what it parses to): the rules as "FN@GPU:FIRST-LAST:CODE"
 * joined by blanks (GPU -1 for none, LAST 0 for no end), or the exact error. */
struct fail_case {
    const char *text;
    const char *rules; /* NULL: an error is expected */
    const char *error;
};

static const struct fail_case fail_cases[] = {
    {"", "", NULL},
    {"   ", "", NULL},
    {"nvmlDeviceGetPowerUsage:3:NVML_ERROR_UNKNOWN", "nvmlDeviceGetPowerUsage@-1:3-3:999", NULL},
    {"nvmlDeviceGetPowerUsage:3+:UNKNOWN", "nvmlDeviceGetPowerUsage@-1:3-0:999", NULL},
    {"nvmlDeviceGetPowerUsage@2:*:not_supported", "nvmlDeviceGetPowerUsage@2:1-0:3", NULL},
    {"nvmlDeviceGetPowerUsage@0:1:Gpu_Is_Lost", "nvmlDeviceGetPowerUsage@0:1-1:15", NULL},
    {" nvmlDeviceGetName@3:2:NO_PERMISSION ,\tnvmlDeviceGetCount_v2:1+:DRIVER_NOT_LOADED ",
     "nvmlDeviceGetName@3:2-2:4 nvmlDeviceGetCount_v2@-1:1-0:9", NULL},
    {"nvmlSystemGetDriverVersion:1000000000000:TIMEOUT",
     "nvmlSystemGetDriverVersion@-1:1000000000000-1000000000000:10", NULL},
    {"nvmlDeviceGetPowerUsage", NULL,
     "GPUSIM_FAIL: bad rule 'nvmlDeviceGetPowerUsage' (expected FUNCTION[@GPU]:N|N+|*:CODE, e.g. "
     "nvmlDeviceGetPowerUsage@2:3+:UNKNOWN)"},
    {"nvmlDeviceGetPowerUsage:3", NULL,
     "GPUSIM_FAIL: bad rule 'nvmlDeviceGetPowerUsage:3' (expected FUNCTION[@GPU]:N|N+|*:CODE, "
     "e.g. nvmlDeviceGetPowerUsage@2:3+:UNKNOWN)"},
    {"nvmlDeviceGetPowerUsage:3:UNKNOWN:x", NULL,
     "GPUSIM_FAIL: bad rule 'nvmlDeviceGetPowerUsage:3:UNKNOWN:x' (expected "
     "FUNCTION[@GPU]:N|N+|*:CODE, e.g. nvmlDeviceGetPowerUsage@2:3+:UNKNOWN)"},
    {":3:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad rule ':3:UNKNOWN' (expected FUNCTION[@GPU]:N|N+|*:CODE, e.g. "
     "nvmlDeviceGetPowerUsage@2:3+:UNKNOWN)"},
    {"nvmlDeviceGetPowerUsage:3:", NULL,
     "GPUSIM_FAIL: bad rule 'nvmlDeviceGetPowerUsage:3:' (expected FUNCTION[@GPU]:N|N+|*:CODE, "
     "e.g. nvmlDeviceGetPowerUsage@2:3+:UNKNOWN)"},
    {"nvmlDeviceGetPowerUsage:0:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad call number '0' in rule 'nvmlDeviceGetPowerUsage:0:UNKNOWN' (N for the "
     "N-th call only, N+ for the N-th and later ones, * for every call; N from 1)"},
    {"nvmlDeviceGetPowerUsage::UNKNOWN", NULL,
     "GPUSIM_FAIL: bad call number '' in rule 'nvmlDeviceGetPowerUsage::UNKNOWN' (N for the N-th "
     "call only, N+ for the N-th and later ones, * for every call; N from 1)"},
    {"nvmlDeviceGetPowerUsage:+:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad call number '+' in rule 'nvmlDeviceGetPowerUsage:+:UNKNOWN' (N for the "
     "N-th call only, N+ for the N-th and later ones, * for every call; N from 1)"},
    {"nvmlDeviceGetPowerUsage:-1:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad call number '-1' in rule 'nvmlDeviceGetPowerUsage:-1:UNKNOWN' (N for the "
     "N-th call only, N+ for the N-th and later ones, * for every call; N from 1)"},
    {"nvmlDeviceGetPowerUsage:2-4:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad call number '2-4' in rule 'nvmlDeviceGetPowerUsage:2-4:UNKNOWN' (N for the "
     "N-th call only, N+ for the N-th and later ones, * for every call; N from 1)"},
    {"nvmlDeviceGetPowerUsage:10000000000000:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad call number '10000000000000' in rule "
     "'nvmlDeviceGetPowerUsage:10000000000000:UNKNOWN' (N for the N-th call only, N+ for the N-th "
     "and later ones, * for every call; N from 1)"},
    {"nvmlDeviceGetPowerUsage:**:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad call number '**' in rule 'nvmlDeviceGetPowerUsage:**:UNKNOWN' (N for the "
     "N-th call only, N+ for the N-th and later ones, * for every call; N from 1)"},
    {"nvmlDeviceGetPowerUse:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: unknown function 'nvmlDeviceGetPowerUse' in rule "
     "'nvmlDeviceGetPowerUse:1:UNKNOWN' (the exported functions are listed in docs/simulator.md)"},
    {"nvmldevicegetpowerusage:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: unknown function 'nvmldevicegetpowerusage' in rule "
     "'nvmldevicegetpowerusage:1:UNKNOWN' (the exported functions are listed in "
     "docs/simulator.md)"},
    {"NVML_FI_DEV_ENERGY:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: unknown function 'NVML_FI_DEV_ENERGY' in rule 'NVML_FI_DEV_ENERGY:1:UNKNOWN' "
     "(the exported functions are listed in docs/simulator.md)"},
    {"nvmlInit_v2:1:DRIVER_NOT_LOADED", NULL,
     "GPUSIM_FAIL: nvmlInit_v2 cannot be failed (rule 'nvmlInit_v2:1:DRIVER_NOT_LOADED'): calls "
     "are counted inside a session; for an init that fails use a driver_not_loaded fault"},
    {"nvmlShutdown:*:UNKNOWN", NULL,
     "GPUSIM_FAIL: nvmlShutdown cannot be failed (rule 'nvmlShutdown:*:UNKNOWN'): calls are "
     "counted inside a session; for an init that fails use a driver_not_loaded fault"},
    {"nvmlErrorString:*:UNKNOWN", NULL,
     "GPUSIM_FAIL: nvmlErrorString cannot be failed (rule 'nvmlErrorString:*:UNKNOWN'): calls are "
     "counted inside a session; for an init that fails use a driver_not_loaded fault"},
    {"nvmlDeviceGetPowerUsage@4:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: no GPU 4 in rule 'nvmlDeviceGetPowerUsage@4:1:UNKNOWN' (the scenario has 4)"},
    {"nvmlDeviceGetPowerUsage@x:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad GPU '@x' in rule 'nvmlDeviceGetPowerUsage@x:1:UNKNOWN' (a GPU index)"},
    {"nvmlDeviceGetPowerUsage@:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad GPU '@' in rule 'nvmlDeviceGetPowerUsage@:1:UNKNOWN' (a GPU index)"},
    {"nvmlDeviceGetPowerUsage@-1:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: bad GPU '@-1' in rule 'nvmlDeviceGetPowerUsage@-1:1:UNKNOWN' (a GPU index)"},
    {"nvmlDeviceGetPowerUsage:1:BROKEN", NULL,
     "GPUSIM_FAIL: unknown return code 'BROKEN' in rule 'nvmlDeviceGetPowerUsage:1:BROKEN' (an "
     "nvmlReturn_t name such as NVML_ERROR_UNKNOWN or NOT_SUPPORTED)"},
    {"nvmlDeviceGetPowerUsage:1:999", NULL,
     "GPUSIM_FAIL: unknown return code '999' in rule 'nvmlDeviceGetPowerUsage:1:999' (an "
     "nvmlReturn_t name such as NVML_ERROR_UNKNOWN or NOT_SUPPORTED)"},
    {"nvmlDeviceGetPowerUsage:1:NVML_SUCCESS", NULL,
     "GPUSIM_FAIL: 'NVML_SUCCESS' in rule 'nvmlDeviceGetPowerUsage:1:NVML_SUCCESS' is not a "
     "failure"},
    {"nvmlDeviceGetPowerUsage:1:success", NULL,
     "GPUSIM_FAIL: 'success' in rule 'nvmlDeviceGetPowerUsage:1:success' is not a failure"},
    {"nvmlDeviceGetPowerUsage:1:UNKNOWN,", NULL,
     "GPUSIM_FAIL: an empty rule in 'nvmlDeviceGetPowerUsage:1:UNKNOWN,' (rules are separated by "
     "one comma)"},
    {"nvmlDeviceGetPowerUsage:1:UNKNOWN,,nvmlDeviceGetName:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: an empty rule in 'nvmlDeviceGetPowerUsage:1:UNKNOWN,,nvmlDeviceGetName:1:"
     "UNKNOWN' (rules are separated by one comma)"},
    {",nvmlDeviceGetPowerUsage:1:UNKNOWN", NULL,
     "GPUSIM_FAIL: an empty rule in ',nvmlDeviceGetPowerUsage:1:UNKNOWN' (rules are separated by "
     "one comma)"},
    /* the second rule is the bad one: the message quotes it */
    {"nvmlDeviceGetName:1:UNKNOWN, nvmlDeviceGetName:1:UNKNOWNN", NULL,
     "GPUSIM_FAIL: unknown return code 'UNKNOWNN' in rule 'nvmlDeviceGetName:1:UNKNOWNN' (an "
     "nvmlReturn_t name such as NVML_ERROR_UNKNOWN or NOT_SUPPORTED)"},
};

static void fail_rules_text(const struct gs_fail *f, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < f->n && n < len; i++) {
        const struct gs_fail_rule *r = &f->rule[i];
        n += (size_t)snprintf(out + n, len - n, "%s%s@%d:%llu-%llu:%d", i ? " " : "",
                              gs_names[r->fn].name, r->gpu, r->first, r->last, (int)r->code);
    }
}

static void test_fail_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(fail_cases) / sizeof(fail_cases[0]); i++) {
        const struct fail_case *c = &fail_cases[i];
        struct gs_fail f;
        char err[600] = "", got[1024];
        int rc = gs_fail_parse(c->text, 4, &f, err, sizeof(err));
        fail_rules_text(&f, got, sizeof(got));
        if (c->rules && (rc != 0 || strcmp(got, c->rules) != 0))
            fail_msg("case %zu '%s': rc %d, rules '%s' (error '%s'), want '%s'", i, c->text, rc,
                     got, err, c->rules);
        if (!c->rules && (rc != -1 || f.n != 0 || strcmp(err, c->error) != 0))
            fail_msg("case %zu '%s': rc %d, %zu rules, error\n  '%s'\nwant\n  '%s'", i, c->text, rc,
                     f.n, err, c->error);
    }
    /* NULL (GPUSIM_FAIL unset) is no rule; 64 rules fit, 65 do not */
    struct gs_fail f;
    char err[600], many[65 * 40];
    assert_int_equal(gs_fail_parse(NULL, 4, &f, err, sizeof(err)), 0);
    assert_int_equal(f.n, 0);
    size_t n = 0;
    for (int i = 0; i < 65; i++)
        n += (size_t)snprintf(many + n, sizeof(many) - n, "%snvmlDeviceGetName:%d:UNKNOWN",
                              i ? "," : "", i + 1);
    assert_int_equal(gs_fail_parse(many, 4, &f, err, sizeof(err)), -1);
    assert_string_equal(err, "GPUSIM_FAIL: more than 64 rules");
    *strrchr(many, ',') = '\0';
    assert_int_equal(gs_fail_parse(many, 4, &f, err, sizeof(err)), 0);
    assert_int_equal(f.n, 64);
    /* a rule longer than 255 characters is refused, quoted in part */
    char longname[300];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_int_equal(gs_fail_parse(longname, 4, &f, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "GPUSIM_FAIL: rule 'xxxxxxxx"));
    assert_non_null(strstr(err, "...' is too long"));
}

/* (rules, calls as "FN@GPU" or "FN" for no GPU, the code each call gets). */
struct count_case {
    const char *rules;
    const char *calls[8];
    nvmlReturn_t want[8];
};

#define PU "nvmlDeviceGetPowerUsage"
#define NM "nvmlDeviceGetName"
static const struct count_case count_cases[] = {
    /* the N-th call only */
    {PU ":3:UNKNOWN",
     {PU "@0", PU "@1", PU "@2", PU "@0", PU "@1"},
     {0, 0, NVML_ERROR_UNKNOWN, 0, 0}},
    /* from the N-th on */
    {PU ":2+:NOT_SUPPORTED",
     {PU "@0", PU "@0", PU "@0", PU "@3"},
     {0, NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED}},
    /* every call; other functions untouched and not counted */
    {PU ":*:NO_PERMISSION",
     {PU "@0", NM "@0", PU "@1", "nvmlSystemGetDriverVersion"},
     {NVML_ERROR_NO_PERMISSION, 0, NVML_ERROR_NO_PERMISSION, 0}},
    /* a GPU filter counts that GPU's calls only (not GPU-less ones) */
    {PU "@2:2:GPU_IS_LOST",
     {PU "@2", PU "@1", PU "@1", PU, PU "@2", PU "@2"},
     {0, 0, 0, 0, NVML_ERROR_GPU_IS_LOST, 0}},
    /* without a filter, GPU-less calls count too */
    {"nvmlDeviceGetCount_v2:2:DRIVER_NOT_LOADED",
     {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"},
     {0, NVML_ERROR_DRIVER_NOT_LOADED, 0}},
    /* each rule counts on its own; the first rule that fires gives the code */
    {NM ":2:UNKNOWN," NM "@1:1+:NOT_SUPPORTED",
     {NM "@0", NM "@1", NM "@0", NM "@1"},
     {0, NVML_ERROR_UNKNOWN, 0, NVML_ERROR_NOT_SUPPORTED}},
    {NM "@1:1+:NOT_SUPPORTED," NM ":2:UNKNOWN",
     {NM "@0", NM "@1", NM "@0"},
     {0, NVML_ERROR_NOT_SUPPORTED, 0}},
    /* two rules for the same calls */
    {PU ":1:UNKNOWN," PU ":2:TIMEOUT",
     {PU "@0", PU "@0", PU "@0"},
     {NVML_ERROR_UNKNOWN, NVML_ERROR_TIMEOUT, 0}},
};
#undef PU
#undef NM

static void test_fail_counting(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(count_cases) / sizeof(count_cases[0]); i++) {
        const struct count_case *c = &count_cases[i];
        struct gs_fail f;
        char err[600];
        if (gs_fail_parse(c->rules, 4, &f, err, sizeof(err)) != 0)
            fail_msg("case %zu: %s", i, err);
        for (size_t k = 0; k < 8 && c->calls[k]; k++) {
            char fn[96];
            snprintf(fn, sizeof(fn), "%s", c->calls[k]);
            char *at = strchr(fn, '@');
            int gpu = GS_NO_GPU;
            if (at) {
                *at = '\0';
                gpu = atoi(at + 1);
            }
            int idx = gs_name_index(fn);
            assert_true(idx >= 0);
            nvmlReturn_t got = gs_fail_call(&f, idx, gpu);
            if (got != c->want[k])
                fail_msg("case %zu (%s), call %zu %s: got %d, want %d", i, c->rules, k, c->calls[k],
                         got, c->want[k]);
        }
    }
    assert_string_equal(gs_return_name(NVML_ERROR_GPU_IS_LOST), "NVML_ERROR_GPU_IS_LOST");
    assert_string_equal(gs_return_name(NVML_SUCCESS), "NVML_SUCCESS");
    assert_null(gs_return_name((nvmlReturn_t)12345));
}

/* ------------------------------------------------------- defaults, presets */

static void test_defaults_and_presets(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[machine]\ngpus = 2\n"
                                    "[gpu]\nmodel = H100-SXM5-80GB\n"
                                    "[gpu.1]\nmodel = RTX-4090\nname = Custom Board\n"
                                    "memory_total = 48GiB\npower_limit = 400W\n");
    assert_string_equal(s->driver_version, "550.54.15");
    assert_int_equal(s->cuda_version, 12040);
    assert_string_equal(s->nvml_version, "12.550.54.15");
    assert_int_equal(s->ngpus, 2);

    const struct gs_gpu *h = &s->gpus[0], *r = &s->gpus[1];
    assert_string_equal(h->name, "NVIDIA H100 80GB HBM3");
    assert_true(h->power_limit == 700 && h->power_default == 700);
    assert_int_equal(h->clock_max[NVML_CLOCK_SM], 1980);
    assert_int_equal(h->temp_slowdown, 89);
    assert_int_equal(h->arch, GS_ARCH_HOPPER);
    assert_true(h->ecc && h->ecc_capable && h->mig_capable && h->persistence);
    assert_int_equal(h->fans, 0);
    assert_int_equal(h->pci_device_id, 0x233010DEu);
    assert_int_equal(h->pcie_gen, 5);
    assert_int_equal(h->wl.kind, GS_WL_IDLE);
    assert_memory_equal(h->uuid, "GPU-", 4);
    assert_int_equal(strlen(h->uuid), 40);
    assert_int_equal(strlen(h->serial), 13);

    assert_string_equal(r->name, "Custom Board");
    assert_true(r->mem_total == 48ULL << 30);
    assert_true(r->power_limit == 400 && r->power_default == 450);
    assert_true(r->fans == 2 && r->display_active && r->display_mode && !r->ecc_capable);
    assert_string_equal(r->serial, ""); /* GeForce: not reported */
    assert_int_equal(r->brand, GS_BRAND_GEFORCE);
    assert_string_not_equal(h->uuid, r->uuid);
    assert_int_not_equal(h->pci_bus, r->pci_bus);
    gs_scenario_free(s);

    s = load_ok("[machine]\ncuda_version = 11.4\ndriver_version = 470.1\n"
                "[gpu.0]\nmodel = v100-sxm2-32gb\n");
    assert_int_equal(s->cuda_version, 11040);
    assert_string_equal(s->nvml_version, "11.470.1");
    assert_string_equal(s->gpus[0].name, "Tesla V100-SXM2-32GB");
    gs_scenario_free(s);
}

static void test_mig_and_lists(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 3g.40gb, 2g.20gb ,1g.10gb\n"
                "unsupported = nvmlDeviceGetFanSpeed,\n    NVML_FI_DEV_MEMORY_TEMP\n"
                "[process.p]\ngpu = 0\npid = 10\nmig = 2\nused_memory = 1GiB\n");
    const struct gs_gpu *g = &s->gpus[0];
    assert_int_equal(g->nmig, 3);
    assert_string_equal(g->mig[0].name, "NVIDIA A100-SXM4-80GB MIG 3g.40gb");
    assert_string_equal(g->mig[2].name, "NVIDIA A100-SXM4-80GB MIG 1g.10gb");
    assert_memory_equal(g->mig[1].uuid, "MIG-", 4);
    assert_int_equal(g->mig[0].gi_id, 1);
    assert_int_equal(g->mig[1].gi_id, 3);
    assert_int_equal(g->mig[2].gi_id, 7);
    assert_true(g->has_unsupported);
    assert_true(g->unsupported[gs_name_index("nvmlDeviceGetFanSpeed")]);
    assert_true(g->unsupported[gs_field_index(NVML_FI_DEV_MEMORY_TEMP)]);
    assert_false(g->unsupported[gs_name_index("nvmlDeviceGetName")]);
    assert_int_equal(s->procs[0].mig, 2);
    gs_scenario_free(s);
}

/* count = N stands for N processes with consecutive pids: a GPU under MPS
 * or many-process inference lists hundreds (hardening point 14). */
static void test_process_count(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\n[gpu.1]\nmodel = H100-SXM5-80GB\n"
                "[process.x]\ngpu = 1\npid = 7\n"
                "[process.w]\ngpu = 0,1\npid = 1000\ncount = 300\nname = python3\n"
                "used_memory = 200MiB\n"
                "[process.y]\ngpu = 0\npid = 7\nname = other\n");
    assert_int_equal(s->nprocs, 302);
    assert_int_equal(s->procs[0].pid, 7);
    for (unsigned k = 0; k < 300; k++) {
        const struct gs_process *p = &s->procs[1 + k];
        assert_int_equal(p->pid, 1000 + k);
        assert_string_equal(p->name, "python3");
        assert_string_equal(p->key, "w");
        assert_true(p->gpus == 3);
        assert_true(gs_proc_memory(s, p, 0, 10) == 200ULL << 20);
        assert_ptr_equal(gs_proc_by_pid(s, 1000 + k), p);
    }
    /* the first process with a pid, in file order */
    assert_ptr_equal(gs_proc_by_pid(s, 7), &s->procs[0]);
    assert_null(gs_proc_by_pid(s, 1300));
    assert_null(gs_proc_by_pid(s, 1));
    gs_scenario_free(s);

    /* at the limit: 100000 processes load */
    s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\n"
                "[process.w]\ngpu = 0\npid = 4194400\ncount = 100000\nused_memory = 0\n");
    assert_int_equal(s->nprocs, 100000);
    assert_int_equal(s->procs[99999].pid, 4194400 + 99999);
    assert_ptr_equal(gs_proc_by_pid(s, 4194400 + 5000), &s->procs[5000]);
    gs_scenario_free(s);
}

/* The host side of a process: given keys are kept, the others unknown;
 * a section of several processes gives each the same. */
static void test_process_host(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = L40S\n"
                "[process.a]\ngpu = 0\npid = 9\ncpu = 250%\nworkers = 4\nworker_cpu = 30\n"
                "iowait = 45%\npsi_cpu = 2\npsi_io = 40%\n"
                "[process.b]\ngpu = 0\npid = 20\ncount = 2\nworkers = 0\n"
                "[process.c]\ngpu = 0\npid = 30\n");
    assert_int_equal(s->nprocs, 4);
    const struct gs_host *h = &s->procs[0].host;
    assert_true(h->set);
    /* one cpu: the /proc view's (procview.c) and the host side's */
    assert_true(s->procs[0].cpu == 250 && h->workers == 4 && h->worker_cpu == 30);
    assert_true(h->iowait == 45 && h->psi_cpu == 2 && h->psi_io == 40);
    for (int k = 1; k <= 2; k++) {
        h = &s->procs[k].host;
        assert_true(h->set && h->workers == 0 && isnan(h->iowait));
        assert_true(s->procs[k].cpu == 100); /* the default, as the /proc view's */
    }
    h = &s->procs[3].host;
    assert_false(h->set);
    assert_int_equal(h->workers, -1);
    gs_scenario_free(s);
}

/* The per-call helpers give what the per-process ones give. */
static void test_procs_at(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 3g.40gb, 3g.40gb\n"
                "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\n"
                "[process.a]\ngpu = 0\npid = 10\nmig = 1\n"
                "[process.b]\ngpu = 0\npid = 20\ncount = 3\nused_memory = 1GiB\n"
                "[process.c]\ngpu = 1\npid = 30\ncount = 4\nend = 50\n"
                "[process.d]\ngpu = 1\npid = 40\nsm_util = 30\nused_memory = na\n");
    for (unsigned g = 0; g < 2; g++)
        for (double t = 0; t < 100; t += 3.7) {
            struct gs_procs_at a;
            gs_procs_at(s, g, t, &a);
            for (size_t i = 0; i < s->nprocs; i++) {
                const struct gs_process *p = &s->procs[i];
                unsigned sm1, mem1, sm2, mem2;
                assert_true(gs_proc_memory(s, p, g, t) == gs_proc_memory_at(s, &a, p));
                gs_proc_util(s, p, g, t, &sm1, &mem1);
                gs_proc_util_at(s, &a, p, &sm2, &mem2);
                assert_int_equal(sm1, sm2);
                assert_int_equal(mem1, mem2);
            }
        }
    gs_scenario_free(s);
}

static void test_env_expansion(void **state)
{
    (void)state;
    setenv("GS_TEST_PID", "4242", 1);
    unsetenv("GS_TEST_NOPE");
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = L40S\n"
                                    "[process.a]\ngpu = 0\npid = ${GS_TEST_PID}\n"
                                    "[process.b]\ngpu = 0\npid = ${GS_TEST_NOPE:-77}\n"
                                    "name = job-${GS_TEST_PID}\n");
    assert_int_equal(s->procs[0].pid, 4242);
    assert_int_equal(s->procs[1].pid, 77);
    assert_string_equal(s->procs[1].name, "job-4242");
    assert_string_equal(s->procs[0].name, "a");
    gs_scenario_free(s);

    char out[64], why[128];
    assert_int_equal(
        gs_expand_env("${GS_TEST_PID:-1}x${GS_TEST_PID}", out, sizeof(out), why, sizeof(why)), 0);
    assert_string_equal(out, "4242x4242");
    assert_int_equal(gs_expand_env("${GS_TEST_PID", out, sizeof(out), why, sizeof(why)), -1);
    assert_int_equal(gs_expand_env("${1BAD}", out, sizeof(out), why, sizeof(why)), -1);
    unsetenv("GS_TEST_PID");
}

/* String values decode \xHH and \\ (after ${} expansion), so that a scenario
 * can name a GPU or a process with bytes that are not UTF-8 or are control
 * characters (docs/simulator.md). */
static void test_string_escapes(void **state)
{
    (void)state;
    setenv("GS_TEST_BYTES", "\\x1b", 1);
    struct gs_scenario *s = load_ok("[machine]\ndriver_version = 550\\x2e1\n"
                                    "[gpu.0]\nmodel = L40S\nname = ev\\xff\\xFE\\x0a\\x1b[2Jx\n"
                                    "vbios = 96.00.\\xfe.01\nserial = C:\\\\x41\n"
                                    "[process.a]\ngpu = 0\npid = 9\nname = =cmd${GS_TEST_BYTES}\n");
    assert_string_equal(s->gpus[0].name, "ev\xff\xfe\n\x1b[2Jx");
    assert_string_equal(s->gpus[0].vbios, "96.00.\xfe.01");
    assert_string_equal(s->gpus[0].serial, "C:\\x41"); /* \\ then x41 as written */
    assert_string_equal(s->driver_version, "550.1");
    assert_string_equal(s->procs[0].name, "=cmd\x1b");
    gs_scenario_free(s);
    unsetenv("GS_TEST_BYTES");
}

static void test_value_parsers(void **state)
{
    double d;
    unsigned u;
    bool b;
    (void)state;
    assert_int_equal(gs_parse_size("30GiB", &d), 0);
    assert_true(d == 30 * GIB);
    assert_int_equal(gs_parse_size("1.5 GB", &d), 0);
    assert_true(d == 1.5e9);
    assert_int_equal(gs_parse_size("512", &d), 0);
    assert_true(d == 512);
    assert_int_equal(gs_parse_size("-1MiB", &d), -1);
    assert_int_equal(gs_parse_size("3 parsecs", &d), -1);
    assert_int_equal(gs_parse_rate("20MiB/min", &d), 0);
    assert_true(fabs(d - 20 * MIB / 60) < 1e-6);
    assert_int_equal(gs_parse_rate("1 GiB / h", &d), 0);
    assert_true(fabs(d - GIB / 3600) < 1e-6);
    assert_int_equal(gs_parse_rate("20MiB", &d), -1);
    assert_int_equal(gs_parse_seconds("1.5min", &d), 0);
    assert_true(d == 90);
    assert_int_equal(gs_parse_seconds("500ms", &d), 0);
    assert_true(d == 0.5);
    assert_int_equal(gs_parse_watts("700W", &d), 0);
    assert_true(d == 700);
    assert_int_equal(gs_parse_watts("350000mW", &d), 0);
    assert_true(d == 350);
    assert_int_equal(gs_parse_celsius("89C", &d), 0);
    assert_true(d == 89);
    assert_int_equal(gs_parse_clock("1.98GHz", &u), 0);
    assert_int_equal(u, 1980);
    assert_int_equal(gs_parse_percent("95%", &d), 0);
    assert_true(d == 95);
    assert_int_equal(gs_parse_percent("101", &d), -1);
    assert_int_equal(gs_parse_bool("On", &b), 0);
    assert_true(b);
    assert_int_equal(gs_parse_bool("maybe", &b), -1);
}

/* ------------------------------------------------------------ determinism */

static void test_determinism(void **state)
{
    (void)state;
    const char *text = "[machine]\nseed = 5\ngpus = 2\n[gpu]\nmodel = H100-SXM5-80GB\n"
                       "workload = heartbeat\n";
    struct gs_scenario *a = load_ok(text), *b = load_ok(text);
    for (double t = 0; t < 30; t += 0.37) {
        struct gs_state sa, sb, sa2;
        gs_model_eval(a, 1, t, &sa);
        gs_model_eval(a, 1, t, &sa2);
        gs_model_eval(b, 1, t, &sb);
        assert_memory_equal(&sa, &sa2, sizeof(sa));
        assert_memory_equal(&sa, &sb, sizeof(sa));
    }
    /* Integrals do not depend on the order of queries. */
    double e1, e2, p, th;
    gs_model_integrals(a, 0, 5000.5, &e1, &p, &th);
    gs_model_integrals(a, 0, 1234.25, &e1, &p, &th);
    gs_model_integrals(b, 0, 1234.25, &e2, &p, &th);
    assert_true(e1 == e2);
    assert_string_equal(a->gpus[0].uuid, b->gpus[0].uuid);
    gs_scenario_free(b);

    /* A different seed gives different noise and identity. */
    b = load_ok("[machine]\nseed = 6\ngpus = 2\n[gpu]\nmodel = H100-SXM5-80GB\n"
                "workload = heartbeat\n");
    int differ = 0;
    for (double t = 0; t < 30; t += 0.37) {
        struct gs_state sa, sb;
        gs_model_eval(a, 1, t, &sa);
        gs_model_eval(b, 1, t, &sb);
        differ += sa.util_gpu != sb.util_gpu || sa.power_mw != sb.power_mw;
    }
    assert_true(differ > 10);
    assert_string_not_equal(a->gpus[0].uuid, b->gpus[0].uuid);
    gs_scenario_free(a);
    gs_scenario_free(b);
}

/* ------------------------------------------------------------------ model */

static void test_heartbeat_phases(void **state)
{
    (void)state;
    /* No jitter: 1 s cycles with a 0.5 s burst starting at each cycle. */
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\n"
                                    "util = 97%\nheartbeat_period = 1s\nheartbeat_duty = 0.5\n"
                                    "heartbeat_jitter = 0\n");
    struct gs_state st;
    for (int cycle = 0; cycle < 20; cycle++) {
        gs_model_eval(s, 0, cycle + 0.05, &st);
        assert_in_range(st.util_gpu, 94, 100);
        assert_int_equal(st.pstate, 0);
        gs_model_eval(s, 0, cycle + 0.75, &st);
        assert_int_equal(st.util_gpu, 0);
        assert_true(st.reasons & nvmlClocksEventReasonGpuIdle);
        assert_int_equal(st.pstate, 0); /* the GPU does not drop to P8 between beats */
    }
    gs_scenario_free(s);

    /* The demo's 0.5 s heartbeat (with jitter): a 0.5 s sampler sees both
     * phases, and the average over many samples is near util * duty. */
    s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\nutil = 97%\n"
                "heartbeat_period = 0.5\nheartbeat_duty = 0.35\n");
    int high = 0, low = 0;
    double sum = 0;
    for (int i = 0; i < 600; i++) {
        gs_model_eval(s, 0, 100 + i * 0.5, &st);
        high += st.util_gpu > 90;
        low += st.util_gpu == 0;
        sum += st.util_gpu;
    }
    assert_int_equal(high + low, 600);
    assert_true(high > 100 && low > 200);
    assert_true(fabs(sum / 600 - 97.0 / 3) < 6);
    gs_scenario_free(s);
}

static void test_thermal_clamp(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = thermal\n");
    const struct gs_gpu *g = &s->gpus[0];
    struct gs_state st;

    gs_model_eval(s, 0, 1, &st);
    assert_true(st.temp < 50); /* starts cool */
    assert_false(st.reasons & nvmlClocksEventReasonSwThermalSlowdown);
    unsigned prev = 0;
    for (double t = 0; t < 40; t += 5) { /* heating up, monotonic apart from noise */
        gs_model_eval(s, 0, t, &st);
        assert_true(st.temp + 1 >= prev);
        prev = st.temp;
    }
    for (double t = 120; t < 3600; t += 97) {
        gs_model_eval(s, 0, t, &st);
        assert_true(st.temp <= g->temp_slowdown && st.temp + 1 >= g->temp_slowdown);
        assert_true(st.thermal_limited);
        unsigned long long bits = nvmlClocksEventReasonSwThermalSlowdown |
                                  nvmlClocksThrottleReasonHwThermalSlowdown |
                                  nvmlClocksThrottleReasonHwSlowdown;
        assert_true((st.reasons & bits) == bits);
        assert_false(st.reasons & nvmlClocksEventReasonSwPowerCap);
        assert_true(st.clock[NVML_CLOCK_SM] < 0.7 * g->clock_max[NVML_CLOCK_SM]);
        assert_true(st.clock[NVML_CLOCK_GRAPHICS] < 0.7 * g->clock_max[NVML_CLOCK_GRAPHICS]);
        assert_true(st.power_w < 0.75 * g->wl.power_demand);
        assert_in_range(st.util_gpu, 90, 100);
    }
    double e, pc, th;
    gs_model_integrals(s, 0, 3600, &e, &pc, &th);
    assert_true(th > 3400 && th < 3600);
    assert_true(pc == 0);
    gs_scenario_free(s);
}

static void test_powercap(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = A100-SXM4-80GB\nworkload = powercap\npower_limit = 300W\n");
    const struct gs_gpu *g = &s->gpus[0];
    struct gs_state st;
    for (double t = 0; t < 600; t += 13.7) {
        gs_model_eval(s, 0, t, &st);
        assert_true(st.power_mw <= 300000 && st.power_mw >= 298500);
        assert_true(st.reasons & nvmlClocksEventReasonSwPowerCap);
        assert_true(st.power_capped);
        assert_true(st.clock[NVML_CLOCK_SM] < g->clock_max[NVML_CLOCK_SM]);
        assert_int_equal(st.clock[NVML_CLOCK_MEM], g->clock_max[NVML_CLOCK_MEM]);
    }
    double e, pc, th;
    gs_model_integrals(s, 0, 600, &e, &pc, &th);
    assert_true(pc > 599 && pc <= 600);
    gs_scenario_free(s);
}

static void test_leak_and_idle(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = L40S\nworkload = leak\n"
                                    "memory_used = 4GiB\nleak_rate = 60MiB/min\n"
                                    "[gpu.1]\nmodel = L40S\n");
    struct gs_state a, b, c;
    gs_model_eval(s, 0, 600, &a);
    gs_model_eval(s, 0, 1200, &b);
    gs_model_eval(s, 0, 1800, &c);
    double d1 = (double)b.mem_used - (double)a.mem_used;
    double d2 = (double)c.mem_used - (double)b.mem_used;
    assert_true(fabs(d1 - 600 * MIB) < 1024);
    assert_true(fabs(d1 - d2) < 1024);
    gs_model_eval(s, 0, 1e7, &c); /* capped below the total */
    assert_true(c.mem_used < s->gpus[0].mem_total - s->gpus[0].mem_reserved);
    assert_true(c.mem_used > s->gpus[0].mem_total - s->gpus[0].mem_reserved - 128 * MIB);

    gs_model_eval(s, 1, 42, &a); /* idle */
    assert_int_equal(a.pstate, 8);
    assert_int_equal(a.util_gpu, 0);
    assert_true(a.reasons == nvmlClocksEventReasonGpuIdle);
    assert_int_equal(a.clock[NVML_CLOCK_SM], s->gpus[1].clock_idle[NVML_CLOCK_SM]);
    assert_int_equal(a.pcie_gen_cur, 1);
    assert_true(a.power_w < s->gpus[1].power_idle * 1.05);
    gs_scenario_free(s);
}

/* ------------------------------------------------------- new workloads */

/* Averages over n sample periods from t0: utilisation, memory utilisation,
 * power (W), PCIe RX (B/s) and the GPM SM activity / DRAM activity. */
struct wl_avg {
    double util, mem_util, power, rx, sm, occ, tensor, dram, enc, dec;
    unsigned util_min, util_max, sm_clock_min;
};

static void wl_average(const struct gs_scenario *s, unsigned gpu, double t0, int n,
                       struct wl_avg *a)
{
    memset(a, 0, sizeof(*a));
    a->util_min = 100;
    a->sm_clock_min = 100000;
    for (int i = 0; i < n; i++) {
        double t = t0 + (i + 0.5) / GS_SAMPLE_HZ;
        struct gs_state st;
        struct gs_gpm g;
        gs_model_eval(s, gpu, t, &st);
        gs_model_gpm(s, gpu, -1, t, &g);
        a->util += st.util_gpu;
        a->mem_util += st.util_mem;
        a->power += st.power_w;
        a->rx += st.pcie_rx_kbs * 1024.0;
        a->sm += g.sm;
        a->occ += g.occupancy;
        a->tensor += g.tensor;
        a->dram += g.dram;
        a->enc += st.util_enc;
        a->dec += st.util_dec;
        if (st.util_gpu < a->util_min)
            a->util_min = st.util_gpu;
        if (st.util_gpu > a->util_max)
            a->util_max = st.util_gpu;
        if (st.clock[NVML_CLOCK_SM] < a->sm_clock_min)
            a->sm_clock_min = st.clock[NVML_CLOCK_SM];
    }
    a->util /= n;
    a->mem_util /= n;
    a->power /= n;
    a->rx /= n;
    a->sm /= n;
    a->occ /= n;
    a->tensor /= n;
    a->dram /= n;
    a->enc /= n;
    a->dec /= n;
}

static void test_workload_lowintensity_membound(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = lowintensity\n"
                "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = membound\n"
                "[gpu.2]\nmodel = H100-SXM5-80GB\nworkload = lowintensity\nsm_activity = 50%\n");
    const struct gs_gpu *g = &s->gpus[0];
    struct wl_avg a;

    /* Launch-bound: a kernel is always running, SMs mostly empty. */
    wl_average(s, 0, 300, 600, &a);
    assert_true(a.util_min >= 94 && a.util_max <= 100);
    assert_int_equal(a.sm_clock_min, g->clock_max[NVML_CLOCK_SM]);
    assert_true(a.power > g->power_idle && a.power < 0.36 * g->power_limit);
    assert_true(a.mem_util > 8 && a.mem_util < 12);
    assert_true(fabs(a.sm - 0.20) < 0.005 && fabs(a.occ - 0.08) < 0.003);
    assert_true(fabs(a.tensor - 0.03) < 0.002 && fabs(a.dram - 0.08) < 0.003);

    /* Memory-bound. */
    wl_average(s, 1, 300, 600, &a);
    assert_true(a.util_min >= 94);
    assert_true(a.mem_util > 85 && a.mem_util < 91);
    assert_true(fabs(a.dram - 0.88) < 0.01 && fabs(a.sm - 0.55) < 0.01);
    assert_true(fabs(a.tensor - 0.05) < 0.003);
    assert_true(fabs(a.power / g->power_limit - 0.70) < 0.03);

    /* A key overrides the workload's default. */
    wl_average(s, 2, 300, 60, &a);
    assert_true(fabs(a.sm - 0.50) < 0.01);
    gs_scenario_free(s);
}

static void test_workload_transfer(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = transfer\n"
                                    "[gpu.1]\nmodel = A100-SXM4-80GB\nworkload = transfer\n");
    struct wl_avg a;
    /* gen5 x16: 3938 MB/s per lane; gen4 x16: 1969 MB/s. */
    const double link[2] = {3938e6 * 16, 1969e6 * 16};
    for (unsigned i = 0; i < 2; i++) {
        const struct gs_gpu *g = &s->gpus[i];
        wl_average(s, i, 500, 600, &a);
        assert_true(fabs(a.rx / link[i] - 0.85) < 0.03);
        /* ~35 % in every period: no beat to see. */
        assert_true(fabs(a.util - 35) < 0.5);
        assert_true(a.util_min >= 33 && a.util_max <= 37);
        assert_true(fabs(a.sm - 0.25) < 0.01);
        assert_true(fabs(a.power / g->power_limit - 0.40) < 0.02);
    }
    gs_scenario_free(s);
}

static void test_workload_video(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = L40S\nworkload = encode\n"
                                    "[gpu.1]\nmodel = L40S\nworkload = decode\ndec_util = 60\n");
    const struct gs_gpu *g = &s->gpus[0];
    struct wl_avg a;
    wl_average(s, 0, 100, 600, &a);
    assert_true(fabs(a.enc - 95) < 0.5 && a.dec == 0);
    assert_true(fabs(a.util - 12) < 0.5);
    /* Power: idle + (demand - idle) x (graphics load + 0.45 x video load). */
    double want = g->power_idle + (0.92 * g->power_limit - g->power_idle) * (0.12 + 0.45 * 0.95);
    assert_true(fabs(a.power / want - 1) < 0.01);
    struct gs_gpm m;
    gs_model_gpm(s, 0, -1, 100, &m);
    assert_true(m.nvenc > 0.9 && m.nvdec == 0);

    wl_average(s, 1, 100, 600, &a);
    assert_true(fabs(a.dec - 60) < 0.5 && a.enc == 0);
    want = g->power_idle + (0.92 * g->power_limit - g->power_idle) * (0.12 + 0.45 * 0.60);
    assert_true(fabs(a.power / want - 1) < 0.01);
    gs_model_gpm(s, 1, -1, 100, &m);
    assert_true(m.nvdec > 0.55 && m.nvdec < 0.65 && m.nvenc == 0);
    gs_scenario_free(s);
}

static void test_workload_inference(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = inference\n"
                "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\n"
                "[gpu.2]\nmodel = H100-SXM5-80GB\nworkload = inference\nutil = 30\n");
    struct wl_avg a;
    wl_average(s, 0, 1000, 6000, &a);
    assert_true(fabs(a.util - 12) < 1.0);
    wl_average(s, 2, 1000, 6000, &a);
    assert_true(fabs(a.util - 30) < 1.5);

    /* Bursts of 1-2 periods (runs can chain when requests meet), at
     * irregular gaps; PCIe stays low; memory is held steady. */
    int run = 0, gap = 0, runs_short = 0, runs = 0, gaps_seen[64] = {0};
    struct gs_state st, hb;
    unsigned long long mem0 = 0;
    for (int i = 0; i < 6000; i++) {
        double t = 1000 + (i + 0.5) / GS_SAMPLE_HZ;
        gs_model_eval(s, 0, t, &st);
        gs_model_eval(s, 1, t, &hb);
        if (i == 0)
            mem0 = st.mem_used;
        assert_true(st.mem_used == mem0);
        assert_true(st.pcie_rx_kbs * 1024.0 < 50e6);
        if (st.util_gpu > 0) {
            if (gap > 0 && gap < 64)
                gaps_seen[gap] = 1;
            gap = 0;
            run++;
        } else {
            if (run > 0) {
                runs++;
                runs_short += run <= 2;
            }
            run = 0;
            gap++;
        }
    }
    assert_true(mem0 > 15ULL << 30 && mem0 < 17ULL << 30);
    assert_true(runs > 400 && runs_short > 0.8 * runs);
    int distinct = 0;
    for (int k = 0; k < 64; k++)
        distinct += gaps_seen[k];
    assert_true(distinct > 20); /* no regular period */
    /* Unlike heartbeat, whose idle phases pull hard on PCIe. */
    gs_model_eval(s, 1, 1000, &hb);
    wl_average(s, 1, 1000, 600, &a);
    assert_true(a.rx > 1e9);
    gs_scenario_free(s);

    /* Repeatable from the seed, different with another. */
    struct gs_scenario *s1 = load_ok("[machine]\nseed = 7\n[gpu.0]\nmodel = L40S\n"
                                     "workload = inference\n");
    struct gs_scenario *s2 = load_ok("[machine]\nseed = 7\n[gpu.0]\nmodel = L40S\n"
                                     "workload = inference\n");
    struct gs_scenario *s3 = load_ok("[machine]\nseed = 8\n[gpu.0]\nmodel = L40S\n"
                                     "workload = inference\n");
    int same = 1, differ = 0;
    for (int i = 0; i < 600; i++) {
        struct gs_state x, y, z;
        double t = (i + 0.5) / GS_SAMPLE_HZ;
        gs_model_eval(s1, 0, t, &x);
        gs_model_eval(s2, 0, t, &y);
        gs_model_eval(s3, 0, t, &z);
        same &= x.util_gpu == y.util_gpu;
        differ |= x.util_gpu != z.util_gpu;
    }
    assert_true(same && differ);
    gs_scenario_free(s1);
    gs_scenario_free(s2);
    gs_scenario_free(s3);
}

static void test_heartbeat_floor_and_noise(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\nheartbeat_period = 1\n"
                "heartbeat_duty = 0.5\nheartbeat_jitter = 0\nheartbeat_floor = 10\n"
                "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = steady\nutil_noise = 0\n"
                "[gpu.2]\nmodel = H100-SXM5-80GB\nworkload = steady\nutil_noise = 5\n");
    struct gs_state st;
    struct gs_gpm m;
    unsigned lo = 100, hi = 0;
    for (int cycle = 0; cycle < 30; cycle++) {
        gs_model_eval(s, 0, cycle + 0.05, &st);
        assert_in_range(st.util_gpu, 94, 100);
        gs_model_eval(s, 0, cycle + 0.75, &st);
        assert_in_range(st.util_gpu, 9, 11); /* floor +- 1.5 */
        assert_false(st.reasons & nvmlClocksEventReasonGpuIdle);
        lo = st.util_gpu < lo ? st.util_gpu : lo;
        hi = st.util_gpu > hi ? st.util_gpu : hi;
        gs_model_gpm(s, 0, -1, cycle + 0.75, &m);
        assert_true(m.sm > 0.07 && m.sm < 0.09); /* 0.80 x the floor */
    }
    assert_true(hi > lo); /* not exactly the floor */

    unsigned lo2 = 100, hi2 = 0;
    for (int i = 0; i < 300; i++) {
        double t = 50 + (i + 0.5) / GS_SAMPLE_HZ;
        gs_model_eval(s, 1, t, &st);
        assert_int_equal(st.util_gpu, 95);
        gs_model_eval(s, 2, t, &st);
        assert_in_range(st.util_gpu, 90, 100);
        lo2 = st.util_gpu < lo2 ? st.util_gpu : lo2;
        hi2 = st.util_gpu > hi2 ? st.util_gpu : hi2;
    }
    assert_true(hi2 - lo2 >= 7);
    gs_scenario_free(s);
}

static void test_app_clocks_and_pcie_gen(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                "app_clock_graphics = 1410\n"
                "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                "[gpu.2]\nmodel = H100-SXM5-80GB\napp_clock_graphics = 1410\n"
                "[gpu.3]\nmodel = H100-SXM5-80GB\nworkload = transfer\npcie_gen_current = 3\n"
                "[gpu.4]\nmodel = H100-SXM5-80GB\npcie_gen_current = 3\n"
                "[gpu.5]\nmodel = RTX-4090\nworkload = steady\napp_clock_mem = 9001\n");
    struct gs_state a, b, st;
    gs_model_eval(s, 0, 100, &a);
    gs_model_eval(s, 1, 100, &b);
    assert_int_equal(a.clock[NVML_CLOCK_GRAPHICS], 1410);
    assert_int_equal(a.clock[NVML_CLOCK_SM], 1410);
    assert_int_equal(a.clock[NVML_CLOCK_MEM], 2619); /* HBM: one memory clock */
    gs_model_eval(s, 5, 100, &st);
    assert_int_equal(st.clock[NVML_CLOCK_MEM], 9001);
    assert_int_equal(st.clock[NVML_CLOCK_SM], s->gpus[5].clock_max[NVML_CLOCK_SM]);
    assert_true(st.reasons & nvmlClocksEventReasonApplicationsClocksSetting);
    assert_true(a.reasons & nvmlClocksEventReasonApplicationsClocksSetting);
    assert_false(b.reasons & nvmlClocksEventReasonApplicationsClocksSetting);
    assert_int_equal(b.clock[NVML_CLOCK_SM], 1980);
    /* Power falls with the clock ratio: idle + (P - idle) x 1410/1980. */
    double idle = s->gpus[0].power_idle;
    double want = idle + (b.power_w - idle) * 1410.0 / 1980.0;
    assert_true(fabs(a.power_w / want - 1) < 0.03);
    struct gs_gpm m;
    gs_model_gpm(s, 0, -1, 100, &m);
    assert_true(fabs(m.sm - 0.80 * 1410 / 1980) < 0.02);
    /* An idle GPU: idle clocks, no application-clocks reason. */
    gs_model_eval(s, 2, 100, &st);
    assert_int_equal(st.pstate, 8);
    assert_false(st.reasons & nvmlClocksEventReasonApplicationsClocksSetting);

    /* pcie_gen_current: gen 3 while loaded, gen 1 idle; throughput follows. */
    gs_model_eval(s, 3, 100, &st);
    assert_int_equal(st.pcie_gen_cur, 3);
    double rx = st.pcie_rx_kbs * 1024.0, gen3 = 985e6 * 16;
    assert_true(rx > 0.75 * gen3 && rx <= 0.9 * gen3);
    gs_model_eval(s, 4, 100, &st);
    assert_int_equal(st.pcie_gen_cur, 1);
    gs_scenario_free(s);
}

static void test_hw_slowdown(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                                    "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                                    "[fault.brake]\ntype = hw_slowdown\ngpu = 0\nat = 100\n"
                                    "until = 200\npower_brake = on\n"
                                    "[fault.slow]\ntype = hw_slowdown\ngpu = 1\nat = 100\n"
                                    "until = 200\n");
    struct gs_state before, in, in1, after;
    gs_model_eval(s, 0, 90, &before);
    gs_model_eval(s, 0, 150, &in);
    gs_model_eval(s, 1, 150, &in1);
    gs_model_eval(s, 0, 210, &after);
    const unsigned long long hw = nvmlClocksThrottleReasonHwSlowdown,
                             brake = nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
    assert_false(before.reasons & (hw | brake));
    assert_false(after.reasons & (hw | brake));
    assert_true((in.reasons & (hw | brake)) == (hw | brake));
    assert_true((in1.reasons & (hw | brake)) == hw);
    /* Clocks at ~35 % of max, power down with them, utilisation still high. */
    assert_in_range(in.clock[NVML_CLOCK_SM], 675, 695);
    assert_int_equal(before.clock[NVML_CLOCK_SM], 1980);
    assert_true(in.power_w < 0.5 * before.power_w);
    assert_in_range(in.util_gpu, 90, 100);
    assert_int_equal(after.clock[NVML_CLOCK_SM], 1980);
    /* Power-brake time: only GPU 0's window has power_brake. */
    assert_true(gs_hw_brake_seconds(s, 0, 50) == 0);
    assert_true(fabs(gs_hw_brake_seconds(s, 0, 150) - 50) < 1e-9);
    assert_true(fabs(gs_hw_brake_seconds(s, 0, 1000) - 100) < 1e-9);
    assert_true(gs_hw_brake_seconds(s, 1, 1000) == 0);
    gs_scenario_free(s);

    /* Overlapping windows count once. */
    s = load_ok("[gpu.0]\nmodel = L40S\nworkload = steady\n"
                "[fault.a]\ntype = hw_slowdown\nat = 10\nuntil = 30\npower_brake = on\n"
                "[fault.b]\ntype = hw_slowdown\ngpu = 0\nat = 20\nuntil = 40\npower_brake = on\n"
                "[fault.c]\ntype = hw_slowdown\ngpu = 0\nat = 50\nuntil = 60\npower_brake = on\n");
    assert_true(fabs(gs_hw_brake_seconds(s, 0, 55) - 35) < 1e-9);
    assert_true(fabs(gs_hw_brake_seconds(s, 0, 100) - 40) < 1e-9);
    gs_scenario_free(s);
}

static void test_temperature_response(void **state)
{
    (void)state;
    /* First order: after one tau the gap to equilibrium has shrunk to 1/e. */
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                                    "temp_start = 30\nthermal_tau = 60\n");
    struct gs_state st;
    gs_model_eval(s, 0, 1e6, &st);
    double teq = st.temp_c;
    gs_model_eval(s, 0, 60, &st);
    double expect = teq + (30 - teq) / M_E;
    assert_true(fabs(st.temp_c - expect) < 1.0);
    assert_true(teq > 55 && teq < 75);
    /* Energy is monotonic and grows by roughly power x time. */
    double e0, e1, pc, th;
    gs_model_integrals(s, 0, 100, &e0, &pc, &th);
    gs_model_integrals(s, 0, 200, &e1, &pc, &th);
    assert_true(e1 > e0);
    assert_true(fabs((e1 - e0) / 1000 / 100 - st.power_w) < 0.05 * st.power_w);
    gs_scenario_free(s);
}

/* memory.used >= the sum of the processes' memory, for every GPU of every
 * shipped scenario at many times. */
static void check_memory_cover(const struct gs_scenario *s, const char *name)
{
    for (unsigned g = 0; g < s->ngpus; g++) {
        for (double t = 0; t < 1000; t += 7.3) {
            struct gs_state st;
            gs_model_eval(s, g, t, &st);
            unsigned long long sum = 0;
            for (size_t i = 0; i < s->nprocs; i++)
                sum += gs_proc_memory(s, &s->procs[i], g, t);
            if (st.mem_used < sum)
                fail_msg("%s gpu %u t=%g: used %llu < processes %llu", name, g, t, st.mem_used,
                         sum);
            if (st.mem_used > s->gpus[g].mem_total - s->gpus[g].mem_reserved)
                fail_msg("%s gpu %u t=%g: used beyond total", name, g, t);
        }
    }
}

static void test_shipped_scenarios(void **state)
{
    (void)state;
    DIR *d = opendir(SCENARIO_DIR);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0)
            continue;
        char path[1024], err[600];
        struct gs_scenario *s;
        snprintf(path, sizeof(path), "%s/%s", SCENARIO_DIR, de->d_name);
        if (gs_scenario_load(path, &s, err, sizeof(err)) != 0)
            fail_msg("shipped scenario does not load: %s", err);
        check_memory_cover(s, de->d_name);
        gs_scenario_free(s);
        n++;
    }
    closedir(d);
    assert_true(n >= 7);
}

static void test_demo_scenario(void **state)
{
    (void)state;
    char err[600];
    struct gs_scenario *s;
    unsetenv("GPUSIM_PID_RANK0");
    assert_int_equal(gs_scenario_load(SCENARIO_DIR "/h100x8-training.ini", &s, err, sizeof(err)),
                     0);
    assert_int_equal(s->ngpus, 8);
    assert_int_equal(s->procs[0].pid, 4194400);
    struct gs_state st;
    gs_model_eval(s, 5, 300, &st); /* GPU 5 throttles */
    assert_true(st.thermal_limited);
    assert_int_equal(st.temp, s->gpus[5].temp_slowdown);
    gs_model_eval(s, 0, 300, &st); /* GPU 0 trains undisturbed */
    assert_false(st.thermal_limited || st.power_capped);
    assert_in_range(st.util_gpu, 90, 99);
    assert_int_equal(st.clock[NVML_CLOCK_SM], 1980);
    /* GPU 7: a dead pid holds 30 GiB next to the live rank. */
    const struct gs_process *stale = &s->procs[8];
    assert_int_equal(stale->pid, 4194304);
    assert_true(gs_proc_memory(s, stale, 7, 300) == 30ULL << 30);
    /* the story: ten minutes in, the ranks alive, the stale rank dead */
    assert_true(s->start == 600);
    assert_true(stale->dead);
    for (int r = 0; r < 8; r++) {
        assert_false(s->procs[r].dead);
        assert_non_null(s->procs[r].cmdline);
        assert_true(s->procs[r].cpu == 100);
    }
    assert_string_equal(s->procs[3].cmdline,
                        "python3 train.py --model llama-7b --nproc-per-node 8 --rank 3");
    gs_scenario_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_defaults_and_presets),
        cmocka_unit_test(test_mig_and_lists),
        cmocka_unit_test(test_env_expansion),
        cmocka_unit_test(test_value_parsers),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_heartbeat_phases),
        cmocka_unit_test(test_thermal_clamp),
        cmocka_unit_test(test_powercap),
        cmocka_unit_test(test_leak_and_idle),
        cmocka_unit_test(test_temperature_response),
        cmocka_unit_test(test_shipped_scenarios),
        cmocka_unit_test(test_demo_scenario),
        cmocka_unit_test(test_string_escapes),
        cmocka_unit_test(test_process_count),
        cmocka_unit_test(test_process_host),
        cmocka_unit_test(test_procs_at),
        cmocka_unit_test(test_fail_parse),
        cmocka_unit_test(test_fail_counting),
        cmocka_unit_test(test_workload_lowintensity_membound),
        cmocka_unit_test(test_workload_transfer),
        cmocka_unit_test(test_workload_video),
        cmocka_unit_test(test_workload_inference),
        cmocka_unit_test(test_heartbeat_floor_and_noise),
        cmocka_unit_test(test_app_clocks_and_pcie_gen),
        cmocka_unit_test(test_hw_slowdown),
        cmocka_unit_test(test_topology),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
