/* procfield.c -- the per-process field table (see procfield.h): one row per
 * GM_P_* id saying which member of struct gm_proc holds the value, or how it
 * is computed when the record keeps it another way (ids with a "none"
 * sentinel, a name with the NVML code of its failure, text present or not).
 */
#include "procfield.h"

#include <stddef.h>

static const struct gm_value v_na = {.status = GM_VS_NA};

static void pid_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = gm_v_u64(p->pid);
}

static void type_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = gm_v_u64(p->type);
}

static void gpu_instance_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = p->gpu_instance_id == GM_NO_INSTANCE ? v_na : gm_v_u64(p->gpu_instance_id);
}

static void compute_instance_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = p->compute_instance_id == GM_NO_INSTANCE ? v_na : gm_v_u64(p->compute_instance_id);
}

static void state_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = p->host_state == GM_HS_UNKNOWN ? v_na : gm_v_u64(p->host_state);
}

/* A text value is 0 when present; the text is what gm_proc_text returns. */
static void name_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = p->name[0]     ? gm_v_u64(0)
           : p->name_code ? gm_v_status(gm_v_status_from_nvml(p->name_code), p->name_code)
                          : v_na;
}

static void user_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = p->user[0] ? gm_v_u64(0) : v_na;
}

static void cmdline_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = p->cmdline ? gm_v_u64(0) : v_na;
}

static void exe_value(const struct gm_proc *p, struct gm_value *out)
{
    *out = p->exe ? gm_v_u64(0) : v_na;
}

static const char *name_text(const struct gm_proc *p)
{
    return p->name;
}

static const char *user_text(const struct gm_proc *p)
{
    return p->user;
}

static const char *cmdline_text(const struct gm_proc *p)
{
    return p->cmdline;
}

static const char *exe_text(const struct gm_proc *p)
{
    return p->exe;
}

/* m names a member: offsetof cannot take it parenthesised */
/* NOLINTNEXTLINE(bugprone-macro-parentheses) */
#define MEMBER(id_, m) [(id_)-GM_P__FIRST] = {.id = (id_), .member = offsetof(struct gm_proc, m)}
#define COMPUTED(id_, fn) [(id_)-GM_P__FIRST] = {.id = (id_), .member = -1, .value = (fn)}
#define TEXT(id_, fn, txt)                                                                         \
    [(id_)-GM_P__FIRST] = {.id = (id_), .member = -1, .value = (fn), .text = (txt)}

const struct gm_proc_field gm_proc_fields[GM_P__N] = {
    COMPUTED(GM_P_PID, pid_value),
    COMPUTED(GM_P_TYPE, type_value),
    TEXT(GM_P_NAME, name_value, name_text),
    MEMBER(GM_P_USED_MEMORY, used_memory),
    COMPUTED(GM_P_GPU_INSTANCE, gpu_instance_value),
    COMPUTED(GM_P_COMPUTE_INSTANCE, compute_instance_value),
    MEMBER(GM_P_SM_UTIL, sm_util),
    MEMBER(GM_P_MEM_UTIL, mem_util),
    MEMBER(GM_P_ENC_UTIL, enc_util),
    MEMBER(GM_P_DEC_UTIL, dec_util),
    TEXT(GM_P_USER, user_value, user_text),
    COMPUTED(GM_P_STATE, state_value),
    TEXT(GM_P_CMDLINE, cmdline_value, cmdline_text),
    TEXT(GM_P_EXE, exe_value, exe_text),
    MEMBER(GM_P_START_TIME, start_time),
    MEMBER(GM_P_ELAPSED, elapsed),
    MEMBER(GM_P_CPU, cpu),
    MEMBER(GM_P_RSS, rss),
};

#undef MEMBER
#undef COMPUTED
#undef TEXT

const struct gm_proc_field *gm_proc_field(int id)
{
    if (id < GM_P__FIRST || id >= GM_M__COUNT)
        return NULL;
    const struct gm_proc_field *f = &gm_proc_fields[id - GM_P__FIRST];
    return f->id == id ? f : NULL; /* a row left out is all zeros */
}

const struct gm_value *gm_proc_value(const struct gm_proc *p, int id, struct gm_value *tmp)
{
    const struct gm_proc_field *f = gm_proc_field(id);
    if (!f || !p)
        return &v_na;
    if (f->member >= 0)
        return (const struct gm_value *)(const void *)((const char *)p + f->member);
    f->value(p, tmp);
    return tmp;
}

const char *gm_proc_text(const struct gm_proc *p, int id)
{
    const struct gm_proc_field *f = gm_proc_field(id);
    struct gm_value tmp;
    if (!f || !f->text || !p || !gm_v_ok(gm_proc_value(p, id, &tmp)))
        return NULL;
    return f->text(p);
}
