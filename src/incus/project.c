/*
 * project.c - Incus projects read into structs and written from them.
 * See project.h.
 */
#include "incus/project.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"

#define BODY_MAX	(1u << 20)
#define WRITE_WAIT_S	120

int
incus_project_parse(struct incus_project *p, const struct json_doc *d,
    int obj)
{
	int desc, rc;

	memset(p, 0, sizeof(*p));
	if (json_type(d, obj) != JSON_OBJECT ||
	    json_str(d, json_get(d, obj, "name"), p->name,
	    sizeof(p->name)) <= 0)
		return -EBADMSG;
	desc = json_get(d, obj, "description");
	if (desc == JSON_NONE || json_type(d, desc) == JSON_NULL)
		p->description = strdup("");
	else if ((p->description = json_strdup(d, desc)) == NULL &&
	    json_type(d, desc) != JSON_STRING)
		return -EBADMSG;
	if (p->description == NULL)
		return -ENOMEM;
	rc = incus_kv_from_json(&p->config, d, json_get(d, obj, "config"));
	if (rc < 0)
		incus_project_free(p);
	return rc;
}

void
incus_project_free(struct incus_project *p)
{
	free(p->description);
	incus_kv_free(&p->config);
	memset(p, 0, sizeof(*p));
}

/* The element reader and freer as res_array() calls them. */
static int
incus_project_parse_v(void *x, const struct json_doc *d, int obj)
{
	return incus_project_parse(x, d, obj);
}

static void
incus_project_free_v(void *x)
{
	incus_project_free(x);
}

int
incus_projects_parse(struct incus_projects *l, const struct json_doc *d,
    int arr)
{
	return res_array((void **)&l->v, &l->n, sizeof(l->v[0]), d, arr,
	    INCUS_LIST_MAX, incus_project_parse_v, incus_project_free_v);
}

void
incus_projects_free(struct incus_projects *l)
{
	res_array_free((void **)&l->v, &l->n, sizeof(l->v[0]), incus_project_free_v);
}

static int
project_path(const char *name, char *buf, size_t cap, struct box_err *e)
{
	char esc[3 * INCUS_PROJECT_NAME];

	if (name[0] == '\0' || url_escape(name, esc, sizeof(esc)) < 0 ||
	    (size_t)snprintf(buf, cap, "/1.0/projects/%s", esc) >= cap)
		return err_set(e, -ENAMETOOLONG, "project name '%.80s' is "
		    "empty or too long", name);
	return 0;
}

static int
bad_reply(struct box_err *e, int rc, const char *what)
{
	return err_set(e, rc == -EBADMSG ? -EBOX_PROTO : rc, "the daemon's "
	    "%s is not one box understands (%s)", what, err_str(rc));
}

int
incus_project_get(struct incus *c, const char *name, struct incus_project *p,
    struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = project_path(name, path, sizeof(path), e)) < 0)
		return rc;
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc < 0)
		return rc;
	rc = incus_project_parse(p, &r.doc, r.metadata);
	incus_reply_free(&r);
	return rc < 0 ? bad_reply(e, rc, "project") : 0;
}

/* {"description": ..., "config": {...}} plus "name" for a create. */
static void
project_body(struct json_w *w, const char *name, const char *description,
    const struct incus_kvs *config)
{
	static const struct incus_kvs none;

	json_w_obj(w);
	if (name != NULL) {
		json_w_key(w, "name");
		json_w_str(w, name);
	}
	json_w_key(w, "description");
	json_w_str(w, description != NULL ? description : "");
	json_w_key(w, "config");
	incus_kv_to_json(w, config != NULL ? config : &none);
	json_w_end(w, '}');
}

int
incus_project_create(struct incus *c, const char *name,
    const char *description, const struct incus_kvs *config,
    struct box_err *e)
{
	struct json_w w;

	json_w_init(&w, BODY_MAX);
	project_body(&w, name, description, config);
	return incus_send_json(c, "POST", "/1.0/projects", &w, WRITE_WAIT_S,
	    e);
}

int
incus_project_put(struct incus *c, const struct incus_project *p,
    struct box_err *e)
{
	struct json_w w;
	char path[256];
	int rc;

	if ((rc = project_path(p->name, path, sizeof(path), e)) < 0)
		return rc;
	json_w_init(&w, BODY_MAX);
	project_body(&w, NULL, p->description, &p->config);
	return incus_send_json(c, "PUT", path, &w, WRITE_WAIT_S, e);
}

int
incus_project_delete(struct incus *c, const char *name, int timeout_s,
    struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	if ((rc = project_path(name, path, sizeof(path), e)) < 0)
		return rc;
	rc = incus_do(c, "DELETE", path, NULL, timeout_s, &r, e);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

int
incus_project_list(struct incus *c, struct incus_projects *out,
    struct box_err *e)
{
	struct incus_reply r;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = incus_call(c, "GET", "/1.0/projects?recursion=1", NULL, &r, e);
	if (rc < 0)
		return rc;
	rc = incus_projects_parse(out, &r.doc, r.metadata);
	incus_reply_free(&r);
	return rc < 0 ? bad_reply(e, rc, "project list") : 0;
}
