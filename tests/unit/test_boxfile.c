/* Unit tests for box/boxfile: a box's file read by the host, from a
 * directory standing in for the box's root. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/boxfile.h"
#include "t.h"

static void
put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((f = fopen(p, "w")) == NULL)
		t_fail(__FILE__, __LINE__, "creating %s", p);
	fputs(text, f);
	fclose(f);
}

TEST(boxfile_stays_in_the_root_and_never_blocks)
{
	char dir[] = "/tmp/box-boxfile.XXXXXX", p[512], q[512], buf[64];
	struct box_err e;
	int root;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/real", dir);
	CHECK(mkdir(p, 0755) == 0);
	put(p, "resolv.conf", "nameserver 10.88.0.1\n");
	put(p, "big", "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789");
	/* /etc an absolute symlink: inside the root it is root/real */
	snprintf(p, sizeof(p), "%s/etc", dir);
	CHECK(symlink("/real", p) == 0);
	/* a FIFO where a file should be */
	snprintf(p, sizeof(p), "%s/real/fifo", dir);
	CHECK(mkfifo(p, 0644) == 0);
	/* a last component that is a symlink, out of the root */
	snprintf(p, sizeof(p), "%s/real/passwd", dir);
	CHECK(symlink("/etc/passwd", p) == 0);
	/* a climb with .. */
	snprintf(p, sizeof(p), "%s/up", dir);
	CHECK(symlink("../../../../../../../etc", p) == 0);
	CHECK((root = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0);

	err_clear(&e);
	CHECK_INT(boxfile_read_at(root, "/etc/resolv.conf", buf, sizeof(buf),
	    &e), 21);
	CHECK_STR(buf, "nameserver 10.88.0.1\n");
	err_clear(&e);
	CHECK_INT(boxfile_read_at(root, "/etc/fifo", buf, sizeof(buf), &e),
	    -EINVAL);
	CHECK(strstr(e.msg, "not a regular file") != NULL);
	err_clear(&e);
	CHECK_INT(boxfile_read_at(root, "/etc/passwd", buf, sizeof(buf), &e),
	    -ELOOP);
	/* ../ out of the root lands on the root: its etc, not the host's */
	err_clear(&e);
	CHECK_INT(boxfile_read_at(root, "/up/resolv.conf", buf, sizeof(buf),
	    &e), 21);
	err_clear(&e);
	CHECK_INT(boxfile_read_at(root, "/etc/big", buf, sizeof(buf), &e),
	    -EFBIG);
	err_clear(&e);
	CHECK_INT(boxfile_read_at(root, "/etc/none", buf, sizeof(buf), &e),
	    -ENOENT);
	close(root);
	snprintf(q, sizeof(q), "rm -rf '%s'", dir);
	CHECK(system(q) == 0);
}
