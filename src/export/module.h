/* module.h -- the exporter's loadable-module boundary.
 *
 * The HTTP server and its TLS/auth stack (libmicrohttpd, GnuTLS, libyaml,
 * libxcrypt) cost every process that links them several milliseconds at
 * start-up (GnuTLS initialises itself and its PKCS#11 modules in a library
 * constructor).  So they live in gpumon_export.so, which only the agent
 * loads, and only when the exporter is on; `gpumon status` and the other
 * one-shot commands never pay for them.  The module exports this one table;
 * load.c finds the module and forwards the calls of exporter.h to it.
 */
#ifndef GM_EXPORT_MODULE_H
#define GM_EXPORT_MODULE_H

#include "exporter.h"

#define GM_EXPORT_MODULE_ABI 3

struct gm_export_module {
    int abi; /* GM_EXPORT_MODULE_ABI */
    struct gm_exporter *(*start)(const struct gm_exporter_opts *o, struct gm_err *err);
    int (*reconfigure)(struct gm_exporter *x, const struct gm_exporter_opts *o, struct gm_err *err);
    void (*set_dropped)(struct gm_exporter *x, uint64_t dropped);
    void (*stop)(struct gm_exporter *x);
    const struct gm_sink_ops *sink_ops;
    int (*check_web_config)(const char *path, struct gm_err *err);
    void (*url)(struct gm_exporter *x, char *buf, size_t len);
};

#endif /* GM_EXPORT_MODULE_H */
