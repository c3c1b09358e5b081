/* mon.h -- the loop shared by `gpumon dmon` and `gpumon pmon`
 * (cmd_dmon.c implements it; cmd_pmon.c only names the command). */
#ifndef GM_CLI_MON_H
#define GM_CLI_MON_H

enum { CLI_MON_DMON = 0, CLI_MON_PMON };

/* Parses the flags of dmon or pmon and runs the table until -c samples,
 * Ctrl-C / SIGTERM, or a closed pipe; returns the exit status. */
int cli_mon_run(int kind, int argc, char **argv);

/* pmon's option table (opt.h), for its struct gm_cmd. */
struct gm_optcmd;
extern const struct gm_optcmd cli_pmon_opts;

#endif /* GM_CLI_MON_H */
