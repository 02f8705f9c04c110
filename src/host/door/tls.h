/*
 * tls.h - the door's TLS client (BearSSL): trust anchors from a PEM
 * bundle (the host's CA bundle; a test's own CA only under the test
 * flag), and one connection to an upstream: SNI and the certificate's
 * name checked against the secret's host, TLS 1.2 (BearSSL's newest),
 * over a non-blocking socket with deadlines.
 */
#ifndef BOX_DOOR_TLS_H
#define BOX_DOOR_TLS_H

#include <stddef.h>

#include <bearssl.h>

#include "util/err.h"

#define TLS_BUNDLEMAX	(8 << 20)	/* a CA bundle read at most */
#define TLS_MAXTA	1024

struct tls_anchors {
	br_x509_trust_anchor *v;
	size_t n;
};

/* Read every CERTIFICATE of the PEM file path as an anchor: 0 (at least
 * one), or an error. */
int tls_anchors_load(const char *path, struct tls_anchors *ta,
    struct box_err *e);
void tls_anchors_free(struct tls_anchors *ta);

struct tls_conn {
	int fd;				/* non-blocking, connected */
	br_ssl_client_context sc;
	br_x509_minimal_context xc;
	unsigned char buf[BR_SSL_BUFSIZE_BIDI];
};

/*
 * Start TLS on fd (connected) for host, through the handshake, by
 * deadline (clock_ms): 0, or -EPROTO with why (the certificate's error
 * named: not trusted, wrong name, expired...).
 */
int tls_start(struct tls_conn *t, int fd, const struct tls_anchors *ta,
    const char *host, long long deadline, char *why, size_t cap);

/* Write all of p to the peer (flushed) by deadline: 0 or < 0. */
int tls_write(struct tls_conn *t, const void *p, size_t n,
    long long deadline);

/*
 * Move records between the engine and the socket as far as possible
 * without blocking: 0, 1 the connection closed (cleanly or not), < 0.
 * *want is the poll events the socket waits for.
 */
int tls_pump(struct tls_conn *t, short *want);

/* What the engine's last error means, in words. */
const char *tls_err_text(int err);

#endif
