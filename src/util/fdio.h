/*
 * fdio.h - all of a buffer to a file descriptor, written once for every
 * caller (a file being exported or copied in, a report, a pipe to a child).
 */
#ifndef BOX_FDIO_H
#define BOX_FDIO_H

#include <stddef.h>

/*
 * Write all n bytes of p to fd, again after EINTR and after a short
 * write: 0, or -errno (-EIO when write() wrote nothing).
 */
int fd_write_all(int fd, const void *p, size_t n);

#endif
