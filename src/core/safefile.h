/* safefile.h -- creating, rewriting and locking files in directories that
 * other users may be able to write to (docs/security-files.md).
 *
 * The rules, for every file gpumon creates or rewrites in a directory:
 *  - the directory is opened once per operation and every name is looked
 *    up relative to that descriptor (openat, renameat, linkat), so the
 *    directory cannot be swapped for another half-way;
 *  - a directory writable by every user without the sticky bit is refused
 *    (as sshd refuses loose permissions): anyone could replace what we
 *    write there.  Group-writable directories and directories owned by
 *    another user are accepted: whoever may write there is trusted with the
 *    files' contents, but the rules below keep them from redirecting our
 *    writes to any other file;
 *  - the last component of a name is never followed when it is a symbolic
 *    link (O_NOFOLLOW), and a file opened to be appended to or locked must
 *    be a regular file with one link (a hard link to another file, or a
 *    FIFO that would block the open, is refused);
 *  - a file rewritten whole is written to a new temporary with an
 *    unpredictable name (O_CREAT|O_EXCL|O_NOFOLLOW), then renamed over the
 *    old one; a file that must not replace an existing one is made
 *    anonymously (O_TMPFILE) and linked in (linkat), with a named
 *    temporary as the fallback where the file system has no O_TMPFILE.
 *
 * A symbolic link in the directory part of a path is followed: the paths
 * come from the operator's configuration, and a data directory that is a
 * link to another disk is common.
 *
 * Every function returns 0 (or a descriptor) on success and a negative
 * GM_E* code on failure, with a message naming the file in err (which may
 * be NULL).  Descriptors are O_CLOEXEC.  Thread-safe.
 */
#ifndef GM_SAFEFILE_H
#define GM_SAFEFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* Opens the directory path (O_RDONLY|O_DIRECTORY) into *dfd and checks it
 * with gm_safefile_dir_check.  On failure errno says why, as for open(2):
 * EPERM for a directory refused, ENOTDIR for one that is not a directory. */
int gm_safefile_dir_open(const char *path, int *dfd, struct gm_err *err);

/* GM_E_NOPERM (errno EPERM) when the directory dfd is writable by every
 * user and not sticky (path only names it in the message); GM_E_IO when it
 * is not a directory (errno ENOTDIR) or fstat fails. */
int gm_safefile_dir_check(int dfd, const char *path, struct gm_err *err);

/* mkdir -p: creates path and its missing parents with mode (less the
 * umask), then checks path with gm_safefile_dir_check. */
int gm_safefile_mkdirs(const char *path, mode_t mode, struct gm_err *err);

/* Opens the directory part of path (up to the last '/'; "." when there is
 * none) like gm_safefile_dir_open and copies the last component into base.
 * A path that ends in '/', ".", ".." or is longer than blen is refused. */
int gm_safefile_parent_open(const char *path, int *dfd, char *base, size_t blen,
                            struct gm_err *err);

/* Opens dfd/name to append to (O_WRONLY|O_APPEND|O_CREAT|O_NOFOLLOW, mode
 * when created).  Returns the descriptor, or a negative GM_E* code when it
 * cannot be opened or is a symbolic link, not a regular file, or has more
 * than one link.  shown is the path used in messages. */
int gm_safefile_open_append(int dfd, const char *name, mode_t mode, const char *shown,
                            struct gm_err *err);

/* Opens dfd/name to read it (O_RDONLY|O_NOFOLLOW): the descriptor, or
 * GM_E_NOTFOUND when there is no such file, or another GM_E* code when it
 * is a symbolic link, not a regular file or cannot be opened. */
int gm_safefile_open_read(int dfd, const char *name, const char *shown, struct gm_err *err);

/* A new file being written in a directory, to be put in place whole. */
struct gm_safefile_tmp {
    int fd;         /* write here; -1 once committed or discarded */
    int dfd;        /* the directory (borrowed: the caller keeps it open) */
    char name[256]; /* its name in dfd; "" when anonymous (O_TMPFILE) */
};

/* Creates a temporary in dfd for final: a new file ".<final>.<random>.tmp"
 * (O_CREAT|O_EXCL|O_NOFOLLOW) or, when anon is set and the system allows,
 * an anonymous O_TMPFILE.  mode as for open(2).  On failure errno says
 * why (so does it for gm_safefile_tmp_link). */
int gm_safefile_tmp_open(struct gm_safefile_tmp *t, int dfd, const char *final, mode_t mode,
                         int anon, struct gm_err *err);

/* Closes t's descriptor and renames it over dfd/final (atomic: a reader
 * sees the old file or the new one).  On failure the temporary is gone. */
int gm_safefile_tmp_replace(struct gm_safefile_tmp *t, const char *final, struct gm_err *err);

/* Links t in as dfd/final, which must not exist (GM_E_IO with EEXIST's
 * message when it does), then closes it.  On failure the temporary is gone. */
int gm_safefile_tmp_link(struct gm_safefile_tmp *t, const char *final, struct gm_err *err);

/* Closes and removes the temporary (nothing when already committed). */
void gm_safefile_tmp_discard(struct gm_safefile_tmp *t);

/* Writes len bytes of p to dfd/name whole, through a temporary fsynced
 * and renamed over it (gm_safefile_tmp_replace).  shown names it. */
int gm_safefile_write(int dfd, const char *name, const void *p, size_t len, mode_t mode,
                      const char *shown, struct gm_err *err);

/* ---------------------------------------------------------------- locks */

struct gm_safefile_lock;

/* Takes the exclusive lock (flock, without waiting) on the lock file
 * dfd/name, created with mode 0644 and opened like gm_safefile_open_append,
 * and writes this process's PID into it; with name NULL, on the directory
 * dfd itself.  Taking a lock this process already holds (the same file)
 * succeeds and counts: each take needs its release, so that a sink
 * reopened on a reload can take it while the old one still holds it.
 * When another process holds it: GM_E_BUSY, *holder the PID of the holder
 * (0 when unknown) and err left alone, for the caller's message (say which
 * files one writer keeps).  shown names it in other messages. */
int gm_safefile_lock(int dfd, const char *name, const char *shown, struct gm_safefile_lock **out,
                     long *holder, struct gm_err *err);

/* Releases one take of l (NULL is fine); the last one unlocks. */
void gm_safefile_unlock(struct gm_safefile_lock *l);

/* ---------------------------------------------------- a file a user named */

/* Opens path, a file the user named on the command line (`-f FILE`), to
 * write to, without truncating it.  A symbolic link is followed, like a
 * shell's `>`, except one in a sticky directory writable by every user
 * that belongs to neither us nor the directory's owner (the kernel's
 * fs.protected_symlinks rule, applied whatever that setting is): planted
 * there by someone else, it is refused.  The open never blocks
 * (O_NONBLOCK, cleared on success): a FIFO without a reader is refused.
 * What is opened is then checked (fstat): a file that is not a regular one
 * (a FIFO, a socket, a device) is written to only when it is ours or
 * root's (/dev/null) or an anonymous pipe or socket (/dev/stdout); another
 * user's is refused wherever it is.  A regular file in a sticky shared
 * directory must be ours or the directory owner's and have one link. */
int gm_safefile_open_output(const char *path, struct gm_err *err);

/* For a file the user named that is written whole (a report, a plot):
 * 1 when dfd/base (path) exists and is not a regular file, a directory or
 * a symbolic link -- a FIFO, a device -- or is a link that
 * gm_safefile_open_output would follow to such a file (/dev/stdout): it is
 * to be written through gm_safefile_open_output, which applies its rules;
 * 0 when a new file is to be renamed over it (gm_safefile_write): none
 * there, a regular file, or any other link (replaced, never followed).
 * Without this, a rename would replace /dev/null or the user's FIFO. */
int gm_safefile_output_in_place(int dfd, const char *base, const char *path);

/* Writes len bytes of p to dfd/base (path, a file the user named; dfd from
 * gm_safefile_parent_open) whole: through gm_safefile_write (mode 0644),
 * or in place (gm_safefile_open_output, emptied first) when
 * gm_safefile_output_in_place says so. */
int gm_safefile_output_write(int dfd, const char *base, const char *path, const void *p, size_t len,
                             struct gm_err *err);

/* Empties the file fd (opened by gm_safefile_open_output) when it is a
 * regular file: call it once there is something to write, so a run that
 * fails to start leaves the old contents. */
int gm_safefile_output_truncate(int fd, const char *shown, struct gm_err *err);

/* Sets the mode of dfd/name, never through a symbolic link put at that
 * name: fchmodat(AT_SYMLINK_NOFOLLOW), or where the C library cannot do
 * that (ENOTSUP: glibc before 2.32, the release tarball's floor of 2.31)
 * the same by hand -- name opened with O_PATH|O_NOFOLLOW, a link refused
 * (ELOOP), the mode set through /proc/self/fd.  0, or GM_E_IO with errno
 * saying why. */
int gm_safefile_chmodat(int dfd, const char *name, mode_t mode);

#endif /* GM_SAFEFILE_H */
