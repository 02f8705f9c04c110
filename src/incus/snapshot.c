/*
 * snapshot.c - an instance's snapshots: read, listed, made, deleted and
 * restored (see instance.h).
 */
#include "incus/instance.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance_int.h"

static int
snap_path(char *buf, size_t cap, const char *name, const char *snap)
{
	char esc[3 * 256], suffix[sizeof(esc) + 16];

	if (url_escape(snap, esc, sizeof(esc)) < 0)
		return -ENAMETOOLONG;
	snprintf(suffix, sizeof(suffix), "/snapshots/%s", esc);
	return incus_inst_path(buf, cap, name, suffix);
}

static int
snap_from_json(const struct json_doc *d, int obj, struct incus_snapshot *s,
    struct box_err *e)
{
	int rc, k;

	memset(s, 0, sizeof(*s));
	if (json_type(d, obj) != JSON_OBJECT)
		return err_set(e, -EBADMSG, "the daemon sent an odd snapshot");
	if ((rc = inst_field(d, obj, "name", s->name, sizeof(s->name), e)) < 0 ||
	    (rc = inst_field(d, obj, "created_at", s->created_at,
	    sizeof(s->created_at), e)) < 0 ||
	    (rc = inst_flag(d, obj, "stateful", &s->stateful, e)) < 0)
		return rc;
	/* "size" (API snapshot_disk_usage): absent or not a count is unknown */
	s->size = -1;
	if ((k = json_get(d, obj, "size")) >= 0 &&
	    (json_int(d, k, &s->size) < 0 || s->size < 0))
		s->size = -1;
	return 0;
}

int
incus_snapshot_get(struct incus *c, const char *name, const char *snap,
    struct incus_snapshot *s, struct box_err *e)
{
	struct incus_reply r;
	char path[1024];
	int rc;

	memset(s, 0, sizeof(*s));
	if (snap_path(path, sizeof(path), name, snap) < 0)
		return err_usage(e, "snapshot name too long");
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0)
		rc = snap_from_json(&r.doc, r.metadata, s, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_snapshot_list_from_json(const struct json_doc *d, int arr,
    struct incus_snapshot_list *l, struct box_err *e)
{
	int i, rc;

	memset(l, 0, sizeof(*l));
	if (json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return err_set(e, -EBOX_PROTO, "the daemon sent no snapshot "
		    "list");
	if (json_count(d, arr) > INCUS_SNAPSHOTS_MAX)
		return err_set(e, -E2BIG, "more than %d snapshots",
		    INCUS_SNAPSHOTS_MAX);
	if ((l->v = calloc((size_t)json_count(d, arr) + 1,
	    sizeof(*l->v))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		if ((rc = snap_from_json(d, i, &l->v[l->n], e)) < 0) {
			incus_snapshot_list_free(l);
			return rc;
		}
		l->n++;
	}
	return 0;
}

int
incus_snapshot_list(struct incus *c, const char *name,
    struct incus_snapshot_list *l, struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	memset(l, 0, sizeof(*l));
	if (incus_inst_path(path, sizeof(path), name,
	    "/snapshots?recursion=1") < 0)
		return ODD_NAME(e, name);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0)
		rc = incus_snapshot_list_from_json(&r.doc, r.metadata, l, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_snapshot_list_raw(struct incus *c, const char *name, char **raw,
    size_t *n, struct box_err *e)
{
	struct incus_reply r;
	const char *p;
	char path[256];
	int rc;

	*raw = NULL;
	*n = 0;
	if (incus_inst_path(path, sizeof(path), name,
	    "/snapshots?recursion=1") < 0)
		return ODD_NAME(e, name);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0) {
		p = json_raw(&r.doc, r.metadata, n);
		if (p == NULL)
			rc = err_set(e, -EBOX_PROTO, "the daemon sent no "
			    "snapshot list");
		else if ((*raw = malloc(*n + 1)) == NULL)
			rc = err_set(e, -ENOMEM, "out of memory");
		else {
			memcpy(*raw, p, *n);
			(*raw)[*n] = '\0';
		}
	}
	incus_reply_free(&r);
	return rc;
}

void
incus_snapshot_list_free(struct incus_snapshot_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
incus_snapshot_create(struct incus *c, const char *name, const char *snap,
    int stateful, int wait_s, struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "/snapshots") < 0)
		return ODD_NAME(e, name);
	json_w_init(&w, 4096);
	json_w_obj(&w);
	inst_w_kv(&w, "name", snap);
	json_w_key(&w, "stateful");
	json_w_bool(&w, stateful);
	json_w_end(&w, '}');
	return inst_send_w(c, "POST", path, &w, wait_s, e);
}

int
incus_snapshot_delete(struct incus *c, const char *name, const char *snap,
    int wait_s, struct box_err *e)
{
	char path[1024];

	if (snap_path(path, sizeof(path), name, snap) < 0)
		return err_usage(e, "snapshot name too long");
	return inst_delete_path(c, path, wait_s, e);
}

int
incus_snapshot_restore(struct incus *c, const char *name, const char *snap,
    int wait_s, struct box_err *e)
{
	return inst_send_one(c, "PUT", name, "restore", snap, wait_s, e);
}

