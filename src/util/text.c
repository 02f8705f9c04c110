/*
 * text.c - sanitising guest text, timestamps (see text.h).
 */
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One UTF-8 character at s[0..n): its code point and length, or -1. */
static long
utf8_one(const unsigned char *s, size_t n, size_t *len)
{
	long cp, min;
	size_t k, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return -1;		/* continuation, overlong lead, > U+10FFFF */
	k = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	min = k == 2 ? 0x80 : k == 3 ? 0x800 : 0x10000;
	if (n < k)
		return -1;
	cp = s[0] & (0x7f >> k);
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = k;
	return cp;
}

/* A character a terminal acts on, or one that reorders or breaks lines. */
static int
shown_escaped(long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

size_t
text_shown(const char *s, size_t n, char *out, size_t cap)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, len;
	char esc[12];
	int full = 0;

	if (cap > 0)
		out[0] = '\0';
	while (i < n) {
		const char *piece = esc;
		size_t pn;
		long cp;

		if (u[i] == '\\') {
			piece = "\\\\";
			pn = 2;
			len = 1;
		} else if (u[i] == '\n' || u[i] == '\r' || u[i] == '\t') {
			esc[0] = '\\';
			esc[1] = u[i] == '\n' ? 'n' : u[i] == '\r' ? 'r' : 't';
			pn = 2;
			len = 1;
		} else if (u[i] < 0x20 || u[i] == 0x7f) {
			pn = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
			len = 1;
		} else if (u[i] < 0x80) {
			piece = s + i;
			pn = len = 1;
		} else if ((cp = utf8_one(u + i, n - i, &len)) < 0) {
			pn = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
			len = 1;
		} else if (shown_escaped(cp)) {
			pn = (size_t)snprintf(esc, sizeof(esc), "\\u%04lx", cp);
		} else {
			piece = s + i;
			pn = len;
		}
		if (!full && o + pn < cap)
			memcpy(out + o, piece, pn);
		else
			full = 1;
		if (!full)
			out[o + pn] = '\0';
		o += pn;
		i += len;
	}
	return o;
}

char *
text_shown_dup(const char *s)
{
	size_t n = strlen(s), need;
	char small[1], *out;

	need = text_shown(s, n, small, sizeof(small));
	if ((out = malloc(need + 1)) != NULL)
		text_shown(s, n, out, need + 1);
	return out;
}

int
text_plain(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, len;
	long cp;

	while (i < n) {
		if (u[i] == '\\' || u[i] < 0x20 || u[i] == 0x7f)
			return 0;
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if ((cp = utf8_one(u + i, n - i, &len)) < 0 || shown_escaped(cp))
			return 0;
		i += len;
	}
	return 1;
}

static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

const char *
text_tail(const char *s, size_t n, int lines)
{
	size_t end = n, start;
	int got = 0;

	while (end > 0 && got < lines) {
		start = end;
		while (start > 0 && s[start - 1] != '\n')
			start--;
		/* s[start..end) is one line, without its newline */
		if (!blank(s + start, end - start)) {
			got++;
			if (got == lines)
				return s + start;
		}
		end = start > 0 ? start - 1 : 0;
		if (start == 0)
			break;
	}
	return s;
}

void
text_utc(char *buf, size_t cap, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	if (strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 && cap > 0)
		buf[0] = '\0';
}

void
text_utc_compact(char *buf, size_t cap, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	if (strftime(buf, cap, "%Y%m%dT%H%M%SZ", &tm) == 0 && cap > 0)
		buf[0] = '\0';
}

int
text_uint(const char *s, long lo, long hi, long *out)
{
	long v = 0;

	if (*s == '\0' || strlen(s) > 12)
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int
text_hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

size_t
text_shown_in(char *buf, size_t cap)
{
	size_t n, i;
	char *t;

	if (cap == 0)
		return 0;
	buf[cap - 1] = '\0';
	n = strlen(buf);
	if (text_plain(buf))
		return n;
	if ((t = malloc(n + 1)) == NULL) {
		/* no memory for the escaped form: nothing but plain bytes */
		for (i = 0; i < n; i++)
			if ((unsigned char)buf[i] < 0x20 ||
			    (unsigned char)buf[i] >= 0x7f || buf[i] == '\\')
				buf[i] = '?';
		return n;
	}
	memcpy(t, buf, n + 1);
	text_shown(t, n, buf, cap);
	free(t);
	return strlen(buf);
}

void
text_each_line(const char *text, size_t n, void (*fn)(const char *, void *),
    void *arg)
{
	char line[256];
	size_t i = 0, k, s;

	while (i < n) {
		for (k = 0; i + k < n && text[i + k] != '\n'; k++)
			;
		for (s = 0; s < k && (text[i + s] == ' ' ||
		    text[i + s] == '\t'); s++)
			;
		if (k - s < sizeof(line)) {
			memcpy(line, text + i + s, k - s);
			line[k - s] = '\0';
			line[strcspn(line, "\r")] = '\0';
			while (line[0] && strchr(" \t", line[strlen(line) - 1]))
				line[strlen(line) - 1] = '\0';
			if (line[0] != '\0' && line[0] != '#')
				fn(line, arg);
		}
		i += k + 1;
	}
}
