/* acl.c - network ACLs (see acl.h). */
#include "incus/acl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"

#define ACLS "/1.0/network-acls"

/* The rule members, in the order they are written. */
#define NFIELDS 10
static const char *const fields[NFIELDS] = {
	"action", "source", "destination", "protocol", "source_port",
	"destination_port", "icmp_type", "icmp_code", "description", "state",
};

static char **
field(struct incus_acl_rule *r, size_t i)
{
	char **f[NFIELDS] = {
		&r->action, &r->source, &r->destination, &r->protocol,
		&r->source_port, &r->destination_port, &r->icmp_type,
		&r->icmp_code, &r->description, &r->state,
	};

	return f[i];
}

static void
rule_free(struct incus_acl_rule *r)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		res_free(field(r, i));
}

void
incus_acl_rules_free(struct incus_acl_rules *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		rule_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void
incus_acl_free(struct incus_acl *a)
{
	res_free(&a->name);
	res_free(&a->description);
	incus_acl_rules_free(&a->ingress);
	incus_acl_rules_free(&a->egress);
	incus_kv_free(&a->config);
}

/* A free slot at the end of l, or NULL (-ENOMEM / -E2BIG in *rc). */
static struct incus_acl_rule *
rule_slot(struct incus_acl_rules *l, int *rc)
{
	struct incus_acl_rule *nv;

	if (l->n >= INCUS_ACL_RULES_MAX) {
		*rc = -E2BIG;
		return NULL;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;

		if ((nv = realloc(l->v, cap * sizeof(*nv))) == NULL) {
			*rc = -ENOMEM;
			return NULL;
		}
		l->v = nv;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

int
incus_acl_rule_add(struct incus_acl_rules *l, const struct incus_acl_rule *r)
{
	struct incus_acl_rule *x, src = *r;
	size_t i;
	int rc = 0;

	if ((x = rule_slot(l, &rc)) == NULL)
		return rc;
	for (i = 0; i < NFIELDS; i++) {
		const char *s = *field(&src, i);

		if (s != NULL && (*field(x, i) = strdup(s)) == NULL) {
			rule_free(x);
			l->n--;
			return -ENOMEM;
		}
	}
	return 0;
}

void
incus_acl_rule_del(struct incus_acl_rules *l, size_t i)
{
	if (i >= l->n)
		return;
	rule_free(&l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(l->v[0]));
	l->n--;
}

static int
rules_from_json(struct incus_acl_rules *l, const struct json_doc *d, int arr)
{
	int i, rc = 0;

	if (arr == JSON_NONE || json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	for (i = json_child(d, arr); i >= 0 && rc == 0; i = json_next(d, i)) {
		struct incus_acl_rule *x;
		size_t f;

		if (json_type(d, i) != JSON_OBJECT)
			return -EBADMSG;
		if ((x = rule_slot(l, &rc)) == NULL)
			return rc;
		for (f = 0; f < NFIELDS && rc == 0; f++)
			rc = res_str(d, i, fields[f], field(x, f));
	}
	return rc;
}

int
incus_acl_from_json(struct incus_acl *a, const struct json_doc *d, int obj)
{
	int rc;

	memset(a, 0, sizeof(*a));
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBADMSG;
	if ((rc = res_str(d, obj, "name", &a->name)) < 0 ||
	    (rc = res_str(d, obj, "description", &a->description)) < 0 ||
	    (rc = rules_from_json(&a->ingress, d,
	    json_get(d, obj, "ingress"))) < 0 ||
	    (rc = rules_from_json(&a->egress, d,
	    json_get(d, obj, "egress"))) < 0 ||
	    (rc = incus_kv_from_json(&a->config, d,
	    json_get(d, obj, "config"))) < 0)
		incus_acl_free(a);
	return rc;
}

int
incus_acl_get(struct incus *c, const char *name, struct incus_acl *a,
    struct box_err *e)
{
	struct incus_reply r;
	char path[600];
	int rc;

	memset(a, 0, sizeof(*a));
	if ((rc = res_path(path, sizeof(path), ACLS, name, NULL)) < 0)
		return err_set(e, rc, "odd ACL name '%.64s'", name);
	if ((rc = res_get(c, path, JSON_OBJECT, &r, e)) < 0)
		return rc;
	rc = incus_acl_from_json(a, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "daemon's description of ACL %s is not one box "
		    "understands", name);
	return 0;
}

static void
rules_json(struct json_w *w, const struct incus_acl_rules *l)
{
	size_t i, f;

	json_w_arr(w);
	for (i = 0; i < l->n; i++) {
		struct incus_acl_rule r = l->v[i];

		json_w_obj(w);
		for (f = 0; f < NFIELDS; f++)
			res_w_opt(w, fields[f], *field(&r, f));
		json_w_end(w, '}');
	}
	json_w_end(w, ']');
}

static void
acl_body(struct json_w *w, const struct incus_acl *a, int create)
{
	json_w_init(w, RES_BODY_MAX);
	json_w_obj(w);
	if (create)
		res_w_opt(w, "name", a->name);
	res_w_opt(w, "description", a->description);
	json_w_key(w, "egress");
	rules_json(w, &a->egress);
	json_w_key(w, "ingress");
	rules_json(w, &a->ingress);
	json_w_key(w, "config");
	incus_kv_to_json(w, &a->config);
	json_w_end(w, '}');
}

int
incus_acl_create(struct incus *c, const struct incus_acl *a,
    struct box_err *e)
{
	struct json_w w;

	if (a->name == NULL || *a->name == '\0')
		return err_set(e, -EINVAL, "an ACL needs a name");
	acl_body(&w, a, 1);
	return res_send(c, "POST", ACLS, &w, e);
}

int
incus_acl_put(struct incus *c, const char *name, const struct incus_acl *a,
    struct box_err *e)
{
	struct json_w w;
	char path[600];
	int rc;

	if ((rc = res_path(path, sizeof(path), ACLS, name, NULL)) < 0)
		return err_set(e, rc, "odd ACL name '%.64s'", name);
	acl_body(&w, a, 0);
	return res_send(c, "PUT", path, &w, e);
}

int
incus_acl_delete(struct incus *c, const char *name, struct box_err *e)
{
	char path[600];
	int rc;

	if ((rc = res_path(path, sizeof(path), ACLS, name, NULL)) < 0)
		return err_set(e, rc, "odd ACL name '%.64s'", name);
	return res_delete(c, path, e);
}
