/*
 * boxfile.c - a box's file, read by the host, bounded (see boxfile.h).
 */
#include "box/boxfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#ifndef SYS_openat2
#define SYS_openat2	437
#endif

ssize_t
boxfile_read_at(int root, const char *path, char *buf, size_t cap,
    struct box_err *e)
{
	struct open_how how;
	struct stat st;
	size_t have = 0;
	ssize_t n;
	int fd, rc;

	if (cap == 0)
		return err_set(e, -EINVAL, "%s: no room to read it", path);
	buf[0] = '\0';
	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
	    O_NOCTTY;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	while (*path == '/')
		path++;		/* relative to root, whatever it says */
	fd = (int)syscall(SYS_openat2, root, *path ? path : ".", &how,
	    sizeof(how));
	if (fd < 0)
		return err_set(e, -errno, "the box's /%s: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, -EINVAL, "the box's /%s is not a regular "
		    "file", path);
	}
	while (have < cap - 1 && (n = read(fd, buf + have, cap - 1 -
	    have)) > 0)
		have += (size_t)n;
	rc = have == cap - 1 && read(fd, &(char){ 0 }, 1) > 0;
	close(fd);
	buf[have] = '\0';
	if (rc)
		return err_set(e, -EFBIG, "the box's /%s is longer than %zu "
		    "bytes", path, cap - 1);
	return (ssize_t)have;
}

ssize_t
boxfile_read(long long pid, const char *path, char *buf, size_t cap,
    struct box_err *e)
{
	char rp[64];
	ssize_t n;
	int root;

	snprintf(rp, sizeof(rp), "/proc/%lld/root", pid);
	/* O_PATH: the root is only a starting point, never read; opening
	 * the magic link itself is what lands in the box's root. */
	if ((root = open(rp, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return err_set(e, -errno, "the box's root (%s): %s", rp,
		    strerror(errno));
	n = boxfile_read_at(root, path, buf, cap, e);
	close(root);
	return n;
}
