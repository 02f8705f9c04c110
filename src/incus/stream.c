/*
 * stream.c - streamed request and response bodies (see stream.h).
 *
 * Each transfer dials its own connection, so the shared keep-alive one in
 * struct incus is never left half-way through a multi-GiB body.
 */
#include "incus/stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/http.h"

#define STREAM_BUF (256u << 10)

static int
conn_open(struct incus *c, struct stream_push *k, struct box_err *e)
{
	int rc;

	k->h = malloc(sizeof(*k->h));
	if (k->h == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_dial(c, &k->t, e);
	if (rc < 0) {
		free(k->h);
		k->h = NULL;
		return rc;
	}
	http_conn_init(k->h, k->t);
	return 0;
}

static void
conn_close(struct stream_push *k)
{
	if (k->h != NULL) {
		transport_close(k->t);
		free(k->h);
		k->h = NULL;
	}
}

/* The daemon's error text out of an envelope body, into e. */
static int
reply_error(const char *body, size_t n, int status, struct box_err *e)
{
	struct json_doc d;
	struct box_err ignore;
	char msg[512];
	int rc = status == 404 ? -ENOENT : status == 403 ? -EACCES : -EBOX_API;

	memset(&d, 0, sizeof(d));
	err_clear(&ignore);
	if (body != NULL && json_parse(&d, body, n, &ignore) == 0 &&
	    json_gets(&d, 0, "error", msg, sizeof(msg), NULL) != NULL) {
		json_free(&d);
		return err_set(e, rc, "Incus says: %s", msg);
	}
	json_free(&d);
	return err_set(e, rc, "the daemon answered HTTP %d", status);
}

int
stream_get(struct incus *c, const char *path, stream_sink sink, void *ctx,
    long long *total, struct box_err *e)
{
	struct http_resp r;
	struct stream_push k;
	char target[2048];
	unsigned char *buf;
	long long got = 0;
	ssize_t n;
	int rc;

	*total = -1;
	if (incus_path(c, path, target, sizeof(target)) < 0)
		return err_usage(e, "request path too long");
	buf = malloc(STREAM_BUF);
	if (buf == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = conn_open(c, &k, e);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	memset(&r, 0, sizeof(r));
	rc = http_send(k.h, "GET", target, "Connection: close\r\n", NULL,
	    NULL, 0, e);
	if (rc == 0)
		rc = http_read_head(k.h, &r, e);
	if (rc == 0 && r.status != 200) {
		if (http_read_body(k.h, &r, 1u << 20, e) == 0)
			rc = reply_error(r.body, r.body_len, r.status, e);
		else
			rc = -EBOX_API;
		goto out;
	}
	if (rc == 0 && r.chunked)
		rc = err_set(e, -EBOX_PROTO, "the daemon sent a download in "
		    "chunks (box expects a Content-Length)");
	if (rc < 0)
		goto out;
	*total = r.content_length;
	while (r.content_length < 0 || got < r.content_length) {
		size_t want = STREAM_BUF;

		if (r.content_length >= 0 &&
		    (long long)want > r.content_length - got)
			want = (size_t)(r.content_length - got);
		n = http_read_raw(k.h, buf, want);
		if (n == 0 && r.content_length < 0)
			break;
		if (n <= 0) {
			rc = err_set(e, n < 0 ? (int)n : -EBOX_PROTO,
			    "the download broke off after %lld bytes%s%s",
			    got, n < 0 ? ": " : "", n < 0 ? err_str((int)n) :
			    "");
			goto out;
		}
		got += n;
		rc = sink(ctx, buf, (size_t)n);
		if (rc < 0)
			goto out;
	}
out:
	http_resp_free(&r);
	conn_close(&k);
	free(buf);
	return rc;
}

static int
parse_reply(struct http_resp *h, struct incus_reply *r, struct box_err *e)
{
	char type[16];
	int rc;

	r->http_status = h->status;
	r->body = h->body;
	r->body_len = h->body_len;
	h->body = NULL;
	rc = json_parse(&r->doc, r->body, r->body_len, e);
	if (rc < 0) {
		err_context(e, "the daemon's reply (HTTP %d) is not JSON",
		    h->status);
		return rc;
	}
	if (json_gets(&r->doc, 0, "type", type, sizeof(type), NULL) == NULL)
		return err_set(e, -EBOX_PROTO, "the daemon's reply is not an "
		    "Incus envelope");
	r->metadata = json_get(&r->doc, 0, "metadata");
	if (strcmp(type, "error") == 0)
		return reply_error(r->body, r->body_len, h->status, e);
	r->type = strcmp(type, "async") == 0 ? INCUS_ASYNC : INCUS_SYNC;
	if (r->type == INCUS_ASYNC &&
	    json_gets(&r->doc, 0, "operation", r->operation,
	    sizeof(r->operation), NULL) == NULL)
		return err_set(e, -EBOX_PROTO, "async reply without an "
		    "operation");
	incus_op_trim(r->operation);
	return 0;
}

int
stream_send(struct incus *c, const char *method, const char *path,
    const char *ctype, const char *headers, long long length,
    stream_source source, void *ctx, struct incus_reply *r,
    struct box_err *e)
{
	struct http_resp h;
	struct stream_push k;
	char target[2048], head[1024];
	unsigned char *buf;
	long long sent = 0;
	ssize_t n;
	int rc, len;

	memset(r, 0, sizeof(*r));
	r->metadata = -1;
	memset(&h, 0, sizeof(h));
	if (incus_path(c, path, target, sizeof(target)) < 0)
		return err_usage(e, "request path too long");
	if (strpbrk(ctype, "\r\n") != NULL)
		return err_usage(e, "bad content type");
	len = snprintf(head, sizeof(head), "Content-Type: %s\r\n"
	    "Content-Length: %lld\r\nConnection: close\r\n%s", ctype, length,
	    headers);
	if (len < 0 || (size_t)len >= sizeof(head))
		return err_usage(e, "request headers too long");
	buf = malloc(STREAM_BUF);
	if (buf == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = conn_open(c, &k, e);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	/* The framing is ours (in head): http_send sees no body. */
	rc = http_send(k.h, method, target, head, NULL, NULL, 0, e);
	while (rc == 0 && sent < length) {
		size_t want = STREAM_BUF;

		if ((long long)want > length - sent)
			want = (size_t)(length - sent);
		n = source(ctx, buf, want);
		if (n < 0) {
			rc = (int)n;
			break;
		}
		if (n == 0) {
			rc = err_set(e, -EIO, "the upload ended after %lld of "
			    "%lld bytes", sent, length);
			break;
		}
		rc = transport_write(k.t, buf, (size_t)n);
		if (rc < 0) {
			/*
			 * The daemon may refuse before it has read it all (a
			 * missing pool): its answer says why, the EPIPE not.
			 */
			struct box_err le;

			err_clear(&le);
			k.h->deadline = 0;
			if (http_read_head(k.h, &h, &le) == 0 &&
			    http_read_body(k.h, &h, 1u << 20, &le) == 0 &&
			    h.status >= 400)
				rc = reply_error(h.body, h.body_len, h.status, e);
			else
				rc = err_set(e, rc, "sending to the daemon: %s",
				    err_str(rc));
			break;
		}
		sent += n;
	}
	if (rc == 0) {
		/* The daemon stores the whole upload before it answers. */
		k.h->deadline = 0;
		rc = http_read_head(k.h, &h, e);
	}
	if (rc == 0)
		rc = http_read_body(k.h, &h, INCUS_MAX_BODY, e);
	if (rc == 0)
		rc = parse_reply(&h, r, e);
	http_resp_free(&h);
	conn_close(&k);
	free(buf);
	return rc;
}

ssize_t
stream_mem_read(void *ctx, void *buf, size_t n)
{
	struct stream_mem *m = ctx;

	if (n > m->n - m->off)
		n = m->n - m->off;
	memcpy(buf, m->p + m->off, n);
	m->off += n;
	return (ssize_t)n;
}

/*
 * The same upload pushed, for a body box makes as it goes (box import
 * re-framing an export for a restricted project): chunked, since its
 * length is known only at its end.  A body left without its last chunk
 * (stream_push_abort) is one the daemon never had whole: Go's reader
 * calls it an unexpected EOF, and nothing is created from it.
 */
int
stream_push_begin(struct incus *c, const char *method, const char *path,
    const char *ctype, const char *headers, struct stream_push *k,
    struct box_err *e)
{
	char target[2048], head[1024];
	int rc, len;

	memset(k, 0, sizeof(*k));
	if (incus_path(c, path, target, sizeof(target)) < 0)
		return err_usage(e, "request path too long");
	if (strpbrk(ctype, "\r\n") != NULL)
		return err_usage(e, "bad content type");
	len = snprintf(head, sizeof(head), "Content-Type: %s\r\n"
	    "Transfer-Encoding: chunked\r\nConnection: close\r\n%s", ctype,
	    headers);
	if (len < 0 || (size_t)len >= sizeof(head))
		return err_usage(e, "request headers too long");
	if ((rc = conn_open(c, k, e)) < 0)
		return rc;
	if ((rc = http_send(k->h, method, target, head, NULL, NULL, 0, e)) < 0)
		conn_close(k);
	return rc;
}

/* The daemon's answer to a body it stopped reading, else rc said. */
static int
push_failed(struct stream_push *k, int rc, struct box_err *e)
{
	struct http_resp h;
	struct box_err le;

	memset(&h, 0, sizeof(h));
	err_clear(&le);
	k->h->deadline = 0;
	if (http_read_head(k->h, &h, &le) == 0 &&
	    http_read_body(k->h, &h, 1u << 20, &le) == 0 && h.status >= 400)
		rc = reply_error(h.body, h.body_len, h.status, e);
	else
		rc = err_set(e, rc, "sending to the daemon: %s", err_str(rc));
	http_resp_free(&h);
	conn_close(k);
	return rc;
}

int
stream_push_write(struct stream_push *k, const void *buf, size_t n,
    struct box_err *e)
{
	char line[24];
	int rc, len;

	if (k->h == NULL)
		return err_set(e, -EPIPE, "the upload was already ended");
	if (n == 0)
		return 0;	/* a zero chunk would end the body */
	len = snprintf(line, sizeof(line), "%zx\r\n", n);
	if ((rc = transport_write(k->t, line, (size_t)len)) < 0 ||
	    (rc = transport_write(k->t, buf, n)) < 0 ||
	    (rc = transport_write(k->t, "\r\n", 2)) < 0)
		return push_failed(k, rc, e);
	return 0;
}

int
stream_push_end(struct stream_push *k, struct incus_reply *r,
    struct box_err *e)
{
	struct http_resp h;
	int rc;

	memset(r, 0, sizeof(*r));
	r->metadata = -1;
	memset(&h, 0, sizeof(h));
	if (k->h == NULL)
		return err_set(e, -EPIPE, "the upload was already ended");
	if ((rc = transport_write(k->t, "0\r\n\r\n", 5)) < 0)
		return push_failed(k, rc, e);
	/* The daemon stores the whole upload before it answers. */
	k->h->deadline = 0;
	rc = http_read_head(k->h, &h, e);
	if (rc == 0)
		rc = http_read_body(k->h, &h, INCUS_MAX_BODY, e);
	if (rc == 0)
		rc = parse_reply(&h, r, e);
	http_resp_free(&h);
	conn_close(k);
	return rc;
}

void
stream_push_abort(struct stream_push *k)
{
	conn_close(k);
}
