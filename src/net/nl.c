/*
 * nl.c - netlink builders, reply parser and socket wrapper (see nl.h).
 */
#include "net/nl.h"
#include "util/clock.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netfilter/nfnetlink.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/*
 * Byte order by shifts: no <arpa/inet.h>, whose musl definitions collide
 * with the kernel UAPI headers other files of this module include.
 */
static void
wr_be(unsigned char *p, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static uint64_t
rd_be(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* ----------------------------------------------------------------- builders */

void
nl_buf_init(struct nl_buf *b, void *p, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->p = p;
	/* nlmsg_len is 32 bits: a larger buffer could never be sent whole. */
	b->cap = cap > UINT32_MAX ? UINT32_MAX : cap;
	if (p == NULL)
		b->cap = 0;
}

int
nl_buf_err(const struct nl_buf *b)
{
	return b->err;
}

static int
buf_fail(struct nl_buf *b, int code)
{
	if (b->err == 0)
		b->err = code;
	return b->err;
}

/* Claim n zeroed bytes at the end, or refuse. */
static unsigned char *
buf_reserve(struct nl_buf *b, size_t n)
{
	unsigned char *p;

	if (b->err != 0)
		return NULL;
	if (n > b->cap - b->len) {
		buf_fail(b, -ENOSPC);
		return NULL;
	}
	p = b->p + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

static void
msg_sync(struct nl_buf *b)
{
	uint32_t l = (uint32_t)(b->len - b->msg);

	memcpy(b->p + b->msg + offsetof(struct nlmsghdr, nlmsg_len), &l,
	    sizeof(l));
}

int
nl_msg_begin(struct nl_buf *b, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr h;
	size_t off = b->len;
	unsigned char *p;

	if ((p = buf_reserve(b, NL_HDRLEN)) == NULL)
		return b->err;
	memset(&h, 0, sizeof(h));
	h.nlmsg_len = NL_HDRLEN;
	h.nlmsg_type = type;
	h.nlmsg_flags = flags | NLM_F_REQUEST;
	h.nlmsg_seq = seq;
	memcpy(p, &h, sizeof(h));
	b->msg = off;
	b->open = 1;
	b->nmsg++;
	return 0;
}

void *
nl_msg_extra(struct nl_buf *b, size_t n)
{
	unsigned char *p;

	if (b->err == 0 && !b->open) {
		buf_fail(b, -EINVAL);
		return NULL;
	}
	if (n > b->cap || (p = buf_reserve(b, NL_ALIGN(n))) == NULL) {
		buf_fail(b, -ENOSPC);
		return NULL;
	}
	msg_sync(b);
	return p;
}

int
nl_msg_end(struct nl_buf *b)
{
	if (b->err == 0 && !b->open)
		return buf_fail(b, -EINVAL);
	b->open = 0;
	return b->err;
}

int
nl_put(struct nl_buf *b, uint16_t type, const void *data, size_t n)
{
	struct nlattr a;
	unsigned char *p;

	if (b->err != 0)
		return b->err;
	if (!b->open)
		return buf_fail(b, -EINVAL);
	if (n > NL_ATTR_MAXLEN - NL_ATTR_HDRLEN)
		return buf_fail(b, -EMSGSIZE);
	if ((p = buf_reserve(b, NL_ATTR_HDRLEN + NL_ALIGN(n))) == NULL)
		return b->err;
	a.nla_len = (uint16_t)(NL_ATTR_HDRLEN + n);
	a.nla_type = type;
	memcpy(p, &a, sizeof(a));
	if (n > 0)
		memcpy(p + NL_ATTR_HDRLEN, data, n);
	msg_sync(b);
	return 0;
}

int
nl_put_u8(struct nl_buf *b, uint16_t type, uint8_t v)
{
	return nl_put(b, type, &v, sizeof(v));
}

int
nl_put_u16(struct nl_buf *b, uint16_t type, uint16_t v)
{
	return nl_put(b, type, &v, sizeof(v));
}

int
nl_put_u32(struct nl_buf *b, uint16_t type, uint32_t v)
{
	return nl_put(b, type, &v, sizeof(v));
}

int
nl_put_u64(struct nl_buf *b, uint16_t type, uint64_t v)
{
	return nl_put(b, type, &v, sizeof(v));
}

int
nl_put_be16(struct nl_buf *b, uint16_t type, uint16_t v)
{
	unsigned char x[2];

	wr_be(x, v, sizeof(x));
	return nl_put(b, type, x, sizeof(x));
}

int
nl_put_be32(struct nl_buf *b, uint16_t type, uint32_t v)
{
	unsigned char x[4];

	wr_be(x, v, sizeof(x));
	return nl_put(b, type, x, sizeof(x));
}

int
nl_put_be64(struct nl_buf *b, uint16_t type, uint64_t v)
{
	unsigned char x[8];

	wr_be(x, v, sizeof(x));
	return nl_put(b, type, x, sizeof(x));
}

int
nl_put_str(struct nl_buf *b, uint16_t type, const char *s)
{
	size_t n = strnlen(s, NL_ATTR_MAXLEN);

	return nl_put(b, type, s, n + 1);
}

size_t
nl_nest_begin(struct nl_buf *b, uint16_t type)
{
	struct nlattr a;
	size_t off = b->len;
	unsigned char *p;

	if (b->err != 0)
		return 0;
	if (!b->open) {
		buf_fail(b, -EINVAL);
		return 0;
	}
	if ((p = buf_reserve(b, NL_ATTR_HDRLEN)) == NULL)
		return 0;
	a.nla_len = NL_ATTR_HDRLEN;
	a.nla_type = type | NLA_F_NESTED;
	memcpy(p, &a, sizeof(a));
	msg_sync(b);
	return off;
}

int
nl_nest_end(struct nl_buf *b, size_t nest)
{
	uint16_t l;
	size_t n;

	if (b->err != 0)
		return b->err;
	if (nest == 0 || !b->open || nest < b->msg + NL_HDRLEN ||
	    nest + NL_ATTR_HDRLEN > b->len)
		return buf_fail(b, -EINVAL);
	n = b->len - nest;
	if (n > NL_ATTR_MAXLEN)
		return buf_fail(b, -EMSGSIZE);
	l = (uint16_t)n;
	memcpy(b->p + nest + offsetof(struct nlattr, nla_len), &l, sizeof(l));
	return 0;
}

static int
nfmsg_begin(struct nl_buf *b, uint16_t type, uint8_t family, uint16_t resid,
    uint16_t flags, uint32_t seq)
{
	unsigned char *g;

	if (nl_msg_begin(b, type, flags, seq) != 0)
		return b->err;
	if ((g = nl_msg_extra(b, sizeof(struct nfgenmsg))) == NULL)
		return b->err;
	g[offsetof(struct nfgenmsg, nfgen_family)] = family;
	g[offsetof(struct nfgenmsg, version)] = NFNETLINK_V0;
	wr_be(g + offsetof(struct nfgenmsg, res_id), resid, 2);
	return 0;
}

int
nl_nfmsg_begin(struct nl_buf *b, uint16_t subsys, uint8_t msg, uint8_t family,
    uint16_t flags, uint32_t seq)
{
	return nfmsg_begin(b, (uint16_t)(subsys << 8 | msg), family, 0, flags,
	    seq);
}

int
nl_batch_begin(struct nl_buf *b, uint32_t seq)
{
	if (nfmsg_begin(b, NFNL_MSG_BATCH_BEGIN, 0, NFNL_SUBSYS_NFTABLES, 0,
	    seq) != 0)
		return b->err;
	return nl_msg_end(b);
}

int
nl_batch_end(struct nl_buf *b, uint32_t seq)
{
	if (nfmsg_begin(b, NFNL_MSG_BATCH_END, 0, NFNL_SUBSYS_NFTABLES, 0,
	    seq) != 0)
		return b->err;
	return nl_msg_end(b);
}

/* ------------------------------------------------------- attribute walker */

void
nl_attr_iter_init(struct nl_attr_iter *it, const void *p, size_t n)
{
	it->p = p;
	it->left = p == NULL ? 0 : n;
}

void
nl_attr_iter_nested(struct nl_attr_iter *it, const struct nl_attr *a)
{
	if (a == NULL || !a->present)
		nl_attr_iter_init(it, NULL, 0);
	else
		nl_attr_iter_init(it, a->data, a->len);
}

int
nl_attr_next(struct nl_attr_iter *it, struct nl_attr *a)
{
	struct nlattr h;
	size_t adv;

	if (it->left < NL_ATTR_HDRLEN) {
		it->left = 0;
		return 0;
	}
	memcpy(&h, it->p, sizeof(h));
	if (h.nla_len < NL_ATTR_HDRLEN || h.nla_len > it->left) {
		it->left = 0;
		return -EBOX_PROTO;
	}
	a->data = it->p + NL_ATTR_HDRLEN;
	a->len = (uint16_t)(h.nla_len - NL_ATTR_HDRLEN);
	a->type = h.nla_type & NLA_TYPE_MASK;
	a->flags = h.nla_type & (uint16_t)~NLA_TYPE_MASK;
	a->present = 1;
	/* The last attribute may legitimately lack its padding. */
	adv = NL_ALIGN(h.nla_len);
	if (adv > it->left)
		adv = it->left;
	it->p += adv;
	it->left -= adv;
	return 1;
}

int
nl_attr_parse(const void *p, size_t n, struct nl_attr *tb, size_t ntb)
{
	struct nl_attr_iter it;
	struct nl_attr a;
	int r;

	memset(tb, 0, ntb * sizeof(*tb));
	nl_attr_iter_init(&it, p, n);
	while ((r = nl_attr_next(&it, &a)) > 0)
		if (a.type < ntb)
			tb[a.type] = a;
	return r;
}

int
nl_attr_parse_nested(const struct nl_attr *a, struct nl_attr *tb, size_t ntb)
{
	if (a == NULL || !a->present) {
		memset(tb, 0, ntb * sizeof(*tb));
		return -ENOENT;
	}
	return nl_attr_parse(a->data, a->len, tb, ntb);
}

static int
attr_fixed(const struct nl_attr *a, size_t n)
{
	if (a == NULL || !a->present)
		return -ENOENT;
	if (a->len != n)
		return -EBOX_PROTO;
	return 0;
}

int
nl_attr_u8(const struct nl_attr *a, uint8_t *v)
{
	int r;

	if ((r = attr_fixed(a, sizeof(*v))) == 0)
		memcpy(v, a->data, sizeof(*v));
	return r;
}

int
nl_attr_u16(const struct nl_attr *a, uint16_t *v)
{
	int r;

	if ((r = attr_fixed(a, sizeof(*v))) == 0)
		memcpy(v, a->data, sizeof(*v));
	return r;
}

int
nl_attr_u32(const struct nl_attr *a, uint32_t *v)
{
	int r;

	if ((r = attr_fixed(a, sizeof(*v))) == 0)
		memcpy(v, a->data, sizeof(*v));
	return r;
}

int
nl_attr_be16(const struct nl_attr *a, uint16_t *v)
{
	int r;

	if ((r = attr_fixed(a, sizeof(*v))) == 0)
		*v = (uint16_t)rd_be(a->data, sizeof(*v));
	return r;
}

int
nl_attr_be32(const struct nl_attr *a, uint32_t *v)
{
	int r;

	if ((r = attr_fixed(a, sizeof(*v))) == 0)
		*v = (uint32_t)rd_be(a->data, sizeof(*v));
	return r;
}

int
nl_attr_be64(const struct nl_attr *a, uint64_t *v)
{
	int r;

	if ((r = attr_fixed(a, sizeof(*v))) == 0)
		*v = rd_be(a->data, sizeof(*v));
	return r;
}

int
nl_attr_str(const struct nl_attr *a, char *dst, size_t cap)
{
	const unsigned char *nul;
	size_t n;

	if (cap == 0)
		return -ENAMETOOLONG;
	dst[0] = '\0';
	if (a == NULL || !a->present)
		return -ENOENT;
	nul = memchr(a->data, '\0', a->len);
	n = nul != NULL ? (size_t)(nul - a->data) : a->len;
	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(dst, a->data, n);
	dst[n] = '\0';
	return 0;
}

/* --------------------------------------------------------- reply parser */

int
nl_msg_attrs(const struct nl_msg *m, size_t hdrlen, struct nl_attr *tb,
    size_t ntb)
{
	size_t off = NL_ALIGN(hdrlen);

	if (m->len < hdrlen) {
		memset(tb, 0, ntb * sizeof(*tb));
		return -EBOX_PROTO;
	}
	if (off > m->len)
		off = m->len;
	return nl_attr_parse(m->data + off, m->len - off, tb, ntb);
}

/* Extended-ACK TLVs: keep the text (truncated if long) and the offset. */
static void
parse_tlvs(struct nl_error *ne, const unsigned char *p, size_t n)
{
	struct nl_attr tb[NLMSGERR_ATTR_OFFS + 1];
	const unsigned char *nul;
	size_t l;

	if (nl_attr_parse(p, n, tb, NLMSGERR_ATTR_OFFS + 1) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG].present) {
		nul = memchr(tb[NLMSGERR_ATTR_MSG].data, '\0',
		    tb[NLMSGERR_ATTR_MSG].len);
		l = nul != NULL ? (size_t)(nul - tb[NLMSGERR_ATTR_MSG].data) :
		    tb[NLMSGERR_ATTR_MSG].len;
		if (l >= sizeof(ne->msg))
			l = sizeof(ne->msg) - 1;
		memcpy(ne->msg, tb[NLMSGERR_ATTR_MSG].data, l);
		ne->msg[l] = '\0';
	}
	(void)nl_attr_u32(&tb[NLMSGERR_ATTR_OFFS], &ne->offs);
}

static void
error_clear(struct nl_error *ne)
{
	memset(ne, 0, sizeof(*ne));
	ne->offs = UINT32_MAX;
}

int
nl_parse_error(const struct nl_msg *m, struct nl_error *ne)
{
	struct nlmsgerr me;
	size_t tlv;

	error_clear(ne);
	if (m->len < sizeof(me))
		return -EBOX_PROTO;
	memcpy(&me, m->data, sizeof(me));
	/* Subsystems disagree on the sign; an errno is what we keep. */
	if (me.error > 0)
		me.error = -me.error;
	if (me.error < -4095)
		me.error = -EBOX_PROTO;
	ne->code = me.error;
	ne->seq = me.msg.nlmsg_seq;
	ne->type = me.msg.nlmsg_type;
	if (!(m->hdr.nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	/* Without NLM_F_CAPPED the whole request is echoed before the TLVs. */
	tlv = sizeof(me);
	if (!(m->hdr.nlmsg_flags & NLM_F_CAPPED) &&
	    me.msg.nlmsg_len >= NL_HDRLEN)
		tlv = sizeof(me.error) + NL_ALIGN(me.msg.nlmsg_len);
	if (tlv < m->len)
		parse_tlvs(ne, m->data + tlv, m->len - tlv);
	return 0;
}

void
nl_rx_init(struct nl_rx *rx, uint32_t portid, uint32_t seq_lo,
    uint32_t seq_hi)
{
	memset(rx, 0, sizeof(*rx));
	rx->portid = portid;
	rx->seq_lo = seq_lo;
	rx->seq_hi = seq_hi;
	error_clear(&rx->first);
}

static void
rx_keep_error(struct nl_rx *rx, const struct nl_error *ne)
{
	if (rx->first.code == 0 || ne->seq < rx->first.seq)
		rx->first = *ne;
}

static int
rx_error(struct nl_rx *rx, const struct nl_msg *m)
{
	struct nl_error ne;

	if (nl_parse_error(m, &ne) < 0)
		return -EBOX_PROTO;
	if (ne.code == 0) {
		rx->acks++;
	} else {
		rx->errors++;
		/* Pair the error with the reply's own sequence number. */
		ne.seq = m->hdr.nlmsg_seq;
		rx_keep_error(rx, &ne);
		if (rx->batch_seq != 0 && m->hdr.nlmsg_seq == rx->batch_seq) {
			rx->batch_refused = 1;
			rx->done = 1;
		}
		if (rx->dump)
			rx->done = 1;
	}
	if (!rx->dump && rx->acks + rx->errors >= rx->expect_acks)
		rx->done = 1;
	return 0;
}

static void
rx_done(struct nl_rx *rx, const struct nl_msg *m)
{
	struct nl_error ne;
	int32_t v;

	if (!rx->dump)
		return;
	rx->done = 1;
	if (m->len < sizeof(v))
		return;
	memcpy(&v, m->data, sizeof(v));
	if (v == 0)
		return;
	error_clear(&ne);
	ne.code = v > 0 ? -v : v;
	if (ne.code < -4095)
		ne.code = -EBOX_PROTO;
	ne.seq = m->hdr.nlmsg_seq;
	ne.type = m->hdr.nlmsg_type;
	if (m->hdr.nlmsg_flags & NLM_F_ACK_TLVS)
		parse_tlvs(&ne, m->data + sizeof(v), m->len - sizeof(v));
	rx->errors++;
	rx_keep_error(rx, &ne);
}

static int
rx_one(struct nl_rx *rx, const struct nl_msg *m)
{
	uint32_t seq = m->hdr.nlmsg_seq;
	int r;

	if (rx->portid != 0 && m->hdr.nlmsg_pid != 0 &&
	    m->hdr.nlmsg_pid != rx->portid) {
		rx->stale++;
		return 0;
	}
	if ((seq < rx->seq_lo || seq > rx->seq_hi) &&
	    (rx->batch_seq == 0 || seq != rx->batch_seq)) {
		rx->stale++;
		return 0;
	}
	switch (m->hdr.nlmsg_type) {
	case NLMSG_NOOP:
		return 0;
	case NLMSG_ERROR:
		return rx_error(rx, m);
	case NLMSG_DONE:
		rx_done(rx, m);
		return 0;
	case NLMSG_OVERRUN:
		return -EBOX_PROTO;
	}
	if (m->hdr.nlmsg_type < NLMSG_MIN_TYPE)
		return 0;
	rx->ndata++;
	if (m->hdr.nlmsg_flags & NLM_F_DUMP_INTR)
		rx->intr = 1;
	if (rx->fn != NULL && rx->cb_err == 0) {
		r = rx->fn(m, rx->arg);
		if (r < 0)
			rx->cb_err = r;
	}
	return 0;
}

int
nl_msg_at(const void *buf, size_t n, size_t *off, struct nl_msg *m)
{
	const unsigned char *p = buf;
	size_t left, adv;

	if (p == NULL || *off >= n)
		return 0;
	left = n - *off;
	if (left < sizeof(m->hdr))
		return -EBOX_PROTO;
	memcpy(&m->hdr, p + *off, sizeof(m->hdr));
	if (m->hdr.nlmsg_len < NL_HDRLEN || m->hdr.nlmsg_len > left)
		return -EBOX_PROTO;
	m->data = p + *off + NL_HDRLEN;
	m->len = m->hdr.nlmsg_len - NL_HDRLEN;
	adv = NL_ALIGN(m->hdr.nlmsg_len);
	*off += adv > left ? left : adv;
	return 1;
}

int
nl_rx_feed(struct nl_rx *rx, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	struct nl_msg m;
	size_t adv;
	int r;

	if (p == NULL)
		n = 0;
	while (n >= sizeof(m.hdr) && !rx->done) {
		memcpy(&m.hdr, p, sizeof(m.hdr));
		if (m.hdr.nlmsg_len < NL_HDRLEN || m.hdr.nlmsg_len > n)
			return -EBOX_PROTO;
		m.data = p + NL_HDRLEN;
		m.len = m.hdr.nlmsg_len - NL_HDRLEN;
		if ((r = rx_one(rx, &m)) < 0)
			return r;
		adv = NL_ALIGN(m.hdr.nlmsg_len);
		if (adv > n)
			adv = n;
		p += adv;
		n -= adv;
	}
	if (!rx->done && n != 0)
		return -EBOX_PROTO;
	return rx->done;
}

const char *
nl_error_str(const struct nl_error *ne, char *dst, size_t cap)
{
	if (ne->msg[0] != '\0')
		snprintf(dst, cap, "%s (kernel: %s)", err_str(ne->code),
		    ne->msg);
	else
		snprintf(dst, cap, "%s", err_str(ne->code));
	return dst;
}

/* ---------------------------------------------------------------- socket */

int
nl_open(struct nl_sock *s, int proto, struct box_err *e)
{
	struct sockaddr_nl sa;
	socklen_t sl = sizeof(sa);
	int one = 1, buf = 1 << 20;

	s->fd = -1;
	s->proto = proto;
	s->broken = 0;
	s->timeout_ms = NL_TIMEOUT_MS;
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (s->fd < 0)
		return err_set(e, -errno, "netlink socket: %s",
		    strerror(errno));
	/*
	 * Extended ACKs (kernel >= 4.12) give us the kernel's own words;
	 * capped ACKs keep an error reply small.  Both are best effort.
	 */
	(void)setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one,
	    sizeof(one));
	(void)setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one,
	    sizeof(one));
	/* Room for one ACK per message of a large batch. */
	(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	(void)setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &sl) != 0) {
		int r = -errno;

		nl_close(s);
		return err_set(e, r, "netlink bind: %s", strerror(-r));
	}
	s->portid = sa.nl_pid;
	s->seq = (uint32_t)time(NULL);
	if (s->seq == 0)
		s->seq = 1;
	return 0;
}

void
nl_close(struct nl_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

uint32_t
nl_seq_take(struct nl_sock *s, uint32_t n)
{
	uint32_t first;

	/* Keep the whole range clear of 0 and of the wrap. */
	if (s->seq == 0 || s->seq > UINT32_MAX - n - 1)
		s->seq = 1;
	first = s->seq;
	s->seq += n;
	return first;
}

int
nl_send(struct nl_sock *s, const void *buf, size_t n, struct box_err *e)
{
	struct sockaddr_nl sa;
	ssize_t w;

	if (s->fd < 0)
		return err_set(e, -EBADF, "netlink send: socket not open");
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	do
		w = sendto(s->fd, buf, n, 0, (struct sockaddr *)&sa,
		    sizeof(sa));
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return err_set(e, -errno, "netlink send: %s", strerror(errno));
	if ((size_t)w != n)
		return err_set(e, -EIO, "netlink send: short write");
	return 0;
}

/* Wait up to ms for input: 1 ready, 0 timed out, < 0 error. */
static int
wait_in(int fd, int ms)
{
	long long end = clock_ms() + ms, left;
	struct pollfd pfd;
	int r;

	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		left = end - clock_ms();
		if (left < 0)
			left = 0;
		r = poll(&pfd, 1, (int)left);
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

int
nl_recv(struct nl_sock *s, struct box_err *e)
{
	struct sockaddr_nl sa;
	struct iovec iov;
	struct msghdr mh;
	ssize_t n;
	int r;

	if (s->fd < 0)
		return err_set(e, -EBADF, "netlink receive: socket not open");
	for (;;) {
		r = wait_in(s->fd, s->timeout_ms);
		if (r == 0) {
			s->broken = 1;
			return err_set(e, -ETIMEDOUT, "netlink receive: the "
			    "kernel did not answer within %d ms",
			    s->timeout_ms);
		}
		if (r < 0)
			break;
		iov.iov_base = s->rbuf;
		iov.iov_len = sizeof(s->rbuf);
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &sa;
		mh.msg_namelen = sizeof(sa);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		n = recvmsg(s->fd, &mh, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (mh.msg_flags & MSG_TRUNC) {
			s->broken = 1;
			return err_set(e, -EMSGSIZE, "netlink receive: a reply "
			    "exceeds %d bytes", NL_RECV_SIZE);
		}
		/* Only the kernel (port 0) speaks to us. */
		if (mh.msg_namelen != sizeof(sa) || sa.nl_pid != 0)
			continue;
		return (int)n;
	}
	s->broken = 1;
	return err_set(e, r, "netlink receive: %s", strerror(-r));
}

/* Run rx to completion over the socket. */
static int
talk(struct nl_sock *s, struct nl_rx *rx, int batch, const char *what,
    struct box_err *e)
{
	int n, r;

	while (!rx->done) {
		/*
		 * A failed batch: all its replies were queued before
		 * sendmsg() returned, so an empty socket means no more.
		 */
		if (batch && rx->errors > 0 && wait_in(s->fd, 0) == 0)
			break;
		if ((n = nl_recv(s, e)) < 0) {
			err_context(e, "%s", what);
			return n;
		}
		if ((r = nl_rx_feed(rx, s->rbuf, (size_t)n)) < 0) {
			s->broken = 1;
			return err_set(e, r, "%s: malformed netlink reply",
			    what);
		}
	}
	return 0;
}

static uint32_t
req_seq(const void *req, size_t n)
{
	struct nlmsghdr h;

	if (n < sizeof(h))
		return 0;
	memcpy(&h, req, sizeof(h));
	return h.nlmsg_seq;
}

static int
finish(struct nl_rx *rx, struct nl_error *ne, const char *what,
    struct box_err *e)
{
	char why[NL_ERRMSG_MAX + 64];

	if (ne != NULL)
		*ne = rx->first;
	if (rx->first.code != 0)
		return err_set(e, rx->first.code, "%s: %s", what,
		    nl_error_str(&rx->first, why, sizeof(why)));
	if (rx->cb_err != 0)
		return err_set(e, rx->cb_err, "%s: %s", what,
		    err_str(rx->cb_err));
	return 0;
}

int
nl_request(struct nl_sock *s, const void *req, size_t n, nl_msg_fn fn,
    void *arg, struct nl_error *ne, const char *what, struct box_err *e)
{
	uint32_t seq = req_seq(req, n);
	struct nl_rx rx;
	int r;

	nl_rx_init(&rx, s->portid, seq, seq);
	rx.expect_acks = 1;
	rx.fn = fn;
	rx.arg = arg;
	if ((r = nl_send(s, req, n, e)) < 0 ||
	    (r = talk(s, &rx, 0, what, e)) < 0)
		return r;
	return finish(&rx, ne, what, e);
}

int
nl_dump(struct nl_sock *s, const void *req, size_t n, nl_msg_fn fn,
    void *arg, struct nl_error *ne, const char *what, struct box_err *e)
{
	uint32_t seq = req_seq(req, n);
	struct nl_rx rx;
	int r;

	nl_rx_init(&rx, s->portid, seq, seq);
	rx.dump = 1;
	rx.fn = fn;
	rx.arg = arg;
	if ((r = nl_send(s, req, n, e)) < 0 ||
	    (r = talk(s, &rx, 0, what, e)) < 0)
		return r;
	if (rx.first.code == 0 && rx.cb_err == 0 && rx.intr) {
		/* Retriable: leave e clear for the caller's next attempt. */
		if (ne != NULL)
			*ne = rx.first;
		return -EINTR;
	}
	return finish(&rx, ne, what, e);
}

int
nl_batch_talk(struct nl_sock *s, const void *buf, size_t n,
    uint32_t seq_first, uint32_t seq_last, struct nl_error *ne,
    unsigned *nerr, struct box_err *e)
{
	struct nl_rx rx;
	int r;

	if (seq_last < seq_first + 1)
		return err_set(e, -EINVAL, "netlink batch: bad sequence range");
	nl_rx_init(&rx, s->portid, seq_first + 1, seq_last - 1);
	rx.batch_seq = seq_first;
	rx.expect_acks = seq_last - seq_first - 1;
	if (rx.expect_acks == 0)
		rx.done = 1;
	if ((r = nl_send(s, buf, n, e)) < 0 ||
	    (r = talk(s, &rx, 1, "netlink batch", e)) < 0)
		return r;
	if (ne != NULL)
		*ne = rx.first;
	if (nerr != NULL)
		*nerr = rx.errors;
	return rx.first.code;
}
