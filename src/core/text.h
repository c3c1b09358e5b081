/* text.h -- one sanitiser for text that came from outside gpumon.
 *
 * Process names (comm, NVML's process name), command lines, executable
 * paths, user names, cgroup paths, GPU names, UUIDs, serials, VBIOS and
 * board part numbers, driver versions, the host name and mark texts are
 * bytes that someone else chose: any user can name a process
 * "ev\xff\n\x1b[2J" with prctl(PR_SET_NAME), and a board may report a VBIOS
 * string that is not UTF-8.  Every output writes such text through one of
 * the functions below, one per output form; none of them ever emits a byte
 * sequence that is not UTF-8 or a control character that the form cannot
 * carry (docs/security-text.md):
 *
 *   form              invalid UTF-8   controls (C0, DEL, C1)       bidi    quoting
 *   gm_text_utf8      U+FFFD          kept                          kept    none
 *   gm_text_line      U+FFFD          U+FFFD                        U+FFFD  none
 *   gm_text_term      U+FFFD / '?'    U+FFFD / '?'                  U+FFFD  none
 *   gm_text_prom      U+FFFD          \n escaped, others U+FFFD      kept    \\ \" \n
 *   gm_text_csv       U+FFFD          U+FFFD                        U+FFFD  RFC 4180, formula rule
 *   gm_text_json      U+FFFD          \n \t \r, others \u00XX        kept    JSON string body
 *   gm_text_html      U+FFFD          U+FFFD                        U+FFFD  & < > " ' references
 *
 * "bidi" is the bidirectional formatting characters (gm_text_is_bidi):
 * U+202E shows "evil\u202Etxt.exe" as "evilexe.txt" and reverses the rest
 * of a status line, so the forms a person reads replace them like controls;
 * the data forms keep them (a JSON reader gets the name back).
 *
 * "Invalid UTF-8" is every byte that does not belong to a well-formed
 * sequence (Unicode 15, table 3-7): stray continuation bytes, C0/C1/F5-FF
 * lead bytes, sequences cut short, overlong forms, UTF-16 surrogates
 * (U+D800-U+DFFF) and code points above U+10FFFF.  Each such byte becomes
 * one U+FFFD, so the number of replacement characters says how many bytes
 * were lost.  Valid text, including every normal name, passes unchanged.
 *
 * Functions append to a gm_buf (which aborts on out of memory) and never
 * fail.  Inputs are (pointer, length) so that embedded NUL bytes and
 * unterminated fixed arrays are handled; a NUL byte counts as a control.
 *
 * At the end, the "did you mean" helper for unknown words (commands, query
 * fields): an edit distance, bounded in time and memory.
 */
#ifndef GM_TEXT_H
#define GM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* U+FFFD REPLACEMENT CHARACTER in UTF-8.  One column wide on a terminal
 * (East Asian Width "ambiguous": two in some CJK terminal settings). */
#define GM_TEXT_REPL "\xEF\xBF\xBD"

/* The length (1-4) of the well-formed UTF-8 sequence at s, of the n bytes
 * available, and its code point in *cp (may be NULL); 0 when s[0] does not
 * start one (or n is 0). */
size_t gm_text_utf8_seq(const char *s, size_t n, uint32_t *cp);

/* Whether cp is a control character: C0 (U+0000-U+001F), DEL (U+007F) or
 * C1 (U+0080-U+009F). */
int gm_text_is_control(uint32_t cp);

/* Whether cp is a bidirectional formatting character (UAX #9): LRM, RLM
 * (U+200E, U+200F), ALM (U+061C), the embeddings and overrides U+202A-U+202E
 * and the isolates U+2066-U+2069.  Valid text that reorders what follows it
 * on the same line (U+202E shows "evil\u202Etxt.exe" as "evilexe.txt"), so
 * the forms a person reads treat them as controls. */
int gm_text_is_bidi(uint32_t cp);

/* Whether s[0..n) is well-formed UTF-8 (controls allowed). */
int gm_text_is_utf8(const char *s, size_t n);

/* Whether s[0..n) is well-formed UTF-8 with no control character and no
 * bidi control: text that every form writes unchanged (before its own
 * quoting). */
int gm_text_is_clean(const char *s, size_t n);

/* Appends s with each invalid byte replaced by U+FFFD; control characters
 * are kept.  For stores whose readers expect UTF-8 (SQLite TEXT). */
void gm_text_utf8(struct gm_buf *b, const char *s, size_t n);

/* Appends s as one line of plain text: invalid bytes, control characters
 * (newline and tab included) and bidi controls become U+FFFD.  For logs and
 * environment variables. */
void gm_text_line(struct gm_buf *b, const char *s, size_t n);

/* Appends s for a terminal: as gm_text_line when utf8; otherwise (a
 * terminal whose locale is not UTF-8) every byte outside printable ASCII,
 * and every control, is '?'.  Nothing it writes moves the cursor or starts
 * an escape sequence; each character is one column (see GM_TEXT_REPL). */
void gm_text_term(struct gm_buf *b, const char *s, size_t n, int utf8);

/* gm_text_term into dst[len] (NUL-terminated, cut at a character boundary
 * when it does not fit).  NULL s gives "".  Returns dst. */
const char *gm_text_term_s(char *dst, size_t len, const char *s, int utf8);

/* Display columns of UTF-8 text as the views count them: one per
 * character.  (Wide East Asian characters are two on a real terminal; the
 * views do not measure them.) */
size_t gm_text_width(const char *s);

/* Appends s as the body of a Prometheus/OpenMetrics label value (between
 * the quotes): valid UTF-8, backslash, double quote and newline escaped as
 * \\, \" and \n, other control characters as U+FFFD. */
void gm_text_prom(struct gm_buf *b, const char *s, size_t n);

/* gm_text_csv flags. */
enum {
    /* The cell is text from outside (a name, not a number gpumon wrote):
     * apply the formula rule. */
    GM_TEXT_CSV_OUTSIDE = 1,
};

/* Appends s as one CSV cell: as gm_text_line (so a row is always one
 * line), then, with GM_TEXT_CSV_OUTSIDE, a single quote in front when it
 * begins with = + - @ or ' (OWASP's CSV-injection rule; ' itself so that
 * removing one leading ' always gives the value back), then quoted per
 * RFC 4180 when it holds a comma or a double quote.  Never use
 * GM_TEXT_CSV_OUTSIDE for numbers: -1 stays -1. */
void gm_text_csv(struct gm_buf *b, const char *s, size_t n, unsigned flags);

/* Whether gm_text_csv with GM_TEXT_CSV_OUTSIDE puts a quote in front of s. */
int gm_text_csv_formula(const char *s, size_t n);

/* Appends s as the body of a JSON string (RFC 8259, no quotes): valid
 * UTF-8; " and \ escaped; \n \t \r as such; other C0 controls, DEL,
 * C1 controls and U+2028/U+2029 (line breaks to JavaScript) as \u00XX /
 * \u20XX; invalid bytes as U+FFFD. */
void gm_text_json(struct gm_buf *b, const char *s, size_t n);

/* Appends s as HTML text or a quoted attribute value: one line as
 * gm_text_line (invalid bytes, control characters and bidi controls as
 * U+FFFD), then & < > " ' as character references. */
void gm_text_html(struct gm_buf *b, const char *s, size_t n);

/* ------------------------------------------------------- did you mean */

/* Words longer than this (bytes) are never close to anything. */
#define GM_TEXT_SUGGEST_MAX 64

/* The position (0, 1, ...) of word among the '|'-separated choices
 * ("error|warning|notice"), compared byte for byte, or ignoring ASCII case
 * when nocase; -1 when it is none of them (an empty word is none). */
int gm_text_choice(const char *choices, const char *word, int nocase);

/* The Damerau-Levenshtein distance of a and b (optimal string alignment:
 * insert, delete, substitute, swap two neighbours; bytes compared as they
 * are), or max + 1 when it is more than max or either string is longer
 * than GM_TEXT_SUGGEST_MAX.  Bounded time and memory, no allocation. */
int gm_text_distance(const char *a, size_t na, const char *b, size_t nb, int max);

/* "Did you mean", as git does for its commands: init with the unknown word
 * (borrowed, not NUL-terminated), add each valid name (borrowed; NULL is
 * skipped), then best is the closest one within max edits (1 for words of
 * up to 5 bytes, 2 up to 9, 3 beyond), the first added on a tie, or NULL
 * when none is that close. */
struct gm_text_suggest {
    const char *word;
    size_t len;
    int max;
    int best_d;
    const char *best;
};
void gm_text_suggest_init(struct gm_text_suggest *sg, const char *word, size_t len);
void gm_text_suggest_add(struct gm_text_suggest *sg, const char *cand);

#endif /* GM_TEXT_H */
