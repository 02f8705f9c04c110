/* subnet.c - the subnet decision (see subnet.h). */
#include "host/stack/subnet.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/ip4text.h"

/* One decimal octet of at most three digits. */
static const char *
octet(const char *s, unsigned *v)
{
	unsigned x = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9' && n < 4) {
		x = x * 10 + (unsigned)(*s++ - '0');
		n++;
	}
	if (n == 0 || n > 3 || x > 255)
		return NULL;
	*v = x;
	return s;
}

int
subnet_parse(const char *s, uint32_t *net)
{
	unsigned o[3];
	int i;

	for (i = 0; i < 3; i++) {
		s = octet(s, &o[i]);
		if (s == NULL || *s++ != '.')
			return -EINVAL;
	}
	if (strcmp(s, "0/24") != 0)
		return -EINVAL;
	*net = o[0] << 24 | o[1] << 16 | o[2] << 8;
	return 0;
}

int
subnet_private(uint32_t net)
{
	return (net & 0xff000000u) == 0x0a000000u ||	/* 10.0.0.0/8 */
	    (net & 0xfff00000u) == 0xac100000u ||	/* 172.16.0.0/12 */
	    (net & 0xffff0000u) == 0xc0a80000u;		/* 192.168.0.0/16 */
}

/* Why a non-private /24 is refused, for the messages below. */
#define WHY_PRIVATE "box-to-box traffic routed through the gateway of a " \
	"public subnet would not meet the firewall's private-range drops " \
	"that keep boxes apart, and the bridge would shadow the real " \
	"internet hosts of that range"
#define FIX_PRIVATE "a /24 inside 10.0.0.0/8, 172.16.0.0/12 or " \
	"192.168.0.0/16, e.g. BOX_SUBNET=10.89.0.0/24"

int
subnet_pin(const char *pin, uint32_t *net, struct box_err *e)
{
	if (subnet_parse(pin, net) < 0)
		return err_usage(e, "BOX_SUBNET must look like a.b.c.0/24, "
		    "not '%.64s'", pin);
	if (subnet_private(*net))
		return 0;
	err_usage(e, "BOX_SUBNET=%s is not a private (RFC 1918) subnet: %s "
	    "— nothing was changed", pin, WHY_PRIVATE);
	err_fix(e, "pin %s, or drop the pin", FIX_PRIVATE);
	return -EDOM;
}

static uint32_t
mask_of(uint8_t plen)
{
	return plen == 0 ? 0 : 0xffffffffu << (32 - (plen > 32 ? 32 : plen));
}

/* Do a/plen and net/24 share any address? */
static int
overlaps(uint32_t a, uint8_t plen, uint32_t net)
{
	uint8_t p = plen < 24 ? plen : 24;
	uint32_t m = mask_of(p);

	return (a & m) == (net & m);
}

int
subnet_claimant(const struct subnet_host *h, uint32_t net, char *buf,
    size_t cap)
{
	char a[16];
	int i;

	if (h->has_gw && (h->gw & 0xffffff00u) == net &&
	    strcmp(h->gw_dev, SUBNET_BRIDGE) != 0) {
		ip4_fmt(h->gw, a, sizeof(a));
		snprintf(buf, cap, "this machine's own default gateway (%s "
		    "via %s)", a, h->gw_dev);
		return 1;
	}
	for (i = 0; i < h->naddr; i++) {
		if (strcmp(h->addr[i].ifname, SUBNET_BRIDGE) == 0 ||
		    !overlaps(h->addr[i].addr, h->addr[i].plen, net))
			continue;
		ip4_fmt(h->addr[i].addr, a, sizeof(a));
		snprintf(buf, cap, "interface %s (%s/%u)", h->addr[i].ifname,
		    a, h->addr[i].plen);
		return 1;
	}
	return 0;
}

static int
refuse_pin(const struct subnet_host *h, const char *pin, uint32_t net,
    struct subnet_plan *p, struct box_err *e)
{
	char who[160], have[16];

	if (subnet_claimant(h, net, who, sizeof(who))) {
		err_set(e, -EADDRINUSE, "BOX_SUBNET=%s is already claimed by "
		    "%s; a box bridge there would give this machine a second "
		    "route into its own network and cut it off (the nested-box "
		    "outage #80) — nothing was changed", pin, who);
		err_fix(e, "pick a subnet nothing here uses, e.g. "
		    "BOX_SUBNET=10.89.0.0/24, or drop the pin");
		return -EADDRINUSE;
	}
	if (h->bridge_exists && h->bridge_net != 0 && h->bridge_net != net) {
		ip4_fmt(h->bridge_net, have, sizeof(have));
		err_set(e, -EEXIST, "BOX_SUBNET=%s disagrees with the existing "
		    "%s bridge on %s/24; box never re-addresses a bridge that "
		    "boxes live on — nothing was changed", pin, SUBNET_BRIDGE,
		    have);
		err_fix(e, "use BOX_SUBNET=%s/24, or drop the pin", have);
		return -EEXIST;
	}
	p->net = net;
	p->why = SUBNET_WHY_PINNED;
	snprintf(p->note, sizeof(p->note), "%s (pinned by BOX_SUBNET)", pin);
	return 0;
}

static int
converge_existing(const struct subnet_host *h, struct subnet_plan *p,
    struct box_err *e)
{
	char who[160], net[16];

	ip4_fmt(h->bridge_net, net, sizeof(net));
	if (!subnet_private(h->bridge_net)) {
		err_set(e, -EDOM, "the existing %s bridge sits on %s/24, which "
		    "is not a private (RFC 1918) subnet: %s — nothing was "
		    "changed", SUBNET_BRIDGE, net, WHY_PRIVATE);
		err_fix(e, "move the bridge: box teardown-host, then "
		    "box setup-host (or pin %s)", FIX_PRIVATE);
		return -EDOM;
	}
	if (subnet_claimant(h, h->bridge_net, who, sizeof(who))) {
		err_set(e, -EADDRINUSE, "the existing %s bridge sits on %s/24, "
		    "which is also claimed by %s: this host is in the poisoned "
		    "state of the nested-box outage #80 — nothing was changed",
		    SUBNET_BRIDGE, net, who);
		err_fix(e, "move the bridge: box teardown-host, then "
		    "BOX_SUBNET=10.89.0.0/24 box setup-host");
		return -EADDRINUSE;
	}
	p->net = h->bridge_net;
	p->why = SUBNET_WHY_EXISTING;
	snprintf(p->note, sizeof(p->note), "%s/24 (the existing %s bridge; "
	    "never re-addressed)", net, SUBNET_BRIDGE);
	return 0;
}

static int
autopick(const struct subnet_host *h, struct subnet_plan *p,
    struct box_err *e)
{
	char who[160], net[16];
	uint32_t n;

	for (n = SUBNET_SCAN_LO; n <= SUBNET_SCAN_HI; n += 0x10000u) {
		if (subnet_claimant(h, n, who, sizeof(who)))
			continue;
		p->net = n;
		p->why = SUBNET_WHY_AUTOPICK;
		ip4_fmt(n, net, sizeof(net));
		snprintf(p->note, sizeof(p->note), "%s/24 — 10.88.0.0/24 is "
		    "claimed by %s, so this machine is most likely itself a "
		    "box; using the first free subnet instead", net,
		    p->claimant);
		return 0;
	}
	err_set(e, -EADDRNOTAVAIL, "every candidate subnet (10.88.0.0/24, "
	    "10.89.0.0/24 … 10.127.0.0/24) is claimed on this machine — "
	    "nothing was changed");
	err_fix(e, "pin one nothing uses: BOX_SUBNET=a.b.c.0/24 box "
	    "setup-host");
	return -EADDRNOTAVAIL;
}

int
subnet_decide(const struct subnet_host *h, const char *pin,
    struct subnet_plan *p, struct box_err *e)
{
	uint32_t net;

	memset(p, 0, sizeof(*p));
	if (pin != NULL && *pin != '\0') {
		int rc = subnet_pin(pin, &net, e);

		return rc < 0 ? rc : refuse_pin(h, pin, net, p, e);
	}
	if (h->bridge_exists && h->bridge_net != 0)
		return converge_existing(h, p, e);
	if (!subnet_claimant(h, SUBNET_DEFAULT, p->claimant,
	    sizeof(p->claimant))) {
		p->net = SUBNET_DEFAULT;
		p->why = SUBNET_WHY_DEFAULT;
		snprintf(p->note, sizeof(p->note), "10.88.0.0/24 (the "
		    "default; nothing here claims it)");
		return 0;
	}
	return autopick(h, p, e);
}
