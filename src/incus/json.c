/*
 * json.c - RFC 8259, strictly; see json.h for the tape and the policies.
 *
 * The parser is iterative (an explicit stack of open containers), so a
 * hostile document cannot exhaust the C stack: depth is a counted limit.
 */
#include "incus/json.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

struct frame {
	uint32_t tok;		/* the container's token */
	uint32_t last;		/* its last child so far, 0 when none */
};

struct parser {
	struct json_doc *d;
	const unsigned char *s;
	size_t n, pos;
	struct frame stack[JSON_MAX_DEPTH];
	int depth;
	struct box_err *e;
};

static int
perr(struct parser *p, const char *what)
{
	return err_set(p->e, -EBOX_PROTO, "malformed JSON at byte %zu: %s",
	    p->pos, what);
}

static void
skip_ws(struct parser *p)
{
	while (p->pos < p->n) {
		unsigned char c = p->s[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static int
new_tok(struct parser *p, uint32_t type, size_t start)
{
	struct json_doc *d = p->d;
	struct json_tok *t;

	if (d->ntok == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;
		struct json_tok *nt;

		if (d->cap >= JSON_MAX_TOKENS)
			return err_set(p->e, -EBOX_TOOBIG, "JSON document has "
			    "more than %u values", JSON_MAX_TOKENS);
		if (ncap > JSON_MAX_TOKENS)
			ncap = JSON_MAX_TOKENS;
		nt = realloc(d->tok, ncap * sizeof(*nt));
		if (nt == NULL)
			return err_set(p->e, -ENOMEM, "out of memory parsing "
			    "JSON");
		d->tok = nt;
		d->cap = ncap;
	}
	t = &d->tok[d->ntok];
	t->type = type;
	t->start = (uint32_t)start;
	t->len = 0;
	t->next = 0;
	t->count = 0;
	/* Link it into the open container. */
	if (p->depth > 0) {
		struct frame *f = &p->stack[p->depth - 1];

		if (f->last != 0)
			d->tok[f->last].next = (uint32_t)d->ntok;
		f->last = (uint32_t)d->ntok;
	}
	return (int)d->ntok++;
}

/* Length of a valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	uint32_t cp;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static int
hex4(const unsigned char *s, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		int h = text_hexval(s[i]);

		if (h < 0)
			return -1;
		v = v << 4 | (uint32_t)h;
	}
	*out = v;
	return 0;
}

/* Validate a \u escape at s[0] == 'u'; returns bytes consumed or 0. */
static size_t
check_u_escape(const unsigned char *s, size_t n)
{
	uint32_t hi, lo;

	if (n < 5 || hex4(s + 1, &hi) < 0)
		return 0;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return 0;		/* a lone low surrogate */
	if (hi < 0xd800 || hi > 0xdbff)
		return 5;
	if (n < 11 || s[5] != '\\' || s[6] != 'u' || hex4(s + 7, &lo) < 0 ||
	    lo < 0xdc00 || lo > 0xdfff)
		return 0;		/* a high surrogate needs its low half */
	return 11;
}

static int
parse_string(struct parser *p, int is_key)
{
	size_t start = ++p->pos;	/* past the quote */
	int t;

	while (p->pos < p->n) {
		unsigned char c = p->s[p->pos];
		size_t k;

		if (c == '"')
			break;
		if (c < 0x20)
			return perr(p, "control character in string");
		if (c == '\\') {
			if (p->pos + 1 >= p->n)
				return perr(p, "unterminated escape");
			c = p->s[p->pos + 1];
			if (c == 'u') {
				k = check_u_escape(p->s + p->pos + 1,
				    p->n - p->pos - 1);
				if (k == 0)
					return perr(p, "bad \\u escape");
				p->pos += 1 + k;
				continue;
			}
			if (strchr("\"\\/bfnrt", c) == NULL || c == '\0')
				return perr(p, "bad escape");
			p->pos += 2;
			continue;
		}
		k = utf8_len(p->s + p->pos, p->n - p->pos);
		if (k == 0)
			return perr(p, "invalid UTF-8");
		p->pos += k;
	}
	if (p->pos >= p->n)
		return perr(p, "unterminated string");
	(void)is_key;
	t = new_tok(p, JSON_STRING, start);
	if (t < 0)
		return t;
	p->d->tok[t].len = (uint32_t)(p->pos - start);
	p->pos++;		/* the closing quote */
	return t;
}

static int
digits(struct parser *p)
{
	size_t s = p->pos;

	while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos > s;
}

static int
parse_number(struct parser *p)
{
	size_t start = p->pos;
	int t;

	if (p->s[p->pos] == '-')
		p->pos++;
	if (p->pos < p->n && p->s[p->pos] == '0')
		p->pos++;
	else if (!digits(p))
		return perr(p, "bad number");
	if (p->pos < p->n && p->s[p->pos] == '.') {
		p->pos++;
		if (!digits(p))
			return perr(p, "bad fraction");
	}
	if (p->pos < p->n && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->n && (p->s[p->pos] == '+' ||
		    p->s[p->pos] == '-'))
			p->pos++;
		if (!digits(p))
			return perr(p, "bad exponent");
	}
	t = new_tok(p, JSON_NUMBER, start);
	if (t >= 0)
		p->d->tok[t].len = (uint32_t)(p->pos - start);
	return t;
}

static int
parse_literal(struct parser *p, const char *word, uint32_t type)
{
	size_t len = strlen(word);
	int t;

	if (p->n - p->pos < len || memcmp(p->s + p->pos, word, len) != 0)
		return perr(p, "unexpected character");
	t = new_tok(p, type, p->pos);
	if (t >= 0)
		p->d->tok[t].len = (uint32_t)len;
	p->pos += len;
	return t;
}

static int
open_container(struct parser *p, uint32_t type)
{
	int t;

	if (p->depth == JSON_MAX_DEPTH)
		return err_set(p->e, -EBOX_TOOBIG, "JSON nested deeper than "
		    "%d levels", JSON_MAX_DEPTH);
	t = new_tok(p, type, p->pos);
	if (t < 0)
		return t;
	p->stack[p->depth].tok = (uint32_t)t;
	p->stack[p->depth].last = 0;
	p->depth++;
	p->pos++;
	return t;
}

/* A scalar, or the opening of a container. */
static int
parse_value(struct parser *p)
{
	unsigned char c;

	skip_ws(p);
	if (p->pos >= p->n)
		return perr(p, "unexpected end");
	c = p->s[p->pos];
	switch (c) {
	case '{':
		return open_container(p, JSON_OBJECT);
	case '[':
		return open_container(p, JSON_ARRAY);
	case '"':
		return parse_string(p, 0);
	case 't':
		return parse_literal(p, "true", JSON_TRUE);
	case 'f':
		return parse_literal(p, "false", JSON_FALSE);
	case 'n':
		return parse_literal(p, "null", JSON_NULL);
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return parse_number(p);
		return perr(p, "unexpected character");
	}
}

/* In an object, before a member: "key" then ':'. */
static int
parse_key(struct parser *p)
{
	int t;

	skip_ws(p);
	if (p->pos >= p->n || p->s[p->pos] != '"')
		return perr(p, "expected a string key");
	t = parse_string(p, 1);
	if (t < 0)
		return t;
	skip_ws(p);
	if (p->pos >= p->n || p->s[p->pos] != ':')
		return perr(p, "expected ':'");
	p->pos++;
	return 0;
}

static void
close_container(struct parser *p)
{
	struct json_tok *t = &p->d->tok[p->stack[p->depth - 1].tok];

	p->pos++;
	t->len = (uint32_t)(p->pos - t->start);
	p->depth--;
}

/*
 * The driver.  After each value, either close containers or move to the
 * next member; an opened container starts its first member (or closes
 * at once when empty).
 */
static int
parse_doc(struct parser *p)
{
	int t, rc;
	int just_opened;

	t = parse_value(p);
	if (t < 0)
		return t;
	just_opened = p->depth > 0 && p->stack[p->depth - 1].tok == (uint32_t)t;
	for (;;) {
		uint32_t ci, type;	/* an index: new_tok() may move the tape */
		unsigned char ch;

		if (p->depth == 0)
			break;
		ci = p->stack[p->depth - 1].tok;
		type = p->d->tok[ci].type;
		skip_ws(p);
		if (p->pos >= p->n)
			return perr(p, "unexpected end");
		ch = p->s[p->pos];
		if (ch == (type == JSON_OBJECT ? '}' : ']')) {
			close_container(p);
			just_opened = 0;
			continue;
		}
		if (!just_opened) {
			if (ch != ',')
				return perr(p, "expected ',' or a closing "
				    "bracket");
			p->pos++;
		}
		if (type == JSON_OBJECT) {
			rc = parse_key(p);
			if (rc < 0)
				return rc;
		}
		p->d->tok[ci].count++;
		t = parse_value(p);
		if (t < 0)
			return t;
		just_opened = p->stack[p->depth - 1].tok == (uint32_t)t;
	}
	skip_ws(p);
	if (p->pos != p->n)
		return perr(p, "trailing bytes after the value");
	return 0;
}

int
json_parse(struct json_doc *d, const char *src, size_t n, struct box_err *e)
{
	struct parser p;
	int rc;

	memset(d, 0, sizeof(*d));
	d->src = src;
	d->src_len = n;
	if (n > UINT32_MAX - 1)
		return err_set(e, -EBOX_TOOBIG, "JSON document over 4 GiB");
	memset(&p, 0, sizeof(p));
	p.d = d;
	p.s = (const unsigned char *)src;
	p.n = n;
	p.e = e;
	rc = parse_doc(&p);
	if (rc < 0) {
		json_free(d);
		return rc;
	}
	return 0;
}

void
json_free(struct json_doc *d)
{
	free(d->tok);
	d->tok = NULL;
	d->ntok = d->cap = 0;
}

int
json_child(const struct json_doc *d, int i)
{
	int t = json_type(d, i);

	if ((t != JSON_ARRAY && t != JSON_OBJECT) || d->tok[i].count == 0)
		return -1;
	return i + 1;
}

int
json_next(const struct json_doc *d, int i)
{
	if (json_type(d, i) == 0 || d->tok[i].next == 0)
		return -1;
	return (int)d->tok[i].next;
}

int
json_count(const struct json_doc *d, int i)
{
	int t = json_type(d, i);

	return t == JSON_ARRAY || t == JSON_OBJECT ? (int)d->tok[i].count : 0;
}

int
json_get(const struct json_doc *d, int obj, const char *key)
{
	int k, found = JSON_NONE;

	if (json_type(d, obj) != JSON_OBJECT)
		return JSON_NONE;
	for (k = json_child(d, obj); k >= 0; k = json_next(d, json_next(d, k))) {
		if (json_streq(d, k, key)) {
			if (found != JSON_NONE)
				return JSON_DUP;
			found = json_next(d, k);
		}
	}
	return found;
}

int
json_path(const struct json_doc *d, int i, const char *dotted)
{
	char key[128];

	while (i >= 0 && *dotted != '\0') {
		const char *dot = strchr(dotted, '.');
		size_t n = dot ? (size_t)(dot - dotted) : strlen(dotted);

		if (n >= sizeof(key))
			return JSON_NONE;
		memcpy(key, dotted, n);
		key[n] = '\0';
		i = json_get(d, i, key);
		dotted += n + (dot != NULL);
	}
	return i;
}

/* Decode the escape at s (just past the backslash); writes UTF-8 to out. */
static size_t
decode_escape(const unsigned char *s, unsigned char out[4], size_t *outn)
{
	uint32_t cp, lo;

	switch (s[0]) {
	case 'b': out[0] = '\b'; break;
	case 'f': out[0] = '\f'; break;
	case 'n': out[0] = '\n'; break;
	case 'r': out[0] = '\r'; break;
	case 't': out[0] = '\t'; break;
	case 'u':
		hex4(s + 1, &cp);
		if (cp >= 0xd800 && cp <= 0xdbff) {
			hex4(s + 7, &lo);
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		}
		if (cp < 0x80) {
			out[0] = (unsigned char)cp;
			*outn = 1;
		} else if (cp < 0x800) {
			out[0] = (unsigned char)(0xc0 | cp >> 6);
			out[1] = (unsigned char)(0x80 | (cp & 0x3f));
			*outn = 2;
		} else if (cp < 0x10000) {
			out[0] = (unsigned char)(0xe0 | cp >> 12);
			out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
			out[2] = (unsigned char)(0x80 | (cp & 0x3f));
			*outn = 3;
		} else {
			out[0] = (unsigned char)(0xf0 | cp >> 18);
			out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
			out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
			out[3] = (unsigned char)(0x80 | (cp & 0x3f));
			*outn = 4;
		}
		return cp >= 0x10000 ? 11 : 5;
	default:		/* " \ / */
		out[0] = s[0];
	}
	*outn = 1;
	return 1;
}

/*
 * Walk a string token's decoded bytes, handing each piece to fn; stops
 * early when fn returns non-zero.
 */
static int
walk_string(const struct json_doc *d, int i,
    int (*fn)(void *ctx, const unsigned char *p, size_t n), void *ctx)
{
	const unsigned char *s = (const unsigned char *)d->src + d->tok[i].start;
	size_t n = d->tok[i].len, pos = 0, run;
	unsigned char tmp[4];
	size_t tn;
	int rc;

	while (pos < n) {
		const unsigned char *bs = memchr(s + pos, '\\', n - pos);

		run = bs ? (size_t)(bs - (s + pos)) : n - pos;
		if (run > 0 && (rc = fn(ctx, s + pos, run)) != 0)
			return rc;
		pos += run;
		if (pos >= n)
			break;
		pos += 1 + decode_escape(s + pos + 1, tmp, &tn);
		if ((rc = fn(ctx, tmp, tn)) != 0)
			return rc;
	}
	return 0;
}

struct cmp_ctx {
	const char *want;
	size_t left;
};

static int
cmp_piece(void *vctx, const unsigned char *p, size_t n)
{
	struct cmp_ctx *c = vctx;

	if (n > c->left || memcmp(c->want, p, n) != 0)
		return 1;
	c->want += n;
	c->left -= n;
	return 0;
}

int
json_streq(const struct json_doc *d, int i, const char *s)
{
	struct cmp_ctx c = { s, strlen(s) };
	const struct json_tok *t;

	if (json_type(d, i) != JSON_STRING)
		return 0;
	t = &d->tok[i];
	if (memchr(d->src + t->start, '\\', t->len) == NULL)
		return t->len == c.left &&
		    memcmp(d->src + t->start, s, c.left) == 0;
	return walk_string(d, i, cmp_piece, &c) == 0 && c.left == 0;
}

struct copy_ctx {
	char *buf;
	size_t cap, len;
	int full;
};

static int
copy_piece(void *vctx, const unsigned char *p, size_t n)
{
	struct copy_ctx *c = vctx;
	size_t room = c->cap - 1 - c->len;

	if (n > room) {
		memcpy(c->buf + c->len, p, room);
		c->len += room;
		c->full = 1;
		return 1;
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	return 0;
}

int
json_str(const struct json_doc *d, int i, char *buf, size_t cap)
{
	struct copy_ctx c = { buf, cap, 0, 0 };

	if (cap == 0)
		return -ENOSPC;
	buf[0] = '\0';
	if (json_type(d, i) != JSON_STRING)
		return -EINVAL;
	walk_string(d, i, copy_piece, &c);
	buf[c.len] = '\0';
	return c.full ? -ENOSPC : (int)c.len;
}

const char *
json_gets(const struct json_doc *d, int obj, const char *key, char *buf,
    size_t cap, const char *def)
{
	int v = json_get(d, obj, key);

	if (v < 0 || json_str(d, v, buf, cap) < 0)
		return def;
	return buf;
}

int
json_int(const struct json_doc *d, int i, long long *out)
{
	const char *s;
	size_t n, k = 0;
	unsigned long long v = 0, lim;
	int neg = 0;

	if (json_type(d, i) != JSON_NUMBER)
		return -EINVAL;
	s = d->src + d->tok[i].start;
	n = d->tok[i].len;
	if (s[0] == '-') {
		neg = 1;
		k = 1;
	}
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
	for (; k < n; k++) {
		if (s[k] < '0' || s[k] > '9')
			return -EINVAL;		/* fraction or exponent */
		if (v > (lim - (unsigned)(s[k] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (unsigned)(s[k] - '0');
	}
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

const char *
json_raw(const struct json_doc *d, int i, size_t *len)
{
	const struct json_tok *t;

	if (json_type(d, i) == 0) {
		*len = 0;
		return NULL;
	}
	t = &d->tok[i];
	if (t->type == JSON_STRING) {
		*len = t->len + 2;
		return d->src + t->start - 1;
	}
	*len = t->len;
	return d->src + t->start;
}

char *
json_strdup(const struct json_doc *d, int i)
{
	char *s;

	if (json_type(d, i) != JSON_STRING)
		return NULL;
	if ((s = malloc((size_t)d->tok[i].len + 1)) == NULL)
		return NULL;
	if (json_str(d, i, s, (size_t)d->tok[i].len + 1) < 0) {
		free(s);
		return NULL;
	}
	return s;
}
