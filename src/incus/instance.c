/*
 * instance.c - reading instances into owned structs (see instance.h).
 */
#include "incus/instance.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance_int.h"

/* "/1.0/instances/<name><suffix>" with the name escaped. */
int
incus_inst_path(char *buf, size_t cap, const char *name, const char *suffix)
{
	char esc[3 * INCUS_INST_NAME_MAX];
	int n;

	if (name[0] == '\0' || url_escape(name, esc, sizeof(esc)) < 0)
		return -ENAMETOOLONG;
	n = snprintf(buf, cap, "/1.0/instances/%s%s", esc, suffix);
	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

/*
 * Member key of obj as a string into buf: absent or null leaves "", a
 * non-string or one that does not fit refuses the reply.
 */
int
inst_field(const struct json_doc *d, int obj, const char *key, char *buf,
    size_t cap, struct box_err *e)
{
	int v = json_get(d, obj, key);

	buf[0] = '\0';
	if (v == JSON_NONE || json_type(d, v) == JSON_NULL)
		return 0;
	if (json_type(d, v) != JSON_STRING || json_str(d, v, buf, cap) < 0) {
		buf[0] = '\0';
		return err_set(e, -EBADMSG, "the daemon's \"%s\" is not a "
		    "string of at most %zu bytes", key, cap - 1);
	}
	return 0;
}

static int
field_dup(const struct json_doc *d, int obj, const char *key, char **out,
    struct box_err *e)
{
	int v = json_get(d, obj, key);
	size_t cap;

	*out = NULL;
	if (v == JSON_NONE || json_type(d, v) == JSON_NULL)
		return (*out = strdup("")) != NULL ? 0 :
		    err_set(e, -ENOMEM, "out of memory");
	if (json_type(d, v) != JSON_STRING)
		return err_set(e, -EBADMSG, "the daemon's \"%s\" is not a "
		    "string", key);
	cap = (size_t)d->tok[v].len + 1;
	if ((*out = malloc(cap)) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (json_str(d, v, *out, cap) < 0) {
		free(*out);
		*out = NULL;
		return err_set(e, -EBADMSG, "the daemon's \"%s\" does not "
		    "decode", key);
	}
	return 0;
}

int
inst_flag(const struct json_doc *d, int obj, const char *key, int *out,
    struct box_err *e)
{
	int v = json_get(d, obj, key), t = json_type(d, v);

	*out = t == JSON_TRUE;
	if (v == JSON_NONE || t == JSON_TRUE || t == JSON_FALSE ||
	    t == JSON_NULL)
		return 0;
	return err_set(e, -EBADMSG, "the daemon's \"%s\" is not a boolean",
	    key);
}

static int
map_err(int rc, const char *what, struct box_err *e)
{
	return rc == -ENOMEM ? err_set(e, rc, "out of memory") :
	    err_set(e, rc, "the daemon's \"%s\" is not a map of strings%s",
	    what, rc == -E2BIG ? " of a size we accept" : "");
}

static int
nic_from_json(const struct json_doc *d, int k, struct incus_nic_state *n,
    struct box_err *e)
{
	int obj = json_next(d, k), list, a, rc;

	if (json_str(d, k, n->name, sizeof(n->name)) < 0 ||
	    json_type(d, obj) != JSON_OBJECT)
		return err_set(e, -EBADMSG, "the daemon sent an odd network "
		    "entry in an instance's state");
	if ((rc = inst_field(d, obj, "host_name", n->host_name,
	    sizeof(n->host_name), e)) < 0)
		return rc;
	list = json_get(d, obj, "addresses");
	if (list == JSON_NONE || json_type(d, list) == JSON_NULL)
		return 0;
	if (json_type(d, list) != JSON_ARRAY)
		return err_set(e, -EBADMSG, "the daemon's addresses of %s are "
		    "not a list", n->name);
	if (json_count(d, list) > INCUS_INST_ADDRS_MAX)
		return err_set(e, -E2BIG, "more than %d addresses on %s",
		    INCUS_INST_ADDRS_MAX, n->name);
	n->addr = calloc((size_t)json_count(d, list) + 1, sizeof(*n->addr));
	if (n->addr == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (a = json_child(d, list); a >= 0; a = json_next(d, a)) {
		struct incus_addr *ad = &n->addr[n->naddr];

		if (json_type(d, a) != JSON_OBJECT)
			return err_set(e, -EBADMSG, "an address of %s is not "
			    "an object", n->name);
		if ((rc = inst_field(d, a, "family", ad->family,
		    sizeof(ad->family), e)) < 0 ||
		    (rc = inst_field(d, a, "address", ad->address,
		    sizeof(ad->address), e)) < 0 ||
		    (rc = inst_field(d, a, "netmask", ad->netmask,
		    sizeof(ad->netmask), e)) < 0 ||
		    (rc = inst_field(d, a, "scope", ad->scope,
		    sizeof(ad->scope), e)) < 0)
			return rc;
		n->naddr++;
	}
	return 0;
}

/* "disk": {"root": {"usage": N, "total": M}}: both optional. */
static int
disk_from_json(const struct json_doc *d, int disk,
    struct incus_inst_state *st, struct box_err *e)
{
	int root, u, t;

	if (disk == JSON_NONE || json_type(d, disk) != JSON_OBJECT)
		return 0;
	root = json_get(d, disk, "root");
	if (root == JSON_NONE || json_type(d, root) != JSON_OBJECT)
		return 0;
	u = json_get(d, root, "usage");
	t = json_get(d, root, "total");
	if ((u != JSON_NONE && (json_int(d, u, &st->disk_used) < 0 ||
	    st->disk_used < 0)) || (t != JSON_NONE &&
	    (json_int(d, t, &st->disk_total) < 0 || st->disk_total < 0)))
		return err_set(e, -EBADMSG, "the daemon's root disk figures "
		    "are not byte counts");
	st->has_disk = u != JSON_NONE;
	return 0;
}

/* "status_code", when present: a small number, else refused. */
static int
status_code(const struct json_doc *d, int obj, int *code, struct box_err *e)
{
	int k = json_get(d, obj, "status_code");
	long long v;

	*code = 0;
	if (k == JSON_NONE || json_type(d, k) == JSON_NULL)
		return 0;
	if (json_int(d, k, &v) < 0 || v < 0 || v > 999)
		return err_set(e, -EBADMSG, "the daemon's status_code is not "
		    "a status code");
	*code = (int)v;
	return 0;
}

int
incus_state_from_json(const struct json_doc *d, int obj,
    struct incus_inst_state *st, struct box_err *e)
{
	int nets, k, rc, pid;

	memset(st, 0, sizeof(*st));
	if (json_type(d, obj) != JSON_OBJECT)
		return err_set(e, -EBADMSG, "the daemon sent no instance "
		    "state");
	if ((rc = inst_field(d, obj, "status", st->status, sizeof(st->status),
	    e)) < 0)
		return rc;
	if ((rc = status_code(d, obj, &st->status_code, e)) < 0)
		return rc;
	pid = json_get(d, obj, "pid");
	if (pid != JSON_NONE && json_type(d, pid) != JSON_NULL &&
	    json_int(d, pid, &st->pid) < 0)
		return err_set(e, -EBADMSG, "the daemon's pid is not a "
		    "number");
	if ((rc = disk_from_json(d, json_get(d, obj, "disk"), st, e)) < 0)
		return rc;
	/* "cpu": {"usage": ns}: the cgroup's counter, the host's word */
	k = json_get(d, obj, "cpu");
	if (k != JSON_NONE && json_type(d, k) == JSON_OBJECT &&
	    (k = json_get(d, k, "usage")) != JSON_NONE) {
		if (json_int(d, k, &st->cpu_ns) < 0 || st->cpu_ns < 0)
			return err_set(e, -EBADMSG, "the daemon's CPU usage is "
			    "not a count");
		st->has_cpu = 1;
	}
	nets = json_get(d, obj, "network");
	if (nets == JSON_NONE || json_type(d, nets) == JSON_NULL)
		return 0;
	if (json_type(d, nets) != JSON_OBJECT)
		return err_set(e, -EBADMSG, "the daemon's instance network "
		    "state is not an object");
	if (json_count(d, nets) > INCUS_INST_NICS_MAX)
		return err_set(e, -E2BIG, "more than %d interfaces in one "
		    "instance", INCUS_INST_NICS_MAX);
	st->nic = calloc((size_t)json_count(d, nets) + 1, sizeof(*st->nic));
	if (st->nic == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (k = json_child(d, nets); k >= 0; k = json_next(d, json_next(d, k))) {
		rc = nic_from_json(d, k, &st->nic[st->nnic], e);
		st->nnic++;
		if (rc < 0)
			return rc;
		if (incus_state_nic(st, st->nic[st->nnic - 1].name) !=
		    &st->nic[st->nnic - 1])
			return err_set(e, -EBADMSG, "interface %s appears "
			    "twice", st->nic[st->nnic - 1].name);
	}
	return 0;
}

const struct incus_nic_state *
incus_state_nic(const struct incus_inst_state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nnic; i++)
		if (strcmp(st->nic[i].name, name) == 0)
			return &st->nic[i];
	return NULL;
}

void
incus_state_free(struct incus_inst_state *st)
{
	size_t i;

	for (i = 0; st->nic != NULL && i < st->nnic; i++)
		free(st->nic[i].addr);
	free(st->nic);
	memset(st, 0, sizeof(*st));
}

static int
profiles_from_json(const struct json_doc *d, int obj,
    struct incus_instance *in, struct box_err *e)
{
	int v = json_get(d, obj, "profiles"), k;
	size_t cap;

	if (v == JSON_NONE || json_type(d, v) == JSON_NULL)
		return 0;
	if (json_type(d, v) != JSON_ARRAY)
		return err_set(e, -EBADMSG, "the daemon's profiles are not a "
		    "list");
	if (json_count(d, v) > INCUS_INST_PROFILES_MAX)
		return err_set(e, -E2BIG, "more than %d profiles",
		    INCUS_INST_PROFILES_MAX);
	in->profiles = calloc((size_t)json_count(d, v) + 1, sizeof(char *));
	if (in->profiles == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (k = json_child(d, v); k >= 0; k = json_next(d, k)) {
		if (json_type(d, k) != JSON_STRING)
			return err_set(e, -EBADMSG, "a profile name is not a "
			    "string");
		cap = (size_t)d->tok[k].len + 1;
		if ((in->profiles[in->nprofiles] = malloc(cap)) == NULL)
			return err_set(e, -ENOMEM, "out of memory");
		in->nprofiles++;
		if (json_str(d, k, in->profiles[in->nprofiles - 1], cap) < 0)
			return err_set(e, -EBADMSG, "a profile name does not "
			    "decode");
	}
	return 0;
}

static int
inst_parse(const struct json_doc *d, int obj, unsigned flags,
    struct incus_instance *in, struct box_err *e)
{
	int rc, v;

	if (json_type(d, obj) != JSON_OBJECT)
		return err_set(e, -EBADMSG, "the daemon sent no instance "
		    "object");
	if ((rc = inst_field(d, obj, "name", in->name, sizeof(in->name), e)) < 0 ||
	    (rc = inst_field(d, obj, "status", in->status, sizeof(in->status),
	    e)) < 0 ||
	    (rc = status_code(d, obj, &in->status_code, e)) < 0 ||
	    (rc = inst_field(d, obj, "type", in->type, sizeof(in->type), e)) < 0 ||
	    (rc = inst_field(d, obj, "project", in->project, sizeof(in->project),
	    e)) < 0 ||
	    (rc = inst_field(d, obj, "architecture", in->architecture,
	    sizeof(in->architecture), e)) < 0 ||
	    (rc = inst_field(d, obj, "created_at", in->created_at,
	    sizeof(in->created_at), e)) < 0 ||
	    (rc = inst_field(d, obj, "last_used_at", in->last_used_at,
	    sizeof(in->last_used_at), e)) < 0 ||
	    (rc = inst_field(d, obj, "location", in->location,
	    sizeof(in->location), e)) < 0 ||
	    (rc = field_dup(d, obj, "description", &in->description, e)) < 0 ||
	    (rc = inst_flag(d, obj, "ephemeral", &in->ephemeral, e)) < 0 ||
	    (rc = inst_flag(d, obj, "stateful", &in->stateful, e)) < 0 ||
	    (rc = profiles_from_json(d, obj, in, e)) < 0)
		return rc;
	if ((rc = incus_kv_from_json(&in->config, d,
	    json_get(d, obj, "config"))) < 0)
		return map_err(rc, "config", e);
	if ((rc = incus_kv_from_json(&in->expanded_config, d,
	    json_get(d, obj, "expanded_config"))) < 0)
		return map_err(rc, "expanded_config", e);
	if ((rc = incus_dev_from_json(&in->devices, d,
	    json_get(d, obj, "devices"))) < 0)
		return map_err(rc, "devices", e);
	if ((rc = incus_dev_from_json(&in->expanded_devices, d,
	    json_get(d, obj, "expanded_devices"))) < 0)
		return map_err(rc, "expanded_devices", e);
	v = json_get(d, obj, "snapshots");
	in->nsnapshots = json_type(d, v) == JSON_ARRAY ? json_count(d, v) : 0;
	v = json_get(d, obj, "state");
	if (v != JSON_NONE && json_type(d, v) != JSON_NULL) {
		in->has_state = 1;
		if ((rc = incus_state_from_json(d, v, &in->state, e)) < 0)
			return rc;
	}
	if (flags & INCUS_INST_RAW) {
		size_t n;
		const char *raw = json_raw(d, obj, &n);

		if (raw == NULL || (in->raw = malloc(n + 1)) == NULL)
			return err_set(e, -ENOMEM, "out of memory");
		memcpy(in->raw, raw, n);
		in->raw[n] = '\0';
		in->raw_len = n;
	}
	return 0;
}

int
incus_instance_from_json(const struct json_doc *d, int obj, unsigned flags,
    struct incus_instance *inst, struct box_err *e)
{
	int rc;

	memset(inst, 0, sizeof(*inst));
	rc = inst_parse(d, obj, flags, inst, e);
	if (rc < 0)
		incus_instance_free(inst);
	return rc;
}

void
incus_instance_free(struct incus_instance *in)
{
	size_t i;

	free(in->description);
	for (i = 0; in->profiles != NULL && i < in->nprofiles; i++)
		free(in->profiles[i]);
	free(in->profiles);
	incus_kv_free(&in->config);
	incus_kv_free(&in->expanded_config);
	incus_dev_free(&in->devices);
	incus_dev_free(&in->expanded_devices);
	incus_state_free(&in->state);
	free(in->raw);
	memset(in, 0, sizeof(*in));
}

int
incus_instance_list_from_json(const struct json_doc *d, int arr,
    unsigned flags, struct incus_instance_list *list, struct box_err *e)
{
	int i, rc;

	memset(list, 0, sizeof(*list));
	if (json_type(d, arr) != JSON_ARRAY)
		return err_set(e, -EBOX_PROTO, "the daemon sent no instance "
		    "list");
	if (json_count(d, arr) > INCUS_INST_LIST_MAX)
		return err_set(e, -E2BIG, "more than %d instances",
		    INCUS_INST_LIST_MAX);
	list->v = calloc((size_t)json_count(d, arr) + 1, sizeof(*list->v));
	if (list->v == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		rc = incus_instance_from_json(d, i, flags, &list->v[list->n],
		    e);
		if (rc < 0) {
			incus_instance_list_free(list);
			return rc;
		}
		list->n++;
	}
	return 0;
}

void
incus_instance_list_free(struct incus_instance_list *list)
{
	size_t i;

	for (i = 0; list->v != NULL && i < list->n; i++)
		incus_instance_free(&list->v[i]);
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int
incus_instance_get(struct incus *c, const char *name, unsigned flags,
    struct incus_instance *inst, struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	memset(inst, 0, sizeof(*inst));
	if (incus_inst_path(path, sizeof(path), name,
	    (flags & INCUS_INST_STATE) ? "?recursion=1" : "") < 0)
		return err_set(e, -EINVAL, "odd instance name '%.80s'", name);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0)
		rc = incus_instance_from_json(&r.doc, r.metadata, flags, inst,
		    e);
	incus_reply_free(&r);
	return rc;
}

int
incus_instance_list(struct incus *c, const char *filter, unsigned flags,
    struct incus_instance_list *list, struct box_err *e)
{
	struct incus_reply r;
	char path[512];
	int rc, n;

	memset(list, 0, sizeof(*list));
	n = snprintf(path, sizeof(path), "/1.0/instances?recursion=%d%s%s%s",
	    (flags & INCUS_INST_STATE) ? 2 : 1,
	    (flags & INCUS_INST_ALL) ? "&all-projects=true" : "",
	    filter ? "&filter=" : "", filter ? filter : "");
	if (n < 0 || (size_t)n >= sizeof(path))
		return err_set(e, -ENAMETOOLONG, "the instance filter is too "
		    "long");
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0)
		rc = incus_instance_list_from_json(&r.doc, r.metadata, flags,
		    list, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_instance_state(struct incus *c, const char *name,
    struct incus_inst_state *st, struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	memset(st, 0, sizeof(*st));
	if (incus_inst_path(path, sizeof(path), name, "/state") < 0)
		return err_set(e, -EINVAL, "odd instance name '%.80s'", name);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0 && (rc = incus_state_from_json(&r.doc, r.metadata, st,
	    e)) < 0)
		incus_state_free(st);
	incus_reply_free(&r);
	return rc;
}

/* --- writing ------------------------------------------------------------- */

/* Send w's body, and wait for an operation when wait_s > 0. */
int
inst_send_w(struct incus *c, const char *method, const char *path,
    struct json_w *w, int wait_s, struct box_err *e)
{
	struct incus_reply r;
	char *body;
	int rc;

	if (json_w_finish(w, &body, NULL) < 0)
		return err_set(e, -E2BIG, "the request for the daemon is too "
		    "big");
	if (wait_s > 0)
		rc = incus_do(c, method, path, body, wait_s, &r, e);
	else
		rc = incus_call(c, method, path, body, &r, e);
	incus_reply_free(&r);
	free(body);
	return rc;
}

/* Send w's body expecting an operation, returned in op. */
static int
begin_w(struct incus *c, const char *method, const char *path,
    struct json_w *w, struct incus_op *op, struct box_err *e)
{
	struct incus_reply r;
	char *body;
	int rc;

	op->url[0] = '\0';
	if (json_w_finish(w, &body, NULL) < 0)
		return err_set(e, -E2BIG, "the request for the daemon is too "
		    "big");
	rc = incus_call(c, method, path, body, &r, e);
	free(body);
	if (rc == 0 && r.type != INCUS_ASYNC)
		rc = err_set(e, -EBOX_PROTO, "the daemon did not start an "
		    "operation");
	if (rc == 0)
		snprintf(op->url, sizeof(op->url), "%s", r.operation);
	incus_reply_free(&r);
	return rc;
}

void
inst_w_kv(struct json_w *w, const char *k, const char *v)
{
	json_w_key(w, k);
	json_w_str(w, v);
}

/* {"<key>": "<value>"} sent to the instance name (rename, restore). */
int
inst_send_one(struct incus *c, const char *method, const char *name,
    const char *key, const char *value, int wait_s, struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "") < 0)
		return ODD_NAME(e, name);
	json_w_init(&w, 4096);
	json_w_obj(&w);
	inst_w_kv(&w, key, value);
	json_w_end(&w, '}');
	return inst_send_w(c, method, path, &w, wait_s, e);
}

/* DELETE path and wait for its operation. */
int
inst_delete_path(struct incus *c, const char *path, int wait_s, struct box_err *e)
{
	struct incus_reply r;
	int rc;

	rc = incus_do(c, "DELETE", path, NULL, wait_s, &r, e);
	incus_reply_free(&r);
	return rc;
}

static void
w_strv(struct json_w *w, const char *const *v)
{
	json_w_arr(w);
	for (; v != NULL && *v != NULL; v++)
		json_w_str(w, *v);
	json_w_end(w, ']');
}

static void
new_json(struct json_w *w, const struct incus_instance_new *s)
{
	json_w_obj(w);
	inst_w_kv(w, "name", s->name);
	if (s->type != NULL)
		inst_w_kv(w, "type", s->type);
	if (s->description != NULL)
		inst_w_kv(w, "description", s->description);
	if (s->profiles != NULL) {
		json_w_key(w, "profiles");
		w_strv(w, s->profiles);
	}
	json_w_key(w, "start");
	json_w_bool(w, s->start);
	/* a copy takes its source's where these are absent */
	if (s->config != NULL) {
		json_w_key(w, "config");
		incus_kv_to_json(w, s->config);
	}
	if (s->devices != NULL) {
		json_w_key(w, "devices");
		incus_dev_to_json(w, s->devices);
	}
	json_w_key(w, "source");
	json_w_obj(w);
	if (s->source == INCUS_SRC_IMAGE) {
		inst_w_kv(w, "type", "image");
		if (s->server != NULL) {
			inst_w_kv(w, "mode", "pull");
			inst_w_kv(w, "server", s->server);
			inst_w_kv(w, "protocol", s->protocol ? s->protocol :
			    "simplestreams");
		}
		if (s->fingerprint != NULL)
			inst_w_kv(w, "fingerprint", s->fingerprint);
		else
			inst_w_kv(w, "alias", s->alias);
	} else if (s->source == INCUS_SRC_COPY) {
		inst_w_kv(w, "type", "copy");
		inst_w_kv(w, "source", s->copy_from);
		json_w_key(w, "instance_only");
		json_w_bool(w, s->instance_only);
	} else {
		inst_w_kv(w, "type", "none");
	}
	json_w_end(w, '}');
	json_w_end(w, '}');
}

int
incus_instance_new_body(const struct incus_instance_new *spec, char **body,
    struct box_err *e)
{
	struct json_w w;

	json_w_init(&w, INCUS_MAX_BODY);
	new_json(&w, spec);
	if (json_w_finish(&w, body, NULL) < 0)
		return err_set(e, -E2BIG, "the create request is too big");
	return 0;
}

int
incus_instance_create_begin(struct incus *c,
    const struct incus_instance_new *spec, struct incus_op *op,
    struct box_err *e)
{
	struct json_w w;
	char path[200] = "/1.0/instances", esc[160];

	if (spec->target != NULL) {
		if (url_escape(spec->target, esc, sizeof(esc)) < 0)
			return err_usage(e, "cluster target too long");
		snprintf(path, sizeof(path), "/1.0/instances?target=%s", esc);
	}
	json_w_init(&w, INCUS_MAX_BODY);
	new_json(&w, spec);
	return begin_w(c, "POST", path, &w, op, e);
}

int
incus_instance_image_type(struct incus *c, const char *alias, char *type,
    size_t cap, char *fp, size_t fcap, struct box_err *e)
{
	struct incus_reply r;
	char path[700], esc[600];
	int rc;

	type[0] = '\0';
	if (url_escape(alias, esc, sizeof(esc)) < 0)
		return err_usage(e, "image alias too long");
	snprintf(path, sizeof(path), "/1.0/images/aliases/%s", esc);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0 && (rc = inst_field(&r.doc, r.metadata, "type", type, cap,
	    e)) < 0)
		type[0] = '\0';
	if (rc == 0 && fp != NULL && (rc = inst_field(&r.doc, r.metadata,
	    "target", fp, fcap, e)) < 0)
		fp[0] = '\0';
	incus_reply_free(&r);
	return rc;
}

static void
put_json(struct json_w *w, const struct incus_instance *in)
{
	size_t i;

	json_w_obj(w);
	if (in->architecture[0] != '\0')
		inst_w_kv(w, "architecture", in->architecture);
	inst_w_kv(w, "description", in->description ? in->description : "");
	json_w_key(w, "ephemeral");
	json_w_bool(w, in->ephemeral);
	json_w_key(w, "stateful");
	json_w_bool(w, in->stateful);
	json_w_key(w, "config");
	incus_kv_to_json(w, &in->config);
	json_w_key(w, "devices");
	incus_dev_to_json(w, &in->devices);
	json_w_key(w, "profiles");
	json_w_arr(w);
	for (i = 0; i < in->nprofiles; i++)
		json_w_str(w, in->profiles[i]);
	json_w_end(w, ']');
	json_w_end(w, '}');
}

int
incus_instance_put_body(const struct incus_instance *inst, char **body,
    struct box_err *e)
{
	struct json_w w;

	json_w_init(&w, INCUS_MAX_BODY);
	put_json(&w, inst);
	if (json_w_finish(&w, body, NULL) < 0)
		return err_set(e, -ENOMEM, "building the instance update "
		    "failed");
	return 0;
}

int
incus_instance_put(struct incus *c, const struct incus_instance *inst,
    int wait_s, struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), inst->name, "") < 0)
		return ODD_NAME(e, inst->name);
	json_w_init(&w, INCUS_MAX_BODY);
	put_json(&w, inst);
	return inst_send_w(c, "PUT", path, &w, wait_s, e);
}

int
incus_instance_patch(struct incus *c, const char *name,
    const struct incus_kvs *config, const struct incus_devices *devices,
    const char *description, int wait_s, struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "") < 0)
		return ODD_NAME(e, name);
	json_w_init(&w, INCUS_MAX_BODY);
	json_w_obj(&w);
	if (config != NULL) {
		json_w_key(&w, "config");
		incus_kv_to_json(&w, config);
	}
	if (devices != NULL) {
		json_w_key(&w, "devices");
		incus_dev_to_json(&w, devices);
	}
	if (description != NULL)
		inst_w_kv(&w, "description", description);
	json_w_end(&w, '}');
	return inst_send_w(c, "PATCH", path, &w, wait_s, e);
}

int
incus_instance_delete(struct incus *c, const char *name, int wait_s,
    struct box_err *e)
{
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "") < 0)
		return ODD_NAME(e, name);
	return inst_delete_path(c, path, wait_s, e);
}

int
incus_instance_rename(struct incus *c, const char *name, const char *to,
    int wait_s, struct box_err *e)
{
	return inst_send_one(c, "POST", name, "name", to, wait_s, e);
}

int
incus_instance_move_pool(struct incus *c, const char *name, const char *pool,
    int wait_s, struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "") < 0)
		return ODD_NAME(e, name);
	json_w_init(&w, 4096);
	json_w_obj(&w);
	inst_w_kv(&w, "name", name);
	json_w_key(&w, "migration");
	json_w_bool(&w, 1);
	inst_w_kv(&w, "pool", pool);
	json_w_end(&w, '}');
	return inst_send_w(c, "POST", path, &w, wait_s, e);
}

int
incus_instance_move_member(struct incus *c, const char *name,
    const char *member, int wait_s, struct box_err *e)
{
	struct json_w w;
	char path[256], esc[160], q[200];

	if (url_escape(member, esc, sizeof(esc)) < 0)
		return err_usage(e, "cluster member name too long");
	snprintf(q, sizeof(q), "?target=%s", esc);
	if (incus_inst_path(path, sizeof(path), name, q) < 0)
		return ODD_NAME(e, name);
	json_w_init(&w, 4096);
	json_w_obj(&w);
	inst_w_kv(&w, "name", name);
	json_w_key(&w, "migration");
	json_w_bool(&w, 1);
	json_w_end(&w, '}');
	return inst_send_w(c, "POST", path, &w, wait_s, e);
}

static void
state_json(struct json_w *w, const char *action, int force, int timeout_s)
{
	json_w_init(w, 1024);
	json_w_obj(w);
	inst_w_kv(w, "action", action);
	if (force) {
		json_w_key(w, "force");
		json_w_bool(w, 1);
	} else if (timeout_s > 0) {
		json_w_key(w, "timeout");
		json_w_int(w, timeout_s);
	}
	json_w_end(w, '}');
}

int
incus_instance_state_begin(struct incus *c, const char *name,
    const char *action, int force, int timeout_s, struct incus_op *op,
    struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "/state") < 0)
		return ODD_NAME(e, name);
	state_json(&w, action, force, timeout_s);
	return begin_w(c, "PUT", path, &w, op, e);
}

int
incus_instance_set_state(struct incus *c, const char *name,
    const char *action, int force, int timeout_s, int wait_s,
    struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "/state") < 0)
		return ODD_NAME(e, name);
	state_json(&w, action, force, timeout_s);
	return inst_send_w(c, "PUT", path, &w, wait_s, e);
}
