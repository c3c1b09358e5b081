/* cmd_pmon.c -- `gpumon pmon`: nvidia-smi pmon's per-process table; the
 * loop and flags are dmon's (cmd_dmon.c, mon.h). */
#include "cli.h"
#include "mon.h"

static int cmd_pmon_run(int argc, char **argv)
{
    return cli_mon_run(CLI_MON_PMON, argc, argv);
}

const struct gm_cmd gm_cmd_pmon = {"pmon", "scrolling per-process table (nvidia-smi pmon)",
                                   cmd_pmon_run, &cli_pmon_opts};
