/* self.c - this binary's bytes (see self.h). */
#include "util/self.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int
self_read(unsigned char **buf, size_t *n, struct box_err *e)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	unsigned char *p = malloc(SELF_MAX);
	size_t got = 0;
	ssize_t k;

	*buf = NULL;
	*n = 0;
	if (fd < 0 || p == NULL) {
		int rc = fd < 0 ? -errno : -ENOMEM;

		if (fd >= 0)
			close(fd);
		free(p);
		return err_set(e, rc, "reading this binary (/proc/self/exe) "
		    "failed");
	}
	while (got < SELF_MAX && ((k = read(fd, p + got, SELF_MAX - got)) > 0 ||
	    (k < 0 && errno == EINTR)))
		if (k > 0)
			got += (size_t)k;
	close(fd);
	if (got == 0 || got == SELF_MAX) {
		free(p);
		return err_set(e, -EFBIG, "/proc/self/exe: unexpected size");
	}
	*buf = p;
	*n = got;
	return 0;
}
