/* profile.c - profiles (see profile.h). */
#include "incus/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"

#define PROFILES "/1.0/profiles"

void
incus_profile_free(struct incus_profile *p)
{
	res_free(&p->name);
	res_free(&p->description);
	incus_kv_free(&p->config);
	incus_dev_free(&p->devices);
}

int
incus_profile_from_json(struct incus_profile *p, const struct json_doc *d,
    int obj)
{
	int rc;

	memset(p, 0, sizeof(*p));
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBADMSG;
	if ((rc = res_str(d, obj, "name", &p->name)) < 0 ||
	    (rc = res_str(d, obj, "description", &p->description)) < 0 ||
	    (rc = incus_kv_from_json(&p->config, d,
	    json_get(d, obj, "config"))) < 0 ||
	    (rc = incus_dev_from_json(&p->devices, d,
	    json_get(d, obj, "devices"))) < 0)
		incus_profile_free(p);
	return rc;
}

int
incus_profile_get(struct incus *c, const char *name, struct incus_profile *p,
    struct box_err *e)
{
	struct incus_reply r;
	char path[600];
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = res_path(path, sizeof(path), PROFILES, name, NULL)) < 0)
		return err_set(e, rc, "odd profile name '%.64s'", name);
	if ((rc = res_get(c, path, JSON_OBJECT, &r, e)) < 0)
		return rc;
	rc = incus_profile_from_json(p, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "daemon's description of profile %s is not one box "
		    "understands", name);
	return 0;
}

static void
profile_body(struct json_w *w, const struct incus_profile *p, int create)
{
	json_w_init(w, RES_BODY_MAX);
	json_w_obj(w);
	if (create)
		res_w_opt(w, "name", p->name);
	res_w_opt(w, "description", p->description);
	json_w_key(w, "config");
	incus_kv_to_json(w, &p->config);
	json_w_key(w, "devices");
	incus_dev_to_json(w, &p->devices);
	json_w_end(w, '}');
}

int
incus_profile_create(struct incus *c, const struct incus_profile *p,
    struct box_err *e)
{
	struct json_w w;

	if (p->name == NULL || *p->name == '\0')
		return err_set(e, -EINVAL, "a profile needs a name");
	profile_body(&w, p, 1);
	return res_send(c, "POST", PROFILES, &w, e);
}

int
incus_profile_put(struct incus *c, const char *name,
    const struct incus_profile *p, struct box_err *e)
{
	struct json_w w;
	char path[600];
	int rc;

	if ((rc = res_path(path, sizeof(path), PROFILES, name, NULL)) < 0)
		return err_set(e, rc, "odd profile name '%.64s'", name);
	profile_body(&w, p, 0);
	return res_send(c, "PUT", path, &w, e);
}

int
incus_profile_delete(struct incus *c, const char *name, struct box_err *e)
{
	char path[600];
	int rc;

	if ((rc = res_path(path, sizeof(path), PROFILES, name, NULL)) < 0)
		return err_set(e, rc, "odd profile name '%.64s'", name);
	return res_delete(c, path, e);
}

/* --- the list of names ---------------------------------------------- */

#define NAMES_MAX	4096
#define NAMES_PREFIX		"/1.0/profiles/"

/* The name in one URL, unescaped into a new string, or NULL. */
static char *
url_name(const struct json_doc *d, int i)
{
	char url[512];
	const char *s = url + strlen(NAMES_PREFIX);

	if (json_str(d, i, url, sizeof(url)) < 0 ||
	    strncmp(url, NAMES_PREFIX, strlen(NAMES_PREFIX)) != 0)
		return NULL;
	return url_segment(s, strcspn(s, "?"));
}

int
incus_profile_names_parse(struct incus_profile_names *l,
    const struct json_doc *d, int arr)
{
	int i, n;

	memset(l, 0, sizeof(*l));
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if ((n = json_count(d, arr)) > NAMES_MAX)
		return -E2BIG;
	if (n == 0)
		return 0;
	if ((l->v = calloc((size_t)n, sizeof(char *))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		if ((l->v[l->n] = url_name(d, i)) == NULL) {
			incus_profile_names_free(l);
			return -EBADMSG;
		}
		l->n++;
	}
	return 0;
}

void
incus_profile_names_free(struct incus_profile_names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
incus_profile_names(struct incus *c, struct incus_profile_names *out,
    struct box_err *e)
{
	struct incus_reply r;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = incus_call(c, "GET", "/1.0/profiles", NULL, &r, e);
	if (rc < 0)
		return rc;
	rc = incus_profile_names_parse(out, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -EBADMSG ? -EBOX_PROTO : rc, "the "
		    "daemon's profile list is not one box understands");
	return 0;
}
