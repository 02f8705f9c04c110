/* Unit tests for util/fdio: all of a buffer to a descriptor, or why not. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "util/fdio.h"

TEST(fdio_writes_all_or_says_why)
{
	static char big[200000];
	char back[64];
	int p[2], fd;
	ssize_t n;

	CHECK_INT(pipe(p), 0);
	CHECK_INT(fd_write_all(p[1], "abc", 3), 0);
	n = read(p[0], back, sizeof(back));
	CHECK_INT((int)n, 3);
	CHECK(memcmp(back, "abc", 3) == 0);
	close(p[0]);
	close(p[1]);
	/* a full disk is the error, not a short count */
	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_INT(fd_write_all(fd, big, sizeof(big)), -ENOSPC);
	close(fd);
	CHECK_INT(fd_write_all(-1, "x", 1), -EBADF);
	CHECK_INT(fd_write_all(-1, "x", 0), 0);	/* nothing to write */
}
