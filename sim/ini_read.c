/* ini_read.c -- line-tracking front end to libinih (see ini_read.h).
 *
 * inih pulls lines through a reader callback; ours counts them, records
 * section headers, strips leading blanks and rejects lines that would not
 * fit inih's fixed buffer (inih would silently split them).  inih then calls
 * the handler once per key, which we record with the line the reader just
 * produced.
 */
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini_read.h"

struct reader {
    FILE *fp;         /* file source, or NULL */
    const char *text; /* string source */
    char *buf;        /* getline buffer */
    size_t bufcap;
    int line;
    struct gs_ini *ini;
    size_t cur_section;
    int continuation; /* the line just read continues the previous value */
    int err_line;     /* first reader or handler error, 0 if none */
    char err[256];
};

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fputs("gpusim: out of memory\n", stderr);
        abort();
    }
    return q;
}

static void set_err(struct reader *r, const char *msg)
{
    if (r->err_line)
        return;
    r->err_line = r->line;
    snprintf(r->err, sizeof(r->err), "%s", msg);
}

/* Next raw line without its newline, or NULL at the end. */
static const char *next_raw(struct reader *r, size_t *len)
{
    if (r->fp) {
        ssize_t n = getline(&r->buf, &r->bufcap, r->fp);
        if (n < 0)
            return NULL;
        while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
            r->buf[--n] = '\0';
        *len = (size_t)n;
        return r->buf;
    }
    if (!r->text || !*r->text)
        return NULL;
    const char *nl = strchr(r->text, '\n');
    size_t n = nl ? (size_t)(nl - r->text) : strlen(r->text);
    if (n + 1 > r->bufcap) {
        r->bufcap = n + 1;
        r->buf = xrealloc(r->buf, r->bufcap);
    }
    memcpy(r->buf, r->text, n);
    r->buf[n] = '\0';
    r->text += nl ? n + 1 : n;
    while (n > 0 && r->buf[n - 1] == '\r')
        r->buf[--n] = '\0';
    *len = n;
    return r->buf;
}

static void record_section(struct reader *r, const char *line)
{
    struct gs_ini *ini = r->ini;
    const char *close = strchr(line + 1, ']');
    if (!close)
        return; /* inih reports the syntax error */
    size_t n = (size_t)(close - line - 1);
    if (n >= sizeof(ini->sections[0].name)) {
        set_err(r, "section name too long");
        return;
    }
    if (ini->nsections == ini->capsections) {
        ini->capsections = ini->capsections ? 2 * ini->capsections : 16;
        ini->sections = xrealloc(ini->sections, ini->capsections * sizeof(*ini->sections));
    }
    struct gs_ini_section *s = &ini->sections[ini->nsections];
    memcpy(s->name, line + 1, n);
    s->name[n] = '\0';
    s->line = r->line;
    r->cur_section = ini->nsections++;
}

static char *reader_cb(char *str, int num, void *stream)
{
    struct reader *r = stream;
    size_t len;
    const char *raw = next_raw(r, &len);

    if (!raw)
        return NULL;
    r->line++;
    /* Strip leading blanks (and a UTF-8 BOM on line 1). */
    if (r->line == 1 && len >= 3 && memcmp(raw, "\xEF\xBB\xBF", 3) == 0) {
        raw += 3;
        len -= 3;
    }
    /* An indented line without '=' continues the previous key's value; any
     * other line loses its indentation so inih never sees it as one. */
    const char *start = raw;
    size_t slen = len;
    while (slen > 0 && (*start == ' ' || *start == '\t')) {
        start++;
        slen--;
    }
    r->continuation = start != raw && slen > 0 && !memchr(start, '=', slen) && *start != ';' &&
                      *start != '#' && *start != '[';
    if (!r->continuation) {
        raw = start;
        len = slen;
    }
    if (num < 3)
        return NULL;
    if (len > (size_t)num - 2) {
        char msg[96];
        snprintf(msg, sizeof(msg), "line too long (at most %d characters)", num - 2);
        set_err(r, msg);
        len = (size_t)num - 2;
    }
    memcpy(str, raw, len);
    str[len] = '\n';
    str[len + 1] = '\0';
    if (raw[0] == '[')
        record_section(r, str);
    return str;
}

static int handler_cb(void *user, const char *section, const char *name, const char *value)
{
    struct reader *r = user;
    struct gs_ini *ini = r->ini;
    (void)section; /* we track sections ourselves: inih truncates long names */

    if (strlen(name) >= sizeof(ini->entries[0].key)) {
        set_err(r, "key name too long");
        return 1;
    }
    if (r->continuation && ini->nentries > 0 &&
        ini->entries[ini->nentries - 1].section == r->cur_section &&
        strcmp(ini->entries[ini->nentries - 1].key, name) == 0) {
        /* Continuation lines join the value with one blank. */
        struct gs_ini_entry *prev = &ini->entries[ini->nentries - 1];
        size_t have = strlen(prev->value);
        if (have + 1 + strlen(value) >= sizeof(prev->value)) {
            set_err(r, "value too long");
            return 1;
        }
        prev->value[have] = ' ';
        memcpy(prev->value + have + 1, value, strlen(value) + 1);
        return 1;
    }
    if (strlen(value) >= sizeof(ini->entries[0].value)) {
        set_err(r, "value too long");
        return 1;
    }
    if (ini->nentries == ini->capentries) {
        ini->capentries = ini->capentries ? 2 * ini->capentries : 64;
        ini->entries = xrealloc(ini->entries, ini->capentries * sizeof(*ini->entries));
    }
    struct gs_ini_entry *e = &ini->entries[ini->nentries++];
    e->section = r->cur_section;
    snprintf(e->key, sizeof(e->key), "%s", name);
    snprintf(e->value, sizeof(e->value), "%s", value);
    e->line = r->line;
    return 1;
}

int gs_ini_read(const char *path, const char *text, struct gs_ini *ini, char *err, size_t errlen)
{
    struct reader r = {.text = text, .ini = ini, .cur_section = GS_INI_NO_SECTION};

    memset(ini, 0, sizeof(*ini));
    if (!text) {
        r.fp = fopen(path, "r");
        if (!r.fp) {
            snprintf(err, errlen, "%s: cannot open scenario: %s", path, strerror(errno));
            return -1;
        }
    }
    int rc = ini_parse_stream(reader_cb, &r, handler_cb, &r);
    int read_error = r.fp && ferror(r.fp);
    if (r.fp)
        fclose(r.fp);
    free(r.buf);
    if (read_error) {
        snprintf(err, errlen, "%s: read error", path);
        return -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s: cannot parse scenario (inih error %d)", path, rc);
        return -1;
    }
    if (r.err_line && (rc == 0 || r.err_line <= rc)) {
        snprintf(err, errlen, "%s:%d: %s", path, r.err_line, r.err);
        return -1;
    }
    if (rc > 0) {
        snprintf(err, errlen,
                 "%s:%d: syntax error: expected '[section]', 'key = value' or a comment", path, rc);
        return -1;
    }
    return 0;
}

void gs_ini_free(struct gs_ini *ini)
{
    free(ini->sections);
    free(ini->entries);
    memset(ini, 0, sizeof(*ini));
}
