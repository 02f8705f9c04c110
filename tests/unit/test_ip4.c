/* Unit tests for net/ip4: the one IPv4 picture, from canned dumps. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include "box/box.h"
#include "net/ip4.h"
#include "net/ip4_test.h"
#include "t.h"

static void
link_to(struct nl_buf *b, int ifindex, const char *name, const char *kind)
{
	struct ifinfomsg ifi;
	unsigned char *p;
	size_t li;

	nl_msg_begin(b, RTM_NEWLINK, NLM_F_MULTI, 1);
	p = nl_msg_extra(b, sizeof(ifi));
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_index = ifindex;
	ifi.ifi_flags = IFF_UP;
	if (p != NULL)
		memcpy(p, &ifi, sizeof(ifi));
	nl_put_str(b, IFLA_IFNAME, name);
	if (kind != NULL) {
		li = nl_nest_begin(b, IFLA_LINKINFO);
		nl_put_str(b, IFLA_INFO_KIND, kind);
		nl_nest_end(b, li);
	}
	nl_msg_end(b);
}

static void
addr_to(struct nl_buf *b, uint8_t family, int ifindex, const char *a,
    uint8_t plen)
{
	struct ifaddrmsg ifa;
	struct in_addr in;
	unsigned char *p;

	nl_msg_begin(b, RTM_NEWADDR, NLM_F_MULTI, 2);
	p = nl_msg_extra(b, sizeof(ifa));
	memset(&ifa, 0, sizeof(ifa));
	ifa.ifa_family = family;
	ifa.ifa_index = (unsigned)ifindex;
	ifa.ifa_prefixlen = plen;
	if (p != NULL)
		memcpy(p, &ifa, sizeof(ifa));
	inet_pton(AF_INET, a, &in);
	nl_put(b, IFA_LOCAL, &in, 4);
	nl_msg_end(b);
}

static void
route_to(struct nl_buf *b, uint8_t table, const char *dst, uint8_t dlen,
    const char *gw, int oif, uint32_t metric)
{
	struct rtmsg rt;
	struct in_addr in;
	unsigned char *p;

	nl_msg_begin(b, RTM_NEWROUTE, NLM_F_MULTI, 3);
	p = nl_msg_extra(b, sizeof(rt));
	memset(&rt, 0, sizeof(rt));
	rt.rtm_family = AF_INET;
	rt.rtm_dst_len = dlen;
	rt.rtm_table = table;
	rt.rtm_type = RTN_UNICAST;
	rt.rtm_protocol = gw == NULL ? RTPROT_KERNEL : RTPROT_BOOT;
	rt.rtm_scope = gw == NULL ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	if (p != NULL)
		memcpy(p, &rt, sizeof(rt));
	if (dst != NULL) {
		inet_pton(AF_INET, dst, &in);
		nl_put(b, RTA_DST, &in, 4);
	}
	if (gw != NULL) {
		inet_pton(AF_INET, gw, &in);
		nl_put(b, RTA_GATEWAY, &in, 4);
	}
	nl_put_u32(b, RTA_OIF, (uint32_t)oif);
	nl_put_u32(b, RTA_PRIORITY, metric);
	nl_msg_end(b);
}

static void
done(struct nl_buf *b)
{
	unsigned char *p;

	nl_msg_begin(b, NLMSG_DONE, NLM_F_MULTI, 4);
	p = nl_msg_extra(b, 4);
	(void)p;
	nl_msg_end(b);
}

TEST(ip4_picture_from_canned_dumps)
{
	static unsigned char buf[4096];
	struct ip4_picture *p = calloc(1, sizeof(*p));
	const struct rtnl_route4 *def;
	struct nl_buf b;

	CHECK(p != NULL);
	if (p == NULL)
		return;
	/* the link dump: a physical uplink and our bridge */
	nl_buf_init(&b, buf, sizeof(buf));
	link_to(&b, 2, "eth0", NULL);
	link_to(&b, 5, "boxnet", "bridge");
	done(&b);
	CHECK_INT(ip4_feed(p, buf, b.len), 2);
	/* the address dump: an IPv6 one is not ours to keep */
	nl_buf_init(&b, buf, sizeof(buf));
	addr_to(&b, AF_INET, 2, "192.168.1.20", 24);
	addr_to(&b, AF_INET6, 2, "192.168.1.21", 64);
	addr_to(&b, AF_INET, 5, "10.87.0.1", 24);
	done(&b);
	CHECK_INT(ip4_feed(p, buf, b.len), 2);
	/* the route dump: two defaults (the lower metric wins), a connected
	 * route, and one of another table that is skipped */
	nl_buf_init(&b, buf, sizeof(buf));
	route_to(&b, RT_TABLE_MAIN, NULL, 0, "192.168.1.254", 2, 600);
	route_to(&b, RT_TABLE_MAIN, NULL, 0, "192.168.1.1", 2, 100);
	route_to(&b, RT_TABLE_MAIN, "10.87.0.0", 24, NULL, 5, 0);
	route_to(&b, 200, NULL, 0, "10.9.9.9", 2, 1);
	done(&b);
	CHECK_INT(ip4_feed(p, buf, b.len), 3);

	CHECK_INT((int)p->nlink, 2);
	CHECK_INT((int)p->naddr, 2);
	CHECK_INT((int)p->nroute, 3);
	CHECK_STR(ip4_ifname(p, 5, "?"), "boxnet");
	CHECK_STR(ip4_ifname(p, 9, "?"), "?");
	CHECK(ip4_link_named(p, "boxnet") == &p->link[1]);
	CHECK_STR(ip4_link_named(p, "boxnet")->kind, "bridge");
	CHECK(ip4_link_named(p, "nope") == NULL);
	def = ip4_default_route(p);
	CHECK(def != NULL);
	if (def != NULL) {
		CHECK_INT((int)ntohl(def->gw.s_addr), (int)0xc0a80101);
		CHECK_INT(def->oif, 2);
	}
	CHECK_INT((int)ntohl(p->addr[1].addr.s_addr), 0x0a570001);
	CHECK_INT(p->addr[1].prefixlen, 24);
	free(p);
}

TEST(ip4_picture_is_bounded_and_refuses_malformed)
{
	static unsigned char buf[256];
	struct ip4_picture *p = calloc(1, sizeof(*p));
	struct nl_buf b;

	CHECK(p != NULL);
	if (p == NULL)
		return;
	nl_buf_init(&b, buf, sizeof(buf));
	addr_to(&b, AF_INET, 2, "10.0.0.1", 8);
	/* a full table fails rather than drop the entry silently */
	p->naddr = IP4_MAX_ADDRS;
	CHECK_INT(ip4_feed(p, buf, b.len), -ENOSPC);
	/* an IPv6 address does not count against a full table */
	nl_buf_init(&b, buf, sizeof(buf));
	addr_to(&b, AF_INET6, 2, "10.0.0.1", 64);
	CHECK_INT(ip4_feed(p, buf, b.len), 0);
	p->naddr = 0;
	/* an impossible prefix length is a protocol error */
	nl_buf_init(&b, buf, sizeof(buf));
	addr_to(&b, AF_INET, 2, "10.0.0.1", 33);
	CHECK_INT(ip4_feed(p, buf, b.len), -EBOX_PROTO);
	/* a link without a name, and a cut-off datagram */
	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, RTM_NEWLINK, NLM_F_MULTI, 1);
	nl_msg_extra(&b, sizeof(struct ifinfomsg));
	nl_msg_end(&b);
	CHECK_INT(ip4_feed(p, buf, b.len), -EBOX_PROTO);
	nl_buf_init(&b, buf, sizeof(buf));
	link_to(&b, 2, "eth0", NULL);
	CHECK(ip4_feed(p, buf, b.len - 3) < 0);
	CHECK_INT((int)p->nlink, 0);
	free(p);
}

TEST(ip4_live_read_and_box_subnets)
{
	struct ip4_picture *p;
	struct box_subnets sn;
	struct box_err e;
	int i, lo = -1;

	err_clear(&e);
	CHECK_INT(ip4_read(&p, &e), 0);
	CHECK(p != NULL && ip4_link_named(p, "lo") != NULL);
	ip4_free(p);
	/* box's subnet list comes from the same picture: lo is 127/8 */
	CHECK_INT(box_subnets_read(&sn), 0);
	for (i = 0; i < sn.n; i++)
		if (strcmp(sn.s[i].ifname, "lo") == 0)
			lo = i;
	CHECK(lo >= 0);
	if (lo >= 0) {
		CHECK_INT((int)sn.s[lo].addr, 0x7f000001);
		CHECK_INT((int)sn.s[lo].mask, (int)0xff000000);
	}
}
