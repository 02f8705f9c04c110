/*
 * boxfile.h - the one reader of a box's files for the host (doctor,
 * verify, cp, logs): whatever a box's root made of the path, the read is
 * bounded and stays in the box.
 *
 *   resolved inside the box's root   openat2(RESOLVE_IN_ROOT) from the
 *                                    box init's /proc/<pid>/root: an
 *                                    absolute symlink, or "..", never
 *                                    leaves it (magic links refused)
 *   never blocks on open             O_NONBLOCK: a FIFO, a socket or a
 *                                    device opens at once, then is refused
 *   the last component no symlink    O_NOFOLLOW
 *   regular files only               fstat after the open
 *   size-capped                      at most cap - 1 bytes, NUL-ended;
 *                                    a longer file is -EFBIG
 */
#ifndef BOX_BOXFILE_H
#define BOX_BOXFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

/*
 * Read path (absolute, within the box) of the box whose init is pid into
 * buf[0..cap): the length, or -errno with e set: -EINVAL not a regular
 * file, -EFBIG longer than cap - 1, -ENOENT, -ELOOP, -EXDEV (the path
 * leaves the root), -ENOSYS (no openat2: the kernel is older than 5.6).
 */
ssize_t boxfile_read(long long pid, const char *path, char *buf, size_t cap,
    struct box_err *e);

/* The same from an open directory root (the box's, or a test's). */
ssize_t boxfile_read_at(int root, const char *path, char *buf, size_t cap,
    struct box_err *e);

#endif
