/* fuzz_config.c -- libFuzzer harness for the agent's config file loader
 * (src/agent/config.c: gm_config_load_file, with the [alert.NAME] and
 * [notify.NAME] sections it hands to rule.c and notify_conf.c).
 *
 * The input is the whole file.  The loader reads only from a path, so the
 * input is written to a file in the harness's temporary directory first
 * (fuzz_tmp.h).  Besides crashes, leaks and undefined behaviour, it checks
 * the loader's contracts:
 *   - all or nothing: a file that fails leaves the configuration as it was
 *     (byte for byte), and fails with GM_E_INVAL and "PATH:LINE: reason";
 *   - what `gpumon config show` prints (gm_config_dump) of a file that
 *     loads is itself a valid file that loads to the same configuration
 *     (the same dump again);
 *   - gm_config_finish never crashes on a configuration that loaded.
 * Deterministic: the defaults depend only on $HOME and $STATE_DIRECTORY,
 * which do not change during a run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "agent/config.h"
#include "core/err.h"
#include "fuzz_tmp.h"

static char path[4200], path2[4200];
/* Allocated once: half a megabyte each, which fresh from AddressSanitizer's
 * allocator (freed memory waits in its quarantine) would cost page faults
 * on every input.  The defaults are computed once too: they never change. */
static struct gm_config *defaults, *c, *before;

static void check(int ok, const char *what, const struct gm_err *err)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_config: %s (%s)\n", what, err ? err->msg : "");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof(path), "%s/gpumon.conf", fuzz_tmp_dir());
        snprintf(path2, sizeof(path2), "%s/shown.conf", fuzz_tmp_dir());
        defaults = malloc(sizeof(*defaults));
        c = malloc(sizeof(*c));
        before = malloc(sizeof(*before));
        check(defaults && c && before, "out of memory", NULL);
        gm_config_defaults(defaults);
    }
    fuzz_tmp_write(path, data, size);

    memcpy(c, defaults, sizeof(*c));
    memcpy(before, c, sizeof(*c));
    struct gm_err err = {0};
    int rc = gm_config_load_file(c, path, &err);
    if (rc != 0) {
        check(rc == GM_E_INVAL, "a bad file must be GM_E_INVAL", &err);
        check(strncmp(err.msg, path, strlen(path)) == 0 && err.msg[strlen(path)] == ':',
              "the message must start with \"PATH:\"", &err);
        check(memcmp(c, before, sizeof(*c)) == 0, "a failed load changed the configuration", &err);
    } else {
        /* config show's output loads, to the same configuration */
        struct gm_buf shown = {0}, again = {0};
        gm_config_dump(c, &shown);
        fuzz_tmp_write(path2, shown.p, shown.len);
        memcpy(before, defaults, sizeof(*before));
        rc = gm_config_load_file(before, path2, &err);
        if (rc != 0)
            fprintf(stderr, "--- shown:\n%.*s---\n", (int)shown.len, shown.p);
        check(rc == 0, "the dump of a valid file does not load", &err);
        gm_config_dump(before, &again);
        if (again.len != shown.len || memcmp(again.p, shown.p, shown.len) != 0)
            fprintf(stderr, "--- shown:\n%.*s--- loaded again:\n%.*s---\n", (int)shown.len, shown.p,
                    (int)again.len, again.p);
        check(again.len == shown.len && memcmp(again.p, shown.p, shown.len) == 0,
              "the dump of a valid file loads to another configuration", NULL);
        gm_buf_free(&shown);
        gm_buf_free(&again);
        gm_config_finish(c, &err);
    }
    return 0;
}
