/*
 * each.c - `all` as a box name (see each.h).
 */
#include "box/each.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "box/narrate.h"
#include "util/prompt.h"

#define EACH_MAX 1024	/* boxes one `all` acts on */

int
box_is_all(const char *name)
{
	return strcmp(name, BOX_ALL) == 0;
}

int
box_new_name_ok(const char *name, const char *whence, struct box_err *e)
{
	int rc;

	if ((rc = box_name_check(name, whence, e)) < 0)
		return rc;
	if (box_is_all(name)) {
		err_usage(e, "'%s' cannot name a box: start, down and restart "
		    "read it as every box%s", name, whence);
		err_fix(e, "pick another name");
		return -EINVAL;
	}
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct box_info *)a)->name,
	    ((const struct box_info *)b)->name);
}

/* Every box, sorted; *n of them into a malloc'd *out. */
static int
list_boxes(struct incus *c, struct box_info **out, int *n, struct box_err *e)
{
	struct incus_instance_list l;
	struct box_info *v;
	size_t i;
	int rc;

	*n = 0;
	*out = NULL;
	if ((rc = incus_instance_list(c, NULL, 0, &l, e)) < 0)
		return rc;
	v = calloc(EACH_MAX, sizeof(*v));
	if (v == NULL) {
		incus_instance_list_free(&l);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < l.n && *n < EACH_MAX; i++)
		if (box_tagged(&l.v[i], NULL))
			box_info_of(&l.v[i], &v[(*n)++]);
	incus_instance_list_free(&l);
	qsort(v, (size_t)*n, sizeof(*v), by_name);
	*out = v;
	return 0;
}

/*
 * A shell glob over a box name: * ? and [a-z] sets (box names are ASCII
 * letters, digits and '-').  Ours, not fnmatch(3): that one pulls musl's
 * wide-character tables in (17 KiB).  1 when name matches.
 */
int
box_glob(const char *g, const char *n)
{
	for (; *g != '\0'; g++, n++) {
		if (*g == '*') {
			while (g[1] == '*')
				g++;
			for (;; n++) {
				if (box_glob(g + 1, n))
					return 1;
				if (*n == '\0')
					return 0;
			}
		}
		if (*n == '\0')
			return 0;
		if (*g == '[') {
			const char *p = g + 1;
			int neg = *p == '!' || *p == '^', hit = 0;

			if (neg)
				p++;
			for (; *p != '\0' && (*p != ']' || p == g + 1 + neg); p++)
				if (p[1] == '-' && p[2] != ']' && p[2] != '\0') {
					hit |= *n >= *p && *n <= p[2];
					p += 2;
				} else
					hit |= *n == *p;
			if (*p != ']')
				return *n == '[' && box_glob(g + 1, n + 1);
			if (hit == neg)
				return 0;
			g = p;
		} else if (*g != '?' && *g != *n)
			return 0;
	}
	return *n == '\0';
}

static int
is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int
picked(const struct box_pick *p, const char *name)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->v[i].name, name) == 0)
			return 1;
	return 0;
}

int
box_pick(struct incus *c, char *const *args, int nargs, struct box_pick *p,
    struct box_err *e)
{
	struct box_info *all = NULL, one;
	int nall = -1, i, k, m, rc = 0, others = 0;
	unsigned me = (unsigned)getuid();

	memset(p, 0, sizeof(*p));
	if ((p->v = calloc(EACH_MAX, sizeof(*p->v))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < nargs && rc == 0; i++) {
		const char *a = args[i];

		if (!box_is_all(a) && !is_pattern(a)) {
			if ((rc = box_resolve(c, a, &one, e)) < 0)
				break;
			if (!picked(p, one.name) && p->n < EACH_MAX)
				p->v[p->n++] = one;
			continue;
		}
		if (nall < 0 && (rc = list_boxes(c, &all, &nall, e)) < 0)
			break;
		for (k = 0, m = 0; k < nall; k++) {
			if (!box_is_all(a) && !box_glob(a, all[k].name))
				continue;
			if (box_is_all(a) && me != 0 &&
			    all[k].owner != (long)me) {
				others++;
				continue;
			}
			m++;
			if (!picked(p, all[k].name) && p->n < EACH_MAX)
				p->v[p->n++] = all[k];
		}
		if (m == 0 && !box_is_all(a)) {
			err_set(e, -ENOENT, "no box matches '%s'", a);
			err_fix(e, "box list shows the boxes");
			rc = -ENOENT;
		}
		if (box_is_all(a) || m > 1)
			p->wide = 1;
	}
	free(all);
	if (rc < 0) {
		box_pick_free(p);
		return rc;
	}
	if (others > 0)
		life_say("'all' is your own boxes: %d other box%s left alone "
		    "(only root's 'all' is every box)", others,
		    others == 1 ? "" : "es");
	qsort(p->v, (size_t)p->n, sizeof(*p->v), by_name);
	return 0;
}

void
box_pick_free(struct box_pick *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

int
box_pick_run(struct incus *c, const struct box_pick *p, const char *verb,
    int force, int undo, box_each_fn fn, void *arg, struct box_err *e)
{
	struct box_err le;
	char q[400], first[400] = "";
	size_t at;
	int i, rc, bad = 0;

	if (p->n == 0) {
		life_say("there are no boxes to %s", verb);
		return 0;
	}
	if (p->wide && !force) {
		at = (size_t)snprintf(q, sizeof(q), "%s %d box%s:", verb, p->n,
		    p->n == 1 ? "" : "es");
		for (i = 0; i < p->n && at < sizeof(q) - 80; i++)
			at += (size_t)snprintf(q + at, sizeof(q) - at, "%s %s",
			    i ? "," : "", p->v[i].name);
		if (i < p->n)
			snprintf(q + at, sizeof(q) - at, " and %d more",
			    p->n - i);
		if ((rc = (undo ? consent_confirm : consent_ask)(q, "--force",
		    e)) < 0)
			return rc;
	}
	for (i = 0; i < p->n; i++) {
		err_clear(&le);
		if ((rc = fn(c, &p->v[i], arg, &le)) < 0) {
			if (p->n == 1) {
				*e = le;
				return rc;
			}
			life_say("%s: %s", p->v[i].name, le.msg);
			if (bad++ == 0)
				snprintf(first, sizeof(first), "%s: %.300s",
				    p->v[i].name, le.msg);
		}
	}
	if (bad > 0)
		return err_set(e, -EIO, "%s: %d of %d boxes failed (the first: "
		    "%s)", verb, bad, p->n, first);
	return 0;
}

int
box_pick_each(char *const *args, int nargs, const char *verb, int force,
    int undo, int *wide, box_each_fn fn, void *arg, struct box_err *e)
{
	struct box_pick p;
	struct incus c;
	int rc;

	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_pick(&c, args, nargs, &p, e)) == 0) {
		if (wide != NULL)
			*wide = p.wide;
		rc = box_pick_run(&c, &p, verb, force, undo, fn, arg, e);
	}
	box_pick_free(&p);
	incus_close(&c);
	return rc;
}
