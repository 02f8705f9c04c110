/*
 * fuzz_netlink.c - the netlink reply parser under arbitrary bytes.
 *
 * One input is one datagram as recvmsg() would return it.  It goes through
 * the reply state machine in dump mode and in batch-ACK mode; every data
 * message reaches the attribute walker (recursively, as if every attribute
 * could be a nest) and every decoder of src/net (links, bridge ports,
 * addresses, routes, nf_tables tables, chains and rules), and the whole
 * datagram is folded into one IPv4 picture (net/ip4.h), message by message
 * and through ip4_feed(), with its tables nearly full so the bounds are
 * reached.  A second pass
 * runs on a copy shifted by one byte, so the parser never relies on
 * alignment.  Seeds: replies captured from a real kernel.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/nfnetlink.h>

#include "net/ip4.h"
#include "net/ip4_test.h"
#include "net/nft.h"
#include "net/rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;
static struct ip4_picture pic;

/* An almost full picture: a few entries more reach -ENOSPC. */
static void
pic_reset(void)
{
	pic.nlink = IP4_MAX_LINKS - 2;
	pic.naddr = IP4_MAX_ADDRS - 2;
	pic.nroute = IP4_MAX_ROUTES - 2;
}

static unsigned
walk(const void *p, size_t n, int depth)
{
	struct nl_attr_iter it;
	struct nl_attr a;
	unsigned sum = 0;
	uint32_t v;
	char s[32];

	nl_attr_iter_init(&it, p, n);
	while (nl_attr_next(&it, &a) > 0) {
		sum += a.type + a.len;
		if (nl_attr_u32(&a, &v) == 0)
			sum += v;
		if (nl_attr_str(&a, s, sizeof(s)) == 0)
			sum += (unsigned)strlen(s);
		if (depth < 8 && a.len >= 4)
			sum += walk(a.data, a.len, depth + 1);
	}
	return sum;
}

static int
on_msg(const struct nl_msg *m, void *arg)
{
	static const size_t hdrs[] = { 4, 8, 12, 16 };
	struct nft_chain_info ci;
	struct nft_rule_info ri;
	struct rtnl_link l;
	struct rtnl_brport bp;
	struct rtnl_addr4 a4;
	struct rtnl_route4 r4;
	struct nl_attr tb[64];
	uint32_t flags;
	uint64_t handle;
	unsigned *sum = arg;
	size_t i;

	for (i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
		if (nl_msg_attrs(m, hdrs[i], tb, 64) == 0 && m->len >= hdrs[i])
			*sum += walk(m->data + hdrs[i], m->len - hdrs[i], 0);
	}
	*sum += (unsigned)rtnl_parse_link(m, &l);
	*sum += (unsigned)rtnl_parse_brport(m, &bp);
	*sum += (unsigned)rtnl_parse_addr4(m, &a4);
	*sum += (unsigned)rtnl_parse_route4(m, &r4);
	{
		struct rtnl_steer st;

		*sum += (unsigned)rtnl_parse_steer(m, &st);
	}
	*sum += (unsigned)ip4_add(&pic, m);
	*sum += (unsigned)nft_parse_table(m, "box", &flags, &handle);
	*sum += (unsigned)nft_parse_chain(m, "box", &ci);
	*sum += (unsigned)nft_parse_rule(m, "box", &ri);
	/* an nf_tables message under any subsystem type is worth decoding */
	if ((m->hdr.nlmsg_type >> 8) != NFNL_SUBSYS_NFTABLES) {
		struct nl_msg x = *m;

		x.hdr.nlmsg_type = (uint16_t)(NFNL_SUBSYS_NFTABLES << 8 |
		    (m->hdr.nlmsg_type & 0xff));
		*sum += (unsigned)nft_parse_chain(&x, "box", &ci);
		*sum += (unsigned)nft_parse_rule(&x, "box", &ri);
		*sum += (unsigned)nft_parse_table(&x, "box", &flags, &handle);
	}
	return 0;
}

static void
run(const uint8_t *p, size_t n)
{
	struct nl_error ne;
	struct nl_msg m;
	struct nl_rx rx;
	unsigned sum = 0;

	pic_reset();
	nl_rx_init(&rx, 0, 0, UINT32_MAX);
	rx.dump = 1;
	rx.fn = on_msg;
	rx.arg = &sum;
	(void)nl_rx_feed(&rx, p, n);

	nl_rx_init(&rx, 1234, 100, 140);
	rx.batch_seq = 99;
	rx.expect_acks = 40;
	rx.fn = on_msg;
	rx.arg = &sum;
	(void)nl_rx_feed(&rx, p, n);

	/* the picture straight on the bytes, and its questions */
	pic_reset();
	sum += (unsigned)ip4_feed(&pic, p, n);
	sum += (unsigned)ip4_ifname(&pic, 1, "?")[0];
	sum += ip4_default_route(&pic) != NULL;
	sum += ip4_link_named(&pic, "boxnet") != NULL;

	/* the error decoder straight on the bytes */
	memset(&m, 0, sizeof(m));
	m.hdr.nlmsg_flags = NLM_F_ACK_TLVS;
	m.data = p;
	m.len = n;
	(void)nl_parse_error(&m, &ne);
	m.hdr.nlmsg_flags = NLM_F_ACK_TLVS | NLM_F_CAPPED;
	(void)nl_parse_error(&m, &ne);
	/* keep the decoders' results alive without a branch on them: the
	 * fuzzer steers comparisons, and once found its way to an abort()
	 * that guarded nothing */
	sink = sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *shifted;

	run(data, size);
	if ((shifted = malloc(size + 1)) == NULL)
		return 0;
	memcpy(shifted + 1, data, size);
	run(shifted + 1, size);
	free(shifted);
	return 0;
}
