/*
 * operation.c - waiting on operations and reading their progress (see
 * operation.h).
 */
#include "incus/operation.h"

#include <string.h>

int
incus_op_wait(struct incus *c, const char *op, int slice_s,
    struct box_err *e)
{
	struct incus_reply r;
	int rc = incus_wait(c, op, slice_s, &r, e);

	incus_reply_free(&r);
	return rc;
}

void
incus_op_progress_from(const struct json_doc *d, int op, char *buf,
    size_t cap)
{
	int md = json_get(d, op, "metadata"), k;
	char key[128];

	buf[0] = '\0';
	for (k = json_child(d, md); k >= 0; k = json_next(d, json_next(d, k))) {
		size_t n;

		if (json_str(d, k, key, sizeof(key)) < 0)
			continue;
		n = strlen(key);
		if (n > 9 && strcmp(key + n - 9, "_progress") == 0 &&
		    json_type(d, json_next(d, k)) == JSON_STRING) {
			json_str(d, json_next(d, k), buf, cap);
			return;
		}
	}
}

void
incus_op_progress(struct incus *c, const char *op, char *buf, size_t cap)
{
	struct incus_reply o;
	struct box_err ignore;

	err_clear(&ignore);
	buf[0] = '\0';
	if (incus_call(c, "GET", op, NULL, &o, &ignore) == 0)
		incus_op_progress_from(&o.doc, o.metadata, buf, cap);
	incus_reply_free(&o);
}
