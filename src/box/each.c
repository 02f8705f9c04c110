/*
 * each.c - `all` as a box name (see each.h).
 */
#include "box/each.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/life.h"

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

int
box_each(struct incus *c, const char *verb, box_each_fn fn, void *arg,
    struct box_err *e)
{
	struct box_info *v;
	struct box_err le;
	char first[400] = "";
	int rc, n, i, bad = 0;

	if ((rc = list_boxes(c, &v, &n, e)) < 0)
		return rc;
	if (n == 0)
		life_say("there are no boxes to %s", verb);
	for (i = 0; i < n; i++) {
		err_clear(&le);
		if (fn(c, &v[i], arg, &le) < 0) {
			life_say("%s: %s", v[i].name, le.msg);
			if (bad++ == 0)
				snprintf(first, sizeof(first), "%s: %.300s",
				    v[i].name, le.msg);
		}
	}
	free(v);
	if (bad > 0)
		return err_set(e, -EIO, "%s all: %d of %d boxes failed (the "
		    "first: %s)", verb, bad, n, first);
	return 0;
}
