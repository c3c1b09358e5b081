/* values.c -- parsers for scenario values: numbers with units, booleans and
 * ${ENV} expansion.
 *
 * Every parser takes an already trimmed string and either stores a value in
 * base units (bytes, bytes/s, seconds, watts, degC, MHz) and returns 0, or
 * returns -1 and leaves the output alone; the caller words the error,
 * because only it knows the key and the line.  Units are case-insensitive;
 * a blank between number and unit is allowed ("30 GiB").  Decimal (KB, MB,
 * GB) and binary (KiB, MiB, GiB) prefixes mean what they say.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpusim.h"

struct gs_unit {
    const char *name;
    double factor;
};

/* Splits "12.5 GiB" into 12.5 and a pointer to "GiB" (or "" when no unit). */
static int split_number(const char *text, double *num, const char **unit)
{
    char *end = NULL;

    if (!text || !*text)
        return -1;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return -1;
    while (*end == ' ' || *end == '\t')
        end++;
    *num = v;
    *unit = end;
    return 0;
}

static int lookup_unit(const struct gs_unit *units, const char *unit, double *factor)
{
    for (size_t i = 0; units[i].name; i++) {
        if (strcasecmp(units[i].name, unit) == 0) {
            *factor = units[i].factor;
            return 0;
        }
    }
    return -1;
}

static const struct gs_unit size_units[] = {
    {"", 1.0},
    {"B", 1.0},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {NULL, 0},
};

static const struct gs_unit time_units[] = {
    {"", 1.0},     {"s", 1.0},    {"sec", 1.0},     {"ms", 1e-3},
    {"min", 60.0}, {"h", 3600.0}, {"hour", 3600.0}, {NULL, 0},
};

int gs_parse_double(const char *text, double *out)
{
    double v;
    const char *unit;

    if (split_number(text, &v, &unit) != 0 || *unit)
        return -1;
    *out = v;
    return 0;
}

int gs_parse_uint(const char *text, unsigned long long max, unsigned long long *out)
{
    char *end = NULL;

    if (!text || !*text || *text == '-' || *text == '+')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno == ERANGE || *end || end == text || v > max)
        return -1;
    *out = v;
    return 0;
}

int gs_parse_bool(const char *text, bool *out)
{
    static const char *const yes[] = {"yes", "on", "true", "1", "enabled", "enable", NULL};
    static const char *const no[] = {"no", "off", "false", "0", "disabled", "disable", NULL};

    for (size_t i = 0; yes[i]; i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

int gs_parse_percent(const char *text, double *out)
{
    double v;
    const char *unit;

    if (split_number(text, &v, &unit) != 0)
        return -1;
    if (*unit && strcmp(unit, "%") != 0)
        return -1;
    if (v < 0 || v > 100)
        return -1;
    *out = v;
    return 0;
}

int gs_parse_size(const char *text, double *out)
{
    double v, f;
    const char *unit;

    if (split_number(text, &v, &unit) != 0 || lookup_unit(size_units, unit, &f) != 0 || v < 0)
        return -1;
    *out = v * f;
    return 0;
}

int gs_parse_rate(const char *text, double *out)
{
    double v, fs, ft;
    const char *unit;
    char size_unit[16];

    if (split_number(text, &v, &unit) != 0 || v < 0)
        return -1;
    const char *slash = strchr(unit, '/');
    if (!slash || (size_t)(slash - unit) >= sizeof(size_unit))
        return -1;
    memcpy(size_unit, unit, (size_t)(slash - unit));
    size_unit[slash - unit] = '\0';
    /* "20 MiB /min" is fine too. */
    for (size_t n = strlen(size_unit);
         n > 0 && (size_unit[n - 1] == ' ' || size_unit[n - 1] == '\t');)
        size_unit[--n] = '\0';
    const char *per = slash + 1;
    while (*per == ' ' || *per == '\t')
        per++;
    if (lookup_unit(size_units, size_unit, &fs) != 0 || !*per ||
        lookup_unit(time_units, per, &ft) != 0)
        return -1;
    *out = v * fs / ft;
    return 0;
}

int gs_parse_seconds(const char *text, double *out)
{
    double v, f;
    const char *unit;

    if (split_number(text, &v, &unit) != 0 || lookup_unit(time_units, unit, &f) != 0)
        return -1;
    *out = v * f;
    return 0;
}

int gs_parse_watts(const char *text, double *out)
{
    static const struct gs_unit units[] = {
        {"", 1.0}, {"W", 1.0}, {"mW", 1e-3}, {"kW", 1e3}, {NULL, 0},
    };
    double v, f;
    const char *unit;

    if (split_number(text, &v, &unit) != 0 || v < 0)
        return -1;
    /* Case matters between mW and MW; nobody means megawatts here. */
    if (strcmp(unit, "mW") == 0)
        f = 1e-3;
    else if (lookup_unit(units, unit, &f) != 0)
        return -1;
    *out = v * f;
    return 0;
}

int gs_parse_celsius(const char *text, double *out)
{
    double v;
    const char *unit;

    if (split_number(text, &v, &unit) != 0)
        return -1;
    if (*unit && strcasecmp(unit, "C") != 0 &&
        strcmp(unit, "\xC2\xB0"
                     "C") != 0)
        return -1;
    if (v < -50 || v > 200)
        return -1;
    *out = v;
    return 0;
}

int gs_parse_clock(const char *text, unsigned *out)
{
    static const struct gs_unit units[] = {{"", 1.0}, {"MHz", 1.0}, {"GHz", 1000.0}, {NULL, 0}};
    double v, f;
    const char *unit;

    if (split_number(text, &v, &unit) != 0 || lookup_unit(units, unit, &f) != 0)
        return -1;
    v *= f;
    if (v < 0 || v > 100000)
        return -1;
    *out = (unsigned)lround(v);
    return 0;
}

/* ------------------------------------------------------------ env expansion */

static int append(char *out, size_t outlen, size_t *pos, const char *s, size_t n)
{
    if (*pos + n >= outlen)
        return -1;
    memcpy(out + *pos, s, n);
    *pos += n;
    out[*pos] = '\0';
    return 0;
}

int gs_expand_env(const char *in, char *out, size_t outlen, char *why, size_t whylen)
{
    size_t pos = 0;

    if (outlen == 0)
        return -1;
    out[0] = '\0';
    while (*in) {
        const char *dollar = strstr(in, "${");
        if (!dollar)
            dollar = in + strlen(in);
        if (append(out, outlen, &pos, in, (size_t)(dollar - in)) != 0)
            goto too_long;
        if (!*dollar)
            break;
        const char *close = strchr(dollar + 2, '}');
        if (!close) {
            snprintf(why, whylen, "unterminated '${' in '%s'", dollar);
            return -1;
        }
        char name[128];
        const char *def = NULL;
        size_t deflen = 0;
        const char *sep = strstr(dollar + 2, ":-");
        size_t namelen = (size_t)(close - dollar - 2);
        if (sep && sep < close) {
            namelen = (size_t)(sep - dollar - 2);
            def = sep + 2;
            deflen = (size_t)(close - def);
        }
        if (namelen == 0 || namelen >= sizeof(name)) {
            snprintf(why, whylen, "bad environment reference '%.*s'", (int)(close - dollar + 1),
                     dollar);
            return -1;
        }
        memcpy(name, dollar + 2, namelen);
        name[namelen] = '\0';
        for (size_t i = 0; i < namelen; i++) {
            char c = name[i];
            if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                  (i > 0 && c >= '0' && c <= '9'))) {
                snprintf(why, whylen, "bad environment variable name '%s'", name);
                return -1;
            }
        }
        const char *val = getenv(name);
        if (val && *val) {
            if (append(out, outlen, &pos, val, strlen(val)) != 0)
                goto too_long;
        } else if (def) {
            if (append(out, outlen, &pos, def, deflen) != 0)
                goto too_long;
        } else {
            snprintf(why, whylen,
                     "environment variable %s is not set (write ${%s:-default} to give a default)",
                     name, name);
            return -1;
        }
        in = close + 1;
    }
    return 0;
too_long:
    snprintf(why, whylen, "value too long after ${...} expansion");
    return -1;
}

int gs_next_item(const char **cursor, char *out, size_t outlen)
{
    const char *p = *cursor;

    if (!p || !*p)
        return 0;
    const char *comma = strchr(p, ',');
    const char *end = comma ? comma : p + strlen(p);
    *cursor = comma ? comma + 1 : end;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t n = (size_t)(end - p);
    if (n >= outlen)
        n = outlen - 1; /* an over-long item then fails to parse */
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

/* ------------------------------------------------------ structured values */

/* Takes an unsigned number in base at *p (digits only: no sign, no blank)
 * and advances *p past it. */
static int take_uint(const char **p, int base, unsigned long max, unsigned long *out)
{
    char *end = NULL;
    unsigned char c = (unsigned char)**p;

    if (!(base == 16 ? isxdigit(c) : isdigit(c)))
        return -1;
    errno = 0;
    unsigned long v = strtoul(*p, &end, base);
    if (errno == ERANGE || end == *p || v > max)
        return -1;
    *p = end;
    *out = v;
    return 0;
}

int gs_parse_bus_id(const char *text, unsigned *domain, unsigned *bus, unsigned *device)
{
    unsigned long a, b, c, f;
    const char *p = text;

    if (take_uint(&p, 16, 0xFFFFFFFFUL, &a) != 0 || *p++ != ':' ||
        take_uint(&p, 16, 0xFFUL, &b) != 0)
        return -1;
    if (*p == ':') { /* DOMAIN:BUS:DEVICE.FUNCTION */
        p++;
        if (take_uint(&p, 16, 0x1FUL, &c) != 0)
            return -1;
    } else { /* BUS:DEVICE.FUNCTION in domain 0 */
        if (a > 0xFF || b > 0x1F)
            return -1;
        c = b;
        b = a;
        a = 0;
    }
    if (*p++ != '.' || take_uint(&p, 16, 7UL, &f) != 0 || *p || f != 0)
        return -1;
    *domain = (unsigned)a;
    *bus = (unsigned)b;
    *device = (unsigned)c;
    return 0;
}

int gs_parse_major_minor(const char *text, bool allow_patch, unsigned *major, unsigned *minor)
{
    unsigned long a, b, c;
    const char *p = text;

    if (take_uint(&p, 10, 999UL, &a) != 0 || *p++ != '.' || take_uint(&p, 10, 99UL, &b) != 0)
        return -1;
    if (allow_patch && *p == '.') {
        p++;
        if (take_uint(&p, 10, 999999UL, &c) != 0)
            return -1;
    }
    if (*p)
        return -1;
    *major = (unsigned)a;
    *minor = (unsigned)b;
    return 0;
}

int gs_parse_mig_profile(const char *text, unsigned *slices, unsigned *gb)
{
    unsigned long s, m;
    const char *p = text;

    if (take_uint(&p, 10, 8UL, &s) != 0 || *p++ != 'g' || *p++ != '.' ||
        take_uint(&p, 10, 1024UL, &m) != 0 || strcmp(p, "gb") != 0)
        return -1;
    if (!(s == 1 || s == 2 || s == 3 || s == 4 || s == 7) || m == 0)
        return -1;
    *slices = (unsigned)s;
    *gb = (unsigned)m;
    return 0;
}
