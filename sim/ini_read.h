/* ini_read.h -- reads a scenario file into a flat list of sections and
 * key/value entries, each with its line number.
 *
 * libinih does the INI syntax; this layer adds what inih does not report:
 * the line of every entry and section header (for "FILE:LINE: reason"
 * messages), section headers without keys, and lines too long for inih's
 * buffer.  Leading blanks are stripped from key lines, so indented files
 * work; an indented line without '=' continues the previous value (joined
 * with one blank), for long lists.  Nothing is interpreted here;
 * sim/scenario.c gives the entries meaning.
 */
#ifndef GS_INI_READ_H
#define GS_INI_READ_H

#include <stddef.h>

struct gs_ini_section {
    char name[64];
    int line;
};

struct gs_ini_entry {
    size_t section; /* index into gs_ini.sections; (size_t)-1 before any section */
    char key[64];
    char value[1024];
    int line;
};

struct gs_ini {
    struct gs_ini_section *sections;
    size_t nsections, capsections;
    struct gs_ini_entry *entries;
    size_t nentries, capentries;
};

#define GS_INI_NO_SECTION ((size_t)-1)

/* Reads path (or, with text != NULL, the string text under the file name
 * path).  Returns 0, or -1 with "FILE:LINE: reason" / "FILE: reason" in err.
 * The caller frees ini with gs_ini_free() in both cases. */
int gs_ini_read(const char *path, const char *text, struct gs_ini *ini, char *err, size_t errlen);

/* Frees what gs_ini_read() allocated; accepts a zeroed struct. */
void gs_ini_free(struct gs_ini *ini);

#endif /* GS_INI_READ_H */
