/*
 * uselog.c - the door's use log, JSON lines of one fixed shape
 * (secret.h).  The reader reads that shape and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/secret/secret.h"
#include "util/fdio.h"

#define LINEMAX 1024

/* A string fit for the log as it is: printable, no '"' or '\'. */
static int
plain(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return 0;
	return 1;
}

int
secret_use_format(const struct secret_use *u, char *buf, size_t cap)
{
	int n;

	if (!plain(u->box) || !plain(u->secret) || !plain(u->method) ||
	    !plain(u->host) || !plain(u->path))
		return -EINVAL;
	n = snprintf(buf, cap, "{\"t\":%lld,\"box\":\"%s\",\"secret\":\"%s\","
	    "\"method\":\"%s\",\"host\":\"%s\",\"path\":\"%s\",\"status\":%d,"
	    "\"in\":%lld,\"out\":%lld,\"ms\":%lld}\n", u->t_ms, u->box,
	    u->secret, u->method, u->host, u->path, u->status, u->in, u->out,
	    u->ms);
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	return n;
}

/* "key": at *p: past it, or NULL. */
static const char *
key(const char *p, const char *end, const char *k)
{
	size_t l = strlen(k);

	if ((size_t)(end - p) < l + 3 || p[0] != '"' ||
	    memcmp(p + 1, k, l) != 0 || p[l + 1] != '"' || p[l + 2] != ':')
		return NULL;
	return p + l + 3;
}

static const char *
str(const char *p, const char *end, const char *k, char *out, size_t cap,
    int comma)
{
	const char *q;

	if ((p = key(p, end, k)) == NULL || p >= end || *p++ != '"')
		return NULL;
	for (q = p; q < end && *q != '"'; q++)
		if (*q < 0x20 || *q > 0x7e || *q == '\\')
			return NULL;
	if (q >= end || (size_t)(q - p) >= cap)
		return NULL;
	memcpy(out, p, (size_t)(q - p));
	out[q - p] = '\0';
	q++;
	if (comma && (q >= end || *q++ != ','))
		return NULL;
	return q;
}

static const char *
num(const char *p, const char *end, const char *k, long long *v, int comma)
{
	long long x = 0;
	int digits = 0;

	if ((p = key(p, end, k)) == NULL)
		return NULL;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits >= 18)
			return NULL;
		x = x * 10 + (*p - '0');
	}
	if (digits == 0 || (digits > 1 && p[-digits] == '0'))
		return NULL;	/* as box writes it: no leading zero */
	if (comma && (p >= end || *p++ != ','))
		return NULL;
	*v = x;
	return p;
}

int
secret_use_parse(const char *line, size_t n, struct secret_use *u)
{
	const char *p = line, *end = line + n;
	long long st = 0;

	memset(u, 0, sizeof(*u));
	if (n < 2 || *p++ != '{' || end[-1] != '}')
		return -EINVAL;
	end--;
	if ((p = num(p, end, "t", &u->t_ms, 1)) == NULL ||
	    (p = str(p, end, "box", u->box, sizeof(u->box), 1)) == NULL ||
	    (p = str(p, end, "secret", u->secret, sizeof(u->secret), 1)) ==
	    NULL ||
	    (p = str(p, end, "method", u->method, sizeof(u->method), 1)) ==
	    NULL ||
	    (p = str(p, end, "host", u->host, sizeof(u->host), 1)) == NULL ||
	    (p = str(p, end, "path", u->path, sizeof(u->path), 1)) == NULL ||
	    (p = num(p, end, "status", &st, 1)) == NULL || st > 999 ||
	    (p = num(p, end, "in", &u->in, 1)) == NULL ||
	    (p = num(p, end, "out", &u->out, 1)) == NULL ||
	    (p = num(p, end, "ms", &u->ms, 0)) == NULL || p != end)
		return -EINVAL;
	u->status = (int)st;
	return 0;
}

int
secret_log_append(const char *dir, const struct secret_use *u)
{
	char path[512], old[520], line[LINEMAX];
	struct stat st;
	int fd, n, rc;

	if ((n = secret_use_format(u, line, sizeof(line))) < 0)
		return n;
	snprintf(path, sizeof(path), "%s/" SECRET_LOG, dir);
	if (stat(path, &st) == 0 && st.st_size + n > SECRET_LOG_MAX) {
		snprintf(old, sizeof(old), "%s.1", path);
		(void)rename(path, old);	/* the older half goes */
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = fd_write_all(fd, line, (size_t)n);
	close(fd);
	return rc;
}

static int
each_file(const char *path, const char *box,
    void (*fn)(const struct secret_use *, const char *, void *), void *ctx,
    size_t *bad)
{
	struct secret_use u;
	char line[LINEMAX + 2];
	FILE *f;

	if ((f = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t l = strlen(line);

		if (l == 0 || line[l - 1] != '\n') {
			int c;

			(*bad)++;	/* over-long: skip the rest of it */
			while (l > 0 && (c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		line[--l] = '\0';
		if (secret_use_parse(line, l, &u) < 0) {
			(*bad)++;
			continue;
		}
		if (box == NULL || strcmp(box, u.box) == 0)
			fn(&u, line, ctx);
	}
	fclose(f);
	return 0;
}

int
secret_log_each(const char *dir, const char *box,
    void (*fn)(const struct secret_use *u, const char *line, void *ctx),
    void *ctx, size_t *bad, struct box_err *e)
{
	char path[512], old[520];
	int rc;

	*bad = 0;
	snprintf(path, sizeof(path), "%s/" SECRET_LOG, dir);
	snprintf(old, sizeof(old), "%s.1", path);
	if ((rc = each_file(old, box, fn, ctx, bad)) < 0 ||
	    (rc = each_file(path, box, fn, ctx, bad)) < 0)
		return err_set(e, rc, "the use log in %s: %s", dir,
		    err_str(rc));
	return 0;
}
