/*
 * text.c - sanitising guest text, timestamps (see text.h).
 */
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_TEXT, S_ESC, S_CSI, S_STR, S_STR_ESC };

size_t
text_sanitize(char *s, size_t n)
{
	size_t i, o = 0;
	int st = S_TEXT;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		switch (st) {
		case S_TEXT:
			if (ch == 0x1b)
				st = S_ESC;
			else if (ch == '\t' || ch == '\n' ||
			    (ch >= 0x20 && ch < 0x7f))
				s[o++] = (char)ch;
			else if (ch >= 0x80)
				s[o++] = '?';
			/* other C0 controls and DEL: dropped */
			break;
		case S_ESC:
			if (ch == '[')
				st = S_CSI;
			else if (ch == ']' || ch == 'P' || ch == 'X' ||
			    ch == '^' || ch == '_')
				st = S_STR;	/* OSC, DCS, SOS, PM, APC */
			else if (ch >= 0x20 && ch <= 0x2f)
				;		/* intermediate: ESC ( B ... */
			else
				st = S_TEXT;	/* two-byte escape, done */
			break;
		case S_CSI:
			/* parameters and intermediates, then a final byte */
			if (ch >= 0x40 && ch <= 0x7e)
				st = S_TEXT;
			else if (ch < 0x20 || ch >= 0x7f)
				st = S_TEXT;	/* malformed: resync */
			break;
		case S_STR:
			/* ends at BEL or ST (ESC \) */
			if (ch == 0x07)
				st = S_TEXT;
			else if (ch == 0x1b)
				st = S_STR_ESC;
			break;
		case S_STR_ESC:
			st = ch == '\\' ? S_TEXT : S_STR;
			break;
		}
	}
	if (o < n)
		s[o] = '\0';
	return o;
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
