/* rule.h -- alert rules: their settings, their condition language, and the
 * default rule set from the seeds.
 *
 * A rule is an [alert.NAME] section of the configuration:
 *
 *   [alert.gpu-hot]
 *   when     = temperature.gpu > 85          ; the condition (required)
 *   clear    = temperature.gpu < 80          ; hysteresis: what ends it (default: not when)
 *   for      = 1m                            ; or: samples = 3
 *   severity = warning                       ; or critical
 *   summary  = GPU {{gpu}} is at {{value}}
 *
 * The condition language is small on purpose: comparisons of one operand
 * with a number, joined by `and`, `or`, `not` and parentheses.  An operand
 * is a registry metric (`gpumon metrics`; nvidia-smi's names, compared in
 * the registry's base units: bytes, W, degrees C, MHz, %) or a derived value
 * (gm_rule_operands[]: free memory %, power / limit, margin to the slowdown
 * temperature, throttle classes, new uncorrectable ECC errors, GPU lost,
 * driver lost, memory held by dead processes, Xid events), or a window
 * function over one: avg, min, max, stddev (population), slope (least
 * squares, per minute) over the last WINDOW of this GPU's samples, and
 * predict(x, WINDOW, HORIZON), the least-squares line HORIZON ahead
 * (`avg(utilization.gpu, 5m) < 20`, `predict(memory.free, 1h, 24h) < 0`).
 * Numbers take size suffixes (KiB .. TiB, KB .. TB).  A comparison with a value that is
 * not known (N/A, not supported, GPU lost) is unknown, and unknown never
 * starts an alert nor ends one (three-valued logic: `unknown and false` is
 * false, `unknown or true` is true).
 *
 * All of this is plain data with fixed sizes so that struct gm_config can
 * hold the rules by value, and "did this rule change on reload" is memcmp.
 */
#ifndef GM_ALERT_RULE_H
#define GM_ALERT_RULE_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/cause.h"
#include "../core/snapshot.h"
#include "alert.h"
#include "window.h"

#define GM_RULES_MAX 64
#define GM_RULE_NODES 32

/* Derived operands (ids above the registry's metric ids). */
enum gm_rule_operand {
    GM_OP_MEM_FREE_PCT = 1000,  /* memory.free_pct: free / total, % */
    GM_OP_MEM_USED_PCT,         /* memory.used_pct */
    GM_OP_POWER_PCT,            /* power.draw_pct: draw / enforced limit, % */
    GM_OP_TEMP_MARGIN,          /* temperature.margin: slowdown threshold - temperature, C */
    GM_OP_THROTTLE_THERMAL,     /* throttle.thermal: sw or hw thermal slowdown active (0/1) */
    GM_OP_THROTTLE_POWER_BRAKE, /* throttle.power_brake: hw power brake active (0/1) */
    GM_OP_THROTTLE_POWER_CAP,   /* throttle.power_cap: sw power cap active (0/1) */
    GM_OP_ECC_NEW,              /* ecc.uncorrected.new: uncorrectable errors since the previous
                                   sample (aggregate count, else volatile) */
    GM_OP_GPU_LOST,             /* gpu.lost: the GPU fell off the bus / was not found (0/1) */
    GM_OP_DRIVER_LOST,          /* driver.lost: NVML cannot talk to the driver (0/1; host) */
    GM_OP_PROCS,                /* procs.count: processes on the GPU */
    GM_OP_DEAD_MEM,             /* procs.dead_memory: bytes held by processes that no longer
                                   exist (gone from /proc, or zombies) */
    GM_OP_XID,                  /* xid: the Xid of an NVML Xid event (only at the event) */
    GM_OP_DIAG,                 /* diagnosis.<cause>: GM_OP_DIAG + enum gm_cause (0/1; unknown
                                   where the agent's diagnosis does not run) */
    GM_OP_DIAG_LAST = GM_OP_DIAG + GM_CAUSE__COUNT - 1,
    GM_OP__END
};

struct gm_rule_operand_info {
    int id;
    const char *name;
    int unit;  /* enum gm_unit */
    int scope; /* enum gm_scope: GPU or host */
    const char *help;
};
extern const struct gm_rule_operand_info gm_rule_operands[];
extern const int gm_rule_noperands;

/* A compiled condition: nodes in postfix order. */
enum gm_node_kind { GM_N_CMP = 1, GM_N_TRUTH, GM_N_AND, GM_N_OR, GM_N_NOT };
enum gm_cmp_op { GM_CMP_GT = 1, GM_CMP_GE, GM_CMP_LT, GM_CMP_LE, GM_CMP_EQ, GM_CMP_NE };

struct gm_rule_node {
    uint8_t kind;      /* enum gm_node_kind */
    uint8_t op;        /* enum gm_cmp_op for GM_N_CMP */
    int16_t operand;   /* metric id or enum gm_rule_operand (CMP, TRUTH) */
    uint8_t fn;        /* enum gm_window_fn: 0 = the current value, else a window over it */
    int32_t window_s;  /* the window's length, seconds (fn != 0) */
    int32_t horizon_s; /* predict: how far ahead of the latest sample, seconds */
    double number;     /* CMP */
};

/* The longest window and predict horizon a condition may use. */
#define GM_RULE_WINDOW_MAX_S (24LL * 3600)
#define GM_RULE_HORIZON_MAX_S (365LL * 86400)

/* The value of a windowed node reported as a notice's operand: the window
 * function in the bits above 16, the operand below (gm_rule_value_text
 * understands it; a slope reads "20.00 MiB/min"). */
#define GM_RULE_WINDOWED_OP(fn, operand) (((fn) << 16) | ((operand)&0xffff))

struct gm_rule_expr {
    char text[256]; /* as written, whitespace-normalised */
    int n;
    struct gm_rule_node node[GM_RULE_NODES];
};

enum gm_rule_scope { GM_RS_GPU = 0, GM_RS_HOST };

struct gm_rule {
    char name[64];
    int enabled;
    int builtin; /* one of the default set (possibly with keys overridden) */
    struct gm_rule_expr when;
    struct gm_rule_expr clear; /* n == 0: the alert ends when `when` is false */
    int64_t for_ns;            /* pending this long before firing ... */
    unsigned samples;          /* ... or this many consecutive samples (0 = use for) */
    int64_t keep_firing_ns;    /* stays firing this long after the condition ended */
    int64_t repeat_ns;         /* re-notify a firing alert this often (0 = never) */
    int severity;              /* enum gm_alert_severity */
    int scope;                 /* enum gm_rule_scope */
    char summary[512];         /* template: {{gpu}} {{name}} {{uuid}} {{host}} {{value}} ... */
    int nlabels;
    struct gm_alert_label labels[GM_ALERT_MAX_LABELS];
    uint32_t set; /* which keys were given in the file (bit per key), for duplicates */
};

struct gm_rules {
    int defaults; /* [alerts] defaults = true: the seeds' rule set is on */
    int n;
    struct gm_rule rule[GM_RULES_MAX];
};

/* The default rule set only (n rules, defaults = 1). */
void gm_rules_defaults(struct gm_rules *r);

/* Sets one key of [alert.NAME], creating the rule (or overriding a default
 * of that name) on first use.  Errors: the reason, without file:line, in why. */
int gm_rules_set(struct gm_rules *r, const char *name, const char *key, const char *value,
                 char *why, size_t wlen);

/* Checks every rule (a condition present, durations consistent, Xid rules
 * instantaneous, template placeholders known).  Errors name the rule. */
int gm_rules_check(const struct gm_rules *r, char *why, size_t wlen);
int gm_rule_check(const struct gm_rule *x, char *why, size_t wlen);

/* Parses a condition.  Errors: the reason and the column in why. */
int gm_rule_parse(const char *text, int scope, struct gm_rule_expr *out, char *why, size_t wlen);

/* What a condition is evaluated against: one GPU of a snapshot (or the host),
 * plus what the engine remembers from before. */
struct gm_rule_ctx {
    const struct gm_snapshot *s;
    const struct gm_gpu *g; /* NULL for a host-scope rule */
    int xid;                /* the Xid being evaluated; 0 = none (a sample) */
    /* ecc.uncorrected.new: the previous sample's counts on this GPU */
    int prev_agg_ok, prev_vol_ok;
    double prev_agg, prev_vol;
    int pid_ns_nested; /* in a nested PID namespace: dead-process memory is unknown */
    /* window functions: the value of nd (fn != 0) over the recent history of
     * this GPU, as a GM_VS_* status; NULL: every window is unknown */
    int (*window)(void *arg, const struct gm_rule_node *nd, double *out);
    void *window_arg;
};

/* The value of operand (metric id or derived) in cx.  Returns GM_VS_OK with
 * *out set, or the status that says why it is unknown. */
int gm_rule_operand_value(int operand, const struct gm_rule_ctx *cx, double *out);

/* How old the value of operand in cx is, in ms (core/value.h's age_ms): a
 * metric's own age; a derived value's, the oldest of the values it is made
 * of; a window's, that of its newest value (this sample's); 0 for values that
 * are not read from NVML (xid, gpu.lost, procs.count, diagnosis.*). */
uint32_t gm_rule_operand_age_ms(int operand, const struct gm_rule_ctx *cx);

/* Evaluates a condition: 1 true, 0 false, -1 unknown.  *first receives the
 * value of the first comparison's operand (for the notice) and *first_op
 * its operand; *first_ok says whether it was known. */
int gm_rule_eval(const struct gm_rule_expr *e, const struct gm_rule_ctx *cx, double *first,
                 int *first_op, int *first_ok);

/* A value of operand as people read it ("87 °C", "1.50 GiB", "Xid 79", the
 * active throttle reasons for a throttle flag). */
void gm_rule_value_text(int operand, double v, const struct gm_rule_ctx *cx, char *out, size_t len);

/* Whether the expression mentions operand id. */
int gm_rule_uses(const struct gm_rule_expr *e, int operand);

/* The longest window (seconds) the expression uses on operand; 0: none. */
int32_t gm_rule_window_need(const struct gm_rule_expr *e, int operand);

/* The operand's name ("temperature.gpu", "memory.free_pct") and unit. */
const char *gm_rule_operand_name(int operand);
int gm_rule_operand_unit(int operand);

/* Appends one rule as an INI section; its text identifies the rule's
 * definition (the engine keeps state across reloads while it is equal). */
void gm_rule_dump_one(const struct gm_rule *r, struct gm_buf *out);

/* Appends the rules as INI sections (gpumon config show). */
void gm_rules_dump(const struct gm_rules *r, struct gm_buf *out);

/* docs/alerts.md's rule reference: keys, operands, and the default set. */
void gm_rules_markdown(struct gm_buf *out);
/* The table of [alert.NAME] keys alone (docs/config.md). */
void gm_rules_markdown_keys(struct gm_buf *out);

/* Expands a rule's summary template for one alert (placeholders documented
 * in docs/alerts.md); unknown placeholders were rejected by gm_rules_check. */
void gm_rule_summary(const struct gm_rule *r, const struct gm_alert *a, char *out, size_t len);

#endif /* GM_ALERT_RULE_H */
