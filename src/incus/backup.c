/* backup.c - instance backups (see backup.h). */
#include "incus/backup.h"
#include "incus/backup_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance.h"
#include "incus/json.h"
#include "util/text.h"

/* "/1.0/instances/<instance>/backups[/<name>][<tail>]", escaped. */
static int
backup_path(char *buf, size_t cap, const char *instance, const char *name,
    const char *tail, struct box_err *e)
{
	char ei[200], en[200];
	int n;

	if (url_escape(instance, ei, sizeof(ei)) < 0 ||
	    (name != NULL && url_escape(name, en, sizeof(en)) < 0))
		return err_usage(e, "instance or backup name too long");
	n = snprintf(buf, cap, "/1.0/instances/%s/backups%s%s%s", ei,
	    name != NULL ? "/" : "", name != NULL ? en : "", tail);
	if (n < 0 || (size_t)n >= cap)
		return err_usage(e, "instance or backup name too long");
	return 0;
}

/* The operation of an async reply into op, or -EBOX_PROTO saying what. */
static int
take_op(struct incus_reply *r, char *op, size_t opcap, const char *what,
    struct box_err *e)
{
	if (r->type != INCUS_ASYNC || r->operation[0] == '\0')
		return err_set(e, -EBOX_PROTO, "%s", what);
	if (strlen(r->operation) >= opcap)
		return err_set(e, -EBOX_PROTO, "an operation name too long");
	memcpy(op, r->operation, strlen(r->operation) + 1);
	return 0;
}

int
incus_backup_create(struct incus *c, const char *instance,
    const struct incus_backup_spec *s, char *op, size_t opcap,
    struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	char path[512], expires[32], *body;
	int rc;

	if ((rc = backup_path(path, sizeof(path), instance, NULL, "", e)) < 0)
		return rc;
	text_utc(expires, sizeof(expires), s->expires);
	json_w_init(&w, 4096);
	json_w_obj(&w);
	json_w_key(&w, "name");
	json_w_str(&w, s->name);
	json_w_key(&w, "expires_at");
	json_w_str(&w, expires);
	json_w_key(&w, "instance_only");
	json_w_bool(&w, s->instance_only);
	json_w_key(&w, "optimized_storage");
	json_w_bool(&w, s->optimized_storage);
	json_w_key(&w, "compression_algorithm");
	json_w_str(&w, s->compression != NULL ? s->compression : "gzip");
	json_w_end(&w, '}');
	if (json_w_finish(&w, &body, NULL) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_call(c, "POST", path, body, &r, e);
	free(body);
	if (rc == 0)
		rc = take_op(&r, op, opcap, "no backup operation", e);
	incus_reply_free(&r);
	return rc;
}

static void
take_backup(const struct json_doc *d, int i, struct incus_backup *b)
{
	memset(b, 0, sizeof(*b));
	json_gets(d, i, "name", b->name, sizeof(b->name), "");
	json_gets(d, i, "created_at", b->created_at, sizeof(b->created_at),
	    "");
	json_gets(d, i, "expires_at", b->expires_at, sizeof(b->expires_at),
	    "");
	b->instance_only = json_type(d, json_get(d, i, "instance_only")) ==
	    JSON_TRUE;
}

int
incus_backup_list(struct incus *c, const char *instance,
    struct incus_backup_list *out, struct box_err *e)
{
	struct incus_reply r;
	char path[512];
	int rc, i, n = 0;

	memset(out, 0, sizeof(*out));
	if ((rc = backup_path(path, sizeof(path), instance, NULL,
	    "?recursion=1", e)) < 0)
		return rc;
	if ((rc = incus_call(c, "GET", path, NULL, &r, e)) < 0)
		return rc;
	if (json_type(&r.doc, r.metadata) != JSON_ARRAY) {
		incus_reply_free(&r);
		return err_set(e, -EBOX_PROTO, "the daemon's backup list is "
		    "not a list");
	}
	for (i = json_child(&r.doc, r.metadata); i >= 0;
	    i = json_next(&r.doc, i))
		n++;
	out->b = calloc(n > 0 ? (size_t)n : 1, sizeof(*out->b));
	if (out->b == NULL) {
		incus_reply_free(&r);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (i = json_child(&r.doc, r.metadata); i >= 0 && out->n < n;
	    i = json_next(&r.doc, i))
		if (json_type(&r.doc, i) == JSON_OBJECT)
			take_backup(&r.doc, i, &out->b[out->n++]);
	incus_reply_free(&r);
	return 0;
}

void
incus_backup_list_free(struct incus_backup_list *l)
{
	free(l->b);
	memset(l, 0, sizeof(*l));
}

int
incus_backup_delete(struct incus *c, const char *instance,
    const char *name, int timeout_s, struct box_err *e)
{
	struct incus_reply r;
	char path[512];
	int rc;

	if ((rc = backup_path(path, sizeof(path), instance, name, "", e)) < 0)
		return rc;
	rc = incus_do(c, "DELETE", path, NULL, timeout_s, &r, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_backup_export(struct incus *c, const char *instance,
    const char *name, stream_sink sink, void *ctx, long long *total,
    struct box_err *e)
{
	char path[512];
	int rc;

	if ((rc = backup_path(path, sizeof(path), instance, name, "/export",
	    e)) < 0)
		return rc;
	return stream_get(c, path, sink, ctx, total, e);
}

int
incus_backup_import(struct incus *c, const char *name, const char *pool,
    long long length, stream_source source, void *ctx, char *op,
    size_t opcap, struct box_err *e)
{
	struct incus_reply r;
	char headers[256];
	int rc, n;

	if (strpbrk(name, "\r\n") != NULL || strpbrk(pool, "\r\n") != NULL)
		return err_usage(e, "a name with a line break");
	n = snprintf(headers, sizeof(headers), "X-Incus-name: %s\r\n"
	    "X-Incus-pool: %s\r\n", name, pool);
	if (n < 0 || (size_t)n >= sizeof(headers))
		return err_usage(e, "instance or pool name too long");
	rc = stream_send(c, "POST", "/1.0/instances",
	    "application/octet-stream", headers, length, source, ctx, &r, e);
	if (rc == 0)
		rc = take_op(&r, op, opcap, "the daemon did not start a "
		    "restore operation", e);
	incus_reply_free(&r);
	return rc;
}

int
incus_backup_import_end(struct stream_push *k, char *op, size_t opcap,
    struct box_err *e)
{
	struct incus_reply r;
	int rc = stream_push_end(k, &r, e);

	if (rc == 0)
		rc = take_op(&r, op, opcap, "the daemon did not start a "
		    "restore operation", e);
	incus_reply_free(&r);
	return rc;
}

/* --- the daemon's record of an imported instance ------------------------- */

/* A string token, whole: NULL when not a string, holding a NUL, or no
 * memory (a truncated name is the one thing a vet must never judge). */
static char *
held_str(const struct json_doc *d, int i)
{
	size_t raw;
	char *s;
	int n;

	if (json_type(d, i) != JSON_STRING || json_raw(d, i, &raw) == NULL)
		return NULL;
	if ((s = malloc(raw + 1)) == NULL)
		return NULL;
	n = json_str(d, i, s, raw + 1);
	if (n < 0 || memchr(s, '\0', (size_t)n) != NULL) {
		free(s);
		return NULL;
	}
	return s;
}

/* A map of strings; absent or null: empty.  A key twice is refused. */
static int
held_kvs(struct incus_kvs *m, const struct json_doc *d, int obj)
{
	int k, rc = 0;

	if (obj < 0 || json_type(d, obj) == JSON_NULL)
		return obj == JSON_DUP ? -EBOX_PROTO : 0;
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBOX_PROTO;
	for (k = json_child(d, obj); k >= 0 && rc == 0;
	    k = json_next(d, json_next(d, k))) {
		char *key = held_str(d, k), *val = held_str(d, json_next(d, k));

		if (key == NULL || val == NULL || incus_kv_get(m, key) != NULL)
			rc = -EBOX_PROTO;
		else
			rc = incus_kv_set(m, key, val) < 0 ? -EBOX_PROTO : 0;
		free(key);
		free(val);
	}
	return rc;
}

static int
held_devices(struct incus_devices *out, const struct json_doc *d, int obj)
{
	struct incus_kvs kv = { 0 };
	int k, rc = 0;

	if (obj == JSON_NONE)
		return 0;
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBOX_PROTO;
	for (k = json_child(d, obj); k >= 0 && rc == 0;
	    k = json_next(d, json_next(d, k))) {
		char *name = held_str(d, k);

		rc = name == NULL || incus_dev_get(out, name) != NULL ?
		    -EBOX_PROTO : held_kvs(&kv, d, json_next(d, k));
		if (rc == 0 && incus_dev_set(out, name, &kv) < 0)
			rc = -EBOX_PROTO;
		incus_kv_free(&kv);
		free(name);
	}
	return rc;
}

static int
held_profiles(struct incus_held *h, const struct json_doc *d, int arr)
{
	int k, n;

	if (arr == JSON_NONE)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBOX_PROTO;
	n = json_count(d, arr);
	h->profiles = calloc((size_t)(n > 0 ? n : 0) + 1,
	    sizeof(*h->profiles));
	if (h->profiles == NULL)
		return -ENOMEM;
	for (k = json_child(d, arr); k >= 0; k = json_next(d, k))
		if ((h->profiles[h->nprofiles++] = held_str(d, k)) == NULL)
			return -EBOX_PROTO;
	return 0;
}

static void
held_free(struct incus_held *h)
{
	size_t i;

	free(h->name);
	incus_kv_free(&h->config);
	incus_dev_free(&h->devices);
	for (i = 0; i < h->nprofiles; i++)
		free(h->profiles[i]);
	free(h->profiles);
	memset(h, 0, sizeof(*h));
}

static int
held_from(struct incus_held *h, const struct json_doc *d, int obj,
    int snapshot)
{
	static const char *const once[] = { "config", "devices", "profiles",
	    "stateful", "name", NULL };
	int i, st, rc;

	memset(h, 0, sizeof(*h));
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBOX_PROTO;
	for (i = 0; once[i] != NULL; i++)
		if (json_get(d, obj, once[i]) == JSON_DUP)
			return -EBOX_PROTO;
	if ((rc = held_kvs(&h->config, d, json_get(d, obj, "config"))) < 0 ||
	    (rc = held_devices(&h->devices, d, json_get(d, obj,
	    "devices"))) < 0 ||
	    (rc = held_profiles(h, d, json_get(d, obj, "profiles"))) < 0)
		return rc;
	st = json_type(d, json_get(d, obj, "stateful"));
	h->stateful = st == JSON_FALSE ? 0 : st == JSON_TRUE ? 1 : -1;
	if (snapshot && (h->name = held_str(d, json_get(d, obj, "name"))) ==
	    NULL)
		return -EBOX_PROTO;
	return 0;
}

void
incus_backup_index_free(struct incus_backup_index *ix)
{
	size_t i;

	held_free(&ix->inst);
	for (i = 0; i < ix->nsnap; i++)
		held_free(&ix->snap[i]);
	free(ix->snap);
	memset(ix, 0, sizeof(*ix));
}

int
incus_backup_index_from_doc(const struct json_doc *d, int inst,
    const struct json_doc *sd, int snaps, struct incus_backup_index *ix)
{
	int k, n, rc;

	memset(ix, 0, sizeof(*ix));
	if ((rc = held_from(&ix->inst, d, inst, 0)) < 0)
		goto out;
	rc = -EBOX_PROTO;
	if (json_type(sd, snaps) != JSON_ARRAY)
		goto out;
	n = json_count(sd, snaps);
	ix->snap = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*ix->snap));
	if (ix->snap == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (k = json_child(sd, snaps); k >= 0; k = json_next(sd, k))
		if ((rc = held_from(&ix->snap[ix->nsnap++], sd, k, 1)) < 0)
			goto out;
	return 0;
out:
	incus_backup_index_free(ix);
	return rc;
}

int
incus_backup_index_from_json(const char *inst, size_t n, const char *snaps,
    size_t sn, struct incus_backup_index *ix, struct box_err *e)
{
	struct json_doc d = { 0 }, sd = { 0 };
	int rc;

	memset(ix, 0, sizeof(*ix));
	if ((rc = json_parse(&d, inst, n, e)) < 0)
		return rc;
	if ((rc = json_parse(&sd, snaps, sn, e)) == 0 &&
	    (rc = incus_backup_index_from_doc(&d, 0, &sd, 0, ix)) < 0)
		err_set(e, rc, "not the instance and snapshot records box "
		    "expects");
	json_free(&d);
	json_free(&sd);
	return rc;
}

int
incus_backup_index_get(struct incus *c, const char *name,
    struct incus_backup_index *ix, struct box_err *e)
{
	struct incus_instance in;
	char *snaps = NULL;
	size_t n = 0;
	int rc;

	memset(ix, 0, sizeof(*ix));
	/* the daemon's own bytes, parsed here once, as the daemon sent them */
	if ((rc = incus_instance_get(c, name, INCUS_INST_RAW, &in, e)) < 0)
		return rc;
	rc = incus_snapshot_list_raw(c, name, &snaps, &n, e);
	if (rc == 0)
		rc = incus_backup_index_from_json(in.raw, in.raw_len, snaps, n,
		    ix, e);
	free(snaps);
	incus_instance_free(&in);
	return rc;
}
