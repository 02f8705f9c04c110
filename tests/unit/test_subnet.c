/* The subnet decision, on pictures of a fresh host, a box, a poisoned host. */
#include <stdio.h>
#include <string.h>

#include "host/subnet.h"
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
