/*
 * certificate.c - the trust store read into structs.  See certificate.h.
 */
#include "incus/certificate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"

#define LIST_MAX	4096	/* entries in one list we accept */
#define PROJECTS_MAX	1024	/* projects on one entry */
#define DELETE_WAIT_S	30

static int
is_fingerprint(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < INCUS_FP_LEN &&
	    strspn(s, "0123456789abcdefABCDEF") == n;
}

static void
cert_free(struct incus_certificate *c)
{
	size_t i;

	for (i = 0; i < c->nprojects; i++)
		free(c->projects[i]);
	free(c->projects);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

static int
cert_projects(struct incus_certificate *c, const struct json_doc *d, int arr)
{
	int i;

	if (arr == JSON_NONE || json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if (json_count(d, arr) > PROJECTS_MAX)
		return -E2BIG;
	if (json_count(d, arr) == 0)
		return 0;
	c->projects = calloc((size_t)json_count(d, arr), sizeof(char *));
	if (c->projects == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		if (json_type(d, i) != JSON_STRING)
			return -EBADMSG;
		if ((c->projects[c->nprojects] = json_strdup(d, i)) == NULL)
			return -ENOMEM;
		c->nprojects++;
	}
	return 0;
}

static int
cert_parse(struct incus_certificate *c, const struct json_doc *d, int obj)
{
	int t, rc;

	memset(c, 0, sizeof(*c));
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBADMSG;
	if (json_str(d, json_get(d, obj, "fingerprint"), c->fingerprint,
	    sizeof(c->fingerprint)) < 0 || !is_fingerprint(c->fingerprint))
		return -EBADMSG;
	if ((c->name = json_strdup(d, json_get(d, obj, "name"))) == NULL)
		return json_type(d, json_get(d, obj, "name")) == JSON_STRING ?
		    -ENOMEM : -EBADMSG;
	t = json_get(d, obj, "type");
	if (t != JSON_NONE && json_str(d, t, c->type, sizeof(c->type)) < 0)
		rc = -EBADMSG;
	else if ((t = json_get(d, obj, "restricted")) != JSON_NONE &&
	    json_type(d, t) != JSON_TRUE && json_type(d, t) != JSON_FALSE)
		rc = -EBADMSG;
	else {
		c->restricted = json_type(d, t) == JSON_TRUE;
		rc = cert_projects(c, d, json_get(d, obj, "projects"));
	}
	if (rc < 0)
		cert_free(c);
	return rc;
}

/* The element reader and freer as res_array() calls them. */
static int
cert_parse_v(void *x, const struct json_doc *d, int obj)
{
	return cert_parse(x, d, obj);
}

static void
cert_free_v(void *x)
{
	cert_free(x);
}

int
incus_certificates_parse(struct incus_certificates *l,
    const struct json_doc *d, int arr)
{
	return res_array((void **)&l->v, &l->n, sizeof(l->v[0]), d, arr,
	    LIST_MAX, cert_parse_v, cert_free_v);
}

void
incus_certificates_free(struct incus_certificates *l)
{
	res_array_free((void **)&l->v, &l->n, sizeof(l->v[0]), cert_free_v);
}

int
incus_certificate_list(struct incus *c, struct incus_certificates *out,
    struct box_err *e)
{
	struct incus_reply r;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = incus_call(c, "GET", "/1.0/certificates?recursion=1", NULL, &r,
	    e);
	if (rc < 0)
		return rc;
	rc = incus_certificates_parse(out, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -EBADMSG ? -EBOX_PROTO : rc, "the "
		    "daemon's trust store list is not one box understands "
		    "(%s)", err_str(rc));
	return 0;
}

int
incus_certificate_delete(struct incus *c, const char *fp, struct box_err *e)
{
	struct incus_reply r;
	char path[96];
	int rc;

	if (!is_fingerprint(fp))
		return err_set(e, -EINVAL, "'%.80s' is not a certificate "
		    "fingerprint", fp);
	snprintf(path, sizeof(path), "/1.0/certificates/%s", fp);
	rc = incus_do(c, "DELETE", path, NULL, DELETE_WAIT_S, &r, e);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}
