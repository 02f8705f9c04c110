/*
 * tls.c - the door's TLS client over BearSSL (tls.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/door/tls.h"
#include "util/clock.h"

/* A growing byte buffer, for a DER object or a name. */
struct bytes {
	unsigned char *p;
	size_t n, cap;
	int full;
};

static void
bytes_add(void *ctx, const void *p, size_t n)
{
	struct bytes *b = ctx;
	unsigned char *q;

	if (b->full || n > (1 << 20) - b->n) {
		b->full = 1;
		return;
	}
	if (b->n + n > b->cap) {
		size_t cap = (b->n + n) * 2;

		if ((q = realloc(b->p, cap)) == NULL) {
			b->full = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void *
dup_of(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	if (q != NULL)
		memcpy(q, p, n);
	return q;
}

/* The DER certificate der as an anchor appended to ta: 0 or -1 (not a
 * certificate BearSSL reads: skipped). */
static int
anchor_of(const unsigned char *der, size_t n, struct tls_anchors *ta)
{
	br_x509_decoder_context dc;
	struct bytes dn = { NULL, 0, 0, 0 };
	br_x509_trust_anchor *a = &ta->v[ta->n];
	br_x509_pkey *pk;

	br_x509_decoder_init(&dc, bytes_add, &dn);
	br_x509_decoder_push(&dc, der, n);
	if ((pk = br_x509_decoder_get_pkey(&dc)) == NULL || dn.full) {
		free(dn.p);
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->dn.data = dn.p;
	a->dn.len = dn.n;
	a->flags = br_x509_decoder_isCA(&dc) ? BR_X509_TA_CA : 0;
	a->pkey.key_type = pk->key_type;
	if (pk->key_type == BR_KEYTYPE_RSA) {
		a->pkey.key.rsa.n = dup_of(pk->key.rsa.n, pk->key.rsa.nlen);
		a->pkey.key.rsa.nlen = pk->key.rsa.nlen;
		a->pkey.key.rsa.e = dup_of(pk->key.rsa.e, pk->key.rsa.elen);
		a->pkey.key.rsa.elen = pk->key.rsa.elen;
	} else if (pk->key_type == BR_KEYTYPE_EC) {
		a->pkey.key.ec.curve = pk->key.ec.curve;
		a->pkey.key.ec.q = dup_of(pk->key.ec.q, pk->key.ec.qlen);
		a->pkey.key.ec.qlen = pk->key.ec.qlen;
	} else {
		free(dn.p);
		return -1;
	}
	ta->n++;
	return 0;
}

/* Feed the PEM text to the decoder; each CERTIFICATE becomes an anchor. */
static void
pem_walk(const unsigned char *p, size_t n, struct tls_anchors *ta)
{
	br_pem_decoder_context pc;
	struct bytes der = { NULL, 0, 0, 0 };
	int in_cert = 0;
	size_t k;

	br_pem_decoder_init(&pc);
	while (n > 0 && ta->n < TLS_MAXTA) {
		k = br_pem_decoder_push(&pc, p, n);
		p += k;
		n -= k;
		switch (br_pem_decoder_event(&pc)) {
		case BR_PEM_BEGIN_OBJ:
			in_cert = strcmp(br_pem_decoder_name(&pc),
			    "CERTIFICATE") == 0;
			der.n = 0;
			der.full = 0;
			br_pem_decoder_setdest(&pc, in_cert ? bytes_add : NULL,
			    &der);
			break;
		case BR_PEM_END_OBJ:
			if (in_cert && !der.full)
				(void)anchor_of(der.p, der.n, ta);
			in_cert = 0;
			break;
		case BR_PEM_ERROR:
			n = 0;		/* what came before still counts */
			break;
		}
	}
	free(der.p);
}

int
tls_anchors_load(const char *path, struct tls_anchors *ta,
    struct box_err *e)
{
	unsigned char *text;
	ssize_t r;
	size_t n = 0;
	int fd;

	ta->n = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(e, -errno, "the trust anchors %s: %s", path,
		    err_str(-errno));
	text = malloc(TLS_BUNDLEMAX);
	ta->v = calloc(TLS_MAXTA, sizeof(*ta->v));
	if (text == NULL || ta->v == NULL) {
		close(fd);
		free(text);
		return err_set(e, -ENOMEM, "out of memory");
	}
	while (n < TLS_BUNDLEMAX && ((r = read(fd, text + n, TLS_BUNDLEMAX -
	    n)) > 0 || (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd);
	pem_walk(text, n, ta);
	free(text);
	if (ta->n == 0)
		return err_set(e, -ENOENT, "the trust anchors %s: no "
		    "certificate read", path);
	return 0;
}

void
tls_anchors_free(struct tls_anchors *ta)
{
	size_t i;

	for (i = 0; i < ta->n; i++) {
		br_x509_trust_anchor *a = &ta->v[i];

		free(a->dn.data);
		if (a->pkey.key_type == BR_KEYTYPE_RSA) {
			free(a->pkey.key.rsa.n);
			free(a->pkey.key.rsa.e);
		} else {
			free(a->pkey.key.ec.q);
		}
	}
	free(ta->v);
	ta->v = NULL;
	ta->n = 0;
}

int
tls_pump(struct tls_conn *t, short *want)
{
	br_ssl_engine_context *eng = &t->sc.eng;
	unsigned st;
	unsigned char *b;
	size_t len;
	ssize_t r;

	for (;;) {
		st = br_ssl_engine_current_state(eng);
		*want = 0;
		if (st & BR_SSL_CLOSED)
			return 1;
		if (st & BR_SSL_SENDREC) {
			b = br_ssl_engine_sendrec_buf(eng, &len);
			r = write(t->fd, b, len);
			if (r > 0) {
				br_ssl_engine_sendrec_ack(eng, (size_t)r);
				continue;
			}
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				return -errno;
			*want |= POLLOUT;
		}
		if ((st & BR_SSL_RECVREC) && !(st & BR_SSL_RECVAPP)) {
			b = br_ssl_engine_recvrec_buf(eng, &len);
			r = read(t->fd, b, len);
			if (r > 0) {
				br_ssl_engine_recvrec_ack(eng, (size_t)r);
				continue;
			}
			if (r == 0) {
				br_ssl_engine_close(eng);
				return 1;
			}
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			*want |= POLLIN;
		}
		return 0;
	}
}

/* Pump until cond(state) holds, the connection closes or deadline. */
static int
pump_until(struct tls_conn *t, unsigned cond, long long deadline)
{
	struct pollfd pf;
	short want;
	int rc;
	long long left;

	for (;;) {
		if ((rc = tls_pump(t, &want)) != 0)
			return rc < 0 ? rc : -EPIPE;
		if (br_ssl_engine_current_state(&t->sc.eng) & cond)
			return 0;
		if ((left = deadline - clock_ms()) <= 0)
			return -ETIMEDOUT;
		pf.fd = t->fd;
		pf.events = want;
		if (poll(&pf, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
}

int
tls_start(struct tls_conn *t, int fd, const struct tls_anchors *ta,
    const char *host, long long deadline, char *why, size_t cap)
{
	int rc, err;

	t->fd = fd;
	br_ssl_client_init_full(&t->sc, &t->xc, ta->v, ta->n);
	br_ssl_engine_set_versions(&t->sc.eng, BR_TLS12, BR_TLS12);
	br_ssl_engine_set_buffer(&t->sc.eng, t->buf, sizeof(t->buf), 1);
	if (!br_ssl_client_reset(&t->sc, host, 0)) {
		snprintf(why, cap, "TLS could not start");
		return -EPROTO;
	}
	rc = pump_until(t, BR_SSL_SENDAPP, deadline);
	if (rc == 0)
		return 0;
	err = br_ssl_engine_last_error(&t->sc.eng);
	if (err != 0)
		snprintf(why, cap, "TLS with %s: %s", host, tls_err_text(err));
	else
		snprintf(why, cap, "TLS with %s: %s", host, err_str(rc));
	return -EPROTO;
}

int
tls_write(struct tls_conn *t, const void *p, size_t n, long long deadline)
{
	br_ssl_engine_context *eng = &t->sc.eng;
	const unsigned char *q = p;
	unsigned char *b;
	size_t len;
	int rc;

	while (n > 0) {
		if ((rc = pump_until(t, BR_SSL_SENDAPP, deadline)) < 0)
			return rc;
		b = br_ssl_engine_sendapp_buf(eng, &len);
		if (len > n)
			len = n;
		memcpy(b, q, len);
		br_ssl_engine_sendapp_ack(eng, len);
		q += len;
		n -= len;
	}
	br_ssl_engine_flush(eng, 0);
	return 0;
}

const char *
tls_err_text(int err)
{
	switch (err) {
	case BR_ERR_X509_NOT_TRUSTED:
		return "the certificate is not from a trusted authority";
	case BR_ERR_X509_BAD_SERVER_NAME:
		return "the certificate is for another name";
	case BR_ERR_X509_EXPIRED:
		return "the certificate is expired or not yet valid";
	case BR_ERR_UNSUPPORTED_VERSION:
		return "the server does not speak TLS 1.2";
	case BR_ERR_BAD_VERSION:
		return "the server chose a version it may not";
	}
	return err >= 32 && err < 64 ? "the certificate was refused" :
	    "the TLS handshake failed";
}
