/* Unit tests for host/resolver: a box's view, verdict by verdict. */
#include <stdio.h>
#include <string.h>

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
