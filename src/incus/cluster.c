/*
 * cluster.c - the cluster, its members and box's group (see cluster.h).
 *
 * GET /1.0/cluster             {"server_name":"m1","enabled":true,...}
 * GET /1.0/cluster/members?recursion=1
 *                              [{"server_name":"m1","status":"Online",
 *                                "groups":["default","box"],...},...]
 * GET /1.0/cluster/groups/<g>  {"name":"box","description":"...",
 *                               "members":["m1","m2"]}
 * POST /1.0/cluster/groups     {"name","description","members":[...]}
 * PUT /1.0/cluster/groups/<g>  {"description","members":[...]}: the
 *                              member list replaced whole.
 */
#include "incus/cluster.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "incus/json.h"
#include "incus/res.h"

#define GROUP_WHY	"box: the members that hold box's host contract " \
			"(firewall read back by content); new boxes land here"

static int
member_from_json(struct incus_member *m, const struct json_doc *d, int obj,
    const char *group)
{
	int g, i;

	memset(m, 0, sizeof(*m));
	if (json_type(d, obj) != JSON_OBJECT ||
	    json_str(d, json_get(d, obj, "server_name"), m->name,
	    sizeof(m->name)) <= 0)
		return -EBADMSG;
	json_gets(d, obj, "status", m->status, sizeof(m->status), "");
	g = json_get(d, obj, "groups");
	if (group == NULL || json_type(d, g) != JSON_ARRAY)
		return 0;
	for (i = json_child(d, g); i >= 0; i = json_next(d, i))
		if (json_streq(d, i, group))
			m->in_group = 1;
	return 0;
}

int
incus_members_from_json(struct incus_cluster *k, const struct json_doc *d,
    int arr, const char *group)
{
	int i, rc = 0;

	k->n = 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	for (i = json_child(d, arr); i >= 0 && rc == 0; i = json_next(d, i)) {
		if (k->n == INCUS_MEMBERS_MAX)
			rc = -E2BIG;
		else
			rc = member_from_json(&k->m[k->n++], d, i, group);
	}
	return rc;
}

int
incus_cluster_self(struct incus *c, char *self, size_t cap,
    struct box_err *e)
{
	struct incus_reply r;
	int rc, on;

	self[0] = '\0';
	rc = res_get(c, "/1.0/cluster", JSON_OBJECT, &r, e);
	if (rc == -ENOENT) {
		/* a daemon without the clustering API is standalone */
		err_clear(e);
		return 0;
	}
	if (rc < 0)
		return rc;
	rc = res_bool(&r.doc, r.metadata, "enabled", &on);
	if (rc == 0 && on)
		json_gets(&r.doc, r.metadata, "server_name", self, cap, "");
	incus_reply_free(&r);
	if (rc < 0 || (on && self[0] == '\0'))
		return err_set(e, -EBOX_PROTO, "the daemon's cluster "
		    "description is not one box understands");
	return on;
}

int
incus_cluster_local(const char *self, const char *location)
{
	return self[0] == '\0' || location[0] == '\0' ||
	    strcmp(location, self) == 0;
}

int
incus_cluster_read(struct incus *c, const char *group,
    struct incus_cluster *k, struct box_err *e)
{
	struct incus_reply r;
	int rc;

	memset(k, 0, sizeof(*k));
	if ((rc = incus_cluster_self(c, k->self, sizeof(k->self), e)) <= 0)
		return rc;
	k->on = 1;
	if ((rc = res_get(c, "/1.0/cluster/members?recursion=1", JSON_ARRAY,
	    &r, e)) < 0)
		return rc;
	rc = incus_members_from_json(k, &r.doc, r.metadata, group);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, -EBOX_PROTO, "the daemon's list of cluster "
		    "members is not one box understands");
	return 0;
}

int
incus_cluster_member_answers(struct incus *c, const char *name,
    struct box_err *e)
{
	struct incus_reply r;
	char path[192];
	int rc;

	if (res_path(path, sizeof(path), "/1.0/cluster/members", name,
	    "/state") < 0)
		return err_usage(e, "bad member name");
	if ((rc = res_get(c, path, JSON_OBJECT, &r, e)) == 0)
		incus_reply_free(&r);
	return rc;
}

const struct incus_member *
incus_cluster_member(const struct incus_cluster *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->m[i].name, name) == 0)
			return &k->m[i];
	return NULL;
}

int
incus_cluster_group_set(struct incus *c, const char *group,
    const char *member, int join, struct box_err *e)
{
	struct incus_cluster k;
	struct incus_reply r;
	struct json_w w;
	const struct incus_member *m;
	char path[192];
	int rc, have = 0, i, ms;

	if (res_path(path, sizeof(path), "/1.0/cluster/groups", group,
	    NULL) < 0)
		return err_usage(e, "bad group name");
	json_w_init(&w, RES_BODY_MAX);
	json_w_obj(&w);
	rc = res_get(c, path, JSON_OBJECT, &r, e);
	if (rc == -ENOENT && !join) {
		json_w_free(&w);
		err_clear(e);
		return 0;
	}
	if (rc == -ENOENT) {
		err_clear(e);
		json_w_key(&w, "name");
		json_w_str(&w, group);
	} else if (rc < 0) {
		json_w_free(&w);
		return rc;
	}
	json_w_key(&w, "description");
	json_w_str(&w, GROUP_WHY);
	json_w_key(&w, "members");
	json_w_arr(&w);
	if (rc == 0) {
		ms = json_get(&r.doc, r.metadata, "members");
		for (i = json_type(&r.doc, ms) == JSON_ARRAY ?
		    json_child(&r.doc, ms) : -1; i >= 0;
		    i = json_next(&r.doc, i)) {
			char name[INCUS_MEMBER_NAME];

			if (json_str(&r.doc, i, name, sizeof(name)) <= 0)
				continue;
			if (strcmp(name, member) == 0) {
				have = 1;
				if (!join)
					continue;
			}
			json_w_str(&w, name);
		}
		incus_reply_free(&r);
	}
	if (join && !have)
		json_w_str(&w, member);
	json_w_end(&w, ']');
	json_w_end(&w, '}');
	if (have == join && rc == 0)
		json_w_free(&w);
	else if ((rc = res_send(c, rc == 0 ? "PUT" : "POST", rc == 0 ? path :
	    "/1.0/cluster/groups", &w, e)) < 0)
		return rc;
	/* read back: the member list says it, or it did not happen */
	if ((rc = incus_cluster_read(c, group, &k, e)) < 0)
		return rc;
	m = incus_cluster_member(&k, member);
	if (m == NULL || m->in_group != join)
		return err_set(e, -EBOX_PROTO, "cluster member %s is %s group "
		    "%s after the change: the daemon did not take it", member,
		    join ? "not in" : "still in", group);
	return 0;
}

int
incus_cluster_pending(struct incus *c, int pool, const char *name,
    const char *kind, const char *ckey, const char *cval, struct box_err *e)
{
	struct incus_cluster k;
	struct box_err one;
	struct json_w w;
	char path[256], esc[3 * INCUS_MEMBER_NAME];
	size_t i;
	int rc;

	if ((rc = incus_cluster_read(c, NULL, &k, e)) < 0 || !k.on)
		return rc;
	for (i = 0; i < k.n; i++) {
		if (url_escape(k.m[i].name, esc, sizeof(esc)) < 0)
			return err_usage(e, "member name too long");
		snprintf(path, sizeof(path), "/1.0/%s?target=%s", pool ?
		    "storage-pools" : "networks", esc);
		json_w_init(&w, RES_BODY_MAX);
		json_w_obj(&w);
		json_w_key(&w, "name");
		json_w_str(&w, name);
		json_w_key(&w, pool ? "driver" : "type");
		json_w_str(&w, kind);
		json_w_key(&w, "config");
		json_w_obj(&w);
		if (ckey != NULL) {
			json_w_key(&w, ckey);
			json_w_str(&w, cval);
		}
		json_w_end(&w, '}');
		json_w_end(&w, '}');
		err_clear(&one);
		rc = res_send(c, "POST", path, &w, &one);
		/* a part left by an earlier, interrupted run stays */
		if (rc < 0 && strstr(one.msg, "already") == NULL) {
			*e = one;
			return rc;
		}
	}
	return 1;
}
