/* modload.h -- finding and opening gpumon's own loadable modules
 * (gpumon_export.so, gpumon_notify.so, gpumon_top.so: parts that pull in
 * large libraries only the commands that need them should pay for).
 *
 * Where a module is looked for, in order: the file named by the environment
 * variable env_var (tests, unusual installs; nothing else is tried when it
 * is set), `file` in the directory of the running executable (a build
 * tree), `file` in ../lib/gpumon/ from that directory (an install moved to
 * another prefix: the release tarball's install.sh --prefix), then
 * `installed` (set by the build from its prefix and libdir).
 * A module that is returned stays loaded for the life of the process.
 */
#ifndef GM_CORE_MODLOAD_H
#define GM_CORE_MODLOAD_H

#include <stddef.h>

/* What a loader's error adds to the dynamic loader's reason, so that a
 * person knows what to install: the module's file and the library it
 * needs, from the .deb's gpumon-extras package (a headless node's gpumon
 * package only recommends it) or, with the release tarball, from the
 * distribution's package of that library.  lib is a string literal. */
#define GM_MODULE_HINT(file, lib, pkg)                                                             \
    "; it needs " file " and " lib " (Debian and Ubuntu: apt install gpumon-extras; "              \
    "with the release tarball: the distribution's " pkg " package)"

/* Accepts the module's exported table (ABI version, initialisation):
 * 0 to keep it; otherwise -1, with why set or left empty for the generic
 * "not a gpumon WHAT module of this version". */
typedef int (*gm_module_accept_fn)(const void *sym, char *why, size_t wlen);

/* Returns dlsym(module, symbol) of the first module found that accept
 * takes, or NULL with a reason in why: that of the first module file found
 * that did not load (typically a library it needs is missing, named by the
 * dynamic loader), else that of the last attempt. */
const void *gm_module_load(const char *env_var, const char *file, const char *installed,
                           const char *symbol, const char *what, gm_module_accept_fn accept,
                           char *why, size_t wlen);

/* The path the search above finds first, without opening it: $env_var
 * when set, `file` beside the running executable or its last component in
 * ../lib/gpumon/ from it when readable, else installed.  Returns one of
 * those strings or buf.  (The simulator library is found this way, and
 * opened by the NVML loader.) */
const char *gm_module_find(const char *env_var, const char *file, const char *installed, char *buf,
                           size_t len);

#endif /* GM_CORE_MODLOAD_H */
