/*
 * api.c - requests, the Incus envelope, and operations.
 *
 * The daemon answers every request with an envelope
 *   {"type":"sync"|"async"|"error", "status_code", "error_code", "error",
 *    "operation", "metadata"}
 * and the HTTP status is only a hint (a failed /wait is still a 200; some
 * 4xx conditions arrive as 500), so decisions are made on "type" and the
 * daemon's own "error" text is what the user sees.
 */
#include "incus/api.h"
#include "util/clock.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run's settings (incus_configure()); unset until main hands them.
 * Process-wide by design: main reads the environment once and every
 * connection of the run takes the same settings (the protocol modules
 * never read the environment themselves). */
static struct incus_settings run_set;
static struct box_err run_bad;
static int run_configured;

void
incus_configure(const struct incus_settings *s, const struct box_err *bad)
{
	run_set = *s;
	err_clear(&run_bad);
	if (bad != NULL && bad->code != 0)
		run_bad = *bad;
	run_configured = 1;
}

const char *
incus_daemon_dir(void)
{
	return run_configured && run_set.daemon_dir[0] != '\0' ?
	    run_set.daemon_dir : "/var/lib/incus";
}

int
incus_open(struct incus *c, const struct incus_settings *s,
    struct box_err *e)
{
	memset(c, 0, sizeof(*c));
	if (s->socket_path[0] == '\0')
		return err_usage(e, "no Incus socket to talk to");
	snprintf(c->socket_path, sizeof(c->socket_path), "%s", s->socket_path);
	snprintf(c->project, sizeof(c->project), "%s", s->project);
	c->timeout_ms = s->timeout_ms > 0 ? s->timeout_ms : INCUS_TIMEOUT_MS;
	c->dialer = s->dialer != NULL ? s->dialer : &unix_dialer;
	return 0;
}

int
incus_init(struct incus *c, struct box_err *e)
{
	memset(c, 0, sizeof(*c));
	if (run_bad.code != 0) {
		*e = run_bad;
		return run_bad.code;
	}
	if (!run_configured)
		return err_set(e, -EINVAL, "internal: Incus settings were "
		    "never handed down (incus_configure)");
	return incus_open(c, &run_set, e);
}

void
incus_close(struct incus *c)
{
	if (c->connected)
		transport_close(c->t);
	c->t = NULL;
	c->connected = 0;
	free(c->conn);
	c->conn = NULL;
}

int
incus_dial(struct incus *c, struct transport **t, struct box_err *e)
{
	const struct dialer *d = c->dialer != NULL ? c->dialer : &unix_dialer;

	return dialer_dial(d, c->socket_path, c->timeout_ms, t, e);
}

static int
ensure_conn(struct incus *c, struct box_err *e)
{
	int rc;

	if (c->connected && c->conn->reusable && !c->conn->broken)
		return 0;
	if (c->connected) {
		transport_close(c->t);
		c->t = NULL;
		c->connected = 0;
	}
	if (c->conn == NULL) {
		c->conn = malloc(sizeof(*c->conn));
		if (c->conn == NULL)
			return err_set(e, -ENOMEM, "out of memory");
	}
	rc = incus_dial(c, &c->t, e);
	if (rc < 0)
		return rc;
	http_conn_init(c->conn, c->t);
	c->connected = 1;
	return 0;
}

int
url_escape(const char *s, char *buf, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;
		int plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
		    ch == '.' || ch == '~';

		if (o + (plain ? 1 : 3) >= cap)
			return -ENAMETOOLONG;
		if (plain) {
			buf[o++] = (char)ch;
		} else {
			buf[o++] = '%';
			buf[o++] = hex[ch >> 4];
			buf[o++] = hex[ch & 15];
		}
	}
	if (o >= cap)
		return -ENAMETOOLONG;
	buf[o] = '\0';
	return (int)o;
}

char *
url_segment(const char *s, size_t n)
{
	char *out;
	size_t i, o = 0;

	if (n == 0 || (out = malloc(n + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int ch = (unsigned char)s[i], hi, lo;

		if (ch == '%') {
			if (n - i < 3 || (hi = text_hexval(s[i + 1])) < 0 ||
			    (lo = text_hexval(s[i + 2])) < 0)
				break;
			ch = hi << 4 | lo;
			i += 2;
		}
		if (ch == '\0' || ch == '/')
			break;
		out[o++] = (char)ch;
	}
	if (i < n) {
		free(out);
		return NULL;
	}
	out[o] = '\0';
	return out;
}

int
incus_path(const struct incus *c, const char *path, char *buf, size_t cap)
{
	char proj[200];
	int n;

	if (c->project[0] == '\0')
		n = snprintf(buf, cap, "%s", path);
	else {
		if (url_escape(c->project, proj, sizeof(proj)) < 0)
			return -ENAMETOOLONG;
		n = snprintf(buf, cap, "%s%cproject=%s", path,
		    strchr(path, '?') ? '&' : '?', proj);
	}
	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

int
incus_send_json(struct incus *c, const char *method, const char *path,
    struct json_w *w, int timeout_s, struct box_err *e)
{
	struct incus_reply r;
	char *body;
	int rc;

	rc = json_w_finish(w, &body, NULL);
	if (rc < 0)
		return err_set(e, rc, "building the request for %s", path);
	rc = incus_do(c, method, path, body, timeout_s, &r, e);
	free(body);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

void
incus_reply_free(struct incus_reply *r)
{
	json_free(&r->doc);
	free(r->body);
	memset(r, 0, sizeof(*r));
	r->metadata = -1;
}

/* The daemon's error, as the user should read it. */
static int
envelope_error(struct incus_reply *r, struct box_err *e)
{
	char msg[512];
	long long code = r->http_status;
	int v = json_get(&r->doc, 0, "error_code");
	int rc;

	if (v >= 0)
		json_int(&r->doc, v, &code);
	json_gets(&r->doc, 0, "error", msg, sizeof(msg), "(no message)");
	if (code == 404)
		rc = -ENOENT;
	else if (code == 403)
		rc = -EACCES;
	else
		rc = -EBOX_API;
	err_set(e, rc, "Incus says: %s", msg);
	if (code == 403 || strstr(msg, "permission") != NULL ||
	    strstr(msg, "restricted") != NULL)
		err_fix(e, "this project or certificate is restricted: ask an "
		    "admin (box grant <you>), or use a project you may use "
		    "(BOX_PROJECT)");
	return rc;
}

static int
parse_envelope(struct incus_reply *r, struct box_err *e)
{
	char type[16];
	int rc;

	rc = json_parse(&r->doc, r->body, r->body_len, e);
	if (rc < 0) {
		err_context(e, "the daemon's reply (HTTP %d) is not JSON",
		    r->http_status);
		return rc;
	}
	if (json_type(&r->doc, 0) != JSON_OBJECT ||
	    json_gets(&r->doc, 0, "type", type, sizeof(type), NULL) == NULL)
		return err_set(e, -EBOX_PROTO, "the daemon's reply (HTTP %d) "
		    "is not an Incus envelope", r->http_status);
	r->metadata = json_get(&r->doc, 0, "metadata");
	if (strcmp(type, "sync") == 0)
		r->type = INCUS_SYNC;
	else if (strcmp(type, "async") == 0)
		r->type = INCUS_ASYNC;
	else if (strcmp(type, "error") == 0)
		r->type = INCUS_ERROR;
	else
		return err_set(e, -EBOX_PROTO, "unknown reply type '%s'", type);
	if (r->type == INCUS_ERROR)
		return envelope_error(r, e);
	if (r->type == INCUS_ASYNC &&
	    json_gets(&r->doc, 0, "operation", r->operation,
	    sizeof(r->operation), NULL) == NULL)
		return err_set(e, -EBOX_PROTO, "async reply without an "
		    "operation");
	incus_op_trim(r->operation);
	return 0;
}

void
incus_op_trim(char *op)
{
	char *q = strchr(op, '?');

	if (q != NULL && strncmp(q, "?project=", 9) == 0 &&
	    strpbrk(q + 1, "?&#") == NULL)
		*q = '\0';
}

/* One exchange on the shared connection. */
static int
exchange(struct incus *c, const char *method, const char *target,
    const char *ctype, const void *body, size_t n, long long deadline,
    struct http_resp *h, struct box_err *e)
{
	int rc;

	rc = ensure_conn(c, e);
	if (rc < 0)
		return rc;
	c->conn->deadline = deadline;
	rc = http_send(c->conn, method, target, "", ctype, body, n, e);
	if (rc == 0)
		rc = http_read_head(c->conn, h, e);
	if (rc == 0)
		rc = http_read_body(c->conn, h, INCUS_MAX_BODY, e);
	return rc;
}

static int
call(struct incus *c, const char *method, const char *path,
    const char *ctype, const void *body, size_t n, long long deadline,
    struct incus_reply *r, struct box_err *e)
{
	struct http_resp h;
	char target[2048];
	int rc, reused;
	struct box_err first;

	memset(r, 0, sizeof(*r));
	r->metadata = -1;
	if (incus_path(c, path, target, sizeof(target)) < 0)
		return err_usage(e, "request path too long");
	reused = c->connected && c->conn->reusable;
	err_clear(&first);
	rc = exchange(c, method, target, ctype, body, n, deadline, &h, &first);
	/*
	 * A kept-alive connection the daemon closed while we were idle fails
	 * before any byte of a reply: dial again, once.
	 */
	if (rc == -EPIPE && reused) {
		c->conn->broken = 1;
		err_clear(&first);
		rc = exchange(c, method, target, ctype, body, n, deadline, &h,
		    &first);
	}
	if (rc < 0) {
		if (e != NULL && e->code == 0)
			*e = first;
		return rc;
	}
	r->http_status = h.status;
	r->body = h.body;
	r->body_len = h.body_len;
	snprintf(r->etag, sizeof(r->etag), "%s", h.etag);
	rc = parse_envelope(r, e);
	if (rc < 0)
		incus_reply_free(r);	/* a failed call owns nothing */
	return rc;
}

static long long
deadline_in(int ms)
{
	return clock_ms() + ms;
}

int
incus_call_raw(struct incus *c, const char *method, const char *path,
    const char *content_type, const void *body, size_t n,
    struct incus_reply *r, struct box_err *e)
{
	return call(c, method, path, content_type, body, n,
	    deadline_in(c->timeout_ms * 4), r, e);
}

int
incus_call(struct incus *c, const char *method, const char *path,
    const char *body, struct incus_reply *r, struct box_err *e)
{
	return incus_call_raw(c, method, path,
	    body ? "application/json" : NULL, body, body ? strlen(body) : 0,
	    r, e);
}

int
incus_wait(struct incus *c, const char *op, int timeout_s,
    struct incus_reply *r, struct box_err *e)
{
	char path[256], msg[512];
	long long code = 0;
	int rc, sc;

	memset(r, 0, sizeof(*r));	/* a refusal here leaves it empty */
	r->metadata = -1;
	if (strncmp(op, "/1.0/operations/", 16) != 0 ||
	    strpbrk(op, "?# ") != NULL)
		return err_set(e, -EBOX_PROTO, "odd operation URL '%s'", op);
	snprintf(path, sizeof(path), "%s/wait?timeout=%d", op, timeout_s);
	rc = call(c, "GET", path, NULL, NULL, 0,
	    deadline_in(timeout_s * 1000 + c->timeout_ms), r, e);
	if (rc < 0) {
		/* The daemon's own bound fired: the operation may go on. */
		if (e != NULL && strstr(e->msg, "context deadline exceeded")) {
			e->code = 0;
			e->msg[0] = '\0';
			return err_set(e, -ETIMEDOUT, "still running after "
			    "%d s", timeout_s);
		}
		return rc;
	}
	if (json_type(&r->doc, r->metadata) != JSON_OBJECT) {
		incus_reply_free(r);
		return err_set(e, -EBOX_PROTO, "operation reply without the "
		    "operation");
	}
	sc = json_get(&r->doc, r->metadata, "status_code");
	if (sc < 0 || json_int(&r->doc, sc, &code) < 0) {
		incus_reply_free(r);
		return err_set(e, -EBOX_PROTO, "operation without a status");
	}
	if (code != 200) {
		json_gets(&r->doc, r->metadata, "err", msg, sizeof(msg), "");
		incus_reply_free(r);
		return err_set(e, -EBOX_API, "Incus says: %s", msg[0] ? msg :
		    "the operation did not succeed");
	}
	return 0;
}

int
incus_do(struct incus *c, const char *method, const char *path,
    const char *body, int timeout_s, struct incus_reply *r,
    struct box_err *e)
{
	char op[sizeof(r->operation)];
	int rc;

	rc = incus_call(c, method, path, body, r, e);
	if (rc < 0 || r->type != INCUS_ASYNC)
		return rc;
	memcpy(op, r->operation, sizeof(op));
	incus_reply_free(r);
	return incus_wait(c, op, timeout_s, r, e);
}
