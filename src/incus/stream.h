/*
 * stream.h - requests whose bodies are too big to hold: a download into a
 * sink and an upload from a source, each on a connection of its own, a
 * buffer at a time (an export is the box's whole disk).
 *
 * Nothing here prints; progress is the callbacks' business.
 */
#ifndef BOX_STREAM_H
#define BOX_STREAM_H

#include <stddef.h>
#include <sys/types.h>

#include "incus/api.h"
#include "util/err.h"

/* Called with each piece of the body: 0 to go on, < 0 to stop (that code). */
typedef int (*stream_sink)(void *ctx, const void *buf, size_t n);
/* Fill buf: bytes read (> 0), 0 at the end, < 0 to stop. */
typedef ssize_t (*stream_source)(void *ctx, void *buf, size_t n);

/*
 * GET path and hand the body to sink.  *total is the announced length (or
 * -1); a body that ends short of it fails.  A daemon error reply fails
 * with its message.
 */
int stream_get(struct incus *c, const char *path, stream_sink sink,
    void *ctx, long long *total, struct box_err *e);

/*
 * POST (or PUT) length bytes from source to path with content type ctype
 * and extra headers ("Name: value\r\n"...), then read the reply as
 * incus_call() would: r holds a sync or async envelope.
 */
int stream_send(struct incus *c, const char *method, const char *path,
    const char *ctype, const char *headers, long long length,
    stream_source source, void *ctx, struct incus_reply *r,
    struct box_err *e);

/*
 * The same, pushed: begin (the head, chunked), write each piece, end (the
 * last chunk, then the reply as stream_send reads it) or abort (the body
 * left unfinished: the daemon never has it whole).  A write or end that
 * fails has closed the connection (the daemon's answer in e when it gave
 * one).
 */
struct transport;
struct http_conn;
struct stream_push {
	struct transport *t;
	struct http_conn *h;
};
int stream_push_begin(struct incus *c, const char *method, const char *path,
    const char *ctype, const char *headers, struct stream_push *k,
    struct box_err *e);
int stream_push_write(struct stream_push *k, const void *buf, size_t n,
    struct box_err *e);
int stream_push_end(struct stream_push *k, struct incus_reply *r,
    struct box_err *e);
void stream_push_abort(struct stream_push *k);

/* A source over bytes in memory: pass stream_mem_read with one of these. */
struct stream_mem {
	const char *p;
	size_t n, off;
};
ssize_t stream_mem_read(void *ctx, void *buf, size_t n);

#endif
