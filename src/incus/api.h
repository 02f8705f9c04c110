/*
 * api.h - the Incus REST API over HTTP: the response envelope, errors in the
 * daemon's own words, and background operations waited on with a bound.
 *
 * One struct incus per run; its connection is reused across calls
 * (keep-alive) and re-dialled once if the daemon closed it while idle.
 * Nothing here prints.
 */
#ifndef BOX_API_H
#define BOX_API_H

#include <stddef.h>

#include "incus/http.h"
#include "incus/json.h"
#include "incus/transport.h"
#include "util/err.h"

#define INCUS_MAX_BODY	(64u << 20)	/* largest JSON reply we accept */
#define INCUS_TIMEOUT_MS 30000		/* per connect/read/write */

enum incus_type { INCUS_SYNC = 1, INCUS_ASYNC, INCUS_ERROR };

/*
 * How to reach the daemon.  incus/ never reads the environment: its caller
 * fills this in (box/remote/incus_env.c reads INCUS_SOCKET, INCUS_DIR,
 * BOX_IO_TIMEOUT, BOX_PROJECT and the tier's defaults once) and hands it
 * down, with incus_open() or once for the run with incus_configure().
 */
struct incus_settings {
	char socket_path[108];	/* the address the dialer dials */
	char project[64];	/* "" = the daemon's default */
	char daemon_dir[256];	/* the daemon's state directory (leases) */
	int timeout_ms;		/* per connect/read/write; 0: INCUS_TIMEOUT_MS */
	const struct dialer *dialer;	/* NULL: the unix socket */
};

struct incus {
	char socket_path[108];
	char project[64];	/* "" = the daemon's default */
	int timeout_ms;
	const struct dialer *dialer;	/* every connection comes from it */
	struct transport *t;	/* the shared keep-alive connection */
	struct http_conn *conn;	/* heap (it holds a 16 KiB buffer) */
	int connected;
};

struct incus_reply {
	int http_status;
	int type;		/* enum incus_type */
	char *body;		/* the raw reply body (owned) */
	size_t body_len;
	struct json_doc doc;	/* parsed body */
	int metadata;		/* token of "metadata", or -1 */
	char operation[128];	/* async: "/1.0/operations/<id>" */
	char etag[128];
};

/* A client for the daemon s names.  Does not connect yet. */
int incus_open(struct incus *c, const struct incus_settings *s,
    struct box_err *e);

/*
 * The run's settings, handed down once by main (box/remote/incus_env.c).  bad,
 * when it holds an error, is what every later incus_init() fails with (a
 * setting that does not parse fails the verbs that talk to Incus, and only
 * those).
 */
void incus_configure(const struct incus_settings *s, const struct box_err *bad);

/* incus_open() with the run's settings (incus_configure()). */
int incus_init(struct incus *c, struct box_err *e);
void incus_close(struct incus *c);

/*
 * One request.  path is the URL path with its query ("/1.0/instances?
 * recursion=2"); the project parameter is appended when c->project is set.
 * body is a JSON text or NULL.  On success r holds a sync or async reply.  A
 * reply of type "error" fails with the daemon's message in e (404: "not
 * found" wording is left to the caller, who knows what it asked for; its
 * code is -ENOENT, 403 -EACCES, others -EBOX_API).  A failed call leaves
 * r holding nothing (incus_reply_free() on it is harmless).
 */
int incus_call(struct incus *c, const char *method, const char *path,
    const char *body, struct incus_reply *r, struct box_err *e);

/* Like incus_call() but with explicit content type and raw body. */
int incus_call_raw(struct incus *c, const char *method, const char *path,
    const char *content_type, const void *body, size_t n,
    struct incus_reply *r, struct box_err *e);

/*
 * Wait for an operation (its URL as given in an async reply) for at most
 * timeout_s seconds.  On success r holds the final operation object at
 * r->metadata; a failed operation fails with its "err" text.  A wait that
 * runs out fails with -ETIMEDOUT.
 */
int incus_wait(struct incus *c, const char *op, int timeout_s,
    struct incus_reply *r, struct box_err *e);

/* incus_call() and, if the reply is async, incus_wait() on it. */
int incus_do(struct incus *c, const char *method, const char *path,
    const char *body, int timeout_s, struct incus_reply *r,
    struct box_err *e);

void incus_reply_free(struct incus_reply *r);

/*
 * A cluster member names an operation it forwarded to another member
 * with its project ("/1.0/operations/<id>?project=default"): the query
 * is cut off (our own project parameter says it), so every path built
 * on the URL (/wait, /websocket?secret=) stays one path.
 */
void incus_op_trim(char *op);

/* The body w holds, sent with incus_do(); the reply dropped. */
int incus_send_json(struct incus *c, const char *method, const char *path,
    struct json_w *w, int timeout_s, struct box_err *e);

/* The daemon's state directory from the run's settings. */
const char *incus_daemon_dir(void);

/*
 * A fresh connection of its own from c's dialer (websockets take a
 * connection over for good, so they never use the shared one); hand it
 * back with transport_close().
 */
int incus_dial(struct incus *c, struct transport **t, struct box_err *e);

/* Append "?project=" / "&project=" to path into buf when a project is set. */
int incus_path(const struct incus *c, const char *path, char *buf,
    size_t cap);

/* Percent-encode s for a path segment or query value. */
int url_escape(const char *s, char *buf, size_t cap);

/*
 * One path segment s[0..n) percent-decoded into a new string, or NULL when
 * it cannot be a name: empty, a bad escape, or a NUL or a '/' in it, plain
 * or escaped ("%2F" would make a name that leaves its segment when it is
 * written back into a path, or that two segments could alias).
 */
char *url_segment(const char *s, size_t n);

#endif
