/* fuzz_tmp.h -- a private temporary directory for the harnesses whose
 * parser reads a file (the config loader, the web config) or writes one
 * (the CSV log).
 *
 * The directory is made on first use under $TMPDIR (else /tmp) and removed
 * with everything in it when the process exits normally; a harness writes
 * nothing anywhere else.  A run that dies on a finding cannot clean up, so
 * scripts/fuzz.sh points TMPDIR at a directory of its own and removes that.
 * Every function aborts on failure: a harness that cannot set up must stop,
 * not report a clean run.
 */
#ifndef FUZZ_TMP_H
#define FUZZ_TMP_H

#include <stddef.h>
#include <stdint.h>

/* The directory (no trailing '/'), made on the first call. */
const char *fuzz_tmp_dir(void);

/* Writes path (in the directory) with exactly data[0..size), replacing
 * what was there. */
void fuzz_tmp_write(const char *path, const void *data, size_t size);

/* Removes everything inside dir, which stays (dir itself when keep is 0). */
void fuzz_tmp_clear(const char *dir, int keep);

/* A NUL-terminated copy of data (the caller frees it).  Inputs with a NUL
 * byte end there, as a C string would. */
char *fuzz_cstr(const uint8_t *data, size_t size);

#endif /* FUZZ_TMP_H */
