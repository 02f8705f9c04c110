/*
 * operation.c - waiting on operations and reading their progress (see
 * operation.h).
 */
#include "incus/operation.h"

#include <string.h>

int
incus_op_wait(struct incus *c, const char *op, int slice_s,
    struct box_err *e)
{
	struct incus_reply r;
	int rc = incus_wait(c, op, slice_s, &r, e);

	incus_reply_free(&r);
	return rc;
}

void
incus_op_progress_from(const struct json_doc *d, int op, char *buf,
    size_t cap)
{
	int md = json_get(d, op, "metadata"), k;
	char key[128];

	buf[0] = '\0';
	for (k = json_child(d, md); k >= 0; k = json_next(d, json_next(d, k))) {
		size_t n;

		if (json_str(d, k, key, sizeof(key)) < 0)
			continue;
		n = strlen(key);
		if (n > 9 && strcmp(key + n - 9, "_progress") == 0 &&
		    json_type(d, json_next(d, k)) == JSON_STRING) {
			json_str(d, json_next(d, k), buf, cap);
			return;
		}
	}
}

void
incus_op_progress(struct incus *c, const char *op, char *buf, size_t cap)
{
	struct incus_reply o;
	struct box_err ignore;

	err_clear(&ignore);
	buf[0] = '\0';
	if (incus_call(c, "GET", op, NULL, &o, &ignore) == 0)
		incus_op_progress_from(&o.doc, o.metadata, buf, cap);
	incus_reply_free(&o);
}

/*
 * Running operations of class "websocket" (exec, console) and the
 * instances they name: "/1.0/instances/<name>" in resources.instances.
 * The daemon keeps these; nothing inside an instance can add one or hide
 * one.  A name already listed, or one that cannot be a name, is skipped.
 */
int
incus_sessions_from_json(const struct json_doc *d, int md,
    char (*v)[64], int max, int *n)
{
	static const char pre[] = "/1.0/instances/";
	int run, op, res, ins, k, i, dup;
	char path[128], cls[32], st[32];
	const char *nm;

	*n = 0;
	run = json_get(d, md, "running");
	if (run == JSON_NONE || json_type(d, run) != JSON_ARRAY)
		return 0;
	for (op = json_child(d, run); op >= 0; op = json_next(d, op)) {
		if (json_type(d, op) != JSON_OBJECT ||
		    json_str(d, json_get(d, op, "class"), cls, sizeof(cls)) < 0 ||
		    strcmp(cls, "websocket") != 0 ||
		    json_str(d, json_get(d, op, "status"), st, sizeof(st)) < 0 ||
		    strcmp(st, "Running") != 0)
			continue;
		res = json_get(d, op, "resources");
		if (res == JSON_NONE || json_type(d, res) != JSON_OBJECT)
			continue;
		ins = json_get(d, res, "instances");
		if (ins == JSON_NONE || json_type(d, ins) != JSON_ARRAY)
			continue;
		for (k = json_child(d, ins); k >= 0; k = json_next(d, k)) {
			if (json_str(d, k, path, sizeof(path)) < 0 ||
			    strncmp(path, pre, sizeof(pre) - 1) != 0)
				continue;
			path[strcspn(path, "?")] = '\0';  /* ?project= */
			nm = path + sizeof(pre) - 1;
			if (nm[0] == '\0' || strlen(nm) >= 64 ||
			    strchr(nm, '/') != NULL)
				continue;
			for (dup = 0, i = 0; i < *n && !dup; i++)
				dup = strcmp(v[i], nm) == 0;
			if (dup || *n >= max)
				continue;
			memcpy(v[*n], nm, strlen(nm) + 1);
			(*n)++;
		}
	}
	return 0;
}

int
incus_sessions_open(struct incus *c, char (*v)[64], int max, int *n,
    struct box_err *e)
{
	struct incus_reply r;
	int rc;

	*n = 0;
	rc = incus_call(c, "GET", "/1.0/operations?recursion=1", NULL, &r, e);
	if (rc == 0)
		rc = incus_sessions_from_json(&r.doc, r.metadata, v, max, n);
	incus_reply_free(&r);
	return rc;
}
