/*
 * store.c - the secret store on disk (secret.h): a directory only its
 * owner enters, a file per secret, written whole and renamed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/secret/secret.h"
#include "util/fdio.h"

#define SUFFIX ".secret"

int
secret_store_open(const char *dir, struct box_err *e)
{
	struct stat st;

	if (lstat(dir, &st) < 0 && errno == ENOENT) {
		char parent[512], *slash;

		snprintf(parent, sizeof(parent), "%s", dir);
		if ((slash = strrchr(parent, '/')) != NULL && slash != parent) {
			*slash = '\0';
			(void)mkdir(parent, 0755);	/* /var/lib/box */
		}
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return err_set(e, -errno, "secret store %s: %s", dir,
			    err_str(-errno));
	}
	if (lstat(dir, &st) < 0)
		return err_set(e, -errno, "secret store %s: %s", dir,
		    err_str(-errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		err_set(e, -EPERM, "secret store %s is not a directory only "
		    "its owner (uid %u) can enter", dir, (unsigned)geteuid());
		err_fix(e, "chown %u %s && chmod 0700 %s", (unsigned)geteuid(),
		    dir, dir);
		return -EPERM;
	}
	return 0;
}

static int
path_of(const char *dir, const char *name, char *buf, size_t cap,
    struct box_err *e)
{
	int n;

	if (!secret_name_ok(name))
		return err_usage(e, "'%s' is not a secret name (letters, "
		    "digits, '.', '_', '-'; at most %d)", name, SECRET_NAMEMAX);
	n = snprintf(buf, cap, "%s/%s" SUFFIX, dir, name);
	if (n < 0 || (size_t)n >= cap)
		return err_set(e, -ENAMETOOLONG, "secret store path too long");
	return 0;
}

static int
write_tmp(const char *tmp, const char *text, size_t n, struct box_err *e)
{
	int fd, rc;

	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return err_set(e, -errno, "secret store: %s: %s", tmp,
		    err_str(-errno));
	rc = fd_write_all(fd, text, n);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		return err_set(e, rc, "secret store: writing %s: %s", tmp,
		    err_str(rc));
	}
	return 0;
}

int
secret_store_put(const char *dir, const struct secret *s, int replace,
    struct box_err *e)
{
	char path[512], tmp[560], *text;
	int n, rc, dfd;

	if ((rc = path_of(dir, s->name, path, sizeof(path), e)) < 0)
		return rc;
	if (!replace && access(path, F_OK) == 0)
		return err_usage(e, "secret %s exists (box secret rm %s first)",
		    s->name, s->name);
	if ((text = malloc(SECRET_FILEMAX)) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((n = secret_format(s, text, SECRET_FILEMAX)) < 0) {
		free(text);
		return err_set(e, n, "secret %s does not fit", s->name);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	rc = write_tmp(tmp, text, (size_t)n, e);
	explicit_bzero(text, SECRET_FILEMAX);
	free(text);
	if (rc < 0)
		return rc;
	if (rename(tmp, path) < 0) {
		rc = -errno;
		unlink(tmp);
		return err_set(e, rc, "secret store: %s: %s", path, err_str(rc));
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(dfd);	/* the rename itself, on disk */
		close(dfd);
	}
	return 0;
}

/* All of fd, at most cap - 1 bytes (more: -EFBIG), NUL-terminated. */
static int
read_bounded(int fd, char *buf, size_t cap, size_t *n)
{
	ssize_t r;

	*n = 0;
	for (;;) {
		if (*n >= cap - 1)
			return -EFBIG;
		r = read(fd, buf + *n, cap - 1 - *n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		*n += (size_t)r;
	}
	buf[*n] = '\0';
	return 0;
}

int
secret_load(const char *dir, const char *name, struct secret *s,
    struct box_err *e)
{
	char path[512], why[80], *text;
	size_t n;
	int fd, rc;

	if ((rc = path_of(dir, name, path, sizeof(path), e)) < 0)
		return rc;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			return err_set(e, rc, "no secret named %s (box secret "
			    "list)", name);
		return err_set(e, rc, "secret %s: %s", name, err_str(rc));
	}
	if ((text = malloc(SECRET_FILEMAX + 1)) == NULL) {
		close(fd);
		return err_set(e, -ENOMEM, "out of memory");
	}
	rc = read_bounded(fd, text, SECRET_FILEMAX + 1, &n);
	close(fd);
	if (rc == 0 && (rc = secret_parse(text, n, s, why, sizeof(why))) < 0)
		err_set(e, rc, "secret %s: its record is damaged: %s", name,
		    why);
	else if (rc < 0)
		err_set(e, rc, "secret %s: %s", name, err_str(rc));
	explicit_bzero(text, SECRET_FILEMAX + 1);
	free(text);
	if (rc == 0)
		snprintf(s->name, sizeof(s->name), "%s", name);
	return rc;
}

int
secret_store_rm(const char *dir, const char *name, struct box_err *e)
{
	char path[512];
	int rc;

	if ((rc = path_of(dir, name, path, sizeof(path), e)) < 0)
		return rc;
	if (unlink(path) < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			return err_set(e, rc, "no secret named %s (box secret "
			    "list)", name);
		return err_set(e, rc, "secret %s: %s", name, err_str(rc));
	}
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int
secret_store_names(const char *dir, char (**names)[SECRET_NAMEMAX + 1],
    size_t *n, struct box_err *e)
{
	struct dirent *d;
	DIR *dp;
	char (*v)[SECRET_NAMEMAX + 1];

	*names = NULL;
	*n = 0;
	if ((dp = opendir(dir)) == NULL)
		return err_set(e, -errno, "secret store %s: %s", dir,
		    err_str(-errno));
	if ((v = calloc(SECRET_MAX, sizeof(*v))) == NULL) {
		closedir(dp);
		return err_set(e, -ENOMEM, "out of memory");
	}
	while ((d = readdir(dp)) != NULL && *n < SECRET_MAX) {
		size_t l = strlen(d->d_name), sl = sizeof(SUFFIX) - 1;

		if (l <= sl || l - sl > SECRET_NAMEMAX ||
		    strcmp(d->d_name + l - sl, SUFFIX) != 0)
			continue;
		memcpy(v[*n], d->d_name, l - sl);
		v[*n][l - sl] = '\0';
		if (secret_name_ok(v[*n]))
			(*n)++;
	}
	closedir(dp);
	qsort(v, *n, sizeof(*v), by_name);
	*names = v;
	return 0;
}

static int
trim_nl(char *buf, size_t *n)
{
	if (*n > 0 && buf[*n - 1] == '\n')
		buf[--*n] = '\0';
	if (*n > 0 && buf[*n - 1] == '\r')
		buf[--*n] = '\0';
	return 0;
}

int
secret_read_file(const char *path, char *buf, size_t cap, size_t *n,
    struct box_err *e)
{
	struct stat st;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return err_usage(e, "--from-file %s: %s", path,
		    err_str(-errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		close(fd);
		err_usage(e, "--from-file %s: not a regular file that only you "
		    "own and can read", path);
		err_fix(e, "chmod 0600 %s", path);
		return -EPERM;
	}
	rc = read_bounded(fd, buf, cap, n);
	close(fd);
	if (rc < 0)
		return err_usage(e, "--from-file %s: %s", path, rc == -EFBIG ?
		    "longer than a secret may be" : err_str(rc));
	return trim_nl(buf, n);
}

int
secret_read_fd(int fd, char *buf, size_t cap, size_t *n, struct box_err *e)
{
	int rc = read_bounded(fd, buf, cap, n);

	if (rc < 0)
		return err_usage(e, "reading the value from stdin: %s",
		    rc == -EFBIG ? "longer than a secret may be" : err_str(rc));
	return trim_nl(buf, n);
}
