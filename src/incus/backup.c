/* backup.c - instance backups (see backup.h). */
#include "incus/backup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
