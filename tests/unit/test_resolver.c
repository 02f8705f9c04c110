/* Unit tests for host/resolver: a box's view, verdict by verdict. */
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <errno.h>

#include "host/resolver/answer.h"
#include "host/resolver/resolver.h"
#include "host/resolver/view.h"
#include "host/stack/contract.h"
#include "host/stack/stack.h"
#include "t.h"

static void
mkq(struct dns_query *q, const char *name, int type, int cls)
{
	unsigned char m[300];
	size_t o = 12;
	const char *p = name, *dot;

	memset(m, 0, sizeof(m));
	m[2] = 1;		/* RD */
	m[5] = 1;		/* one question */
	while (*p != '\0') {
		size_t l;

		dot = strchr(p, '.');
		l = dot ? (size_t)(dot - p) : strlen(p);
		m[o++] = (unsigned char)l;
		memcpy(m + o, p, l);
		o += l;
		p += l + (dot != NULL);
	}
	m[o++] = 0;
	m[o++] = (unsigned char)(type >> 8);
	m[o++] = (unsigned char)type;
	m[o++] = (unsigned char)(cls >> 8);
	m[o++] = (unsigned char)cls;
	if (dns_query_parse(m, o, q) != 0)
		t_fail(__FILE__, __LINE__, "query %s did not parse", name);
}

static const struct {
	const char *policy, *name;
	int type, cls;
	int act, rcode, ede;
	const char *why;
} cases[] = {
	{ "open", "pypi.org", 1, 1, RSV_FORWARD, 0, -1, "forwarded" },
	{ "open", "version.bind", 16, 3, RSV_REFUSE, 5, 18, "class" },
	{ "open", "servers.bind", 16, 3, RSV_REFUSE, 5, 18, "class" },
	{ "open", "hesiod.example", 1, 4, RSV_REFUSE, 5, 18, "class" },
	{ "open", "example.com", 252, 1, RSV_REFUSE, 5, 21, "transfer" },
	{ "open", "boxit-a", 1, 1, RSV_REFUSE, 3, 15, "local-name" },
	{ "open", "localhost", 1, 1, RSV_REFUSE, 3, 15, "local-name" },
	{ "open", "a.localhost", 1, 1, RSV_REFUSE, 3, 15, "local-name" },
	{ "open", "1.0.88.10.in-addr.arpa", 12, 1, RSV_REFUSE, 3, 15,
	  "local-name" },
	{ "open", "1.1.20.172.in-addr.arpa", 12, 1, RSV_REFUSE, 3, 15,
	  "local-name" },
	{ "open", "1.1.32.172.in-addr.arpa", 12, 1, RSV_FORWARD, 0, -1,
	  "forwarded" },
	{ "open", "1.1.64.100.in-addr.arpa", 12, 1, RSV_REFUSE, 3, 15,
	  "local-name" },
	{ "open", "1.1.128.100.in-addr.arpa", 12, 1, RSV_FORWARD, 0, -1,
	  "forwarded" },
	{ "open", "1.1.1.1.in-addr.arpa", 12, 1, RSV_FORWARD, 0, -1,
	  "forwarded" },
	{ "allow:pypi.org", "pypi.org", 1, 1, RSV_FORWARD, 0, -1,
	  "forwarded" },
	{ "allow:pypi.org", "files.pypi.org", 28, 1, RSV_FORWARD, 0, -1,
	  "forwarded" },
	{ "allow:pypi.org", "xpypi.org", 1, 1, RSV_REFUSE, 3, 15,
	  "not-allowed" },
	{ "allow:pypi.org", "pypi.org.evil.test", 1, 1, RSV_REFUSE, 3, 15,
	  "not-allowed" },
	{ "allow:pypi.org,*.npmjs.org", "registry.npmjs.org", 1, 1,
	  RSV_FORWARD, 0, -1, "forwarded" },
	{ "allow:pypi.org", "org", 1, 1, RSV_REFUSE, 3, 15, "local-name" },
	{ "allow:pypi.org", "version.bind", 16, 3, RSV_REFUSE, 5, 18,
	  "class" },
};

TEST(resolver_view_table)
{
	struct rsv_box b;
	struct dns_query q;
	struct rsv_verdict v;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&b, 0, sizeof(b));
		snprintf(b.name, sizeof(b.name), "boxa");
		CHECK_INT(egress_parse(cases[i].policy, &b.pol, NULL, 0), 0);
		mkq(&q, cases[i].name, cases[i].type, cases[i].cls);
		rsv_view(&b, &q, &v);
		if (v.act != cases[i].act || v.rcode != cases[i].rcode ||
		    v.ede != cases[i].ede || strcmp(v.why, cases[i].why) != 0)
			t_fail(__FILE__, __LINE__, "%s %s: act %d rcode %d ede "
			    "%d %s", cases[i].policy, cases[i].name, v.act,
			    v.rcode, v.ede, v.why);
	}
}

TEST(resolver_view_texts)
{
	struct rsv_box b;
	struct dns_query q;
	struct rsv_verdict v;
	char longname[250];

	memset(&b, 0, sizeof(b));
	snprintf(b.name, sizeof(b.name), "boxa");
	CHECK_INT(egress_parse("allow:pypi.org", &b.pol, NULL, 0), 0);
	mkq(&q, "evil.test", 1, 1);
	rsv_view(&b, &q, &v);
	CHECK_STR(v.text, "box boxa may resolve only its egress allowlist; "
	    "evil.test is not on it: ask for `box egress boxa allow "
	    "evil.test`");
	/* a long name is cut visibly, and the text stays within its bound */
	memset(longname, 'a', sizeof(longname));
	for (size_t i = 60; i < sizeof(longname) - 10; i += 61)
		longname[i] = '.';
	memcpy(longname + sizeof(longname) - 10, ".evil.tst", 10);
	mkq(&q, longname, 1, 1);
	rsv_view(&b, &q, &v);
	CHECK(strlen(v.text) <= DNS_EDE_TEXTMAX);
	CHECK(strstr(v.text, "...") != NULL);
	/* no box: refused, Prohibited */
	rsv_view(NULL, &q, &v);
	CHECK_INT(v.rcode, DNS_R_REFUSED);
	CHECK_INT(v.ede, DNS_EDE_PROHIBITED);
}

TEST(resolver_conf)
{
	const char *up[] = { "203.0.113.10", "198.51.100.7:5353" };
	const char *bad[] = { "203.0.113.10:0" };
	struct rsv_conf c;
	struct box_err e;

	err_clear(&e);
	CHECK_INT(rsv_conf_parse("10.88.0.1", up, 2, NULL, &c, &e), 0);
	CHECK_INT(c.listen, 0x0a580001);
	CHECK_INT(c.net, 0x0a580000);
	CHECK_INT(c.port, 53);
	CHECK_INT(c.up_port[1], 5353);
	CHECK_INT(c.qps, RSV_DEF_QPS);
	CHECK(c.view == 1 && c.feed == NULL);
	err_clear(&e);
	CHECK(rsv_conf_parse("10.88.0.1", bad, 1, NULL, &c, &e) < 0);
	err_clear(&e);
	CHECK(rsv_conf_parse("10.88.0.1", up, 0, NULL, &c, &e) < 0);
	err_clear(&e);
	CHECK_INT(rsv_conf_parse("127.0.1.1:5353", up, 1, "127.0.0.0/8", &c,
	    &e), 0);
	CHECK_INT(c.open_plen, 8);
}

TEST(resolver_dnsmasq_hand_over)
{
	struct stack_conf sc;
	struct box_err e;

	/* what setup-host adds to raw.dnsmasq with box's resolver (the
	 * default), written down: DHCP only, the gateway named as the
	 * resolver */
	CHECK_INT(contract_nresolver_dnsmasq_lines, 2);
	CHECK_STR(contract_resolver_dnsmasq_lines[0], "port=0");
	CHECK_STR(contract_resolver_dnsmasq_lines[1],
	    "dhcp-option=option:dns-server,0.0.0.0");
	err_clear(&e);
	CHECK_INT(stack_resolver_parse("box", &sc, &e), 0);
	CHECK_INT(sc.own_resolver, 1);
	CHECK_INT(stack_resolver_parse(NULL, &sc, &e), 0);
	CHECK_INT(sc.own_resolver, 1);		/* the default */
	CHECK_INT(stack_resolver_parse("", &sc, &e), 0);
	CHECK_INT(sc.own_resolver, 1);
	CHECK_INT(stack_resolver_parse("dnsmasq", &sc, &e), 0);
	CHECK_INT(sc.own_resolver, 0);
	CHECK(stack_resolver_parse("unbound", &sc, &e) < 0);
}

/* The rebinding fence, address by address: a table written down from
 * the RFCs' ranges (RFC 1918, 6598, 3927, 1122, 5735, 2544), each edge
 * on both sides, plus the boxes' /24 and a host address. */
static const struct {
	const char *addr;
	int fenced;
} fence_cases[] = {
	{ "0.0.0.0", 1 }, { "0.255.255.255", 1 }, { "1.0.0.0", 0 },
	{ "9.255.255.255", 0 }, { "10.0.0.0", 1 }, { "10.255.255.255", 1 },
	{ "11.0.0.0", 0 }, { "100.63.255.255", 0 }, { "100.64.0.0", 1 },
	{ "100.127.255.255", 1 }, { "100.128.0.0", 0 },
	{ "126.255.255.255", 0 }, { "127.0.0.1", 1 },
	{ "127.255.255.255", 1 }, { "128.0.0.0", 0 },
	{ "169.253.255.255", 0 }, { "169.254.169.254", 1 },
	{ "169.255.0.0", 0 }, { "172.15.255.255", 0 }, { "172.16.0.0", 1 },
	{ "172.31.255.255", 1 }, { "172.32.0.0", 0 },
	{ "191.255.255.255", 0 }, { "192.0.0.0", 1 }, { "192.0.0.255", 1 },
	{ "192.0.1.0", 0 }, { "192.0.2.1", 0 }, { "192.167.255.255", 0 },
	{ "192.168.0.0", 1 }, { "192.168.255.255", 1 }, { "192.169.0.0", 0 },
	{ "198.17.255.255", 0 }, { "198.18.0.0", 1 }, { "198.19.255.255", 1 },
	{ "198.20.0.0", 0 }, { "203.0.113.10", 0 },
	{ "223.255.255.255", 0 }, { "224.0.0.1", 1 },
	{ "239.255.255.255", 1 }, { "240.0.0.0", 1 },
	{ "255.255.255.255", 1 },
	/* the boxes' /24 (given as 10.88.0.0 below: also private; so
	 * a public-looking one in a second fence) and the host */
	{ "8.8.4.0", 2 }, { "8.8.4.255", 2 }, { "8.8.5.0", 0 },
	{ "8.8.3.255", 0 }, { "93.184.216.34", 2 }, { "93.184.216.35", 0 },
};

TEST(resolver_fence_table)
{
	struct rsv_fence f;
	struct in_addr a;
	const char *what;
	size_t i;

	memset(&f, 0, sizeof(f));
	f.net = 0x08080400u;		/* "the boxes' /24" for the table */
	f.host[0] = 0x5db8d822u;	/* 93.184.216.34 */
	f.nhost = 1;
	for (i = 0; i < sizeof(fence_cases) / sizeof(fence_cases[0]); i++) {
		CHECK(inet_pton(AF_INET, fence_cases[i].addr, &a) == 1);
		if (rsv_fenced(&f, ntohl(a.s_addr), &what) !=
		    (fence_cases[i].fenced != 0) || rsv_fenced(NULL,
		    ntohl(a.s_addr), NULL) != (fence_cases[i].fenced == 1))
			t_fail(__FILE__, __LINE__, "%s: fenced %d (%s)",
			    fence_cases[i].addr, rsv_fenced(&f,
			    ntohl(a.s_addr), NULL), what ? what : "-");
	}
}

/*
 * An answer, byte by byte: "a.test A" with a CNAME to "b.test", its A
 * 203.0.113.7 with TTL 296, an authority SOA with TTL 3599, and an OPT
 * whose "TTL" (EDNS flags: DO) must stay.
 */
static const unsigned char ans_in[] = {
	0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 1, 0, 1,
	1, 'a', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1,
	0xc0, 12, 0, 5, 0, 1, 0, 0, 0x01, 0x2c, 0, 8,
	1, 'b', 4, 't', 'e', 's', 't', 0,
	0xc0, 36, 0, 1, 0, 1, 0, 0, 0x01, 0x28, 0, 4, 203, 0, 113, 7,
	0xc0, 14, 0, 6, 0, 1, 0, 0, 0x0e, 0x0f, 0, 24,
	0xc0, 14, 0xc0, 14, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4,
	0, 0, 0, 5,
	0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0,
};
/* The same, every TTL 60 (the SOA's MINIMUM, 5, and the OPT untouched). */
static const unsigned char ans_out[] = {
	0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 1, 0, 1,
	1, 'a', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1,
	0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 8,
	1, 'b', 4, 't', 'e', 's', 't', 0,
	0xc0, 36, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 203, 0, 113, 7,
	0xc0, 14, 0, 6, 0, 1, 0, 0, 0, 60, 0, 24,
	0xc0, 14, 0xc0, 14, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4,
	0, 0, 0, 5,
	0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0,
};

TEST(resolver_answer_ttl_and_rebinding)
{
	unsigned char m[sizeof(ans_in)];
	struct rsv_fence f;
	const char *what;
	uint32_t bad;

	CHECK_INT(RSV_TTL, 60);
	memset(&f, 0, sizeof(f));
	f.net = 0x0a580000u;
	memcpy(m, ans_in, sizeof(m));
	CHECK_INT(rsv_answer_fix(m, sizeof(m), &f, RSV_TTL, &bad, &what), 0);
	CHECK_MEM(m, sizeof(m), ans_out, sizeof(ans_out));
	/* the A record pointed at the gateway: refused, m as it was */
	memcpy(m, ans_in, sizeof(m));
	m[56] = 10; m[57] = 88; m[58] = 0; m[59] = 1;
	CHECK_INT(rsv_answer_fix(m, sizeof(m), &f, RSV_TTL, &bad, &what), 1);
	CHECK_INT(bad, 0x0a580001u);
	CHECK_STR(what, "private (10/8)");
	CHECK_INT(m[33], 0x2c);
	/* ...and at a public address named as the boxes' own /24 */
	f.net = 0xcb007100u;
	m[56] = 203; m[57] = 0; m[58] = 113; m[59] = 9;
	CHECK_INT(rsv_answer_fix(m, sizeof(m), &f, RSV_TTL, &bad, &what), 1);
	CHECK_STR(what, "the boxes' network");
	/* no fence (the view off, a test's control): TTLs only */
	CHECK_INT(rsv_answer_fix(m, sizeof(m), NULL, RSV_TTL, &bad, &what), 0);
	/* cut short: malformed */
	f.net = 0x0a580000u;
	memcpy(m, ans_in, sizeof(m));
	CHECK_INT(rsv_answer_fix(m, sizeof(m) - 3, &f, RSV_TTL, &bad, &what),
	    -EBADMSG);
}

/* The host's view question's name, read back: a table. */
static const struct {
	const char *name;
	int rc;
	unsigned octet;
	const char *inner;
} view_ask_cases[] = {
	{ "localhost.7.view.box.invalid", 0, 7, "localhost" },
	{ "box-doctor-view.invalid.254.view.box.invalid", 0, 254,
	  "box-doctor-view.invalid" },
	{ "a.b.c.1.view.box.invalid", 0, 1, "a.b.c" },
	{ "x.0.view.box.invalid", -EINVAL, 0, NULL },
	{ "x.255.view.box.invalid", -EINVAL, 0, NULL },
	{ "x.07.view.box.invalid", -EINVAL, 0, NULL },
	{ "x.1000.view.box.invalid", -EINVAL, 0, NULL },
	{ "x.1a.view.box.invalid", -EINVAL, 0, NULL },
	{ "7.view.box.invalid", -EINVAL, 0, NULL },
	{ ".7.view.box.invalid", -EINVAL, 0, NULL },
	{ "view.box.invalid", -EINVAL, 0, NULL },
	{ "x.7.view.box.invalid.evil.test", -EINVAL, 0, NULL },
	{ "x.7.xview.box.invalid", -EINVAL, 0, NULL },
	{ "kick.box.invalid", -EINVAL, 0, NULL },
};

TEST(resolver_view_ask_table)
{
	char inner[64];
	unsigned o;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(view_ask_cases) / sizeof(view_ask_cases[0]);
	    i++) {
		o = 0;
		inner[0] = '\0';
		rc = rsv_view_ask(view_ask_cases[i].name, &o, inner,
		    sizeof(inner));
		if (rc != view_ask_cases[i].rc || (rc == 0 &&
		    (o != view_ask_cases[i].octet ||
		    strcmp(inner, view_ask_cases[i].inner) != 0)))
			t_fail(__FILE__, __LINE__, "%s: rc %d octet %u '%s'",
			    view_ask_cases[i].name, rc, o, inner);
	}
	/* NAME too long for the caller's buffer: refused, not cut */
	CHECK_INT(rsv_view_ask("localhost.7.view.box.invalid", &o, inner, 9),
	    -EINVAL);
}
