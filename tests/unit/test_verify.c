/*
 * box verify's pure parts: the policy stand-in (src/box/verify/verify.c), the
 * in-box readers of /proc/net/if_inet6 and ipv6_route
 * (src/box/verify/verify_probe.c), and the bridge listener's frame decoder
 * (src/net/sniff.c).
 */
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>

#include "box/verify/verify.h"
#include "box/verify/verify_steer.h"
#include "net/neigh.h"
#include "net/sniff.h"
#include "t.h"
#include "util/err.h"

TEST(verify_policy_open_allow_and_garbage)
{
	char a[64];

	CHECK_INT(verify_policy_read(NULL, a, sizeof(a)), 0);
	CHECK_INT(verify_policy_read("", a, sizeof(a)), 0);
	CHECK_INT(verify_policy_read("open", a, sizeof(a)), 0);
	CHECK_INT(verify_policy_read("allow:github.com,*.npmjs.org", a,
	    sizeof(a)), 1);
	CHECK_STR(a, "github.com,*.npmjs.org");
	CHECK_INT(verify_policy_read("allow:", a, sizeof(a)), -EINVAL);
	CHECK_INT(verify_policy_read("deny", a, sizeof(a)), -EINVAL);
	CHECK_INT(verify_policy_read("allow:0123456789012345678901234567890"
	    "1234567890123456789012345678901234567890", a, sizeof(a)),
	    -EINVAL);
}

TEST(verify_v6_addr_lines)
{
	char d[96];

	/* link-local and loopback: not a breach */
	CHECK_INT(verify_v6_addr_line("fe800000000000000216 3eff fe00 0001",
	    d, sizeof(d)), -1);
	CHECK_INT(verify_v6_addr_line("fe8000000000000002163efffe000001 02 40 "
	    "20 80     eth0", d, sizeof(d)), 0);
	CHECK_INT(verify_v6_addr_line("00000000000000000000000000000001 01 80 "
	    "10 80       lo", d, sizeof(d)), 0);
	CHECK_INT(verify_v6_addr_line("20010db8008800000000000000000000a 02 40 "
	    "00 00 eth0", d, sizeof(d)), -1);
	CHECK_INT(verify_v6_addr_line("20010db800880000000000000000000a 02 40 "
	    "00 00     eth0", d, sizeof(d)), 1);
	CHECK_STR(d, "2001:db8:88::a/64 on eth0");
	CHECK_INT(verify_v6_addr_line("", d, sizeof(d)), -1);
}

TEST(verify_v6_route_lines)
{
	char d[96];

	CHECK_INT(verify_v6_route_line("fe800000000000000000000000000000 40 "
	    "00000000000000000000000000000000 00 "
	    "00000000000000000000000000000000 00000100 00000001 00000000 "
	    "00000001     eth0", d, sizeof(d)), 0);
	CHECK_INT(verify_v6_route_line("ff000000000000000000000000000000 08 "
	    "00000000000000000000000000000000 00 "
	    "00000000000000000000000000000000 00000100 00000001 00000000 "
	    "00000001     eth0", d, sizeof(d)), 0);
	/* the unreachable default on lo, a reject route */
	CHECK_INT(verify_v6_route_line("00000000000000000000000000000000 00 "
	    "00000000000000000000000000000000 00 "
	    "00000000000000000000000000000000 ffffffff 00000001 00000000 "
	    "00200200       lo", d, sizeof(d)), 0);
	CHECK_INT(verify_v6_route_line("00000000000000000000000000000000 00 "
	    "00000000000000000000000000000000 00 "
	    "fe800000000000000000000000000001 00000400 00000001 00000000 "
	    "00000003     eth0", d, sizeof(d)), 1);
	CHECK_STR(d, "::/0 dev eth0");
	CHECK_INT(verify_v6_route_line("zz", d, sizeof(d)), -1);
}

static size_t
arp_frame(uint8_t *f, const uint8_t mac[6], uint32_t claim)
{
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	f[12] = 0x08, f[13] = 0x06;
	f[14] = 0, f[15] = 1, f[16] = 0x08, f[17] = 0, f[18] = 6, f[19] = 4;
	f[20] = 0, f[21] = 2;
	memcpy(f + 22, mac, 6);
	f[28] = (uint8_t)(claim >> 24), f[29] = (uint8_t)(claim >> 16);
	f[30] = (uint8_t)(claim >> 8), f[31] = (uint8_t)claim;
	memset(f + 32, 0xff, 6);
	memcpy(f + 38, f + 28, 4);
	return 42;
}

TEST(sniff_parse_arp)
{
	static const uint8_t mac[6] = { 0x10, 0x66, 0x6a, 1, 2, 3 };
	struct sniff_frame fr;
	uint8_t f[64];
	size_t n = arp_frame(f, mac, 0x0a580001);

	CHECK_INT(sniff_parse(f, n, &fr), 1);
	CHECK_INT(fr.kind, SNIFF_ARP);
	CHECK_INT(fr.op, 2);
	CHECK_INT(fr.spa, 0x0a580001);
	CHECK(memcmp(fr.sha, mac, 6) == 0);
	CHECK_INT(sniff_parse(f, 30, &fr), -EBOX_PROTO);
	CHECK_INT(sniff_parse(f, 10, &fr), -EBOX_PROTO);
	f[15] = 6;	/* not Ethernet hardware */
	CHECK_INT(sniff_parse(f, n, &fr), 0);
}

TEST(sniff_parse_udp4_and_token)
{
	static const uint8_t hdr[] = {
		0, 1, 2, 3, 4, 5, 0x10, 0x66, 0x6a, 1, 2, 3, 0x08, 0x00,
		0x45, 0, 0, 33, 0, 0, 0, 0, 64, 17, 0, 0,
		198, 18, 0, 99, 203, 0, 113, 10,
		0x9c, 0x40, 0x23, 0x5e, 0, 13, 0, 0,
		't', 'o', 'k', '-', 'x' };
	struct sniff_frame fr;
	uint8_t f[64];

	memcpy(f, hdr, sizeof(hdr));
	CHECK_INT(sniff_parse(f, sizeof(hdr), &fr), 1);
	CHECK_INT(fr.kind, SNIFF_UDP4);
	CHECK_INT(fr.saddr, 0xc6120063);
	CHECK_INT(fr.daddr, 0xcb00710a);
	CHECK_INT(fr.dport, 9054);
	CHECK_INT(fr.plen, 5);
	CHECK(sniff_has_token(fr.payload, fr.plen, "tok-x"));
	CHECK(!sniff_has_token(fr.payload, fr.plen, "tok-y"));
	CHECK(!sniff_has_token(fr.payload, fr.plen, ""));
	/* an IPv4 total length past the frame */
	CHECK_INT(sniff_parse(f, sizeof(hdr) - 1, &fr), -EBOX_PROTO);
	f[23] = 6;	/* TCP, shorter than its own header */
	CHECK_INT(sniff_parse(f, sizeof(hdr), &fr), -EBOX_PROTO);
	f[23] = 47;	/* GRE: not ours */
	CHECK_INT(sniff_parse(f, sizeof(hdr), &fr), 0);
	f[23] = 17;
	f[14] = 0x44;	/* an IHL under 20 bytes */
	CHECK_INT(sniff_parse(f, sizeof(hdr), &fr), -EBOX_PROTO);
}

TEST(neigh_del_msg_is_what_iproute2_sends)
{
	/* `ip neigh del 192.0.2.99 dev <42>` (iproute2 6.1, read with
	 * strace): RTM_DELNEIGH, REQUEST|ACK, an AF_INET ndmsg (state
	 * PERMANENT), NDA_DST. */
	static const unsigned char want[] = {
		0x24, 0, 0, 0, 0x1d, 0, 0x05, 0, 7, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 0, 0, 42, 0, 0, 0, 0x80, 0, 0, 0,
		8, 0, 1, 0, 192, 0, 2, 99,
	};
	unsigned char buf[64];
	int n = neigh_del_msg(buf, sizeof(buf), 42, 0xc0000263, 7);

	CHECK(n > 0);
	CHECK_MEM(buf, (size_t)n, want, sizeof(want));
	CHECK_INT(neigh_del_msg(buf, 20, 42, 0xc0000263, 7), -ENOSPC);
}

/* A TCP SYN-ACK and an ICMP echo reply, as the host sees them on a port. */
TEST(sniff_parse_tcp4_icmp4)
{
	static const uint8_t syn[] = {
		0, 1, 2, 3, 4, 5, 0x10, 0x66, 0x6a, 1, 2, 3, 0x08, 0x00,
		0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0,
		10, 88, 0, 1, 10, 88, 0, 7,
		0, 22, 0x9c, 0x41, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x12, 0, 0,
		0, 0, 0, 0 };
	static const uint8_t echo[] = {
		0, 1, 2, 3, 4, 5, 0x10, 0x66, 0x6a, 1, 2, 3, 0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 1, 0, 0,
		10, 88, 0, 1, 10, 88, 0, 7,
		0, 0, 0, 0, 0x12, 0x34, 0, 1 };
	struct sniff_frame fr;

	CHECK_INT(sniff_parse(syn, sizeof(syn), &fr), 1);
	CHECK_INT(fr.kind, SNIFF_TCP4);
	CHECK_INT(fr.saddr, 0x0a580001);
	CHECK_INT(fr.sport, 22);
	CHECK_INT(fr.dport, 40001);
	CHECK_INT(fr.tcpflags, SNIFF_TCP_SYN | SNIFF_TCP_ACK);
	CHECK_INT(sniff_parse(echo, sizeof(echo), &fr), 1);
	CHECK_INT(fr.kind, SNIFF_ICMP4);
	CHECK_INT(fr.icmptype, 0);
	CHECK_INT(fr.icmpid, 0x1234);
	CHECK_INT(sniff_parse(echo, sizeof(echo) - 1, &fr), -EBOX_PROTO);
}

/* A box's own routing, judged: the plain set passes, each addition is
 * counted and named. */
TEST(verify_steer_judge)
{
	struct rtnl_steer v[10];
	char why[200];
	uint32_t gw = 0x0a580001u;

	memset(v, 0, sizeof(v));
	v[0].kind = RTNL_ST_RULE; v[0].action = 1; v[0].pref = 0;
	v[0].table = 255;
	v[1].kind = RTNL_ST_RULE; v[1].action = 1; v[1].pref = 32766;
	v[1].table = 254;
	v[2].kind = RTNL_ST_RULE; v[2].action = 1; v[2].pref = 32767;
	v[2].table = 253;
	v[3].kind = RTNL_ST_ROUTE; v[3].table = 255; v[3].action = 2;
	v[4].kind = RTNL_ST_ROUTE; v[4].table = 255; v[4].action = 3;
	v[5].kind = RTNL_ST_ROUTE; v[5].table = 254; v[5].action = 1;
	v[5].dst_len = 0; v[5].has_gw = 1; v[5].gw.s_addr = htonl(gw);
	v[6].kind = RTNL_ST_ROUTE; v[6].table = 254; v[6].action = 1;
	v[6].dst_len = 24; v[6].protocol = 2;
	v[6].dst.s_addr = htonl(0x0a580000u);
	CHECK_INT(vsteer_judge(v, 7, gw, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	/* the trick: a rule, a table, a permanent neighbour */
	v[7].kind = RTNL_ST_RULE; v[7].action = 1; v[7].pref = 134;
	v[7].table = 134;
	v[8].kind = RTNL_ST_ROUTE; v[8].table = 134; v[8].action = 1;
	v[8].has_gw = 1; v[8].gw.s_addr = htonl(0x0a5800fau);
	v[9].kind = RTNL_ST_NEIGH; v[9].state = 0x80;
	v[9].dst.s_addr = htonl(0x0a5800fau);
	CHECK_INT(vsteer_judge(v, 10, gw, why, sizeof(why)), 3);
	CHECK_STR(why, "rule pref 134 table 134, route 0.0.0.0/0 via "
	    "10.88.0.250 type 1 table 134, permanent neighbour 10.88.0.250");
	/* a default route via another next hop, a main route of its own,
	 * the main rule moved: each counts */
	v[5].gw.s_addr = htonl(0x0a5800fau);
	v[6].protocol = 4;
	v[1].pref = 100;
	CHECK_INT(vsteer_judge(v, 7, gw, why, sizeof(why)), 3);
}
