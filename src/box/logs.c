/*
 * logs.c - box logs: the console log (the daemon's) or cloud-init's
 * output log (through the files API, so nothing runs in the box), fetched
 * under a bound, shown under the sanitiser on a terminal (logs.h).
 *
 * --follow polls, one fetch a second: the console log is handed over
 * once (each read empties the daemon's buffer), so every fetch is new;
 * the file is read whole each time, and what grew past the last fetch's
 * length is the new part (a file that shrank was rotated or truncated:
 * said, and shown again from its start).
 */
#include "box/logs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "box/box.h"
#include "box/remote/remote.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "util/clock.h"
#include "util/text.h"

#define PEND_MAX	(64u << 10)	/* a line longer is shown in pieces */

struct fetch {
	char *buf;		/* the newest LOGS_KEEP bytes */
	size_t n;
	long long got;		/* bytes the daemon sent in all */
	long long deadline;	/* clock_ms() */
};

static int
keep(void *ctx, const void *p, size_t n)
{
	struct fetch *f = ctx;
	const char *s = p;

	if (clock_ms() > f->deadline)
		return -ETIMEDOUT;
	if (f->got + (long long)n > LOGS_READ_MAX)
		return -EFBIG;
	f->got += (long long)n;
	if (n >= LOGS_KEEP) {
		memcpy(f->buf, s + n - LOGS_KEEP, LOGS_KEEP);
		f->n = LOGS_KEEP;
		return 0;
	}
	if (f->n + n > LOGS_KEEP) {
		size_t drop = f->n + n - LOGS_KEEP;

		memmove(f->buf, f->buf + drop, f->n - drop);
		f->n -= drop;
	}
	memcpy(f->buf + f->n, s, n);
	f->n += n;
	return 0;
}

/* s[0..n) shown, in pieces cut between UTF-8 characters. */
static void
show_piece(FILE *out, const char *s, size_t n)
{
	char buf[6 * 1024 + 8];
	size_t cut;

	while (n > 0) {
		cut = n > 1024 ? 1024 : n;
		while (cut < n && cut > 1016 &&
		    ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
		text_shown(s, cut, buf, sizeof(buf));
		fputs(buf, out);
		s += cut;
		n -= cut;
	}
}

void
logs_show(FILE *out, const char *s, size_t n, struct logs_pend *pend,
    int final)
{
	const char *nl;
	size_t len;
	char *np;

	while (n > 0) {
		nl = memchr(s, '\n', n);
		len = nl != NULL ? (size_t)(nl - s) : n;
		if (nl == NULL && !final && pend->n + len <= PEND_MAX) {
			if ((np = realloc(pend->p, pend->n + len + 1)) == NULL)
				return;
			pend->p = np;
			memcpy(pend->p + pend->n, s, len);
			pend->n += len;
			return;
		}
		/* the line: what was kept back, then this; "\r\n" ends it */
		if (len > 0 && s[len - 1] == '\r' && nl != NULL)
			show_piece(out, pend->p, pend->n), show_piece(out, s,
			    len - 1);
		else if (len == 0 && nl != NULL && pend->n > 0 &&
		    pend->p[pend->n - 1] == '\r')
			show_piece(out, pend->p, pend->n - 1);
		else
			show_piece(out, pend->p, pend->n), show_piece(out, s,
			    len);
		fputc('\n', out);
		pend->n = 0;
		s += len + (nl != NULL);
		n -= len + (nl != NULL);
	}
	if (final && pend->n > 0) {
		show_piece(out, pend->p, pend->n);
		fputc('\n', out);
		pend->n = 0;
	}
}

/*
 * The console as liblxc writes it, whole (lxc.console.logfile): the
 * daemon's log directory for the instance, root's only.  The API's read
 * hands over only what came since the last one; this file keeps all of
 * it.  -1 when it cannot be opened (not root, a VM, another layout): the
 * API is used then.
 */
static int
console_file(const struct incus *c, const char *name)
{
	const char *dir = incus_daemon_dir();
	char path[512];
	struct stat st;
	int fd, n;

	if (remote_active())
		return -1;	/* that file is on the daemon's host */
	if (strcmp(dir, "/var/lib/incus") == 0)
		n = snprintf(path, sizeof(path), "/var/log/incus/");
	else
		n = snprintf(path, sizeof(path), "%s/logs/", dir);
	if (c->project[0] != '\0' && strcmp(c->project, "default") != 0)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%s_",
		    c->project);
	if (n < 0 || (size_t)n >= sizeof(path) ||
	    (size_t)snprintf(path + n, sizeof(path) - (size_t)n,
	    "%s/console.log", name) >= sizeof(path) - (size_t)n)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* From *off on (the newest LOGS_KEEP bytes of it) into f; *off moves. */
static int
fetch_file(int fd, long long *off, struct fetch *f, int *shrank)
{
	struct stat st;
	ssize_t r;

	f->n = 0;
	f->got = 0;
	*shrank = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size < *off) {
		*shrank = 1;
		*off = 0;
	}
	if (st.st_size - *off > (long long)LOGS_KEEP)
		*off = st.st_size - LOGS_KEEP;
	while (f->n < LOGS_KEEP) {
		r = pread(fd, f->buf + f->n, LOGS_KEEP - f->n, *off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		f->n += (size_t)r;
		*off += r;
	}
	return 0;
}

static int
fetch(struct incus *c, const struct logs_req *q, struct fetch *f,
    struct box_err *e)
{
	int rc;

	f->n = 0;
	f->got = 0;
	f->deadline = clock_ms() + LOGS_FETCH_S * 1000ll;
	if (q->src == LOGS_CONSOLE)
		rc = incus_console_log(c, q->name, keep, f, e);
	else
		rc = incus_file_pull(c, q->name, LOGS_CLOUD_INIT_PATH, keep, f,
		    e);
	if (rc == -EFBIG) {
		fprintf(stderr, "box: the log is over %lld MiB; shown up to "
		    "there\n", LOGS_READ_MAX >> 20);
		err_clear(e);
		return 0;
	}
	if (rc == -ETIMEDOUT) {
		err_clear(e);
		return err_set(e, rc, "%s's log did not arrive within %d s "
		    "(the box controls that file)", q->name, LOGS_FETCH_S);
	}
	if (rc == -ENOENT && q->src == LOGS_CLOUD_INIT) {
		err_clear(e);
		err_set(e, rc, "%s has no %s", q->name, LOGS_CLOUD_INIT_PATH);
		err_fix(e, "cloud-init has not run in it (an image without "
		    "cloud-init, or a box still starting): box logs %s shows "
		    "its console", q->name);
	}
	return rc;
}

static void
emit(const struct logs_req *q, const char *s, size_t n,
    struct logs_pend *pend)
{
	if (q->shown)
		logs_show(stdout, s, n, pend, 0);
	else
		fwrite(s, 1, n, stdout);
	fflush(stdout);
}

int
box_logs(const struct logs_req *q, struct box_err *e)
{
	struct logs_pend pend = { NULL, 0 };
	struct box_info bi;
	struct fetch f;
	struct incus c;
	long long prev = -1, off = 0;
	const char *from;
	size_t n;
	int rc, fd = -1, shrank;

	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_resolve(&c, q->name, &bi, e)) < 0)
		goto out;
	if ((f.buf = malloc(LOGS_KEEP)) == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (q->src == LOGS_CONSOLE)
		fd = console_file(&c, q->name);
	for (;;) {
		if (fd >= 0) {
			if ((rc = fetch_file(fd, &off, &f, &shrank)) < 0) {
				err_set(e, rc, "reading %s's console log: %s",
				    q->name, strerror(-rc));
				break;
			}
			if (shrank)
				fprintf(stderr, "box: the console log was "
				    "truncated; from its start again\n");
		} else
			rc = fetch(&c, q, &f, e);
		if (rc == -ENOENT && q->follow && q->src == LOGS_CLOUD_INIT &&
		    box_resolve(&c, q->name, &bi, e) == 0) {
			err_clear(e);
			f.n = 0;
			f.got = prev > 0 ? prev : 0;	/* not there yet */
			rc = 0;
		}
		if (rc < 0)
			break;
		from = f.buf;
		n = f.n;
		if (q->src == LOGS_CLOUD_INIT && prev >= 0) {
			if (f.got < prev) {
				fprintf(stderr, "box: %s was truncated or "
				    "replaced; from its start again\n",
				    LOGS_CLOUD_INIT_PATH);
			} else if (f.got - prev < (long long)n) {
				from += n - (size_t)(f.got - prev);
				n = (size_t)(f.got - prev);
			}
		}
		if (prev < 0 && q->lines > 0) {
			const char *t = text_tail(from, n, q->lines);

			n -= (size_t)(t - from);
			from = t;
		}
		emit(q, from, n, &pend);
		prev = f.got;
		if (!q->follow)
			break;
		/* the file outlives its box: a box that went ends the follow */
		if (fd >= 0 && (rc = box_resolve(&c, q->name, &bi, e)) < 0)
			break;
		nanosleep(&(struct timespec){ LOGS_POLL_MS / 1000,
		    (LOGS_POLL_MS % 1000) * 1000000L }, NULL);
	}
	if (q->shown)
		logs_show(stdout, "", 0, &pend, 1);
	free(pend.p);
	free(f.buf);
	if (fd >= 0)
		close(fd);
out:
	incus_close(&c);
	return rc;
}
