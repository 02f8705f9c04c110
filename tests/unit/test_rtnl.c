/* Unit tests for net/rtnl: message decoders and the sysctl key check. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include "net/rtnl.h"
#include "t.h"

static void
as_msg(struct nl_buf *b, struct nl_msg *m)
{
	memcpy(&m->hdr, b->p, sizeof(m->hdr));
	m->data = b->p + NL_HDRLEN;
	m->len = b->len - NL_HDRLEN;
}

static void
link_msg(struct nl_buf *b, unsigned char *buf, size_t cap, uint8_t family,
    int ifindex)
{
	struct ifinfomsg ifi;
	unsigned char *p;

	nl_buf_init(b, buf, cap);
	nl_msg_begin(b, RTM_NEWLINK, NLM_F_MULTI, 1);
	p = nl_msg_extra(b, sizeof(ifi));
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = family;
	ifi.ifi_index = ifindex;
	if (p != NULL)
		memcpy(p, &ifi, sizeof(ifi));
}

TEST(rtnl_parse_link_msg)
{
	unsigned char buf[512];
	struct rtnl_link l;
	struct nl_buf b;
	struct nl_msg m;
	size_t li;

	link_msg(&b, buf, sizeof(buf), AF_UNSPEC, 4);
	nl_put_str(&b, IFLA_IFNAME, "veth0");
	nl_put_u32(&b, IFLA_MASTER, 2);
	nl_put_u8(&b, IFLA_OPERSTATE, 6);
	li = nl_nest_begin(&b, IFLA_LINKINFO);
	nl_put_str(&b, IFLA_INFO_KIND, "veth");
	nl_nest_end(&b, li);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_link(&m, &l), 1);
	CHECK_INT(l.ifindex, 4);
	CHECK_STR(l.name, "veth0");
	CHECK_STR(l.kind, "veth");
	CHECK_INT(l.master, 2);
	CHECK_INT(l.operstate, 6);

	/* a physical device: no kind, no master */
	link_msg(&b, buf, sizeof(buf), AF_UNSPEC, 1);
	nl_put_str(&b, IFLA_IFNAME, "eth0");
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_link(&m, &l), 1);
	CHECK_STR(l.kind, "");
	CHECK_INT(l.master, 0);

	/* a name longer than IFNAMSIZ, a short master, no name */
	link_msg(&b, buf, sizeof(buf), AF_UNSPEC, 1);
	nl_put_str(&b, IFLA_IFNAME, "a-name-far-too-long");
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_link(&m, &l), -EBOX_PROTO);
	link_msg(&b, buf, sizeof(buf), AF_UNSPEC, 1);
	nl_put_str(&b, IFLA_IFNAME, "x");
	nl_put_u16(&b, IFLA_MASTER, 2);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_link(&m, &l), -EBOX_PROTO);
	link_msg(&b, buf, sizeof(buf), AF_UNSPEC, 1);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_link(&m, &l), -EBOX_PROTO);
	/* truncated family header */
	m.len = 8;
	CHECK_INT(rtnl_parse_link(&m, &l), -EBOX_PROTO);
}

TEST(rtnl_parse_brport_msg)
{
	unsigned char buf[512];
	struct rtnl_brport p;
	struct nl_buf b;
	struct nl_msg m;
	size_t pi;

	link_msg(&b, buf, sizeof(buf), AF_BRIDGE, 6);
	nl_put_str(&b, IFLA_IFNAME, "va1");
	nl_put_u32(&b, IFLA_MASTER, 2);
	pi = nl_nest_begin(&b, IFLA_PROTINFO);
	nl_put_u8(&b, IFLA_BRPORT_STATE, 3);
	nl_put_u8(&b, IFLA_BRPORT_ISOLATED, 1);
	nl_nest_end(&b, pi);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_brport(&m, &p), 1);
	CHECK_STR(p.name, "va1");
	CHECK_INT(p.master, 2);
	CHECK_INT(p.isolated, 1);
	CHECK_INT(p.state, 3);

	/* PROTINFO without NLA_F_NESTED (older kernels), no isolated flag */
	link_msg(&b, buf, sizeof(buf), AF_BRIDGE, 7);
	nl_put_str(&b, IFLA_IFNAME, "va2");
	{
		static const unsigned char pl[] = { 5, 0, IFLA_BRPORT_STATE,
		    0, 3, 0, 0, 0 };

		nl_put(&b, IFLA_PROTINFO, pl, sizeof(pl));
	}
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_brport(&m, &p), 1);
	CHECK_INT(p.isolated, -1);
	CHECK_INT(p.state, 3);

	/* the bridge itself (no PROTINFO) and a non-bridge family */
	link_msg(&b, buf, sizeof(buf), AF_BRIDGE, 2);
	nl_put_str(&b, IFLA_IFNAME, "br0");
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_brport(&m, &p), 0);
	link_msg(&b, buf, sizeof(buf), AF_UNSPEC, 6);
	nl_put_str(&b, IFLA_IFNAME, "va1");
	pi = nl_nest_begin(&b, IFLA_PROTINFO);
	nl_nest_end(&b, pi);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_brport(&m, &p), 0);

	/* isolated with a wrong size */
	link_msg(&b, buf, sizeof(buf), AF_BRIDGE, 6);
	nl_put_str(&b, IFLA_IFNAME, "va1");
	pi = nl_nest_begin(&b, IFLA_PROTINFO);
	nl_put_u32(&b, IFLA_BRPORT_ISOLATED, 1);
	nl_nest_end(&b, pi);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_brport(&m, &p), -EBOX_PROTO);
}

TEST(rtnl_parse_addr4_msg)
{
	unsigned char buf[256], *x;
	struct rtnl_addr4 a;
	struct ifaddrmsg ifa;
	struct nl_buf b;
	struct nl_msg m;
	struct in_addr in;
	char s[INET_ADDRSTRLEN];

	nl_buf_init(&b, buf, sizeof(buf));
	nl_msg_begin(&b, RTM_NEWADDR, NLM_F_MULTI, 1);
	x = nl_msg_extra(&b, sizeof(ifa));
	memset(&ifa, 0, sizeof(ifa));
	ifa.ifa_family = AF_INET;
	ifa.ifa_prefixlen = 24;
	ifa.ifa_index = 3;
	memcpy(x, &ifa, sizeof(ifa));
	inet_pton(AF_INET, "10.88.0.1", &in);
	nl_put(&b, IFA_ADDRESS, &in, 4);
	nl_put(&b, IFA_LOCAL, &in, 4);
	nl_put_str(&b, IFA_LABEL, "boxnet");
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_addr4(&m, &a), 1);
	CHECK_INT(a.ifindex, 3);
	CHECK_INT(a.prefixlen, 24);
	CHECK_STR(inet_ntop(AF_INET, &a.addr, s, sizeof(s)), "10.88.0.1");
	CHECK_STR(a.label, "boxnet");

	/* prefix length 33 */
	ifa.ifa_prefixlen = 33;
	memcpy(x, &ifa, sizeof(ifa));
	CHECK_INT(rtnl_parse_addr4(&m, &a), -EBOX_PROTO);
	/* IPv6 is skipped */
	ifa.ifa_prefixlen = 64;
	ifa.ifa_family = AF_INET6;
	memcpy(x, &ifa, sizeof(ifa));
	CHECK_INT(rtnl_parse_addr4(&m, &a), 0);
}

static void
route_msg(struct nl_buf *b, unsigned char *buf, size_t cap, uint8_t dst_len,
    uint8_t table, uint8_t type, unsigned char **hdr)
{
	struct rtmsg rt;

	nl_buf_init(b, buf, cap);
	nl_msg_begin(b, RTM_NEWROUTE, NLM_F_MULTI, 1);
	*hdr = nl_msg_extra(b, sizeof(rt));
	memset(&rt, 0, sizeof(rt));
	rt.rtm_family = AF_INET;
	rt.rtm_dst_len = dst_len;
	rt.rtm_table = table;
	rt.rtm_type = type;
	rt.rtm_scope = dst_len ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	rt.rtm_protocol = dst_len ? RTPROT_KERNEL : RTPROT_BOOT;
	memcpy(*hdr, &rt, sizeof(rt));
}

TEST(rtnl_parse_route4_msg)
{
	unsigned char buf[256], *h;
	struct rtnl_route4 r[3];
	struct nl_buf b;
	struct nl_msg m;
	struct in_addr in;
	char s[INET_ADDRSTRLEN];

	/* default via 10.0.0.1 dev 2 metric 100 */
	route_msg(&b, buf, sizeof(buf), 0, RT_TABLE_MAIN, RTN_UNICAST, &h);
	inet_pton(AF_INET, "10.0.0.1", &in);
	nl_put(&b, RTA_GATEWAY, &in, 4);
	nl_put_u32(&b, RTA_OIF, 2);
	nl_put_u32(&b, RTA_PRIORITY, 100);
	nl_put_u32(&b, RTA_TABLE, RT_TABLE_MAIN);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_route4(&m, &r[0]), 1);
	CHECK_INT(r[0].has_gw, 1);
	CHECK_STR(inet_ntop(AF_INET, &r[0].gw, s, sizeof(s)), "10.0.0.1");
	CHECK_INT(r[0].oif, 2);
	CHECK_INT(r[0].metric, 100);
	CHECK_INT(r[0].dst_len, 0);

	/* connected 10.88.0.0/24 dev 3 */
	route_msg(&b, buf, sizeof(buf), 24, RT_TABLE_MAIN, RTN_UNICAST, &h);
	inet_pton(AF_INET, "10.88.0.0", &in);
	nl_put(&b, RTA_DST, &in, 4);
	nl_put_u32(&b, RTA_OIF, 3);
	inet_pton(AF_INET, "10.88.0.1", &in);
	nl_put(&b, RTA_PREFSRC, &in, 4);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_route4(&m, &r[1]), 1);
	CHECK_INT(r[1].has_gw, 0);
	CHECK_INT(r[1].dst_len, 24);
	CHECK_INT(r[1].scope, RT_SCOPE_LINK);
	CHECK_STR(inet_ntop(AF_INET, &r[1].dst, s, sizeof(s)), "10.88.0.0");
	CHECK_INT(r[1].has_prefsrc, 1);

	/* a second default with a lower metric wins */
	r[2] = r[0];
	r[2].metric = 5;
	CHECK(rtnl_default_route4(r, 3) == &r[2]);
	CHECK(rtnl_default_route4(&r[1], 1) == NULL);

	/* local table and broadcast routes are skipped */
	route_msg(&b, buf, sizeof(buf), 32, RT_TABLE_LOCAL, RTN_LOCAL, &h);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_route4(&m, &r[0]), 0);
	route_msg(&b, buf, sizeof(buf), 0, RT_TABLE_UNSPEC, RTN_UNICAST, &h);
	nl_put_u32(&b, RTA_TABLE, 1000);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_route4(&m, &r[0]), 0);
	/* a short gateway */
	route_msg(&b, buf, sizeof(buf), 0, RT_TABLE_MAIN, RTN_UNICAST, &h);
	nl_put(&b, RTA_GATEWAY, &in, 3);
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_route4(&m, &r[0]), -EBOX_PROTO);
}

TEST(rtnl_parse_route4_multipath)
{
	unsigned char buf[256], *h, mp[16];
	struct rtnl_route4 r;
	struct rtnexthop nh;
	struct nl_buf b;
	struct nl_msg m;
	uint16_t a[2] = { 8, RTA_GATEWAY };
	unsigned char gw[4] = { 192, 0, 2, 1 };

	nh.rtnh_len = 16;
	nh.rtnh_flags = 0;
	nh.rtnh_hops = 0;
	nh.rtnh_ifindex = 9;
	memcpy(mp, &nh, 8);
	memcpy(mp + 8, a, 4);
	memcpy(mp + 12, gw, 4);
	route_msg(&b, buf, sizeof(buf), 0, RT_TABLE_MAIN, RTN_UNICAST, &h);
	nl_put(&b, RTA_MULTIPATH, mp, sizeof(mp));
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_route4(&m, &r), 1);
	CHECK_INT(r.oif, 9);
	CHECK_INT(r.has_gw, 1);
	CHECK_MEM(&r.gw, 4, gw, 4);
	/* a nexthop claiming more than the attribute holds */
	nh.rtnh_len = 40;
	memcpy(mp, &nh, 8);
	route_msg(&b, buf, sizeof(buf), 0, RT_TABLE_MAIN, RTN_UNICAST, &h);
	nl_put(&b, RTA_MULTIPATH, mp, sizeof(mp));
	as_msg(&b, &m);
	CHECK_INT(rtnl_parse_route4(&m, &r), -EBOX_PROTO);
}

TEST(rtnl_links_lookup)
{
	struct rtnl_link l[2];

	memset(l, 0, sizeof(l));
	l[0].ifindex = 1;
	strcpy(l[0].name, "lo");
	l[1].ifindex = 5;
	strcpy(l[1].name, "boxnet");
	CHECK(rtnl_link_by_name(l, 2, "boxnet") == &l[1]);
	CHECK(rtnl_link_by_name(l, 2, "eth0") == NULL);
	CHECK(rtnl_link_by_index(l, 2, 1) == &l[0]);
	CHECK(rtnl_link_by_index(l, 2, 0) == NULL);
}

TEST(rtnl_sysctl_keys)
{
	struct box_err e;
	char v[64];

	err_clear(&e);
	CHECK_INT(rtnl_sysctl_set("/etc/passwd", "x", &e), -EINVAL);
	CHECK_INT(rtnl_sysctl_set("net/../../etc/passwd", "x", NULL), -EINVAL);
	CHECK_INT(rtnl_sysctl_set("net//ipv4", "x", NULL), -EINVAL);
	CHECK_INT(rtnl_sysctl_set("net/./ipv4", "x", NULL), -EINVAL);
	CHECK_INT(rtnl_sysctl_set("net/ipv4/", "x", NULL), -EINVAL);
	CHECK_INT(rtnl_sysctl_set("net/ipv4 x", "x", NULL), -EINVAL);
	CHECK_INT(rtnl_sysctl_set("", "x", NULL), -EINVAL);
	CHECK_INT(rtnl_sysctl_get(NULL, v, sizeof(v), NULL), -EINVAL);
	/* a readable entry everyone has */
	CHECK_INT(rtnl_sysctl_get("kernel/ostype", v, sizeof(v), &e), 0);
	CHECK_STR(v, "Linux");
	CHECK_INT(rtnl_sysctl_get("net/ipv4/conf/no.such-if0/route_localnet",
	    v, sizeof(v), NULL), -ENOENT);
}
