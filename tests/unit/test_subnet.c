/* The subnet decision, on pictures of a fresh host, a box, a poisoned host. */
#include <stdio.h>
#include <string.h>

#include "host/stack/subnet.h"
#include "t.h"

static void
add_addr(struct subnet_host *h, const char *ifname, uint32_t a, int plen)
{
	snprintf(h->addr[h->naddr].ifname, sizeof(h->addr[0].ifname), "%s",
	    ifname);
	h->addr[h->naddr].addr = a;
	h->addr[h->naddr].plen = (uint8_t)plen;
	h->naddr++;
}

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static int
decide(const struct subnet_host *h, const char *pin, struct subnet_plan *p,
    struct box_err *e)
{
	err_clear(e);
	return subnet_decide(h, pin, p, e);
}

TEST(subnet_parse_strict)
{
	uint32_t n;

	CHECK_INT(subnet_parse("10.88.0.0/24", &n), 0);
	CHECK(n == IP(10, 88, 0, 0));
	CHECK_INT(subnet_parse("192.168.255.0/24", &n), 0);
	CHECK(subnet_parse("10.88.0.1/24", &n) < 0);
	CHECK(subnet_parse("10.88.0.0/16", &n) < 0);
	CHECK(subnet_parse("10.256.0.0/24", &n) < 0);
	CHECK(subnet_parse("10.0088.0.0/24", &n) < 0);
	CHECK(subnet_parse("10.88.0.0/24 ", &n) < 0);
	CHECK(subnet_parse("10.88.0/24", &n) < 0);
	CHECK(subnet_parse("", &n) < 0);
}

TEST(subnet_fresh_host_takes_default)
{
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;

	add_addr(&h, "eth0", IP(192, 168, 1, 20), 24);
	h.has_gw = 1;
	h.gw = IP(192, 168, 1, 1);
	strcpy(h.gw_dev, "eth0");
	CHECK_INT(decide(&h, NULL, &p, &e), 0);
	CHECK(p.net == SUBNET_DEFAULT);
	CHECK_INT(p.why, SUBNET_WHY_DEFAULT);
}

TEST(subnet_inside_a_box_autopicks)
{
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;

	/* A box's own view: it holds 10.88.0.57, its gateway is 10.88.0.1. */
	add_addr(&h, "eth0", IP(10, 88, 0, 57), 24);
	h.has_gw = 1;
	h.gw = IP(10, 88, 0, 1);
	strcpy(h.gw_dev, "eth0");
	CHECK_INT(decide(&h, NULL, &p, &e), 0);
	CHECK(p.net == IP(10, 89, 0, 0));
	CHECK_INT(p.why, SUBNET_WHY_AUTOPICK);
	CHECK(strstr(p.claimant, "default gateway") != NULL);
	/* 10.89 taken too (a nested box one level deeper): 10.90. */
	add_addr(&h, "eth1", IP(10, 89, 0, 3), 24);
	CHECK_INT(decide(&h, NULL, &p, &e), 0);
	CHECK(p.net == IP(10, 90, 0, 0));
}

TEST(subnet_wide_interface_claims_overlap)
{
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;

	/* 10.64.0.0/10 covers 10.64-10.127: every candidate is claimed. */
	add_addr(&h, "wg0", IP(10, 64, 0, 1), 10);
	CHECK_INT(decide(&h, NULL, &p, &e), -EADDRNOTAVAIL);
	CHECK(strstr(e.fix, "BOX_SUBNET") != NULL);
	/* A /16 on 10.88 claims 10.88.0.0/24 even though no address is in it. */
	h.naddr = 0;
	add_addr(&h, "eth9", IP(10, 88, 200, 1), 16);
	CHECK_INT(decide(&h, NULL, &p, &e), 0);
	CHECK(p.net == IP(10, 89, 0, 0));
}

TEST(subnet_bridge_itself_is_no_claim)
{
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;

	add_addr(&h, SUBNET_BRIDGE, IP(10, 88, 0, 1), 24);
	h.bridge_exists = 1;
	h.bridge_net = SUBNET_DEFAULT;
	CHECK_INT(decide(&h, NULL, &p, &e), 0);
	CHECK_INT(p.why, SUBNET_WHY_EXISTING);
	CHECK(p.net == SUBNET_DEFAULT);
	/* A pin that agrees is honoured; one that disagrees is refused. */
	CHECK_INT(decide(&h, "10.88.0.0/24", &p, &e), 0);
	CHECK_INT(p.why, SUBNET_WHY_PINNED);
	CHECK_INT(decide(&h, "10.91.0.0/24", &p, &e), -EEXIST);
	CHECK(strstr(e.fix, "10.88.0.0/24") != NULL);
}

TEST(subnet_existing_bridge_poisoned_refused)
{
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;

	h.bridge_exists = 1;
	h.bridge_net = SUBNET_DEFAULT;
	h.has_gw = 1;
	h.gw = IP(10, 88, 0, 1);
	strcpy(h.gw_dev, "eth0");
	CHECK_INT(decide(&h, NULL, &p, &e), -EADDRINUSE);
	CHECK(strstr(e.msg, "#80") != NULL);
}

TEST(subnet_pins)
{
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;

	add_addr(&h, "eth0", IP(10, 88, 0, 57), 24);
	CHECK_INT(decide(&h, "10.88.0.0/24", &p, &e), -EADDRINUSE);
	CHECK(strstr(e.msg, "nothing was changed") != NULL);
	CHECK_INT(decide(&h, "10.100.0.0/24", &p, &e), 0);
	CHECK(p.net == IP(10, 100, 0, 0));
	CHECK_INT(decide(&h, "bogus", &p, &e), -EINVAL);
	CHECK_INT(e.status, ERR_USAGE);
	/* A prefix match must respect octet boundaries: 10.8.0.x is not 10.88. */
	h.naddr = 0;
	add_addr(&h, "eth0", IP(10, 8, 0, 5), 24);
	CHECK_INT(decide(&h, NULL, &p, &e), 0);
	CHECK(p.net == SUBNET_DEFAULT);
}

/*
 * Only RFC 1918 /24s may be pinned: box-to-box traffic routed through the
 * gateway of a public subnet would not meet the private-range drops, and
 * the bridge would shadow real internet hosts.
 */
TEST(subnet_pin_refuses_non_private)
{
	static const char *const bad[] = {
		"203.0.113.0/24", "198.51.100.0/24", "1.2.3.0/24",	/* public */
		"100.64.0.0/24", "100.127.255.0/24",			/* CGNAT */
		"127.0.0.0/24", "127.1.2.0/24",				/* loopback */
		"169.254.0.0/24", "169.254.169.0/24",			/* link-local */
		"224.0.0.0/24", "239.255.255.0/24",			/* multicast */
		"240.0.0.0/24", "255.255.255.0/24",			/* reserved */
		"0.0.0.0/24", "0.1.2.0/24",				/* "this" net */
		"172.15.255.0/24", "172.32.0.0/24",	/* just outside 172.16/12 */
		"192.167.255.0/24", "192.169.0.0/24",	/* just outside 192.168/16 */
		"9.255.255.0/24", "11.0.0.0/24",	/* just outside 10/8 */
	};
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;
	uint32_t n;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (decide(&h, bad[i], &p, &e) != -EDOM || e.status != ERR_USAGE)
			t_fail(__FILE__, __LINE__, "BOX_SUBNET=%s not refused "
			    "(exit 2)", bad[i]);
		if (strstr(e.msg, bad[i]) == NULL ||
		    strstr(e.msg, "RFC 1918") == NULL ||
		    strstr(e.msg, "private-range drops") == NULL ||
		    strstr(e.msg, "shadow") == NULL ||
		    strstr(e.msg, "nothing was changed") == NULL)
			t_fail(__FILE__, __LINE__, "refusal of %s does not say "
			    "why: %s", bad[i], e.msg);
		if (strstr(e.fix, "10.0.0.0/8, 172.16.0.0/12 or "
		    "192.168.0.0/16") == NULL)
			t_fail(__FILE__, __LINE__, "no fix for %s: %s", bad[i],
			    e.fix);
		err_clear(&e);
		CHECK_INT(subnet_pin(bad[i], &n, &e), -EDOM);
		CHECK(subnet_parse(bad[i], &n) == 0);	/* well formed */
		CHECK_INT(subnet_private(n), 0);
	}
	/* Syntax errors stay syntax errors (exit 2, the old message). */
	CHECK_INT(decide(&h, "203.0.113.1/24", &p, &e), -EINVAL);
	CHECK_INT(e.status, ERR_USAGE);
	CHECK(strstr(e.msg, "a.b.c.0/24") != NULL);
}

TEST(subnet_pin_accepts_rfc1918)
{
	static const char *const good[] = {
		"10.0.0.0/24", "10.88.0.0/24", "10.89.0.0/24", "10.127.0.0/24",
		"10.255.255.0/24",
		"172.16.0.0/24", "172.20.5.0/24", "172.31.255.0/24",
		"192.168.0.0/24", "192.168.1.0/24", "192.168.255.0/24",
	};
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;
	uint32_t n;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (decide(&h, good[i], &p, &e) != 0 ||
		    p.why != SUBNET_WHY_PINNED)
			t_fail(__FILE__, __LINE__, "BOX_SUBNET=%s refused: %s",
			    good[i], e.msg);
		CHECK_INT(subnet_pin(good[i], &n, NULL), 0);
		CHECK_INT(subnet_private(n), 1);
	}
	/* The auto-pick range is private, end to end. */
	for (n = SUBNET_SCAN_LO; n <= SUBNET_SCAN_HI; n += 0x10000u)
		CHECK_INT(subnet_private(n), 1);
	CHECK_INT(subnet_private(SUBNET_DEFAULT), 1);
}

TEST(subnet_existing_public_bridge_refused)
{
	struct subnet_host h = { 0 };
	struct subnet_plan p;
	struct box_err e;

	/* A boxnet left on a public /24 (an old pin) is not converged on. */
	h.bridge_exists = 1;
	h.bridge_net = IP(203, 0, 113, 0);
	CHECK_INT(decide(&h, NULL, &p, &e), -EDOM);
	CHECK(strstr(e.msg, "203.0.113.0/24") != NULL);
	CHECK(strstr(e.msg, "RFC 1918") != NULL);
	CHECK(strstr(e.fix, "teardown-host") != NULL);
	/* Nor may a pin that agrees with it bless it. */
	CHECK_INT(decide(&h, "203.0.113.0/24", &p, &e), -EDOM);
}
