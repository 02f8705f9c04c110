/*
 * json_write.c - the JSON writer (see json.h).  Output is always valid
 * JSON or an error: strings must be valid UTF-8 (refused otherwise, since
 * the daemon's decoder would silently replace bad bytes), control
 * characters are escaped, and nesting is checked against JSON_MAX_DEPTH.
 */
#include "incus/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
json_w_init(struct json_w *w, size_t max)
{
	memset(w, 0, sizeof(*w));
	w->max = max;
	w->first[0] = 1;
}

static void
put(struct json_w *w, const char *s, size_t n)
{
	if (w->err)
		return;
	if (n > w->max - w->len) {
		w->err = -EBOX_TOOBIG;
		return;
	}
	if (w->len + n + 1 > w->cap) {
		size_t ncap = w->cap ? w->cap : 256;
		char *nb;

		while (ncap < w->len + n + 1)
			ncap *= 2;
		nb = realloc(w->buf, ncap);
		if (nb == NULL) {
			w->err = -ENOMEM;
			return;
		}
		w->buf = nb;
		w->cap = ncap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

/* Comma before any value that is not the first at its level. */
static void
before_value(struct json_w *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (!w->first[w->depth])
		put(w, ",", 1);
	w->first[w->depth] = 0;
}

static void
open_level(struct json_w *w, const char *c)
{
	before_value(w);
	if (w->depth == JSON_MAX_DEPTH) {
		if (!w->err)
			w->err = -EBOX_TOOBIG;
		return;
	}
	put(w, c, 1);
	w->first[++w->depth] = 1;
}

void
json_w_obj(struct json_w *w)
{
	open_level(w, "{");
}

void
json_w_arr(struct json_w *w)
{
	open_level(w, "[");
}

void
json_w_end(struct json_w *w, char close)
{
	if (w->depth == 0 || w->after_key) {
		if (!w->err)
			w->err = -EINVAL;
		return;
	}
	w->depth--;
	put(w, &close, 1);
}

static int
utf8_ok(const unsigned char *s, size_t n, size_t *len)
{
	unsigned char c = s[0];
	size_t k, i;
	unsigned cp;

	if (c < 0x80)
		k = 1, cp = c;
	else if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*len = k;
	return 1;
}

static void
put_string(struct json_w *w, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, k;
	char esc[8];

	put(w, "\"", 1);
	while (i < n) {
		unsigned char c = s[i];

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			run++;
			continue;
		}
		put(w, (const char *)s + i - run, run);
		run = 0;
		if (c >= 0x80) {
			if (!utf8_ok(s + i, n - i, &k)) {
				if (!w->err)
					w->err = -EILSEQ;
				return;
			}
			put(w, (const char *)s + i, k);
			i += k;
			continue;
		}
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(w, esc, 2);
		} else if (c == '\n') {
			put(w, "\\n", 2);
		} else if (c == '\t') {
			put(w, "\\t", 2);
		} else if (c == '\r') {
			put(w, "\\r", 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(w, esc, 6);
		}
		i++;
	}
	put(w, (const char *)s + i - run, run);
	put(w, "\"", 1);
}

void
json_w_key(struct json_w *w, const char *k)
{
	if (w->after_key || w->depth == 0) {
		if (!w->err)
			w->err = -EINVAL;
		return;
	}
	before_value(w);
	put_string(w, k, strlen(k));
	put(w, ":", 1);
	w->after_key = 1;
}

void
json_w_strn(struct json_w *w, const char *s, size_t n)
{
	before_value(w);
	put_string(w, s, n);
}

void
json_w_str(struct json_w *w, const char *s)
{
	json_w_strn(w, s, strlen(s));
}

void
json_w_int(struct json_w *w, long long v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%lld", v);

	before_value(w);
	put(w, num, (size_t)n);
}

void
json_w_bool(struct json_w *w, int v)
{
	before_value(w);
	put(w, v ? "true" : "false", v ? 4 : 5);
}

void
json_w_null(struct json_w *w)
{
	before_value(w);
	put(w, "null", 4);
}

int
json_w_finish(struct json_w *w, char **out, size_t *len)
{
	if (!w->err && (w->depth != 0 || w->after_key))
		w->err = -EINVAL;
	if (!w->err && w->buf == NULL)
		put(w, "", 0);
	if (w->err) {
		json_w_free(w);
		return w->err;
	}
	*out = w->buf;
	if (len != NULL)
		*len = w->len;
	w->buf = NULL;
	return 0;
}

void
json_w_free(struct json_w *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}
