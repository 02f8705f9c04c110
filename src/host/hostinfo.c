/* hostinfo.c - reading the host's network picture (see hostinfo.h). */
#include "host/hostinfo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/stack.h"
#include "net/rtnl.h"

#define HI_MAX_LINKS 512
#define HI_MAX_ROUTES 1024

struct scratch {
	struct nl_sock s;
	struct rtnl_link links[HI_MAX_LINKS];
	struct rtnl_addr4 addrs[SUBNET_MAX_ADDRS];
	struct rtnl_route4 routes[HI_MAX_ROUTES];
};

static void
fill(struct subnet_host *h, const struct scratch *w, int nl, int na, int nr)
{
	const struct rtnl_route4 *def;
	const struct rtnl_link *l;
	int i;

	for (i = 0; i < na && h->naddr < SUBNET_MAX_ADDRS; i++) {
		l = rtnl_link_by_index(w->links, (size_t)nl, w->addrs[i].ifindex);
		snprintf(h->addr[h->naddr].ifname, sizeof(h->addr[0].ifname),
		    "%s", l ? l->name : "?");
		h->addr[h->naddr].addr = ntohl(w->addrs[i].addr.s_addr);
		h->addr[h->naddr].plen = w->addrs[i].prefixlen;
		h->naddr++;
	}
	def = rtnl_default_route4(w->routes, (size_t)nr);
	if (def != NULL && def->has_gw) {
		h->has_gw = 1;
		h->gw = ntohl(def->gw.s_addr);
		l = rtnl_link_by_index(w->links, (size_t)nl, def->oif);
		snprintf(h->gw_dev, sizeof(h->gw_dev), "%s", l ? l->name : "?");
	}
}

uint32_t
host_iface_net(const struct subnet_host *h, const char *ifname)
{
	int i;

	for (i = 0; i < h->naddr; i++)
		if (strcmp(h->addr[i].ifname, ifname) == 0)
			return h->addr[i].addr & 0xffffff00u;
	return 0;
}

int
host_read(struct incus *c, struct subnet_host *h, struct box_err *e)
{
	struct scratch *w = malloc(sizeof(*w));
	int nl, na, nr, rc;

	memset(h, 0, sizeof(*h));
	if (w == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = nl_open(&w->s, NETLINK_ROUTE, e);
	if (rc < 0)
		goto out;
	nl = rc = rtnl_links(&w->s, w->links, HI_MAX_LINKS, e);
	if (rc >= 0)
		na = rc = rtnl_addrs4(&w->s, w->addrs, SUBNET_MAX_ADDRS, e);
	if (rc >= 0)
		nr = rc = rtnl_routes4(&w->s, w->routes, HI_MAX_ROUTES, e);
	nl_close(&w->s);
	if (rc < 0)
		goto out;
	fill(h, w, nl, na, nr);
	rc = 0;
	if (c != NULL) {
		rc = stack_bridge_net(c, &h->bridge_net, e);
		if (rc >= 0) {
			h->bridge_exists = rc;
			rc = 0;
		}
	} else if ((h->bridge_net = host_iface_net(h, SUBNET_BRIDGE)) != 0) {
		h->bridge_exists = 1;
	}
out:
	free(w);
	if (rc < 0)
		err_context(e, "reading this machine's addresses and routes");
	return rc;
}
