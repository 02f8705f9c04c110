/*
 * image.c - local images and their aliases read into structs.  See
 * image.h.
 */
#include "incus/image.h"
#include "incus/image_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"
#include "incus/stream.h"

#define LIST_MAX	4096	/* images in one list we accept */
#define ALIASES_MAX	256	/* aliases on one image */

static int
is_fingerprint(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < INCUS_IMAGE_FP &&
	    strspn(s, "0123456789abcdefABCDEF") == n;
}

static int
fingerprint(const struct json_doc *d, int i, char *buf)
{
	if (json_str(d, i, buf, INCUS_IMAGE_FP) < 0 || !is_fingerprint(buf))
		return -EBADMSG;
	return 0;
}

/* "container" / "virtual-machine"; absent is a container (old daemons). */
static int
image_type(const struct json_doc *d, int t, int *out)
{
	if (t == JSON_NONE || json_streq(d, t, "container"))
		*out = INCUS_IMAGE_CONTAINER;
	else if (json_streq(d, t, "virtual-machine"))
		*out = INCUS_IMAGE_VM;
	else if (json_type(d, t) == JSON_STRING)
		*out = INCUS_IMAGE_OTHER;
	else
		return -EBADMSG;
	return 0;
}

static void
image_free(struct incus_image *im)
{
	size_t i;

	for (i = 0; i < im->naliases; i++)
		free(im->aliases[i]);
	free(im->aliases);
	incus_kv_free(&im->props);
	memset(im, 0, sizeof(*im));
}

/* "aliases": [{"name": "...", "description": "..."}, ...] */
static int
image_aliases(struct incus_image *im, const struct json_doc *d, int arr)
{
	int i, n;

	if (arr == JSON_NONE || json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if ((n = json_count(d, arr)) > ALIASES_MAX)
		return -E2BIG;
	if (n == 0)
		return 0;
	if ((im->aliases = calloc((size_t)n, sizeof(char *))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		int name = json_get(d, i, "name");

		if (json_type(d, name) != JSON_STRING)
			return -EBADMSG;
		if ((im->aliases[im->naliases] = json_strdup(d, name)) == NULL)
			return -ENOMEM;
		im->naliases++;
	}
	return 0;
}

static int
image_parse(struct incus_image *im, const struct json_doc *d, int obj)
{
	int t, rc;

	memset(im, 0, sizeof(*im));
	im->size = -1;
	if (json_type(d, obj) != JSON_OBJECT ||
	    fingerprint(d, json_get(d, obj, "fingerprint"),
	    im->fingerprint) < 0 ||
	    image_type(d, json_get(d, obj, "type"), &im->type) < 0)
		return -EBADMSG;
	t = json_get(d, obj, "public");
	if (t != JSON_NONE && json_type(d, t) != JSON_TRUE &&
	    json_type(d, t) != JSON_FALSE)
		return -EBADMSG;
	im->public_ = json_type(d, t) == JSON_TRUE;
	t = json_get(d, obj, "size");
	if (t != JSON_NONE && (json_int(d, t, &im->size) < 0 || im->size < 0))
		return -EBADMSG;
	json_gets(d, obj, "created_at", im->created_at,
	    sizeof(im->created_at), "");
	if ((rc = image_aliases(im, d, json_get(d, obj, "aliases"))) == 0)
		rc = incus_kv_from_json(&im->props, d, json_get(d, obj,
		    "properties"));
	if (rc < 0)
		image_free(im);
	return rc;
}

/* The element reader and freer as res_array() calls them. */
static int
image_parse_v(void *x, const struct json_doc *d, int obj)
{
	return image_parse(x, d, obj);
}

static void
image_free_v(void *x)
{
	image_free(x);
}

int
incus_images_parse(struct incus_images *l, const struct json_doc *d, int arr)
{
	return res_array((void **)&l->v, &l->n, sizeof(l->v[0]), d, arr,
	    LIST_MAX, image_parse_v, image_free_v);
}

void
incus_images_free(struct incus_images *l)
{
	res_array_free((void **)&l->v, &l->n, sizeof(l->v[0]), image_free_v);
}

int
incus_image_alias_parse(struct incus_image_alias *a, const struct json_doc *d,
    int obj)
{
	int name;

	memset(a, 0, sizeof(*a));
	if (json_type(d, obj) != JSON_OBJECT ||
	    fingerprint(d, json_get(d, obj, "target"), a->target) < 0 ||
	    image_type(d, json_get(d, obj, "type"), &a->type) < 0)
		return -EBADMSG;
	name = json_get(d, obj, "name");
	if (json_type(d, name) != JSON_STRING)
		return -EBADMSG;
	return (a->name = json_strdup(d, name)) != NULL ? 0 : -ENOMEM;
}

void
incus_image_alias_free(struct incus_image_alias *a)
{
	free(a->name);
	memset(a, 0, sizeof(*a));
}

static int
bad_reply(struct box_err *e, int rc, const char *what)
{
	return err_set(e, rc == -EBADMSG ? -EBOX_PROTO : rc, "the daemon's "
	    "%s is not one box understands (%s)", what, err_str(rc));
}

int
incus_image_list(struct incus *c, struct incus_images *out,
    struct box_err *e)
{
	struct incus_reply r;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = incus_call(c, "GET", "/1.0/images?recursion=1", NULL, &r, e);
	if (rc < 0)
		return rc;
	rc = incus_images_parse(out, &r.doc, r.metadata);
	incus_reply_free(&r);
	return rc < 0 ? bad_reply(e, rc, "image list") : 0;
}

int
incus_image_delete(struct incus *c, const char *fp, int timeout_s,
    struct box_err *e)
{
	struct incus_reply r;
	char path[96];
	int rc;

	if (!is_fingerprint(fp))
		return err_set(e, -EINVAL, "'%.80s' is not an image "
		    "fingerprint", fp);
	snprintf(path, sizeof(path), "/1.0/images/%s", fp);
	rc = incus_do(c, "DELETE", path, NULL, timeout_s, &r, e);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

int
incus_image_alias_get(struct incus *c, const char *name,
    struct incus_image_alias *a, struct box_err *e)
{
	struct incus_reply r;
	char path[700], esc[600];
	int rc;

	memset(a, 0, sizeof(*a));
	if (name[0] == '\0' || url_escape(name, esc, sizeof(esc)) < 0)
		return err_set(e, -ENAMETOOLONG, "image alias '%.80s' is "
		    "empty or too long", name);
	snprintf(path, sizeof(path), "/1.0/images/aliases/%s", esc);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc < 0)
		return rc;
	rc = incus_image_alias_parse(a, &r.doc, r.metadata);
	incus_reply_free(&r);
	return rc < 0 ? bad_reply(e, rc, "image alias") : 0;
}

int
incus_image_upload(struct incus *c, const void *tar, size_t n,
    const char *alias, char *fp, int timeout_s, struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	char op[sizeof(r.operation)];
	int rc, md;

	fp[0] = '\0';
	rc = incus_call_raw(c, "POST", "/1.0/images",
	    "application/octet-stream", tar, n, &r, e);
	if (rc < 0)
		return rc;
	if (r.type != INCUS_ASYNC) {
		incus_reply_free(&r);
		return err_set(e, -EBOX_PROTO, "the image upload was not an "
		    "operation");
	}
	memcpy(op, r.operation, sizeof(op));
	incus_reply_free(&r);
	rc = incus_wait(c, op, timeout_s, &r, e);
	if (rc < 0)
		return rc;
	md = json_get(&r.doc, r.metadata, "metadata");
	if (md >= 0)
		json_gets(&r.doc, md, "fingerprint", fp, INCUS_IMAGE_FP, "");
	incus_reply_free(&r);
	if (!is_fingerprint(fp))
		return err_set(e, -EBOX_PROTO, "the image upload named no "
		    "fingerprint");
	json_w_init(&w, 1024);
	json_w_obj(&w);
	json_w_key(&w, "name");
	json_w_str(&w, alias);
	json_w_key(&w, "target");
	json_w_str(&w, fp);
	json_w_end(&w, '}');
	return incus_send_json(c, "POST", "/1.0/images/aliases", &w, timeout_s,
	    e);
}

int
incus_image_push_begin(struct incus *c, struct stream_push *k,
    struct box_err *e)
{
	return stream_push_begin(c, "POST", "/1.0/images",
	    "application/octet-stream", "", k, e);
}

int
incus_image_op_fp(const struct incus_reply *r, char *fp, struct box_err *e)
{
	fp[0] = '\0';
	json_gets(&r->doc, json_get(&r->doc, r->metadata, "metadata"),
	    "fingerprint", fp, INCUS_IMAGE_FP, "");
	if (!is_fingerprint(fp))
		return err_set(e, -EBOX_PROTO, "the image upload named no "
		    "fingerprint");
	return 0;
}
