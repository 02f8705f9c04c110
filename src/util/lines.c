/* lines.c - "key value" line records (see lines.h). */
#include "util/lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

void
lines_init(struct lines *l, const char *buf, size_t n)
{
	l->p = buf;
	l->end = buf + n;
}

static int
key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	    c == '-';
}

int
lines_next(struct lines *l, char *key, size_t kcap, char *val, size_t vcap)
{
	const char *s, *nl, *sp;
	size_t n, k;

	for (;;) {
		if (l->p >= l->end)
			return 0;
		s = l->p;
		nl = memchr(s, '\n', (size_t)(l->end - s));
		n = nl != NULL ? (size_t)(nl - s) : (size_t)(l->end - s);
		l->p = s + n + (nl != NULL);
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (n > 0)
			break;
	}
	if (n > LINES_MAX_LINE || memchr(s, '\0', n) != NULL)
		return -EBOX_PROTO;
	sp = memchr(s, ' ', n);
	k = sp != NULL ? (size_t)(sp - s) : n;
	if (k == 0 || k >= kcap)
		return -EBOX_PROTO;
	for (size_t i = 0; i < k; i++)
		if (!key_char(s[i]))
			return -EBOX_PROTO;
	memcpy(key, s, k);
	key[k] = '\0';
	n -= sp != NULL ? k + 1 : k;
	s += sp != NULL ? k + 1 : k;
	if (n >= vcap)
		return -EBOX_PROTO;
	memcpy(val, s, n);
	val[n] = '\0';
	return 1;
}

void
lines_w_init(struct lines_w *w, char *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->err = cap == 0 ? -ENOSPC : 0;
	if (cap > 0)
		buf[0] = '\0';
}

void
lines_put(struct lines_w *w, const char *key, const char *fmt, ...)
{
	char val[LINES_MAX_LINE];
	va_list ap;
	size_t i;
	int n;

	if (w->err != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val) - strlen(key) - 1, fmt, ap);
	va_end(ap);
	for (i = 0; val[i] != '\0'; i++)
		if ((unsigned char)val[i] < 0x20 || val[i] == 0x7f)
			val[i] = ' ';
	n = snprintf(w->buf + w->len, w->cap - w->len, "%s %s\n", key, val);
	if (n < 0 || (size_t)n >= w->cap - w->len) {
		w->buf[w->len] = '\0';
		w->err = -ENOSPC;
		return;
	}
	w->len += (size_t)n;
}

int
lines_w_end(struct lines_w *w)
{
	return w->err;
}
