/* Unit tests for net/nl: builders, attribute walker, reply parser. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>

#include "net/nl.h"
#include "t.h"

/* ------------------------------------------------------------- builders */

TEST(nl_batch_markers_kat)
{
	/* What nft sends: len 20, type 16/17, flags REQUEST, res_id 10. */
	static const unsigned char want[] = {
		0x14, 0, 0, 0, 0x10, 0, 0x01, 0, 7, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0x0a,
		0x14, 0, 0, 0, 0x11, 0, 0x01, 0, 8, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0x0a,
	};
	unsigned char buf[64];
	struct nl_buf b;

	nl_buf_init(&b, buf, sizeof(buf));
	CHECK_INT(nl_batch_begin(&b, 7), 0);
	CHECK_INT(nl_batch_end(&b, 8), 0);
	CHECK_MEM(buf, b.len, want, sizeof(want));
}

TEST(nl_attrs_and_nests_kat)
{
	static const unsigned char want[] = {
		/* header: len 56, type 0x1234, flags REQUEST|ACK, seq 9 */
		56, 0, 0, 0, 0x34, 0x12, 0x05, 0, 9, 0, 0, 0, 0, 0, 0, 0,
		/* extra header of 3 bytes, padded */
		0xaa, 0xbb, 0xcc, 0,
		/* u8 type 1 */
		5, 0, 1, 0, 0x7f, 0, 0, 0,
		/* be32 type 2 */
		8, 0, 2, 0, 0x01, 0x02, 0x03, 0x04,
		/* nest type 3 { str type 4 "ab" } */
		12, 0, 3, 0x80, 7, 0, 4, 0, 'a', 'b', 0, 0,
		/* be16 type 5 */
		6, 0, 5, 0, 0x12, 0x34, 0, 0,
	};
	unsigned char buf[128], *x;
	struct nl_buf b;
	size_t n;

	memset(buf, 0xee, sizeof(buf));
	nl_buf_init(&b, buf, sizeof(buf));
	CHECK_INT(nl_msg_begin(&b, 0x1234, NLM_F_ACK, 9), 0);
	x = nl_msg_extra(&b, 3);
	CHECK(x != NULL);
	x[0] = 0xaa, x[1] = 0xbb, x[2] = 0xcc;
	CHECK_INT(nl_put_u8(&b, 1, 0x7f), 0);
	CHECK_INT(nl_put_be32(&b, 2, 0x01020304), 0);
	n = nl_nest_begin(&b, 3);
	CHECK(n != 0);
	CHECK_INT(nl_put_str(&b, 4, "ab"), 0);
	CHECK_INT(nl_nest_end(&b, n), 0);
	CHECK_INT(nl_put_be16(&b, 5, 0x1234), 0);
	CHECK_INT(nl_msg_end(&b), 0);
	CHECK_MEM(buf, b.len, want, sizeof(want));
	CHECK_INT(buf[b.len], 0xee);
}

/* Every capacity below what a message needs is refused, without a byte
 * written past the capacity; the exact size succeeds. */
TEST(nl_builder_refuses_every_short_buffer)
{
	unsigned char buf[256];
	struct nl_buf b;
	size_t cap, need = 0, n, i;
	int r;

	for (cap = 0; cap <= 80; cap++) {
		memset(buf, 0xee, sizeof(buf));
		nl_buf_init(&b, buf, cap);
		nl_msg_begin(&b, 100, 0, 1);
		nl_put_u32(&b, 1, 0xdeadbeef);
		n = nl_nest_begin(&b, 2);
		nl_put_str(&b, 3, "hello world");
		nl_put_u64(&b, 4, 1);
		nl_nest_end(&b, n);
		r = nl_msg_end(&b);
		for (i = cap; i < sizeof(buf); i++)
			if (buf[i] != 0xee)
				break;
		CHECK_INT(i, sizeof(buf));
		CHECK(b.len <= cap);
		if (r == 0 && need == 0)
			need = cap;
		if (need == 0) {
			CHECK_INT(r, -ENOSPC);
			CHECK_INT(nl_buf_err(&b), -ENOSPC);
		}
	}
	/* header 16 + u32 8 + nest (4 + str 16 + u64 12) = 56 */
	CHECK_INT(need, 56);
}

TEST(nl_builder_error_is_sticky)
{
	unsigned char buf[24];
	struct nl_buf b;

	nl_buf_init(&b, buf, sizeof(buf));
	CHECK_INT(nl_msg_begin(&b, 100, 0, 1), 0);
	CHECK_INT(nl_put_u64(&b, 1, 1), -ENOSPC);	/* needs 12, 8 left */
	/* A smaller put would fit, but the message is already incomplete. */
	CHECK_INT(nl_put_u8(&b, 2, 1), -ENOSPC);
	CHECK(nl_nest_begin(&b, 3) == 0);
	CHECK_INT(nl_nest_end(&b, 0), -ENOSPC);
	CHECK_INT(b.len, 16);
}

TEST(nl_builder_refuses_oversized_attr_and_nest)
{
	static unsigned char big[70000], buf[140000];
	struct nl_buf b;
	size_t n;

	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, 100, 0, 1);
	CHECK_INT(nl_put(&b, 1, big, 65531), 0);	/* 4 + 65531 max */
	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, 100, 0, 1);
	CHECK_INT(nl_put(&b, 1, big, 65532), -EMSGSIZE);

	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, 100, 0, 1);
	n = nl_nest_begin(&b, 2);
	CHECK_INT(nl_put(&b, 1, big, 40000), 0);
	CHECK_INT(nl_put(&b, 1, big, 40000), 0);
	CHECK_INT(nl_nest_end(&b, n), -EMSGSIZE);
	CHECK_INT(nl_buf_err(&b), -EMSGSIZE);
}

TEST(nl_builder_refuses_out_of_order)
{
	unsigned char buf[64];
	struct nl_buf b;

	nl_buf_init(&b, buf, sizeof(buf));
	CHECK_INT(nl_put_u32(&b, 1, 1), -EINVAL);	/* no message open */
	nl_buf_init(&b, buf, sizeof(buf));
	CHECK(nl_msg_extra(&b, 4) == NULL);
	CHECK_INT(nl_buf_err(&b), -EINVAL);
	nl_buf_init(&b, NULL, 100);
	CHECK_INT(nl_msg_begin(&b, 1, 0, 1), -ENOSPC);
}

TEST(nl_nfmsg_header)
{
	static const unsigned char want[] = {
		20, 0, 0, 0, 0x06, 0x0a, 0x05, 0x0c, 3, 0, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0,
	};
	unsigned char buf[64];
	struct nl_buf b;

	nl_buf_init(&b, buf, sizeof(buf));
	nl_nfmsg_begin(&b, NFNL_SUBSYS_NFTABLES, 6, 1,
	    NLM_F_ACK | NLM_F_CREATE | NLM_F_APPEND, 3);
	CHECK_INT(nl_msg_end(&b), 0);
	CHECK_MEM(buf, b.len, want, sizeof(want));
}

/* ------------------------------------------------------ attribute walker */

TEST(nl_attr_walk_and_typed_reads)
{
	static const unsigned char p[] = {
		5, 0, 1, 0, 9, 0, 0, 0,			/* u8 */
		8, 0, 2, 0x40, 0, 0, 1, 0,		/* be32 256, NBO flag */
		12, 0, 3, 0x80, 8, 0, 1, 0, 'x', 'y', 'z', 0,	/* nest */
		6, 0, 4, 0, 'a', 'b',			/* last, unpadded */
	};
	struct nl_attr tb[5], in[2];
	uint32_t v32;
	uint8_t v8;
	uint16_t v16;
	char s[8];

	CHECK_INT(nl_attr_parse(p, sizeof(p), tb, 5), 0);
	CHECK(!tb[0].present);
	CHECK_INT(nl_attr_u8(&tb[1], &v8), 0);
	CHECK_INT(v8, 9);
	CHECK_INT(nl_attr_be32(&tb[2], &v32), 0);
	CHECK_INT(v32, 256);
	CHECK_INT(tb[2].flags, NLA_F_NET_BYTEORDER);
	CHECK_INT(tb[3].flags, NLA_F_NESTED);
	CHECK_INT(nl_attr_parse_nested(&tb[3], in, 2), 0);
	CHECK_INT(nl_attr_str(&in[1], s, sizeof(s)), 0);
	CHECK_STR(s, "xyz");
	/* no NUL in the payload: still a string */
	CHECK_INT(nl_attr_str(&tb[4], s, sizeof(s)), 0);
	CHECK_STR(s, "ab");
	CHECK_INT(nl_attr_str(&tb[4], s, 2), -ENAMETOOLONG);
	CHECK_STR(s, "");
	/* wrong sizes and absence */
	CHECK_INT(nl_attr_u32(&tb[1], &v32), -EBOX_PROTO);
	CHECK_INT(nl_attr_u16(&tb[0], &v16), -ENOENT);
	CHECK_INT(nl_attr_u16(NULL, &v16), -ENOENT);
}

TEST(nl_attr_walk_rejects_bad_lengths)
{
	static const unsigned char past[] = { 12, 0, 1, 0, 1, 2, 3, 4 };
	static const unsigned char small[] = { 2, 0, 1, 0, 8, 0, 1, 0 };
	static const unsigned char tail[] = { 5, 0, 1, 0, 1, 0, 0, 0, 9, 9 };
	struct nl_attr tb[2], a;
	struct nl_attr_iter it;

	CHECK_INT(nl_attr_parse(past, sizeof(past), tb, 2), -EBOX_PROTO);
	CHECK_INT(nl_attr_parse(small, sizeof(small), tb, 2), -EBOX_PROTO);
	/* trailing bytes shorter than a header end the walk */
	CHECK_INT(nl_attr_parse(tail, sizeof(tail), tb, 2), 0);
	CHECK(tb[1].present);
	nl_attr_iter_init(&it, past, sizeof(past));
	CHECK_INT(nl_attr_next(&it, &a), -EBOX_PROTO);
	CHECK_INT(nl_attr_next(&it, &a), 0);	/* stays ended */
	CHECK_INT(nl_attr_parse(NULL, 10, tb, 2), 0);
}

/* --------------------------------------------------------- reply parser */

/* Append a reply message: header + payload, aligned. */
static size_t
put_msg(unsigned char *buf, size_t off, uint16_t type, uint16_t flags,
    uint32_t seq, uint32_t pid, const void *pl, size_t n)
{
	struct nlmsghdr h;

	h.nlmsg_len = (uint32_t)(sizeof(h) + n);
	h.nlmsg_type = type;
	h.nlmsg_flags = flags;
	h.nlmsg_seq = seq;
	h.nlmsg_pid = pid;
	memcpy(buf + off, &h, sizeof(h));
	if (n > 0)
		memcpy(buf + off + sizeof(h), pl, n);
	memset(buf + off + sizeof(h) + n, 0, NL_ALIGN(n) - n);
	return off + NL_ALIGN(sizeof(h) + n);
}

/* An error/ACK payload for request (type, seq), capped, with TLVs. */
static size_t
err_payload(unsigned char *p, int error, uint16_t type, uint32_t seq,
    const char *text, uint32_t offs)
{
	struct nlmsgerr me;
	size_t n = sizeof(me), l;
	uint16_t a[2];

	memset(&me, 0, sizeof(me));
	me.error = error;
	me.msg.nlmsg_len = 100;
	me.msg.nlmsg_type = type;
	me.msg.nlmsg_seq = seq;
	memcpy(p, &me, sizeof(me));
	if (text != NULL) {
		l = strlen(text) + 1;
		a[0] = (uint16_t)(4 + l);
		a[1] = NLMSGERR_ATTR_MSG;
		memcpy(p + n, a, 4);
		memcpy(p + n + 4, text, l);
		memset(p + n + 4 + l, 0, NL_ALIGN(l) - l);
		n += 4 + NL_ALIGN(l);
	}
	if (offs != UINT32_MAX) {
		a[0] = 8;
		a[1] = NLMSGERR_ATTR_OFFS;
		memcpy(p + n, a, 4);
		memcpy(p + n + 4, &offs, 4);
		n += 8;
	}
	return n;
}

struct seen {
	int n;
	uint16_t types[8];
	int fail_at;
};

static int
on_data(const struct nl_msg *m, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->types[s->n] = m->hdr.nlmsg_type;
	s->n++;
	if (s->fail_at != 0 && s->n == s->fail_at)
		return -ENOSPC;
	return 0;
}

TEST(nl_rx_ack)
{
	unsigned char buf[256], pl[128];
	struct nl_rx rx;
	size_t n;

	n = put_msg(buf, 0, NLMSG_ERROR, NLM_F_CAPPED, 5, 77, pl,
	    err_payload(pl, 0, 0x0a00, 5, NULL, UINT32_MAX));
	nl_rx_init(&rx, 77, 5, 5);
	rx.expect_acks = 1;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.acks, 1);
	CHECK_INT(rx.errors, 0);
	CHECK_INT(rx.first.code, 0);
}

TEST(nl_rx_error_with_extack_text)
{
	unsigned char buf[256], pl[128];
	struct nl_rx rx;
	char txt[200];
	size_t n;

	n = put_msg(buf, 0, NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, 5, 0,
	    pl, err_payload(pl, -EOPNOTSUPP, RTM_NEWLINK, 5,
	    "Unknown device type", 36));
	nl_rx_init(&rx, 77, 5, 5);
	rx.expect_acks = 1;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.errors, 1);
	CHECK_INT(rx.first.code, -EOPNOTSUPP);
	CHECK_INT(rx.first.seq, 5);
	CHECK_INT(rx.first.type, RTM_NEWLINK);
	CHECK_INT(rx.first.offs, 36);
	CHECK_STR(rx.first.msg, "Unknown device type");
	CHECK_STR(nl_error_str(&rx.first, txt, sizeof(txt)),
	    "Operation not supported (kernel: Unknown device type)");
}

/* Without NETLINK_CAP_ACK the request is echoed before the TLVs. */
TEST(nl_rx_error_uncapped_echo)
{
	unsigned char buf[512], pl[256];
	struct nlmsgerr me;
	struct nl_rx rx;
	uint16_t a[2] = { 8, NLMSGERR_ATTR_MSG };
	size_t n;

	memset(pl, 0x5a, sizeof(pl));
	memset(&me, 0, sizeof(me));
	me.error = -EINVAL;
	me.msg.nlmsg_len = 40;		/* 16 header + 24 echoed bytes */
	me.msg.nlmsg_seq = 9;
	memcpy(pl, &me, sizeof(me));
	n = 4 + 40;
	memcpy(pl + n, a, 4);
	memcpy(pl + n + 4, "bad", 4);
	n += 8;
	n = put_msg(buf, 0, NLMSG_ERROR, NLM_F_ACK_TLVS, 9, 0, pl, n);
	nl_rx_init(&rx, 0, 9, 9);
	rx.expect_acks = 1;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.first.code, -EINVAL);
	CHECK_STR(rx.first.msg, "bad");
}

TEST(nl_rx_long_extack_text_is_truncated)
{
	unsigned char buf[1024], pl[800];
	char text[400];
	struct nl_rx rx;
	size_t n;

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	n = put_msg(buf, 0, NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, 5, 0,
	    pl, err_payload(pl, -EINVAL, 1, 5, text, UINT32_MAX));
	nl_rx_init(&rx, 0, 5, 5);
	rx.expect_acks = 1;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(strlen(rx.first.msg), NL_ERRMSG_MAX - 1);
}

TEST(nl_rx_multipart_dump)
{
	unsigned char buf[512], pl[64];
	struct seen s = { 0 };
	struct nl_rx rx;
	int32_t zero = 0;
	size_t n = 0;

	memset(pl, 0, sizeof(pl));
	n = put_msg(buf, n, RTM_NEWLINK, NLM_F_MULTI, 3, 0, pl, 16);
	n = put_msg(buf, n, RTM_NEWLINK, NLM_F_MULTI, 3, 0, pl, 20);
	nl_rx_init(&rx, 0, 3, 3);
	rx.dump = 1;
	rx.fn = on_data;
	rx.arg = &s;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 0);		/* more to come */
	n = put_msg(buf, 0, RTM_NEWLINK, NLM_F_MULTI, 3, 0, pl, 16);
	n = put_msg(buf, n, NLMSG_DONE, NLM_F_MULTI, 3, 0, &zero, 4);
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(s.n, 3);
	CHECK_INT(rx.ndata, 3);
	CHECK_INT(rx.first.code, 0);
	CHECK_INT(rx.intr, 0);
}

TEST(nl_rx_dump_intr_and_done_error)
{
	unsigned char buf[512], pl[64];
	struct nl_rx rx;
	int32_t err = -ENOENT;
	size_t n = 0;

	memset(pl, 0, sizeof(pl));
	n = put_msg(buf, n, 0x20, NLM_F_MULTI | NLM_F_DUMP_INTR, 3, 0, pl, 8);
	n = put_msg(buf, n, NLMSG_DONE, NLM_F_MULTI, 3, 0, &err, 4);
	nl_rx_init(&rx, 0, 3, 3);
	rx.dump = 1;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.intr, 1);
	CHECK_INT(rx.first.code, -ENOENT);
}

TEST(nl_rx_skips_stale_and_foreign)
{
	unsigned char buf[512], pl[128];
	struct seen s = { 0 };
	struct nl_rx rx;
	size_t n = 0;

	memset(pl, 0, sizeof(pl));
	n = put_msg(buf, n, 0x20, 0, 2, 0, pl, 8);	/* old sequence */
	n = put_msg(buf, n, 0x20, 0, 3, 99, pl, 8);	/* another port */
	n = put_msg(buf, n, NLMSG_NOOP, 0, 3, 0, pl, 0);
	n = put_msg(buf, n, 0x21, 0, 3, 77, pl, 8);
	n = put_msg(buf, n, NLMSG_ERROR, 0, 3, 77, pl,
	    err_payload(pl, 0, 0x21, 3, NULL, UINT32_MAX));
	nl_rx_init(&rx, 77, 3, 3);
	rx.expect_acks = 1;
	rx.fn = on_data;
	rx.arg = &s;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.stale, 2);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.types[0], 0x21);
}

TEST(nl_rx_rejects_malformed)
{
	unsigned char buf[256], pl[64];
	struct nlmsghdr h;
	struct nl_rx rx;
	size_t n;

	memset(pl, 0, sizeof(pl));
	/* nlmsg_len past the datagram */
	n = put_msg(buf, 0, 0x20, 0, 3, 0, pl, 8);
	nl_rx_init(&rx, 0, 3, 3);
	CHECK_INT(nl_rx_feed(&rx, buf, n - 4), -EBOX_PROTO);
	/* nlmsg_len below the header */
	memcpy(&h, buf, sizeof(h));
	h.nlmsg_len = 8;
	memcpy(buf, &h, sizeof(h));
	nl_rx_init(&rx, 0, 3, 3);
	CHECK_INT(nl_rx_feed(&rx, buf, n), -EBOX_PROTO);
	/* trailing bytes that are not a message */
	n = put_msg(buf, 0, 0x20, 0, 3, 0, pl, 8);
	nl_rx_init(&rx, 0, 3, 3);
	CHECK_INT(nl_rx_feed(&rx, buf, n + 6), -EBOX_PROTO);
	/* an error reply too short for struct nlmsgerr */
	n = put_msg(buf, 0, NLMSG_ERROR, 0, 3, 0, pl, 8);
	nl_rx_init(&rx, 0, 3, 3);
	CHECK_INT(nl_rx_feed(&rx, buf, n), -EBOX_PROTO);
	/* an empty datagram is just nothing */
	nl_rx_init(&rx, 0, 3, 3);
	CHECK_INT(nl_rx_feed(&rx, buf, 0), 0);
}

TEST(nl_rx_batch_first_error_wins)
{
	unsigned char buf[1024], pl[128];
	struct nl_rx rx;
	size_t n = 0;

	/* replies for messages 11..13 of a batch begun at 10; 13 and 12
	 * fail, in that order: the lowest sequence is reported */
	n = put_msg(buf, n, NLMSG_ERROR, NLM_F_CAPPED, 11, 0, pl,
	    err_payload(pl, 0, 0xa00, 11, NULL, UINT32_MAX));
	n = put_msg(buf, n, NLMSG_ERROR, NLM_F_CAPPED, 13, 0, pl,
	    err_payload(pl, -ENOENT, 0xa06, 13, NULL, UINT32_MAX));
	n = put_msg(buf, n, NLMSG_ERROR, NLM_F_CAPPED, 12, 0, pl,
	    err_payload(pl, -EOPNOTSUPP, 0xa06, 12, NULL, UINT32_MAX));
	nl_rx_init(&rx, 0, 11, 13);
	rx.batch_seq = 10;
	rx.expect_acks = 3;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.acks, 1);
	CHECK_INT(rx.errors, 2);
	CHECK_INT(rx.first.seq, 12);
	CHECK_INT(rx.first.code, -EOPNOTSUPP);
	CHECK_INT(rx.batch_refused, 0);
}

TEST(nl_rx_batch_refused_whole)
{
	unsigned char buf[256], pl[128];
	struct nl_rx rx;
	size_t n;

	n = put_msg(buf, 0, NLMSG_ERROR, NLM_F_CAPPED, 10, 0, pl,
	    err_payload(pl, -EPERM, 0x10, 10, NULL, UINT32_MAX));
	nl_rx_init(&rx, 0, 11, 20);
	rx.batch_seq = 10;
	rx.expect_acks = 10;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.batch_refused, 1);
	CHECK_INT(rx.first.code, -EPERM);
	CHECK_INT(rx.first.seq, 10);
}

TEST(nl_rx_callback_failure_drains)
{
	unsigned char buf[512], pl[64];
	struct seen s = { 0 };
	struct nl_rx rx;
	int32_t zero = 0;
	size_t n = 0;

	memset(pl, 0, sizeof(pl));
	s.fail_at = 1;
	n = put_msg(buf, n, 0x20, NLM_F_MULTI, 3, 0, pl, 8);
	n = put_msg(buf, n, 0x20, NLM_F_MULTI, 3, 0, pl, 8);
	n = put_msg(buf, n, NLMSG_DONE, NLM_F_MULTI, 3, 0, &zero, 4);
	nl_rx_init(&rx, 0, 3, 3);
	rx.dump = 1;
	rx.fn = on_data;
	rx.arg = &s;
	CHECK_INT(nl_rx_feed(&rx, buf, n), 1);
	CHECK_INT(rx.cb_err, -ENOSPC);
	CHECK_INT(s.n, 1);		/* not called again */
	CHECK_INT(rx.ndata, 2);		/* but consumed */
}

TEST(nl_msg_attrs_short_family_header)
{
	unsigned char pl[8] = { 0 };
	struct nl_attr tb[4];
	struct nl_msg m;

	memset(&m, 0, sizeof(m));
	m.data = pl;
	m.len = 2;
	CHECK_INT(nl_msg_attrs(&m, 4, tb, 4), -EBOX_PROTO);
	m.len = 4;
	CHECK_INT(nl_msg_attrs(&m, 4, tb, 4), 0);
}

/* Real replies captured from a kernel (the fuzz seed corpus) all parse. */
TEST(nl_rx_real_captures)
{
	static const char *names[] = {
		"links-0", "links-1", "links-2", "brports-0", "brports-1",
		"addrs-0", "routes-0", "extack-0", "nftchains-0",
		"nftrules-0", "nftrules-1", "nftnotable-0", "batchfail-0",
		"batchfail-35",
	};
	static unsigned char buf[65536];
	char path[512];
	struct nl_rx rx;
	size_t i, n;
	FILE *f;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_netlink/%s",
		    t_datadir(), names[i]);
		f = fopen(path, "rb");
		CHECK(f != NULL);
		if (f == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		nl_rx_init(&rx, 0, 0, UINT32_MAX);
		rx.dump = strncmp(names[i], "batch", 5) != 0 &&
		    strncmp(names[i], "extack", 6) != 0 &&
		    strncmp(names[i], "nftnotable", 10) != 0;
		rx.expect_acks = 1;
		CHECK(nl_rx_feed(&rx, buf, n) >= 0);
		if (strcmp(names[i], "extack-0") == 0) {
			CHECK_INT(rx.first.code, -EOPNOTSUPP);
			CHECK_STR(rx.first.msg, "Unknown device type");
		}
		if (strcmp(names[i], "batchfail-35") == 0) {
			CHECK_INT(rx.first.code, -EOPNOTSUPP);
			CHECK(rx.first.offs != UINT32_MAX);
		}
		if (strcmp(names[i], "nftnotable-0") == 0)
			CHECK_INT(rx.first.code, -ENOENT);
	}
}
