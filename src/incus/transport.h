/*
 * transport.h - a byte stream to the daemon.
 *
 * HTTP, websockets and everything above them talk to a struct transport and
 * never to a file descriptor, so a TLS transport (BearSSL, for remote
 * servers) or an in-memory one (unit tests, fuzzers) slots in without
 * touching callers.  Every operation is bounded by the transport's
 * timeout_ms: a read or write that makes no progress for that long fails
 * with -ETIMEDOUT.
 */
#ifndef BOX_TRANSPORT_H
#define BOX_TRANSPORT_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

struct transport;

struct transport_ops {
	/* > 0 bytes read, 0 at end of stream, < 0 -errno (-ETIMEDOUT). */
	ssize_t (*read)(struct transport *t, void *buf, size_t n);
	/* Writes all n bytes or fails: 0 or < 0 -errno. */
	int (*write)(struct transport *t, const void *buf, size_t n);
	/* The descriptor an event loop polls, or -1 when there is none. */
	int (*fd)(struct transport *t);
	/* Bytes already decoded and buffered inside the transport (TLS). */
	size_t (*pending)(struct transport *t);
	void (*close)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	int timeout_ms;
};

static inline ssize_t
transport_read(struct transport *t, void *buf, size_t n)
{
	return t->ops->read(t, buf, n);
}

static inline int
transport_write(struct transport *t, const void *buf, size_t n)
{
	return t->ops->write(t, buf, n);
}

static inline int
transport_fd(struct transport *t)
{
	return t->ops->fd(t);
}

/* Done with t: closes it (and frees it when a dialer made it). */
static inline void
transport_close(struct transport *t)
{
	t->ops->close(t);
}

/*
 * Where connections come from.  struct incus holds one, and every
 * connection to the daemon (the shared keep-alive one, each exec
 * websocket, each streamed transfer, the presence probe) is dialled through
 * it, so a TLS dialer (remote servers) or a test's in-memory one replaces
 * the unix socket without touching a caller.  addr is what the dialer
 * understands (a socket path for the unix one).  On success *out is a
 * connection of the caller's own, handed back with transport_close().
 */
struct dialer {
	int (*dial)(const struct dialer *d, const char *addr, int timeout_ms,
	    struct transport **out, struct box_err *e);
};

static inline int
dialer_dial(const struct dialer *d, const char *addr, int timeout_ms,
    struct transport **out, struct box_err *e)
{
	return d->dial(d, addr, timeout_ms, out, e);
}

/* The unix-socket dialer (the messages of unix_transport_open()). */
extern const struct dialer unix_dialer;

/* The unix-socket transport. */
struct unix_transport {
	struct transport base;
	int fd;
};

/*
 * Connect to the unix socket at path within timeout_ms.  The messages name
 * the socket and the likely cause (daemon not running, no permission).
 */
int unix_transport_open(struct unix_transport *u, const char *path,
    int timeout_ms, struct box_err *e);

/* An in-memory transport: reads come from in[], writes go to out[]. */
struct mem_transport {
	struct transport base;
	const unsigned char *in;
	size_t in_len, in_pos;
	size_t max_read;	/* deliver at most this many bytes per read (0: any) */
	unsigned char *out;
	size_t out_cap, out_len;
};

#endif
