/*
 * grant_cut.c - the tombstone in incus-user's state directory and the
 * trust entries: see grant_cut.h.
 */
#include "host/stack/grant_cut.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/stack/grant_project.h"
#include "incus/certificate.h"

#define TOMB_HEAD	"box revoke: incus-user must not set uid "

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE	(1 << 1)
#endif

static int
tomb_text(const struct grant_user *u, char *buf, size_t cap)
{
	return snprintf(buf, cap, TOMB_HEAD "%u (%s) up again: this is a file, "
	    "not its directory, so it can neither read a certificate here nor "
	    "make one.  box grant %s removes it.\n", u->uid, u->name, u->name);
}

/* rm -r of a directory incus-user made (a few files, no deeper). */
static int
remove_tree(int dfd, const char *name, int depth)
{
	DIR *d;
	struct dirent *de;
	int fd, rc = 0;

	if (depth > 4)
		return -ELOOP;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return -errno;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = -errno;
		else if (S_ISDIR(st.st_mode))
			rc = remove_tree(fd, de->d_name, depth + 1);
		else if (unlinkat(fd, de->d_name, 0) < 0)
			rc = -errno;
	}
	closedir(d);
	if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0 &&
	    errno != ENOENT)
		rc = -errno;
	return rc;
}

/* The directory holding u's state path, opened; its last part in leaf. */
static int
users_dir(const struct grant_user *u, char *leaf, size_t cap, int make)
{
	char dir[sizeof(u->state_dir)];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", u->state_dir);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return -EINVAL;
	*slash = '\0';
	snprintf(leaf, cap, "%s", slash + 1);
	if (make && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Is name in dfd box's tombstone for u's uid?  Its head is enough (the
 * uid may have changed hands since: a tombstone outlives a userdel).
 */
static int
is_tomb(int dfd, const char *name, const struct grant_user *u)
{
	char want[64], got[GRANT_TOMBSTONE_MAX];
	struct stat st;
	ssize_t n;
	int fd, len;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP ||
		    errno == EISDIR ? 0 : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    st.st_size >= GRANT_TOMBSTONE_MAX) {
		close(fd);
		return 0;
	}
	n = read(fd, got, sizeof(got));
	close(fd);
	len = snprintf(want, sizeof(want), TOMB_HEAD "%u ", u->uid);
	return n >= len && memcmp(got, want, (size_t)len) == 0;
}

/* The tombstone at u's state path, in one exchange where it can. */
static int
bury(const struct grant_user *u, int *replaced, struct box_err *e)
{
	char leaf[64], tmp[96], text[GRANT_TOMBSTONE_MAX];
	struct stat st;
	int dfd, fd, len, rc = 0;

	*replaced = 0;
	dfd = users_dir(u, leaf, sizeof(leaf), 1);
	if (dfd < 0)
		return err_set(e, dfd, "opening incus-user's state directory "
		    "for %s: %s", u->state_dir, strerror(-dfd));
	if (is_tomb(dfd, leaf, u) == 1) {
		close(dfd);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), ".box-revoked-%s.%ld", leaf, (long)getpid());
	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	len = tomb_text(u, text, sizeof(text));
	if (fd < 0 || write(fd, text, (size_t)len) != len || fsync(fd) < 0) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		(void)unlinkat(dfd, tmp, 0);
		close(dfd);
		return err_set(e, rc, "writing the revoke tombstone beside %s: "
		    "%s", u->state_dir, strerror(-rc));
	}
	close(fd);
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		/* Nothing there: the tombstone takes the name. */
		if (renameat(dfd, tmp, dfd, leaf) < 0)
			rc = -errno;
	} else if (syscall(SYS_renameat2, dfd, tmp, dfd, leaf,
	    RENAME_EXCHANGE) == 0) {
		/* tmp names incus-user's old directory (or file) now. */
		*replaced = 1;
		rc = S_ISDIR(st.st_mode) ? remove_tree(dfd, tmp, 0) :
		    (unlinkat(dfd, tmp, 0) < 0 ? -errno : 0);
	} else {
		/* No exchange here: remove, then take the name at once. */
		rc = S_ISDIR(st.st_mode) ? remove_tree(dfd, leaf, 0) :
		    (unlinkat(dfd, leaf, 0) < 0 ? -errno : 0);
		if (rc == 0 && renameat(dfd, tmp, dfd, leaf) < 0)
			rc = -errno;
		*replaced = 1;
	}
	if (rc < 0) {
		(void)unlinkat(dfd, tmp, 0);
		err_set(e, rc, "putting the revoke tombstone at %s: %s",
		    u->state_dir, strerror(-rc));
	}
	(void)fsync(dfd);
	close(dfd);
	return rc;
}

int
grant_cut(struct incus *c, const struct grant_user *u, struct box_err *e)
{
	char fps[8][80];
	int rc, n, i, replaced;

	rc = bury(u, &replaced, e);
	if (rc < 0)
		return rc;
	fprintf(stderr, "  incus-user: %s is a root-only file now%s (it "
	    "refuses uid %u: no program of %s's reaches the daemon through "
	    "it)\n", u->state_dir, replaced ? " (its certificate directory is "
	    "gone)" : "", u->uid, u->name);
	n = grant_trust_fps(c, u->uid, fps, 8, e);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < 8; i++) {
		rc = incus_certificate_delete(c, fps[i], e);
		if (rc == -ENOENT)
			err_clear(e);
		else if (rc < 0)
			return rc;
		fprintf(stderr, "  removed the trust entry incus-user-%u (a "
		    "connection already open is untrusted at its next "
		    "request)\n", u->uid);
	}
	if (n > 8)
		return err_set(e, -E2BIG, "%d trust entries incus-user-%u: "
		    "removed 8, run box revoke again", n, u->uid);
	return 0;
}

int
grant_cut_present(const struct grant_user *u)
{
	char leaf[64];
	int dfd = users_dir(u, leaf, sizeof(leaf), 0), rc;

	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	rc = is_tomb(dfd, leaf, u);
	close(dfd);
	return rc;
}

int
grant_uncut(const struct grant_user *u, struct box_err *e)
{
	char leaf[64];
	int dfd = users_dir(u, leaf, sizeof(leaf), 0), rc;

	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return err_set(e, dfd, "opening %s: %s", u->state_dir,
		    strerror(-dfd));
	rc = is_tomb(dfd, leaf, u);
	if (rc < 0)
		err_set(e, rc, "reading %s: %s", u->state_dir, strerror(-rc));
	else if (rc == 1 && unlinkat(dfd, leaf, 0) < 0)
		rc = err_set(e, -errno, "removing the revoke tombstone %s: %s",
		    u->state_dir, strerror(errno));
	else if (rc == 1)
		fprintf(stderr, "  incus-user: the revoke tombstone %s is "
		    "gone (incus-user sets %s up again)\n", u->state_dir,
		    u->name);
	close(dfd);
	return rc < 0 ? rc : 0;
}
