/*
 * log.c - the guard's log: one line per event, tab-separated
 *	<epoch s> <kind> <window ms or -1> <by> <what> <put back>
 * written by the guard (at most GUARD_LOGCAP lines a minute), read back
 * by doctor and `box firewall show` (see guard.h).
 */
#include "host/guard/guard.h"
#include "host/guard/guard_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOG_TAIL	(64u << 10)
#define LOG_MAXBYTES	(4u << 20)	/* then it starts again */

const char *
guard_log_path(void)
{
	const char *p = getenv("BOX_GUARD_LOG");

	return p != NULL && p[0] == '/' ? p : GUARD_LOG;
}

/* Copy s into dst[0..cap) with tabs and newlines made spaces. */
static void
field(char *dst, size_t cap, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < cap && s[i] != '\0'; i++)
		dst[i] = s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ? ' ' :
		    s[i];
	dst[i] = '\0';
}

void
guard_log(struct guard_logcap *cap, long long now_ms, const char *kind,
    long window_ms, const char *by, const char *what, const char *back)
{
	char line[GUARD_TEXT * 2 + 160], w[GUARD_TEXT], b[GUARD_TEXT];
	char bf[48], note[64] = "";
	struct stat sb;
	int fd;

	if (now_ms - cap->minute_ms >= 60000) {
		cap->minute_ms = now_ms;
		cap->n = 0;
	}
	if (cap->n >= GUARD_LOGCAP) {
		cap->suppressed++;
		return;
	}
	cap->n++;
	if (cap->suppressed > 0) {
		snprintf(note, sizeof(note), " (%u events not logged before "
		    "this: the cap)", cap->suppressed);
		cap->suppressed = 0;
	}
	field(w, sizeof(w), what);
	field(b, sizeof(b), back);
	field(bf, sizeof(bf), by);
	snprintf(line, sizeof(line), "%lld\t%s\t%ld\t%s\t%s%s\t%s\n",
	    (long long)time(NULL), kind, window_ms, bf, w, note, b);
	fd = open(guard_log_path(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0640);
	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0 && sb.st_size > (off_t)LOG_MAXBYTES)
		(void)ftruncate(fd, 0);
	(void)write(fd, line, strlen(line));
	close(fd);
}

/* The next tab-separated field of line[*off..n) into dst[0..cap). */
static int
next_field(const char *line, size_t n, size_t *off, char *dst, size_t cap)
{
	size_t i = *off, k = 0;

	if (i > n)
		return -1;
	while (i < n && line[i] != '\t') {
		if (k + 1 < cap)
			dst[k++] = line[i];
		i++;
	}
	dst[k] = '\0';
	*off = i + 1;
	return 0;
}

int
guard_event_parse(const char *line, size_t n, struct guard_event *ev)
{
	char num[24], win[24];
	size_t off = 0;
	char *end;

	memset(ev, 0, sizeof(*ev));
	if (next_field(line, n, &off, num, sizeof(num)) < 0 ||
	    next_field(line, n, &off, ev->kind, sizeof(ev->kind)) < 0 ||
	    next_field(line, n, &off, win, sizeof(win)) < 0 ||
	    next_field(line, n, &off, ev->by, sizeof(ev->by)) < 0 ||
	    next_field(line, n, &off, ev->what, sizeof(ev->what)) < 0 ||
	    next_field(line, n, &off, ev->back, sizeof(ev->back)) < 0)
		return 0;
	ev->at = strtoll(num, &end, 10);
	if (num[0] == '\0' || *end != '\0' || ev->at < 0)
		return 0;
	ev->window_ms = strtol(win, &end, 10);
	if (win[0] == '\0' || *end != '\0')
		return 0;
	if (strcmp(ev->kind, "heal") != 0 && strcmp(ev->kind, "close") != 0 &&
	    strcmp(ev->kind, "open") != 0 && strcmp(ev->kind, "restart") != 0 &&
	    strcmp(ev->kind, "fail") != 0 && strcmp(ev->kind, "start") != 0 &&
	    strcmp(ev->kind, "revive") != 0)
		return 0;
	return 1;
}

/* Keep ev[0..max) the last max events seen (oldest first). */
static void
keep(struct guard_event *ev, size_t max, size_t *n, const struct guard_event *e)
{
	if (max == 0)
		return;
	if (*n == max) {
		memmove(ev, ev + 1, (max - 1) * sizeof(*ev));
		(*n)--;
	}
	ev[(*n)++] = *e;
}

int
guard_events_read(struct guard_event *ev, size_t max, size_t *n,
    unsigned *recent, long long now, struct box_err *e)
{
	char *buf = malloc(LOG_TAIL + 1);
	struct guard_event one;
	struct stat sb;
	ssize_t got;
	size_t at = 0, len;
	int fd, cut = 0;

	*n = 0;
	*recent = 0;
	if (buf == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((fd = open(guard_log_path(), O_RDONLY | O_CLOEXEC)) < 0) {
		free(buf);
		return errno == ENOENT ? 0 : err_set(e, -errno, "%s: %s",
		    guard_log_path(), strerror(errno));
	}
	if (fstat(fd, &sb) == 0 && sb.st_size > (off_t)LOG_TAIL)
		cut = lseek(fd, sb.st_size - (off_t)LOG_TAIL, SEEK_SET) > 0;
	got = read(fd, buf, LOG_TAIL);
	close(fd);
	len = got > 0 ? (size_t)got : 0;
	buf[len] = '\0';
	/* the tail's first line is cut short: not a record */
	while (cut && at < len && buf[at++] != '\n')
		;
	while (at < len) {
		char *nl = memchr(buf + at, '\n', len - at);
		size_t ln = nl != NULL ? (size_t)(nl - (buf + at)) : len - at;

		if (nl != NULL && guard_event_parse(buf + at, ln, &one) == 1) {
			keep(ev, max, n, &one);
			if (strcmp(one.kind, "heal") == 0 &&
			    one.at >= now - GUARD_RECENT_S)
				(*recent)++;
		}
		at += ln + 1;
	}
	free(buf);
	return 0;
}
