/*
 * fdio.c - all of a buffer to a file descriptor (see fdio.h).
 */
#include "util/fdio.h"

#include <errno.h>
#include <unistd.h>

int
fd_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n > 0) {
		w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}
