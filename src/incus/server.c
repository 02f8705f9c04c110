/* server.c - GET /1.0 as a struct (see server.h). */
#include "incus/server.h"
#include "incus/server_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"

static void
strs_free(char ***v, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

void
incus_server_free(struct incus_server *s)
{
	res_free(&s->api_version);
	res_free(&s->auth);
	strs_free(&s->extensions, &s->nextensions);
	res_free(&s->server_name);
	res_free(&s->server_version);
	res_free(&s->kernel_version);
	res_free(&s->driver);
	res_free(&s->storage);
	res_free(&s->firewall);
	strs_free(&s->instance_types, &s->ninstance_types);
	s->has_instance_types = 0;
}

/* An array of strings into *v; absent or null is empty. */
static int
strs_from_json(const struct json_doc *d, int arr, char ***v, size_t *n)
{
	int i, cnt;

	if (arr == JSON_NONE || json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if ((cnt = json_count(d, arr)) > INCUS_EXT_MAX)
		return -E2BIG;
	if (cnt == 0)
		return 0;
	if ((*v = calloc((size_t)cnt, sizeof(**v))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		size_t len = (size_t)d->tok[i].len + 1;
		char *s;

		if (json_type(d, i) != JSON_STRING)
			return -EBADMSG;
		if ((s = malloc(len)) == NULL)
			return -ENOMEM;
		(*v)[(*n)++] = s;
		if (json_str(d, i, s, len) < 0)
			return -EBADMSG;
	}
	return 0;
}

static int
env_from_json(struct incus_server *s, const struct json_doc *d, int env)
{
	int rc, types;

	if (env == JSON_NONE || json_type(d, env) == JSON_NULL)
		return 0;
	if (json_type(d, env) != JSON_OBJECT)
		return -EBADMSG;
	types = json_get(d, env, "instance_types");
	if (types == JSON_DUP)
		return -EBADMSG;
	s->has_instance_types = json_type(d, types) == JSON_ARRAY;
	if ((rc = res_str(d, env, "server_name", &s->server_name)) < 0 ||
	    (rc = res_str(d, env, "server_version", &s->server_version)) < 0 ||
	    (rc = res_str(d, env, "kernel_version", &s->kernel_version)) < 0 ||
	    (rc = res_str(d, env, "driver", &s->driver)) < 0 ||
	    (rc = res_str(d, env, "storage", &s->storage)) < 0 ||
	    (rc = res_str(d, env, "firewall", &s->firewall)) < 0)
		return rc;
	return strs_from_json(d, types, &s->instance_types,
	    &s->ninstance_types);
}

int
incus_server_from_json(struct incus_server *s, const struct json_doc *d,
    int obj)
{
	int rc, ext;

	memset(s, 0, sizeof(*s));
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBADMSG;
	ext = json_get(d, obj, "api_extensions");
	if ((rc = res_str(d, obj, "api_version", &s->api_version)) < 0 ||
	    (rc = res_str(d, obj, "auth", &s->auth)) < 0 ||
	    (rc = ext == JSON_DUP ? -EBADMSG : strs_from_json(d, ext,
	    &s->extensions, &s->nextensions)) < 0 ||
	    (rc = env_from_json(s, d, json_get(d, obj, "environment"))) < 0)
		incus_server_free(s);
	return rc;
}

int
incus_server_get(struct incus *c, struct incus_server *s, struct box_err *e)
{
	struct incus_reply r;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = res_get(c, "/1.0", JSON_OBJECT, &r, e)) < 0)
		return rc;
	rc = incus_server_from_json(s, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "daemon's description of itself is not one box "
		    "understands");
	return 0;
}

int
incus_server_ping(struct incus *c, struct box_err *e)
{
	struct incus_reply r;
	int rc = incus_call(c, "GET", "/1.0", NULL, &r, e);

	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

static int
listed(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

int
incus_server_has_ext(const struct incus_server *s, const char *ext)
{
	return listed(s->extensions, s->nextensions, ext);
}

int
incus_server_runs(const struct incus_server *s, const char *t)
{
	return listed(s->instance_types, s->ninstance_types, t);
}
