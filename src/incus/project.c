/*
 * project.c - Incus projects read into structs and written from them.
 * See project.h.
 */
#include "incus/project.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BODY_MAX	(1u << 20)
#define WRITE_WAIT_S	120

/* A decoded string is never longer than its source bytes. */
static char *
tok_strdup(const struct json_doc *d, int i)
{
	size_t n;
	char *s;

	if (json_type(d, i) != JSON_STRING)
		return NULL;
	n = (size_t)d->tok[i].len + 1;
	if ((s = malloc(n)) == NULL)
		return NULL;
	if (json_str(d, i, s, n) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

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
	else if ((p->description = tok_strdup(d, desc)) == NULL &&
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

int
incus_projects_parse(struct incus_projects *l, const struct json_doc *d,
    int arr)
{
	int i, rc = 0;
	size_t n;

	memset(l, 0, sizeof(*l));
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	n = (size_t)json_count(d, arr);
	if (n > INCUS_LIST_MAX)
		return -E2BIG;
	if (n == 0)
		return 0;
	if ((l->v = calloc(n, sizeof(l->v[0]))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0 && rc == 0; i = json_next(d, i))
		if ((rc = incus_project_parse(&l->v[l->n], d, i)) == 0)
			l->n++;
	if (rc < 0)
		incus_projects_free(l);
	return rc;
}

void
incus_projects_free(struct incus_projects *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		incus_project_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
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
