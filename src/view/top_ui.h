/* top_ui.h -- the state the full-screen view's input side (top_ui.c) and
 * painter (top_draw.c) share inside gpumon_top.so.  Not a public header. */
#ifndef GM_VIEW_TOP_UI_H
#define GM_VIEW_TOP_UI_H

#include <stdint.h>

#include "../core/snapshot.h"
#include "../insight/diagnose.h"
#include "top.h"
#include "top_model.h"

enum top_mode {
    TM_MAIN = 0,
    TM_HELP,    /* the key list */
    TM_FILTER,  /* typing a filter text */
    TM_DETAIL,  /* the selected process in full */
    TM_SIGNAL,  /* choosing a signal */
    TM_CONFIRM, /* "send SIGx to PID ...?" */
};

/* The signals offered by `k`. */
struct top_signal {
    int sig;
    const char *name;
    const char *what;
};
extern const struct top_signal top_signals[];
extern const int top_nsignals;

struct top_ui {
    const struct gm_top_opts *o;
    int color, utf8;
    int rows, cols;

    /* data on screen */
    struct gm_snapshot *shown; /* NULL until the first sample */
    struct gm_top_hist *hist;
    struct gm_top_table table;
    uint64_t mask;   /* GPUs shown (-i), by position */
    int focus;       /* position of the GPU the charts show */
    int64_t span_ns; /* chart span */
    int proc_top;    /* first process row on screen */
    int prefilled;   /* the history was filled from the agent's store (or tried) */

    /* the sampler, as the painter sees it */
    int64_t busy_ns;  /* how long the sample in progress has run (0: none) */
    const char *call; /* the NVML call it is in, or NULL */
    int call_gpu;

    /* dialogs */
    int mode; /* enum top_mode */
    char input[64];
    int input_job; /* TM_FILTER edits the job filter (j), not the text filter (/) */
    int sig_choice;
    struct gm_top_target target;
    char target_user[33];
    char target_cmd[256];
    uint32_t target_gpu;
    /* the detail view's copy of the selected process */
    struct gm_proc detail;
    char detail_cmd[1024], detail_exe[512], detail_cgroup[512];
    uint32_t detail_gpu;

    char message[600]; /* a transient line in the footer */
    int64_t message_until;

    /* the diagnosis over what top has sampled (docs/diagnose.md): every
     * TOP_DIAG_EVERY over the last TOP_DIAG_WINDOW, once that much has been
     * seen; per GPU index the finding shown (cause -1: none) */
    struct gm_dg *dg;
    int64_t dg_first_ns, dg_eval_ns;
    struct {
        int cause;
        char text[800];
    } find[64];
};
#define TOP_DIAG_WINDOW 120000000000LL /* 2 min */
#define TOP_DIAG_EVERY 5000000000LL
#define TOP_DIAG_MIN_SPAN 30000000000LL

/* Paints the whole screen from ui (top_draw.c). */
void top_draw(struct top_ui *ui);

/* Colour pairs and attributes (top_draw.c sets them up). */
void top_draw_init_colors(struct top_ui *ui);

#endif /* GM_VIEW_TOP_UI_H */
