/* import_mark.c - import images marked and swept (see import_mark.h). */
#include "box/import/import_mark.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box/lease.h"
#include "box/narrate.h"
#include "incus/image.h"

/* The first line of path into buf (cap bytes): its length, or -errno. */
static int
read_line(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	rc = n < 0 ? -errno : 0;
	close(fd);
	if (rc < 0)
		return rc;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return (int)strlen(buf);
}

/* What a process is on this boot: its pid namespace's inode and the
 * start time of pid in it, or -errno (gone). */
static int
proc_start(long pid, unsigned long long *start)
{
	char path[64], st[1024], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_line(path, st, sizeof(st)) < 0 || (p = strrchr(st, ')')) ==
	    NULL)
		return -ESRCH;
	for (i = 0; i < 20 && p != NULL; i++)	/* to field 22 */
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return -ESRCH;
	*start = strtoull(p + 1, NULL, 10);
	return 0;
}

/* "<boot id> <pid namespace>": where a pid means one process. */
static int
here(char *buf, size_t cap)
{
	char boot[64], ns[64];
	ssize_t n;

	if (read_line("/proc/sys/kernel/random/boot_id", boot,
	    sizeof(boot)) <= 0 ||
	    (n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1)) <= 0)
		return -ENOENT;
	ns[n] = '\0';
	if (strspn(boot, "0123456789abcdef-") != strlen(boot) ||
	    strncmp(ns, "pid:[", 5) != 0)
		return -ENOENT;
	snprintf(buf, cap, "%s %lu", boot, strtoul(ns + 5, NULL, 10));
	return 0;
}

int
import_mark_own(char *buf, size_t cap)
{
	char where[128];
	unsigned long long start;

	if (here(where, sizeof(where)) < 0 ||
	    proc_start((long)getpid(), &start) < 0)
		return -ENOENT;
	snprintf(buf, cap, "%s %ld %llu", where, (long)getpid(), start);
	return 0;
}

int
import_mark_stale(const char *mark, long long created, long long now)
{
	char where[128], me[128], boot[64];
	unsigned long ns;
	unsigned long long start, is;
	long pid;
	int k = 0;

	if (sscanf(mark, "%63s %lu %ld %llu%n", boot, &ns, &pid, &start, &k)
	    != 4 || mark[k] != '\0' || pid <= 0)
		return 0;	/* not a mark: the user's own */
	snprintf(where, sizeof(where), "%s %lu", boot, ns);
	if (here(me, sizeof(me)) == 0 && strcmp(me, where) == 0)
		return proc_start(pid, &is) < 0 || is != start;
	return now - created > IMPORT_MARK_AGE_S;
}

int
import_sweep(struct incus *c)
{
	struct incus_images l;
	struct box_err le;
	long long now = (long long)time(NULL), t;
	const char *m;
	size_t i;
	int n = 0;

	err_clear(&le);
	if (incus_image_list(c, &l, &le) < 0)
		return 0;
	for (i = 0; i < l.n; i++) {
		if ((m = incus_kv_get(&l.v[i].props, IMPORT_MARK_PROP)) ==
		    NULL)
			continue;
		if (lease_iso_time(l.v[i].created_at, &t) < 0)
			t = now;
		err_clear(&le);
		if (import_mark_stale(m, t, now) &&
		    incus_image_delete(c, l.v[i].fingerprint, LIFE_OP_S,
		    &le) == 0) {
			life_say("removed image %.12s, which an interrupted "
			    "import left behind", l.v[i].fingerprint);
			n++;
		}
	}
	incus_images_free(&l);
	return n;
}
