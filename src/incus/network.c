/* network.c - networks and their leases (see network.h). */
#include "incus/network.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"

#define NETS "/1.0/networks"

void
incus_network_free(struct incus_network *n)
{
	res_free(&n->name);
	res_free(&n->type);
	res_free(&n->description);
	res_free(&n->status);
	incus_kv_free(&n->config);
	n->managed = 0;
}

int
incus_network_from_json(struct incus_network *n, const struct json_doc *d,
    int obj)
{
	int rc;

	memset(n, 0, sizeof(*n));
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBADMSG;
	if ((rc = res_str(d, obj, "name", &n->name)) < 0 ||
	    (rc = res_str(d, obj, "type", &n->type)) < 0 ||
	    (rc = res_str(d, obj, "description", &n->description)) < 0 ||
	    (rc = res_str(d, obj, "status", &n->status)) < 0 ||
	    (rc = res_bool(d, obj, "managed", &n->managed)) < 0 ||
	    (rc = incus_kv_from_json(&n->config, d,
	    json_get(d, obj, "config"))) < 0)
		incus_network_free(n);
	return rc;
}

int
incus_network_get(struct incus *c, const char *name, struct incus_network *n,
    struct box_err *e)
{
	struct incus_reply r;
	char path[600];
	int rc;

	memset(n, 0, sizeof(*n));
	if ((rc = res_path(path, sizeof(path), NETS, name, NULL)) < 0)
		return err_set(e, rc, "odd network name '%.64s'", name);
	if ((rc = res_get(c, path, JSON_OBJECT, &r, e)) < 0)
		return rc;
	rc = incus_network_from_json(n, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "daemon's description of network %s is not one box "
		    "understands", name);
	return 0;
}

static void
net_body(struct json_w *w, const struct incus_network *n, int create)
{
	json_w_init(w, RES_BODY_MAX);
	json_w_obj(w);
	if (create) {
		res_w_opt(w, "name", n->name);
		res_w_opt(w, "type", n->type);
	}
	res_w_opt(w, "description", n->description);
	json_w_key(w, "config");
	incus_kv_to_json(w, &n->config);
	json_w_end(w, '}');
}

int
incus_network_create(struct incus *c, const struct incus_network *n,
    struct box_err *e)
{
	struct json_w w;

	if (n->name == NULL || *n->name == '\0')
		return err_set(e, -EINVAL, "a network needs a name");
	net_body(&w, n, 1);
	return res_send(c, "POST", NETS, &w, e);
}

int
incus_network_patch(struct incus *c, const char *name,
    const struct incus_kvs *config, struct box_err *e)
{
	struct json_w w;
	size_t max = 256;
	char path[600];
	size_t i;
	int rc;

	if ((rc = res_path(path, sizeof(path), NETS, name, NULL)) < 0)
		return err_set(e, rc, "odd network name '%.64s'", name);
	for (i = 0; i < config->n; i++)	/* worst escaping */
		max += 6 * (strlen(config->v[i].key) +
		    strlen(config->v[i].value)) + 8;
	json_w_init(&w, max);
	json_w_obj(&w);
	json_w_key(&w, "config");
	incus_kv_to_json(&w, config);
	json_w_end(&w, '}');
	return res_send(c, "PATCH", path, &w, e);
}

int
incus_network_delete(struct incus *c, const char *name, struct box_err *e)
{
	char path[600];
	int rc;

	if ((rc = res_path(path, sizeof(path), NETS, name, NULL)) < 0)
		return err_set(e, rc, "odd network name '%.64s'", name);
	return res_delete(c, path, e);
}

/* --- leases ---------------------------------------------------------------- */

void
incus_leases_free(struct incus_leases *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		res_free(&l->v[i].hostname);
		res_free(&l->v[i].address);
		res_free(&l->v[i].hwaddr);
		res_free(&l->v[i].type);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
incus_leases_from_json(struct incus_leases *l, const struct json_doc *d,
    int arr)
{
	int i, n, rc = 0;

	memset(l, 0, sizeof(*l));
	if (json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	n = json_count(d, arr);
	if (n > INCUS_LEASES_MAX)
		return -E2BIG;
	if (n == 0)
		return 0;
	if ((l->v = calloc((size_t)n, sizeof(*l->v))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0 && rc == 0; i = json_next(d, i)) {
		struct incus_lease *x = &l->v[l->n++];

		if (json_type(d, i) != JSON_OBJECT)
			rc = -EBADMSG;
		else if ((rc = res_str(d, i, "hostname", &x->hostname)) < 0 ||
		    (rc = res_str(d, i, "address", &x->address)) < 0 ||
		    (rc = res_str(d, i, "hwaddr", &x->hwaddr)) < 0)
			;
		else
			rc = res_str(d, i, "type", &x->type);
	}
	if (rc < 0)
		incus_leases_free(l);
	return rc;
}

int
incus_network_leases(struct incus *c, const char *name,
    struct incus_leases *l, struct box_err *e)
{
	struct incus_reply r;
	char path[600];
	int rc;

	memset(l, 0, sizeof(*l));
	if ((rc = res_path(path, sizeof(path), NETS, name, "/leases")) < 0)
		return err_set(e, rc, "odd network name '%.64s'", name);
	if ((rc = res_get(c, path, JSON_ARRAY, &r, e)) < 0)
		return rc;
	rc = incus_leases_from_json(l, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "leases of network %s are not a list box understands",
		    name);
	return 0;
}
