/*
 * nl.h - a small, libmnl-shaped netlink core.
 *
 * Three parts, usable separately:
 *
 *  1. Builders (struct nl_buf) that write netlink messages and attributes
 *     into a caller-provided buffer of a stated size.  They refuse rather
 *     than overflow: a write that does not fit returns -ENOSPC, an attribute
 *     or nest longer than 65535 bytes returns -EMSGSIZE, and the first
 *     refusal is sticky (later writes become no-ops that return the same
 *     code), so a long message can be written straight through and checked
 *     once with nl_buf_err().  NFNL batch begin/end markers are here too.
 *
 *  2. A pure, bounded reply parser (struct nl_rx, nl_rx_feed()) and an
 *     attribute walker (nl_attr_*).  They take (pointer, length), validate
 *     every nlmsg_len and nla_len against what is left, never read a byte
 *     past the buffer, never assume alignment of the input (headers are
 *     copied out with memcpy), and never allocate.  The fuzzer drives them.
 *
 *  3. A socket wrapper (struct nl_sock) that opens NETLINK_ROUTE or
 *     NETLINK_NETFILTER with extended ACKs, numbers requests, sends, and
 *     reads replies with a poll() timeout on every read: one request and
 *     its ACK (nl_request), a dump with multipart replies (nl_dump), or a
 *     batch whose every message asks for an ACK (nl_batch_talk).  Kernel
 *     errors come back as a struct nl_error: which request failed (its
 *     sequence number and type), the errno, and the kernel's extended-ACK
 *     text and attribute offset when it sent them.
 *
 * Conventions: functions return 0 (or a count) on success and a negative
 * errno-style code on failure (util/err.h).  Nothing here prints.
 */
#ifndef BOX_NL_H
#define BOX_NL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "util/err.h"

#define NL_ALIGN(n)	(((size_t)(n) + 3u) & ~(size_t)3u)
#define NL_HDRLEN	NL_ALIGN(sizeof(struct nlmsghdr))	/* 16 */
#define NL_ATTR_HDRLEN	NL_ALIGN(sizeof(struct nlattr))		/* 4 */
#define NL_ATTR_MAXLEN	65535u	/* nla_len is 16 bits, header included */

/*
 * Receive buffer size.  The kernel sizes dump skbs to at most 32 KiB
 * (libmnl's MNL_SOCKET_DUMP_SIZE); a datagram longer than this is reported
 * as -EMSGSIZE, never silently truncated.
 */
#define NL_RECV_SIZE	32768
#define NL_TIMEOUT_MS	5000	/* default per-read timeout */
#define NL_ERRMSG_MAX	160	/* kernel extended-ACK text kept */

/* ----------------------------------------------------------------- builders */

struct nl_buf {
	unsigned char *p;	/* caller's buffer */
	size_t cap;		/* its size */
	size_t len;		/* bytes written, the open message included */
	size_t msg;		/* offset of the open message's header */
	int open;		/* a message is open (nl_msg_begin called) */
	int err;		/* sticky: first refusal, 0 while fine */
	uint32_t nmsg;		/* messages begun */
};

/* Start writing into p[0..cap).  p needs no particular alignment. */
void nl_buf_init(struct nl_buf *b, void *p, size_t cap);

/* The sticky error (0, -ENOSPC, -EMSGSIZE or -EINVAL). */
int nl_buf_err(const struct nl_buf *b);

/*
 * Open a new message at the end of the buffer (messages are packed back to
 * back, each 4-byte aligned, as a batch needs).  flags gets NLM_F_REQUEST
 * added.  The header's nlmsg_len is kept current by every later put.
 */
int nl_msg_begin(struct nl_buf *b, uint16_t type, uint16_t flags,
    uint32_t seq);

/*
 * Append a fixed family header (struct nfgenmsg, ifinfomsg, rtmsg, ...) of
 * n bytes to the open message, zero-padded to 4 bytes.  Returns a pointer
 * to the zeroed bytes so the caller can fill them, or NULL on refusal.
 * The pointer may be unaligned if the caller's buffer is; fill it with
 * memcpy when in doubt.
 */
void *nl_msg_extra(struct nl_buf *b, size_t n);

/* Close the open message (a no-op check: lengths are always current). */
int nl_msg_end(struct nl_buf *b);

/* Attribute puts: append to the open message.  Integers in host order. */
int nl_put(struct nl_buf *b, uint16_t type, const void *data, size_t n);
int nl_put_u8(struct nl_buf *b, uint16_t type, uint8_t v);
int nl_put_u16(struct nl_buf *b, uint16_t type, uint16_t v);
int nl_put_u32(struct nl_buf *b, uint16_t type, uint32_t v);
int nl_put_u64(struct nl_buf *b, uint16_t type, uint64_t v);
/* Network byte order (nf_tables wants these). */
int nl_put_be16(struct nl_buf *b, uint16_t type, uint16_t v);
int nl_put_be32(struct nl_buf *b, uint16_t type, uint32_t v);
int nl_put_be64(struct nl_buf *b, uint16_t type, uint64_t v);
/* A string with its terminating NUL. */
int nl_put_str(struct nl_buf *b, uint16_t type, const char *s);

/*
 * Nested attributes.  nl_nest_begin() returns the nest's offset in the
 * buffer (never 0) or 0 on refusal; NLA_F_NESTED is set on the type.
 * nl_nest_end() fixes the nest's length (-EMSGSIZE when it exceeds 65535);
 * handed 0 it only reports the sticky error.  Nests may be nested.
 */
size_t nl_nest_begin(struct nl_buf *b, uint16_t type);
int nl_nest_end(struct nl_buf *b, size_t nest);

/*
 * NFNL batch markers (NFNL_MSG_BATCH_BEGIN / _END, res_id
 * NFNL_SUBSYS_NFTABLES) as whole messages.
 */
int nl_batch_begin(struct nl_buf *b, uint32_t seq);
int nl_batch_end(struct nl_buf *b, uint32_t seq);

/*
 * Open an nfnetlink message: type (subsys << 8 | msg), then a struct
 * nfgenmsg with the family, version 0 and res_id 0.
 */
int nl_nfmsg_begin(struct nl_buf *b, uint16_t subsys, uint8_t msg,
    uint8_t family, uint16_t flags, uint32_t seq);

/* ------------------------------------------------------- attribute walker */

/* One attribute as seen in a buffer: no pointer into it is dereferenced. */
struct nl_attr {
	const unsigned char *data;	/* payload */
	uint16_t len;			/* payload length */
	uint16_t type;			/* NLA_TYPE_MASK applied */
	uint16_t flags;			/* NLA_F_NESTED / NLA_F_NET_BYTEORDER */
	uint8_t present;		/* set by nl_attr_parse() */
};

struct nl_attr_iter {
	const unsigned char *p;
	size_t left;
};

/* Walk the attributes in p[0..n). */
void nl_attr_iter_init(struct nl_attr_iter *it, const void *p, size_t n);
/* Iterate a nest's contents. */
void nl_attr_iter_nested(struct nl_attr_iter *it, const struct nl_attr *a);
/*
 * Next attribute: 1 and *a filled, 0 at the end, -EBOX_PROTO when an
 * attribute's length is below 4 or runs past the end.  Trailing bytes
 * shorter than an attribute header are treated as padding (end).
 */
int nl_attr_next(struct nl_attr_iter *it, struct nl_attr *a);

/*
 * Index the attributes in p[0..n) by type into tb[0..ntb): tb is cleared
 * first, types >= ntb are skipped, a repeated type keeps the last one.
 * 0 or -EBOX_PROTO.
 */
int nl_attr_parse(const void *p, size_t n, struct nl_attr *tb, size_t ntb);
int nl_attr_parse_nested(const struct nl_attr *a, struct nl_attr *tb,
    size_t ntb);

/*
 * Typed reads.  Each returns 0, -ENOENT when a is NULL or not present, or
 * -EBOX_PROTO when the payload has the wrong size.
 */
int nl_attr_u8(const struct nl_attr *a, uint8_t *v);
int nl_attr_u16(const struct nl_attr *a, uint16_t *v);
int nl_attr_u32(const struct nl_attr *a, uint32_t *v);
int nl_attr_be16(const struct nl_attr *a, uint16_t *v);
int nl_attr_be32(const struct nl_attr *a, uint32_t *v);
int nl_attr_be64(const struct nl_attr *a, uint64_t *v);
/*
 * Copy a string payload (up to its first NUL, or all of it when it has
 * none) into dst[0..cap), always NUL-terminated.  -ENAMETOOLONG when it
 * does not fit (dst then holds "").
 */
int nl_attr_str(const struct nl_attr *a, char *dst, size_t cap);

/* --------------------------------------------------------- reply parser */

/* One netlink message handed to a callback. */
struct nl_msg {
	struct nlmsghdr hdr;		/* copied out of the buffer */
	const unsigned char *data;	/* payload (after the 16-byte header) */
	size_t len;			/* payload length */
};

/*
 * Index the attributes that follow a fixed family header of hdrlen bytes
 * (e.g. sizeof(struct nfgenmsg)).  -EBOX_PROTO when the payload is shorter
 * than the family header or the attributes are malformed.
 */
int nl_msg_attrs(const struct nl_msg *m, size_t hdrlen, struct nl_attr *tb,
    size_t ntb);

/*
 * The message at buf[*off] of n bytes (a batch we built, a datagram):
 * 1 and *m with *off moved past it, 0 at the end, -EBOX_PROTO when its
 * length is impossible.
 */
int nl_msg_at(const void *buf, size_t n, size_t *off, struct nl_msg *m);

/* A kernel error reply, decoded. */
struct nl_error {
	int code;		/* negative errno; 0 = no error recorded */
	uint32_t seq;		/* sequence number of the failed request */
	uint16_t type;		/* its nlmsg_type */
	uint32_t offs;		/* NLMSGERR_ATTR_OFFS; UINT32_MAX: none */
	char msg[NL_ERRMSG_MAX];	/* NLMSGERR_ATTR_MSG, or "" */
};

/* Data messages: return 0 to go on, < 0 to fail (the error is kept). */
typedef int (*nl_msg_fn)(const struct nl_msg *m, void *arg);

/*
 * Reply state machine.  Set the fields marked "in", zero the rest (or use
 * nl_rx_init()), then feed it whole datagrams.
 *
 * Ack mode (dump == 0): finished when expect_acks ACK/error replies for
 * sequence numbers in [seq_lo, seq_hi] have arrived, or when an error
 * answers batch_seq (the kernel refused the batch as a whole).
 * Dump mode (dump == 1): finished at NLMSG_DONE (its embedded error, if
 * any, is recorded) or at an error reply.
 * Messages whose sequence number lies outside [seq_lo, seq_hi] (and is not
 * batch_seq), or whose port id is non-zero and not ours, are stale and are
 * skipped (counted in .stale).  Data messages go to fn; NLM_F_DUMP_INTR on
 * any of them sets .intr.  After a callback failure the remaining messages
 * are still consumed (so the socket stays in step) but not delivered.
 */
struct nl_rx {
	/* in */
	uint32_t portid;	/* 0 = do not check */
	uint32_t seq_lo, seq_hi;
	uint32_t batch_seq;	/* 0 = none */
	unsigned expect_acks;
	int dump;
	nl_msg_fn fn;
	void *arg;
	/* out */
	unsigned acks;		/* ACKs (error 0) */
	unsigned errors;	/* error replies */
	unsigned stale;
	unsigned ndata;		/* data messages seen */
	int intr;		/* NLM_F_DUMP_INTR seen: dump inconsistent */
	int done;		/* finished */
	int cb_err;		/* first callback failure */
	int batch_refused;	/* the error answered batch_seq */
	struct nl_error first;	/* lowest-sequence error reply */
};

void nl_rx_init(struct nl_rx *rx, uint32_t portid, uint32_t seq_lo,
    uint32_t seq_hi);

/*
 * Consume one datagram buf[0..n).  Returns 1 when the exchange is finished,
 * 0 when more is expected, -EBOX_PROTO when the datagram is malformed (a
 * message length below 16 or past the end; an error reply shorter than
 * struct nlmsgerr).  Does not allocate; reads only inside buf[0..n).
 */
int nl_rx_feed(struct nl_rx *rx, const void *buf, size_t n);

/*
 * Decode the payload of an NLMSG_ERROR message into *ne (code 0 for an
 * ACK).  -EBOX_PROTO when it is too short.  Extended-ACK TLVs that are
 * malformed are ignored, not fatal: the errno is what counts.
 */
int nl_parse_error(const struct nl_msg *m, struct nl_error *ne);

/* ---------------------------------------------------------------- socket */

struct nl_sock {
	int fd;			/* -1 when closed */
	int proto;		/* NETLINK_ROUTE, NETLINK_NETFILTER */
	uint32_t portid;	/* our address, from getsockname() */
	uint32_t seq;		/* next sequence number to use */
	int timeout_ms;		/* per read; NL_TIMEOUT_MS after nl_open() */
	int broken;		/* sticky: a reply was malformed or lost */
	_Alignas(8) unsigned char rbuf[NL_RECV_SIZE];
};

/*
 * Open and bind a netlink socket of protocol proto, with NETLINK_EXT_ACK
 * and NETLINK_CAP_ACK set (so error replies carry the kernel's text but
 * not a copy of our whole request).  On failure s->fd is -1.
 */
int nl_open(struct nl_sock *s, int proto, struct box_err *e);
/*
 * Close (idempotent).  Closing a NETLINK_NETFILTER socket within ~20 ms of
 * an nf_tables transaction blocks for an RCU grace period (the kernel
 * flushes its deferred destroy work on release: 10-20 ms on this machine
 * kind).  Callers that have more to do keep the socket open meanwhile.
 */
void nl_close(struct nl_sock *s);

/* Reserve n consecutive sequence numbers; returns the first. */
uint32_t nl_seq_take(struct nl_sock *s, uint32_t n);

/* Send buf[0..n) as one datagram. */
int nl_send(struct nl_sock *s, const void *buf, size_t n, struct box_err *e);

/*
 * Read one datagram into s->rbuf, waiting at most s->timeout_ms
 * (-ETIMEDOUT).  Returns its length.  A datagram larger than the buffer is
 * -EMSGSIZE.  Any failure marks the socket broken.
 */
int nl_recv(struct nl_sock *s, struct box_err *e);

/*
 * Send one request (built with NLM_F_ACK set) and read replies until its
 * ACK or error, handing data messages to fn.  0 when acknowledged; the
 * kernel's errno (< 0) when it refused, with *ne filled (ne may be NULL)
 * and e set to "<what>: <strerror>[: <kernel text>]".
 */
int nl_request(struct nl_sock *s, const void *req, size_t n, nl_msg_fn fn,
    void *arg, struct nl_error *ne, const char *what, struct box_err *e);

/*
 * Send a dump request (NLM_F_DUMP set by the caller) and hand every data
 * message to fn until NLMSG_DONE.  Returns 0, the kernel's errno, a
 * callback's error, or -EINTR when the kernel flagged the dump as
 * interrupted (NLM_F_DUMP_INTR: the object set changed while it was being
 * read).  On -EINTR the caller must discard what fn collected and dump
 * again; the socket is left in step either way.
 */
int nl_dump(struct nl_sock *s, const void *req, size_t n, nl_msg_fn fn,
    void *arg, struct nl_error *ne, const char *what, struct box_err *e);

/*
 * Send a whole batch (begin marker at seq_first, end marker at seq_last,
 * every message in between with NLM_F_ACK) and collect one ACK or error per
 * inner message.  The kernel applies a batch all-or-nothing and delivers
 * all its replies before sendmsg() returns, so once an error has arrived
 * the exchange ends as soon as the socket holds no more replies.
 * Returns 0 when every message was acknowledged, else the first failing
 * message's errno with *ne describing it (ne->seq identifies the message;
 * ne->seq == seq_first means the kernel refused the batch as a whole).
 * e is left alone on a kernel refusal: the caller knows what the message
 * was and sets it (see nl_error_str()).  *nerr gets the number of error
 * replies when nerr is not NULL.
 */
int nl_batch_talk(struct nl_sock *s, const void *buf, size_t n,
    uint32_t seq_first, uint32_t seq_last, struct nl_error *ne,
    unsigned *nerr, struct box_err *e);

/*
 * "<strerror>" or "<strerror> (kernel: <text>)" into dst[0..cap); returns
 * dst.
 */
const char *nl_error_str(const struct nl_error *ne, char *dst, size_t cap);

#endif
