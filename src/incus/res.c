/* res.c - helpers of the typed resource layer (see res.h). */
#include "incus/res.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
res_str(const struct json_doc *d, int obj, const char *key, char **out)
{
	int v = json_get(d, obj, key);
	size_t n;

	*out = NULL;
	if (v == JSON_DUP)
		return -EBADMSG;
	if (v < 0 || json_type(d, v) == JSON_NULL)
		return 0;
	if (json_type(d, v) != JSON_STRING)
		return -EBADMSG;
	n = (size_t)d->tok[v].len + 1;	/* decoded is never longer */
	if ((*out = malloc(n)) == NULL)
		return -ENOMEM;
	if (json_str(d, v, *out, n) < 0) {
		res_free(out);
		return -EBADMSG;
	}
	return 0;
}

int
res_bool(const struct json_doc *d, int obj, const char *key, int *out)
{
	int v = json_get(d, obj, key);

	*out = 0;
	if (v == JSON_DUP)
		return -EBADMSG;
	if (v < 0 || json_type(d, v) == JSON_NULL)
		return 0;
	if (json_type(d, v) != JSON_TRUE && json_type(d, v) != JSON_FALSE)
		return -EBADMSG;
	*out = json_type(d, v) == JSON_TRUE;
	return 0;
}

int
res_path(char *buf, size_t cap, const char *prefix, const char *name,
    const char *suffix)
{
	char esc[512];
	int n;

	if (name == NULL || *name == '\0')
		return -EINVAL;
	if (url_escape(name, esc, sizeof(esc)) < 0)
		return -ENAMETOOLONG;
	n = snprintf(buf, cap, "%s/%s%s", prefix, esc, suffix ? suffix : "");
	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

int
res_get(struct incus *c, const char *path, int want_type,
    struct incus_reply *r, struct box_err *e)
{
	int rc = incus_call(c, "GET", path, NULL, r, e);

	if (rc < 0)
		return rc;
	if (json_type(&r->doc, r->metadata) != want_type &&
	    !(want_type == JSON_ARRAY &&
	    json_type(&r->doc, r->metadata) == JSON_NULL)) {
		incus_reply_free(r);
		return err_set(e, -EBOX_PROTO, "the daemon's reply to %s is "
		    "not what the API describes", path);
	}
	return 0;
}

int
res_send(struct incus *c, const char *method, const char *path,
    struct json_w *w, struct box_err *e)
{
	return incus_send_json(c, method, path, w, RES_TIMEOUT_S, e);
}

int
res_delete(struct incus *c, const char *path, struct box_err *e)
{
	struct incus_reply r;
	int rc = incus_do(c, "DELETE", path, NULL, RES_TIMEOUT_S, &r, e);

	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

void
res_w_opt(struct json_w *w, const char *key, const char *s)
{
	if (s == NULL)
		return;
	json_w_key(w, key);
	json_w_str(w, s);
}

void
res_free(char **s)
{
	free(*s);
	*s = NULL;
}

int
res_array(void **v, size_t *n, size_t size, const struct json_doc *d,
    int arr, size_t max, res_elem_parse parse, res_elem_free drop)
{
	unsigned char *a;
	size_t want;
	int i, rc = 0;

	*v = NULL;
	*n = 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if ((want = (size_t)json_count(d, arr)) > max)
		return -E2BIG;
	if (want == 0)
		return 0;
	if ((a = calloc(want, size)) == NULL)
		return -ENOMEM;
	*v = a;
	for (i = json_child(d, arr); i >= 0 && *n < want; i = json_next(d, i)) {
		if ((rc = parse(a + *n * size, d, i)) < 0) {
			res_array_free(v, n, size, drop);
			return rc;
		}
		(*n)++;
	}
	return 0;
}

void
res_array_free(void **v, size_t *n, size_t size, res_elem_free drop)
{
	unsigned char *a = *v;
	size_t i;

	for (i = 0; i < *n; i++)
		drop(a + i * size);
	free(a);
	*v = NULL;
	*n = 0;
}
