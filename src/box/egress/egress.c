/* egress.c - a box's egress policy (see egress.h). */
#include "box/egress/egress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int
refuse(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && cap > 0) {
		va_start(ap, fmt);
		vsnprintf(why, cap, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int
is_ldh(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* A DNS name as egress.h describes it: n characters at s. */
static int
name_ok(const char *s, size_t n, char *why, size_t cap)
{
	size_t i, start = 0, labels = 0;
	int numeric = 1;

	if (n == 0)
		return refuse(why, cap, "an empty name");
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			if (!is_ldh(s[i]))
				return refuse(why, cap, "'%.*s': only "
				    "lower-case letters, digits, '-' and '.' "
				    "(and a leading '*.')", (int)n, s);
			if (s[i] < '0' || s[i] > '9')
				numeric = 0;
			continue;
		}
		if (i == start)
			return refuse(why, cap, "'%.*s': an empty label",
			    (int)n, s);
		if (i - start > 63)
			return refuse(why, cap, "'%.*s': a label over 63 "
			    "characters", (int)(n > 80 ? 80 : n), s);
		if (s[start] == '-' || s[i - 1] == '-')
			return refuse(why, cap, "'%.*s': a label starts or "
			    "ends with '-'", (int)n, s);
		labels++;
		if (i < n)
			numeric = 1;
		start = i + 1;
	}
	if (labels < 2)
		return refuse(why, cap, "'%.*s': a name of one label (the "
		    "resolver never forwards those)", (int)n, s);
	if (numeric)
		return refuse(why, cap, "'%.*s': an address, not a name (the "
		    "policy names names)", (int)n, s);
	return 0;
}

static int
pattern_okn(const char *s, size_t n, char *why, size_t cap)
{
	if (n > EGRESS_PATMAX)
		return refuse(why, cap, "a pattern over %d characters",
		    EGRESS_PATMAX);
	if (n >= 2 && s[0] == '*' && s[1] == '.')
		return name_ok(s + 2, n - 2, why, cap);
	return name_ok(s, n, why, cap);
}

int
egress_pattern_ok(const char *pat, char *why, size_t cap)
{
	if (pat == NULL)
		return refuse(why, cap, "no pattern");
	return pattern_okn(pat, strnlen(pat, EGRESS_PATMAX + 1), why, cap);
}

static int
has(const struct egress *p, const char *s, size_t n)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (strlen(p->pat[i]) == n && memcmp(p->pat[i], s, n) == 0)
			return 1;
	return 0;
}

int
egress_parse(const char *s, struct egress *p, char *why, size_t cap)
{
	const char *q;
	size_t n;
	int rc;

	p->mode = EGRESS_OPEN;
	p->n = 0;
	if (why != NULL && cap > 0)
		why[0] = '\0';
	if (s == NULL || s[0] == '\0' || strcmp(s, "open") == 0)
		return 0;
	if (strncmp(s, "allow:", 6) != 0)
		return refuse(why, cap, "'%.40s%s': a policy is open or "
		    "allow:<name>[,<name>...]", s, strlen(s) > 40 ? "..." : "");
	q = s + 6;
	for (;;) {
		n = strcspn(q, ",");
		if (p->n == EGRESS_MAXPAT)
			return refuse(why, cap, "more than %d patterns",
			    EGRESS_MAXPAT);
		if ((rc = pattern_okn(q, n, why, cap)) < 0)
			return rc;
		if (has(p, q, n))
			return refuse(why, cap, "'%.*s' is named twice",
			    (int)n, q);
		memcpy(p->pat[p->n], q, n);
		p->pat[p->n++][n] = '\0';
		if (q[n] == '\0')
			break;
		q += n + 1;
	}
	p->mode = EGRESS_ALLOW;
	return 0;
}

int
egress_normalise(char *s, char *note, size_t ncap)
{
	char was[EGRESS_PATMAX + 2], *p, *q;
	const char *what[4] = { NULL, NULL, NULL, NULL };
	int k = 0;

	snprintf(was, sizeof(was), "%s", s);
	if ((p = strstr(s, "://")) != NULL && p > s &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789+.-") == (size_t)(p - s)) {
		memmove(s, p + 3, strlen(p + 3) + 1);
		what[k++] = "scheme";
	}
	if ((q = strpbrk(s, "/?#")) != NULL) {
		*q = '\0';
		what[k++] = "path";
	}
	if ((p = strrchr(s, '@')) != NULL)
		memmove(s, p + 1, strlen(p + 1) + 1);
	if ((p = strrchr(s, ':')) != NULL && p[1] != '\0' &&
	    strspn(p + 1, "0123456789") == strlen(p + 1)) {
		*p = '\0';
		what[k++] = "port";
	}
	for (p = s, q = NULL; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z') {
			*p = (char)(*p - 'A' + 'a');
			q = p;
		}
	if (q != NULL)
		what[k++] = "case";
	if (k > 0 && s[0] != '\0' && s[strlen(s) - 1] == '.')
		s[strlen(s) - 1] = '\0';
	if (strcmp(was, s) == 0)
		return 0;
	if (note != NULL && ncap > 0)
		snprintf(note, ncap, "'%s' read as %s (%s%s%s%s%s dropped: a "
		    "policy names hosts, every port of them)", was, s,
		    what[0] ? what[0] : "", what[1] ? ", " : "",
		    what[1] ? what[1] : "", what[2] ? ", " : "",
		    what[2] ? what[2] : "");
	return 1;
}

int
egress_format(const struct egress *p, char *buf, size_t cap)
{
	size_t o;
	int i, w;

	if (cap == 0)
		return -ENOSPC;
	if (p->mode != EGRESS_ALLOW || p->n == 0) {
		w = snprintf(buf, cap, "open");
		return w < 0 || (size_t)w >= cap ? -ENOSPC : 0;
	}
	w = snprintf(buf, cap, "allow:");
	if (w < 0 || (size_t)w >= cap)
		return -ENOSPC;
	o = (size_t)w;
	for (i = 0; i < p->n; i++) {
		w = snprintf(buf + o, cap - o, "%s%s", i ? "," : "", p->pat[i]);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	return 0;
}

int
egress_add(struct egress *p, const char *pat, char *why, size_t cap)
{
	int rc;

	if ((rc = egress_pattern_ok(pat, why, cap)) < 0)
		return rc;
	if (p->mode != EGRESS_ALLOW)
		p->n = 0;
	p->mode = EGRESS_ALLOW;
	if (has(p, pat, strlen(pat)))
		return 0;
	if (p->n == EGRESS_MAXPAT)
		return refuse(why, cap, "more than %d patterns",
		    EGRESS_MAXPAT);
	snprintf(p->pat[p->n++], sizeof(p->pat[0]), "%s", pat);
	return 0;
}

int
egress_remove(struct egress *p, const char *pat)
{
	int i;

	if (p->mode != EGRESS_ALLOW)
		return -ENOENT;
	for (i = 0; i < p->n; i++)
		if (strcmp(p->pat[i], pat) == 0)
			break;
	if (i == p->n)
		return -ENOENT;
	if (p->n == 1)
		return -ENOTEMPTY;
	for (; i + 1 < p->n; i++)
		memcpy(p->pat[i], p->pat[i + 1], sizeof(p->pat[0]));
	p->n--;
	return 0;
}

const char *
egress_domain(const char *pat)
{
	return pat[0] == '*' && pat[1] == '.' ? pat + 2 : pat;
}

int
egress_covers(const char *dom, const char *d)
{
	size_t a = strlen(dom), b = strlen(d);

	if (b < a || strcmp(d + (b - a), dom) != 0)
		return 0;
	return b == a || d[b - a - 1] == '.';
}

int
egress_policy_from(const char *stored, struct egress_policy *ep)
{
	if (stored == NULL)
		stored = "";
	ep->valid = strlen(stored) < EGRESS_TEXTMAX &&
	    egress_parse(stored, &ep->pol, NULL, 0) == 0;
	if (!ep->valid) {
		ep->pol.mode = EGRESS_ALLOW;
		ep->pol.n = 0;
		return -EINVAL;
	}
	return 0;
}

void
egress_policy_text(const struct egress_policy *ep, char *buf, size_t cap)
{
	if (!ep->valid)
		snprintf(buf, cap, "%s", EGRESS_INVALID_TEXT);
	else if (egress_format(&ep->pol, buf, cap) < 0)
		snprintf(buf, cap, "allow:(%d names)", ep->pol.n);
}
