/*
 * files.c - files in an instance (push, pull, delete through the files
 * API) and its metadata templates (see instance.h).
 */
#include "incus/instance.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/instance_int.h"
#include "incus/stream.h"

/* ".../files?path=<path>" (the path escaped). */
static int
file_path(char *buf, size_t cap, const char *name, const char *path)
{
	char esc[3 * 1024], suffix[sizeof(esc) + 16];

	if (url_escape(path, esc, sizeof(esc)) < 0)
		return -ENAMETOOLONG;
	snprintf(suffix, sizeof(suffix), "/files?path=%s", esc);
	return incus_inst_path(buf, cap, name, suffix);
}

int
incus_file_push(struct incus *c, const char *name, const char *path,
    const char *type, const char *mode, const void *data, size_t n,
    struct box_err *e)
{
	struct incus_reply r;
	struct stream_mem m = { data, n, 0 };
	char url[4096], headers[256];
	int rc;

	if (file_path(url, sizeof(url), name, path) < 0)
		return err_set(e, -ENAMETOOLONG, "path too long: %.80s", path);
	snprintf(headers, sizeof(headers), "X-Incus-type: %s\r\n"
	    "X-Incus-uid: 0\r\nX-Incus-gid: 0\r\nX-Incus-mode: %s\r\n"
	    "X-Incus-write: overwrite\r\n", type, mode);
	rc = stream_send(c, "POST", url, "application/octet-stream", headers,
	    (long long)m.n, stream_mem_read, &m, &r, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_file_pull(struct incus *c, const char *name, const char *path,
    int (*sink)(void *ctx, const void *p, size_t n), void *ctx,
    struct box_err *e)
{
	char url[4096];
	long long total = -1;

	if (file_path(url, sizeof(url), name, path) < 0)
		return err_set(e, -ENAMETOOLONG, "path too long: %.80s", path);
	return stream_get(c, url, sink, ctx, &total, e);
}

/*
 * GET .../console: the console's log, as raw bytes.  On a container the
 * daemon reads liblxc's console ring buffer into console.log and serves
 * that file, emptying the buffer: each read is what the console printed
 * since the one before (Incus 6.0, seen live), so a reader that polls is
 * handed each byte once.
 */
int
incus_console_log(struct incus *c, const char *name,
    int (*sink)(void *ctx, const void *p, size_t n), void *ctx,
    struct box_err *e)
{
	char url[512];
	long long total = -1;

	if (incus_inst_path(url, sizeof(url), name, "/console") < 0)
		return ODD_NAME(e, name);
	return stream_get(c, url, sink, ctx, &total, e);
}

int
incus_file_delete(struct incus *c, const char *name, const char *path,
    struct box_err *e)
{
	struct incus_reply r;
	char url[4096];
	int rc;

	if (file_path(url, sizeof(url), name, path) < 0)
		return err_set(e, -ENAMETOOLONG, "path too long: %.80s", path);
	rc = incus_call(c, "DELETE", url, NULL, &r, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_template_push(struct incus *c, const char *name, const char *tpl,
    const void *data, size_t n, struct box_err *e)
{
	struct incus_reply r;
	char url[1024], esc[512], suffix[600];
	int rc;

	if (url_escape(tpl, esc, sizeof(esc)) < 0)
		return err_set(e, -ENAMETOOLONG, "template name too long");
	snprintf(suffix, sizeof(suffix), "/metadata/templates?path=%s", esc);
	if (incus_inst_path(url, sizeof(url), name, suffix) < 0)
		return ODD_NAME(e, name);
	rc = incus_call_raw(c, "POST", url, "application/octet-stream", data,
	    n, &r, e);
	incus_reply_free(&r);
	return rc;
}

int
incus_template_arm(struct incus *c, const char *name, const char *target,
    const char *trigger, const char *tpl, int wait_s, struct box_err *e)
{
	struct json_w w;
	char path[256];

	if (incus_inst_path(path, sizeof(path), name, "/metadata") < 0)
		return ODD_NAME(e, name);
	json_w_init(&w, 4096);
	json_w_obj(&w);
	json_w_key(&w, "templates");
	json_w_obj(&w);
	json_w_key(&w, target);
	json_w_obj(&w);
	json_w_key(&w, "when");
	json_w_arr(&w);
	json_w_str(&w, trigger);
	json_w_end(&w, ']');
	json_w_key(&w, "create_only");
	json_w_bool(&w, 0);
	inst_w_kv(&w, "template", tpl);
	json_w_key(&w, "properties");
	json_w_obj(&w);
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	return inst_send_w(c, "PATCH", path, &w, wait_s, e);
}

int
incus_metadata_property(struct incus *c, const char *name, const char *key,
    char *buf, size_t cap, struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc, props;

	buf[0] = '\0';
	if (incus_inst_path(path, sizeof(path), name, "/metadata") < 0)
		return ODD_NAME(e, name);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc < 0)
		return rc;
	props = json_get(&r.doc, r.metadata, "properties");
	if (props >= 0 && json_type(&r.doc, props) == JSON_OBJECT)
		json_gets(&r.doc, props, key, buf, cap, "");
	incus_reply_free(&r);
	return 0;
}

int
incus_template_listed(struct incus *c, const char *name, const char *tpl,
    struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc, i, found = 0;

	if (incus_inst_path(path, sizeof(path), name, "/metadata/templates") <
	    0)
		return ODD_NAME(e, name);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc < 0)
		return rc;
	if (json_type(&r.doc, r.metadata) != JSON_ARRAY)
		rc = err_set(e, -EBOX_PROTO, "the daemon's template list of %s "
		    "is not a list", name);
	for (i = json_child(&r.doc, r.metadata); rc == 0 && i >= 0;
	    i = json_next(&r.doc, i))
		if (json_streq(&r.doc, i, tpl))
			found = 1;
	incus_reply_free(&r);
	return rc < 0 ? rc : found;
}
