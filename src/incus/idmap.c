/*
 * idmap.c - volatile.idmap.* values read into typed entries (idmap.h).
 *
 * Go's encoding/json (which wrote these) matches member names without
 * regard to case and lets a repeated member win last; box reads neither
 * way: a name not spelled exactly, or a member twice, is refused, so that
 * box and the daemon cannot read one map two ways.
 */
#include <errno.h>
#include <string.h>

#include "incus/idmap.h"
#include "incus/json.h"
#include "util/err.h"

static const char *const members[] = {
	"Isuid", "Isgid", "Hostid", "Nsid", "Maprange", NULL
};

static int
boolean(const struct json_doc *d, int i, int *out)
{
	if (json_type(d, i) == JSON_TRUE)
		*out = 1;
	else if (json_type(d, i) == JSON_FALSE)
		*out = 0;
	else
		return -EBOX_PROTO;
	return 0;
}

static int
integer(const struct json_doc *d, int i, long long *out)
{
	return json_int(d, i, out) < 0 ? -EBOX_PROTO : 0;
}

/* One entry: exactly the five members, each once and of its type. */
static int
entry(const struct json_doc *d, int obj, struct incus_idmap *m)
{
	int i;

	if (json_type(d, obj) != JSON_OBJECT || json_count(d, obj) != 5)
		return -EBOX_PROTO;
	for (i = 0; members[i] != NULL; i++)
		if (json_get(d, obj, members[i]) < 0)	/* absent or twice */
			return -EBOX_PROTO;
	/* five members, each of the five names present once: nothing else */
	if (boolean(d, json_get(d, obj, "Isuid"), &m->isuid) < 0 ||
	    boolean(d, json_get(d, obj, "Isgid"), &m->isgid) < 0 ||
	    integer(d, json_get(d, obj, "Hostid"), &m->hostid) < 0 ||
	    integer(d, json_get(d, obj, "Nsid"), &m->nsid) < 0 ||
	    integer(d, json_get(d, obj, "Maprange"), &m->maprange) < 0)
		return -EBOX_PROTO;
	return 0;
}

int
incus_idmap_parse(const char *value, struct incus_idmap *v, size_t cap,
    size_t *n)
{
	struct json_doc d;
	struct box_err e;
	size_t max = cap < INCUS_IDMAP_MAX ? cap : INCUS_IDMAP_MAX;
	int k, rc;

	*n = 0;
	err_clear(&e);
	if ((rc = json_parse(&d, value, strlen(value), &e)) < 0)
		return rc == -ENOMEM ? rc : -EBOX_PROTO;
	rc = -EBOX_PROTO;
	if (json_type(&d, 0) != JSON_ARRAY ||
	    (size_t)json_count(&d, 0) > max)
		goto out;
	for (k = json_child(&d, 0); k >= 0; k = json_next(&d, k))
		if (entry(&d, k, &v[(*n)++]) < 0)
			goto out;
	rc = 0;
out:
	if (rc < 0)
		*n = 0;
	json_free(&d);
	return rc;
}
