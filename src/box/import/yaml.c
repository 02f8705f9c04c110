/*
 * yaml.c - the strict YAML subset reader (see yaml.h).
 *
 * Line-oriented recursive descent.  The position only moves forward; at
 * every call boundary it sits either at the start of a line or, for an
 * inline value ("key: v", "- v"), at the value's first byte.  Rules follow
 * libyaml's scanner (what yaml.v2 uses) where this subset meets it; where
 * the two could disagree the input is refused.
 */
#include "box/import/yaml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/text.h"

struct p {
	const char *b;
	size_t n, pos;
	struct yaml_doc *d;
	int depth;
};

static int
fail(struct p *p, const char *why)
{
	size_t i;
	int line = 1;

	if (p->d->why == NULL) {
		for (i = 0; i < p->pos && i < p->n; i++)
			line += p->b[i] == '\n';
		p->d->why = why;
		p->d->line = line;
	}
	return -EBOX_PROTO;
}

static int
node(struct p *p, int type)
{
	struct yaml_doc *d = p->d;

	if (d->n == d->cap) {
		int cap = d->cap ? d->cap * 2 : 64;
		struct yaml_node *nn;

		if (d->n >= YAML_MAX_NODES)
			return fail(p, "too many nodes");
		nn = realloc(d->node, (size_t)cap * sizeof(*nn));
		if (nn == NULL)
			return -ENOMEM;
		d->node = nn;
		d->cap = cap;
	}
	memset(&d->node[d->n], 0, sizeof(d->node[0]));
	d->node[d->n].type = (unsigned char)type;
	d->node[d->n].child = -1;
	d->node[d->n].next = -1;
	return d->n++;
}

static int
aput(struct p *p, char c)
{
	struct yaml_doc *d = p->d;

	if (d->alen == d->acap) {
		size_t cap = d->acap ? d->acap * 2 : 4096;
		char *na;

		if (cap > 4 * p->n + 8192)
			return fail(p, "text too long");
		na = realloc(d->arena, cap);
		if (na == NULL)
			return -ENOMEM;
		d->arena = na;
		d->acap = cap;
	}
	d->arena[d->alen++] = c;
	return 0;
}

/* A scalar node whose text starts at arena offset off and ends now. */
static int
scalar_end(struct p *p, size_t off, int plain)
{
	int i, rc;

	/* (an empty first scalar: the arena may not exist yet) */
	if (p->d->alen > off &&
	    memchr(p->d->arena + off, '\0', p->d->alen - off) != NULL)
		return fail(p, "a NUL in a scalar");
	if ((rc = aput(p, '\0')) < 0)
		return rc;
	if ((i = node(p, YAML_STR)) < 0)
		return i;
	p->d->node[i].off = off;
	p->d->node[i].len = p->d->alen - 1 - off;
	p->d->node[i].plain = (unsigned char)plain;
	return i;
}

static int
at_eol(const struct p *p, size_t i)
{
	return i >= p->n || p->b[i] == '\n';
}

/* Past the end of this line (just after its '\n'). */
static void
next_line(struct p *p)
{
	while (p->pos < p->n && p->b[p->pos] != '\n')
		p->pos++;
	if (p->pos < p->n)
		p->pos++;
}

/* Only spaces to the end of the line from i? */
static int
rest_blank(const struct p *p, size_t i)
{
	while (i < p->n && p->b[i] == ' ')
		i++;
	return at_eol(p, i);
}

/*
 * From a line start: skip blank lines; the indentation of the next line,
 * -1 at the end, < -1 on a refusal.  The position stays at its start.
 */
static int
skip_blank(struct p *p)
{
	for (;;) {
		size_t i = p->pos;

		if (p->pos >= p->n)
			return -1;
		while (i < p->n && p->b[i] == ' ')
			i++;
		if (at_eol(p, i)) {
			next_line(p);
			continue;
		}
		if (p->b[i] == '\t')
			return fail(p, "a tab in indentation");
		if (p->b[i] == '#')
			return fail(p, "a comment");
		if (i == p->pos && (p->b[i] == '%' ||
		    ((p->n - i >= 3) && (memcmp(p->b + i, "---", 3) == 0 ||
		    memcmp(p->b + i, "...", 3) == 0) &&
		    (p->n - i == 3 || p->b[i + 3] == ' ' ||
		    p->b[i + 3] == '\n'))))
			return fail(p, "a directive or document marker");
		if (i - p->pos > 100000)
			return fail(p, "indentation too deep");
		return (int)(i - p->pos);
	}
}

static size_t
column(const struct p *p, size_t at)
{
	size_t i = at;

	while (i > 0 && p->b[i - 1] != '\n')
		i--;
	return at - i;
}

static int
plain_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
	    c == '/';
}

static int block(struct p *p, int ind);
static int quoted(struct p *p, int pind, int key);

/*
 * Is there a mapping key at i ("k: ", "k:" at the end, or a quoted one)?
 * Plain keys are the characters Incus's own keys use; anything else must
 * be quoted (yaml.v2 quotes what needs it).
 */
static int
is_key(const struct p *p, size_t i)
{
	char q = p->b[i];

	if (q == '"' || q == '\'') {
		for (i++; i < p->n && p->b[i] != '\n'; i++) {
			if (q == '"' && p->b[i] == '\\') {
				i++;
				continue;
			}
			if (p->b[i] == q) {
				if (q == '\'' && i + 1 < p->n &&
				    p->b[i + 1] == '\'') {
					i++;
					continue;
				}
				return i + 1 < p->n && p->b[i + 1] == ':' &&
				    (at_eol(p, i + 2) || p->b[i + 2] == ' ');
			}
		}
		return 0;
	}
	if (!plain_key_char(q) || q == '-')
		return 0;
	while (i < p->n && plain_key_char(p->b[i]))
		i++;
	return i < p->n && p->b[i] == ':' && (at_eol(p, i + 1) ||
	    p->b[i + 1] == ' ');
}

/* The key at the position (is_key() said there is one); past its ':'. */
static int
key(struct p *p)
{
	size_t off = p->d->alen;
	int k, rc;

	if (p->b[p->pos] == '"' || p->b[p->pos] == '\'') {
		if ((k = quoted(p, 0, 1)) < 0)
			return k;
	} else {
		while (plain_key_char(p->b[p->pos]))
			if ((rc = aput(p, p->b[p->pos++])) < 0)
				return rc;
		if ((k = scalar_end(p, off, 1)) < 0)
			return k;
		/* yaml.v2 decodes these keys to "" or refuses them */
		if (strcmp(p->d->arena + off, "null") == 0 ||
		    strcmp(p->d->arena + off, "Null") == 0 ||
		    strcmp(p->d->arena + off, "NULL") == 0)
			return fail(p, "a null key");
	}
	if (p->d->node[k].len > YAML_MAX_KEY)
		return fail(p, "a key too long");
	if (strcmp(p->d->arena + p->d->node[k].off, "<<") == 0)
		return fail(p, "a merge key");
	if (p->pos >= p->n || p->b[p->pos] != ':')
		return fail(p, "no ':' after a key");
	p->pos++;
	return k;
}

static int
utf8_put(struct p *p, unsigned long c)
{
	char u[4];
	int n, i, rc;

	if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return fail(p, "a bad escape");
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	for (i = 0; i < n; i++)
		if ((rc = aput(p, u[i])) < 0)
			return rc;
	return 0;
}

static int
escape(struct p *p)
{
	static const char from[] = "abtnvfre \"/\\\t";
	static const char to[] = "\a\b\t\n\v\f\r\033 \"/\\\t";
	const char *f;
	unsigned long v = 0;
	int digits = 0, i;
	char c;

	if (p->pos >= p->n)
		return fail(p, "an escape at the end");
	c = p->b[p->pos++];
	if ((f = strchr(from, c)) != NULL && c != '\0')
		return aput(p, to[f - from]);
	if (c == 'N')
		return utf8_put(p, 0x85);
	if (c == '_')
		return utf8_put(p, 0xa0);
	if (c == 'L')
		return utf8_put(p, 0x2028);
	if (c == 'P')
		return utf8_put(p, 0x2029);
	if (c == 'x')
		digits = 2;
	else if (c == 'u')
		digits = 4;
	else if (c == 'U')
		digits = 8;
	else
		return fail(p, "an unknown escape");
	for (i = 0; i < digits; i++, p->pos++) {
		int h = text_hexval(p->pos < p->n ? p->b[p->pos] : '\0');

		if (h < 0)
			return fail(p, "a bad escape");
		v = v << 4 | (unsigned long)h;
	}
	return utf8_put(p, v);
}

/*
 * A line break inside a quoted scalar: trailing blanks before it go,
 * leading blanks after it go, one break folds to a space, n + 1 breaks
 * give n newlines.  The continuation must sit deeper than pind.
 */
static int
fold(struct p *p, int pind, size_t keep)
{
	int breaks = 0, rc;
	size_t i;

	p->d->alen = keep;
	for (;;) {
		p->pos++;			/* the '\n' */
		i = p->pos;
		while (i < p->n && (p->b[i] == ' ' || p->b[i] == '\t'))
			i++;
		if (i < p->n && p->b[i] == '\n') {
			breaks++;
			p->pos = i;
			continue;
		}
		if (i >= p->n)
			return fail(p, "an unterminated quoted scalar");
		if ((int)(i - p->pos) <= pind)
			return fail(p, "a quoted scalar continued too far "
			    "left");
		p->pos = i;
		break;
	}
	if (breaks == 0)
		return aput(p, ' ');
	while (breaks-- > 0)
		if ((rc = aput(p, '\n')) < 0)
			return rc;
	return 0;
}

/* A single- or double-quoted scalar; a key must end on its line. */
static int
quoted(struct p *p, int pind, int is_key_)
{
	char q = p->b[p->pos++];
	size_t off = p->d->alen, keep = off;
	int rc;

	for (;;) {
		char c;

		if (p->pos >= p->n)
			return fail(p, "an unterminated quoted scalar");
		c = p->b[p->pos];
		if (c == q) {
			if (q == '\'' && p->pos + 1 < p->n &&
			    p->b[p->pos + 1] == '\'') {
				p->pos += 2;
				if ((rc = aput(p, '\'')) < 0)
					return rc;
				keep = p->d->alen;
				continue;
			}
			p->pos++;
			break;
		}
		if (c == '\n') {
			if (is_key_)
				return fail(p, "a key over two lines");
			if ((rc = fold(p, pind, keep)) < 0)
				return rc;
			keep = p->d->alen;
			continue;
		}
		if (q == '"' && c == '\\') {
			p->pos++;
			if (p->pos < p->n && p->b[p->pos] == '\n') {
				/* an escaped break joins without a space */
				if (is_key_)
					return fail(p, "a key over two lines");
				p->pos++;
				while (p->pos < p->n && (p->b[p->pos] == ' ' ||
				    p->b[p->pos] == '\t'))
					p->pos++;
				if (p->pos < p->n && p->b[p->pos] == '\n')
					return fail(p, "an escaped break before "
					    "an empty line");
				keep = p->d->alen;
				continue;
			}
			if ((rc = escape(p)) < 0)
				return rc;
			keep = p->d->alen;
			continue;
		}
		if ((rc = aput(p, c)) < 0)
			return rc;
		p->pos++;
		if (c != ' ' && c != '\t')
			keep = p->d->alen;
	}
	return scalar_end(p, off, 0);
}

/* After an inline value: only spaces to the end of the line. */
static int
end_line(struct p *p)
{
	if (!rest_blank(p, p->pos))
		return fail(p, "something after a value");
	next_line(p);
	return 0;
}

static int
plain_line_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\t')
			return 0;
		if (s[i] == ':' && (i + 1 == n || s[i + 1] == ' '))
			return 0;
		if (s[i] == '#' && i > 0 && s[i - 1] == ' ')
			return 0;
	}
	return 1;
}

/* A plain scalar from the position, folded over deeper lines. */
static int
plain(struct p *p, int pind)
{
	size_t off = p->d->alen;
	int rc;

	for (;;) {
		size_t s = p->pos, e = s, i;

		while (e < p->n && p->b[e] != '\n')
			e++;
		p->pos = e;
		while (e > s && p->b[e - 1] == ' ')
			e--;
		if (!plain_line_ok(p->b + s, e - s))
			return fail(p, "a plain scalar that needs quotes");
		for (i = s; i < e; i++)
			if ((rc = aput(p, p->b[i])) < 0)
				return rc;
		if (p->pos < p->n)
			p->pos++;		/* now at a line start */
		/* a continuation: blank lines, then a deeper line */
		{
			size_t save = p->pos;
			int breaks = 0, ind;

			for (;;) {
				size_t j = p->pos;

				while (j < p->n && p->b[j] == ' ')
					j++;
				if (j < p->n && p->b[j] == '\n') {
					breaks++;
					p->pos = j + 1;
					continue;
				}
				if (j >= p->n) {
					ind = -1;
					break;
				}
				ind = (int)(j - p->pos);
				break;
			}
			if (ind <= pind) {
				p->pos = save;
				break;
			}
			if (p->b[p->pos + ind] == '#' ||
			    p->b[p->pos + ind] == '\t')
				return fail(p, "a comment or tab in a scalar");
			if (breaks == 0) {
				if ((rc = aput(p, ' ')) < 0)
					return rc;
			} else {
				while (breaks-- > 0)
					if ((rc = aput(p, '\n')) < 0)
						return rc;
			}
			p->pos += (size_t)ind;
		}
	}
	return scalar_end(p, off, 1);
}

/* A literal block scalar; the position is at the '|'. */
static int
literal(struct p *p, int pind)
{
	int chomp = 0, digit = 0, cind, pending = 0, lead = 0, any = 0, rc;
	size_t off = p->d->alen, i;

	for (p->pos++; p->pos < p->n; p->pos++) {
		char c = p->b[p->pos];

		if ((c == '-' || c == '+') && chomp == 0)
			chomp = c == '-' ? -1 : 1;
		else if (c >= '1' && c <= '9' && digit == 0)
			digit = c - '0';
		else
			break;
	}
	if (end_line(p) < 0)
		return -EBOX_PROTO;
	if (digit) {
		cind = pind + digit;
	} else {
		int maxblank = 0;
		size_t q = p->pos;

		/* the first non-empty line sets the indentation */
		cind = -1;
		while (q < p->n) {
			size_t j = q;

			while (j < p->n && p->b[j] == ' ')
				j++;
			if (j < p->n && p->b[j] != '\n') {
				cind = (int)(j - q);
				break;
			}
			if ((int)(j - q) > maxblank)
				maxblank = (int)(j - q);
			q = j < p->n ? j + 1 : j;
		}
		if (cind <= pind)
			cind = pind + 1;
		if (maxblank > cind)
			return fail(p, "a block scalar with a deeper empty "
			    "line before its text");
	}
	while (p->pos < p->n) {
		size_t j = p->pos;

		while (j < p->n && p->b[j] == ' ' && (int)(j - p->pos) < cind)
			j++;
		if ((int)(j - p->pos) < cind) {
			if (j < p->n && p->b[j] != '\n')
				break;		/* a shallower line: done */
			/* an empty line */
			pending++;
			if (!any)
				lead++;
			p->pos = j < p->n ? j + 1 : j;
			continue;
		}
		/* a content line: text from cind on */
		if (any)
			while (pending-- > 0)
				if ((rc = aput(p, '\n')) < 0)
					return rc;
		if (!any)
			while (lead-- > 0)
				if ((rc = aput(p, '\n')) < 0)
					return rc;
		lead = 0;
		for (i = j; i < p->n && p->b[i] != '\n'; i++)
			if ((rc = aput(p, p->b[i])) < 0)
				return rc;
		p->pos = i < p->n ? i + 1 : i;
		any = 1;
		pending = 1;
	}
	if (chomp == 1) {
		int k = any ? pending : lead;

		while (k-- > 0)
			if ((rc = aput(p, '\n')) < 0)
				return rc;
	} else if (chomp == 0 && any) {
		if ((rc = aput(p, '\n')) < 0)
			return rc;
	}
	return scalar_end(p, off, 0);
}

/* An inline value at the position; pind is its parent's indentation. */
static int
inline_value(struct p *p, int pind)
{
	char c = p->b[p->pos];
	int i;

	switch (c) {
	case '"':
	case '\'':
		if ((i = quoted(p, pind, 0)) < 0)
			return i;
		return end_line(p) < 0 ? -EBOX_PROTO : i;
	case '|':
		return literal(p, pind);
	case '{':
	case '[':
		if (p->pos + 1 >= p->n || p->b[p->pos + 1] != (c == '{' ?
		    '}' : ']'))
			return fail(p, "a flow collection");
		p->pos += 2;
		if ((i = node(p, c == '{' ? YAML_MAP : YAML_SEQ)) < 0)
			return i;
		return end_line(p) < 0 ? -EBOX_PROTO : i;
	case '>': case '&': case '*': case '!': case '%': case '@':
	case '`': case '#': case ',': case ']': case '}':
		return fail(p, "an indicator YAML reads specially");
	case '-': case '?': case ':':
		if (p->pos + 1 >= p->n || p->b[p->pos + 1] == ' ' ||
		    p->b[p->pos + 1] == '\n')
			return fail(p, "an indicator YAML reads specially");
		break;
	default:
		break;
	}
	return plain(p, pind);
}

static int seq(struct p *p, int ind);

static void
link_child(struct p *p, int parent, int *last, int child)
{
	if (*last < 0)
		p->d->node[parent].child = child;
	else
		p->d->node[*last].next = child;
	*last = child;
}

/* A block mapping whose first key is at the position, in column ind. */
static int
map(struct p *p, int ind)
{
	int m, last = -1, nkeys = 0, k, v, k2, next;

	if (++p->depth > YAML_MAX_DEPTH)
		return fail(p, "nested too deep");
	if ((m = node(p, YAML_MAP)) < 0)
		return m;
	for (;;) {
		if ((k = key(p)) < 0)
			return k;
		/* a duplicate: yaml.v2 would keep one, silently */
		for (k2 = p->d->node[m].child; k2 >= 0;
		    k2 = p->d->node[p->d->node[k2].next].next)
			if (strcmp(p->d->arena + p->d->node[k2].off,
			    p->d->arena + p->d->node[k].off) == 0)
				return fail(p, "a duplicate key");
		if (++nkeys > YAML_MAX_KEYS)
			return fail(p, "too many keys in one mapping");
		link_child(p, m, &last, k);
		while (p->pos < p->n && p->b[p->pos] == ' ')
			p->pos++;
		if (at_eol(p, p->pos)) {
			int ind2;

			next_line(p);
			ind2 = skip_blank(p);
			if (ind2 < -1)
				return ind2;
			if (ind2 > ind)
				v = block(p, ind2);
			else if (ind2 == ind && p->b[p->pos + ind] == '-' &&
			    (at_eol(p, p->pos + ind + 1) ||
			    p->b[p->pos + ind + 1] == ' '))
				v = seq(p, ind);
			else
				v = node(p, YAML_NULL);
		} else {
			if (p->pos > 0 && p->b[p->pos - 1] != ' ')
				return fail(p, "no space after ':'");
			v = inline_value(p, ind);
		}
		if (v < 0)
			return v;
		link_child(p, m, &last, v);
		next = skip_blank(p);
		if (next < -1)
			return next;
		if (next < ind)
			break;
		if (next > ind)
			return fail(p, "bad indentation");
		p->pos += (size_t)ind;
		if (p->b[p->pos] == '-' && (at_eol(p, p->pos + 1) ||
		    p->b[p->pos + 1] == ' ')) {
			p->pos -= (size_t)ind;
			break;		/* the parent sequence's next item */
		}
		if (!is_key(p, p->pos))
			return fail(p, "a line that is not a key");
	}
	p->depth--;
	return m;
}

/* A block sequence at a line start whose '-' sits in column ind. */
static int
seq(struct p *p, int ind)
{
	int s, last = -1, v, next;

	if (++p->depth > YAML_MAX_DEPTH)
		return fail(p, "nested too deep");
	if ((s = node(p, YAML_SEQ)) < 0)
		return s;
	for (;;) {
		p->pos += (size_t)ind + 1;	/* past the '-' */
		while (p->pos < p->n && p->b[p->pos] == ' ')
			p->pos++;
		if (at_eol(p, p->pos)) {
			int ind2;

			next_line(p);
			ind2 = skip_blank(p);
			if (ind2 < -1)
				return ind2;
			v = ind2 > ind ? block(p, ind2) : node(p, YAML_NULL);
		} else if (p->b[p->pos] == '-' && (at_eol(p, p->pos + 1) ||
		    p->b[p->pos + 1] == ' ')) {
			return fail(p, "a sequence inside a sequence item");
		} else if (is_key(p, p->pos)) {
			v = map(p, (int)column(p, p->pos));
		} else {
			v = inline_value(p, ind);
		}
		if (v < 0)
			return v;
		link_child(p, s, &last, v);
		next = skip_blank(p);
		if (next < -1)
			return next;
		if (next != ind || p->b[p->pos + ind] != '-' ||
		    !(at_eol(p, p->pos + ind + 1) ||
		    p->b[p->pos + ind + 1] == ' '))
			break;
	}
	if (next > ind)
		return fail(p, "bad indentation");
	p->depth--;
	return s;
}

/* A block collection at a line start, indented ind. */
static int
block(struct p *p, int ind)
{
	size_t at = p->pos + (size_t)ind;

	if (p->b[at] == '-' && (at_eol(p, at + 1) || p->b[at + 1] == ' '))
		return seq(p, ind);
	if (!is_key(p, at))
		return fail(p, "a line that is neither a key nor an item");
	p->pos = at;
	return map(p, ind);
}

/*
 * Valid UTF-8, printable (tab and newline aside), no BOM, no CR, and none
 * of the breaks YAML 1.1 reads as new lines (NEL, LS, PS): libyaml, and so
 * yaml.v2, would end a line there where this reader would not.
 */
static int
text_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], cp, need, k;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				return 0;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			cp = c & 0x07;
		} else {
			return 0;
		}
		if (n - i <= need)
			return 0;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    cp == 0xfeff || cp == 0xfffe || cp == 0xffff ||
		    (cp >= 0x80 && cp <= 0x9f) ||
		    cp == 0x2028 || cp == 0x2029)
			return 0;	/* NEL, LS, PS: line breaks to libyaml */
		i += need + 1;
	}
	return 1;
}

int
yaml_parse(struct yaml_doc *d, const char *buf, size_t n)
{
	struct p p;
	int ind, root, rc;

	memset(d, 0, sizeof(*d));
	memset(&p, 0, sizeof(p));
	p.b = buf;
	p.n = n;
	p.d = d;
	if (!text_ok((const unsigned char *)buf, n))
		return fail(&p, "not printable UTF-8 text");
	if (n > 0 && buf[n - 1] != '\n')
		return fail(&p, "no newline at the end");
	ind = skip_blank(&p);
	if (ind < -1)
		return ind;
	if (ind == -1)
		return node(&p, YAML_NULL) < 0 ? -ENOMEM : 0;
	root = block(&p, ind);
	if (root < 0)
		return root;
	rc = skip_blank(&p);
	if (rc < -1)
		return rc;
	if (rc != -1)
		return fail(&p, "text after the document");
	/* the root is node 0 when it is the first made; make it so */
	if (root != 0)
		return fail(&p, "internal: root is not the first node");
	return 0;
}

void
yaml_free(struct yaml_doc *d)
{
	free(d->node);
	free(d->arena);
	memset(d, 0, sizeof(*d));
}

int
yaml_type(const struct yaml_doc *d, int i)
{
	return i >= 0 && i < d->n ? d->node[i].type : 0;
}

int
yaml_child(const struct yaml_doc *d, int i)
{
	return i >= 0 && i < d->n ? d->node[i].child : -1;
}

int
yaml_next(const struct yaml_doc *d, int i)
{
	return i >= 0 && i < d->n ? d->node[i].next : -1;
}

int
yaml_get(const struct yaml_doc *d, int map_, const char *k)
{
	int c;

	if (yaml_type(d, map_) != YAML_MAP)
		return -1;
	for (c = d->node[map_].child; c >= 0; c = d->node[d->node[c].next].next)
		if (strcmp(d->arena + d->node[c].off, k) == 0)
			return d->node[c].next;
	return -1;
}

int
yaml_is_null(const struct yaml_doc *d, int i)
{
	const char *s;

	if (yaml_type(d, i) == YAML_NULL)
		return 1;
	if (yaml_type(d, i) != YAML_STR || !d->node[i].plain)
		return 0;
	s = d->arena + d->node[i].off;
	return strcmp(s, "") == 0 || strcmp(s, "~") == 0 ||
	    strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
	    strcmp(s, "NULL") == 0;
}

const char *
yaml_str(const struct yaml_doc *d, int i, size_t *len)
{
	if (yaml_type(d, i) == YAML_NULL || yaml_is_null(d, i)) {
		if (len)
			*len = 0;
		return "";
	}
	if (yaml_type(d, i) != YAML_STR)
		return NULL;
	if (len)
		*len = d->node[i].len;
	return d->arena + d->node[i].off;
}

int
yaml_bool(const struct yaml_doc *d, int i)
{
	static const char *const t[] = { "y", "Y", "yes", "Yes", "YES",
	    "true", "True", "TRUE", "on", "On", "ON", NULL };
	static const char *const f[] = { "n", "N", "no", "No", "NO",
	    "false", "False", "FALSE", "off", "Off", "OFF", NULL };
	const char *s;
	int k;

	if (yaml_type(d, i) != YAML_STR || !d->node[i].plain)
		return -1;
	s = d->arena + d->node[i].off;
	for (k = 0; t[k] != NULL; k++)
		if (strcmp(s, t[k]) == 0)
			return 1;
	for (k = 0; f[k] != NULL; k++)
		if (strcmp(s, f[k]) == 0)
			return 0;
	return -1;
}
