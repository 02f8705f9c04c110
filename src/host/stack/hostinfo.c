/* hostinfo.c - reading the host's network picture (see hostinfo.h). */
#include "host/stack/hostinfo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/bridge.h"
#include "net/ip4.h"

static void
fill(struct subnet_host *h, const struct ip4_picture *w)
{
	const struct rtnl_route4 *def;
	size_t i;

	for (i = 0; i < w->naddr && h->naddr < SUBNET_MAX_ADDRS; i++) {
		snprintf(h->addr[h->naddr].ifname, sizeof(h->addr[0].ifname),
		    "%s", ip4_ifname(w, w->addr[i].ifindex, "?"));
		h->addr[h->naddr].addr = ntohl(w->addr[i].addr.s_addr);
		h->addr[h->naddr].plen = w->addr[i].prefixlen;
		h->naddr++;
	}
	def = ip4_default_route(w);
	if (def != NULL && def->has_gw) {
		h->has_gw = 1;
		h->gw = ntohl(def->gw.s_addr);
		snprintf(h->gw_dev, sizeof(h->gw_dev), "%s",
		    ip4_ifname(w, def->oif, "?"));
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
	struct ip4_picture *w;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = ip4_read(&w, e);
	if (rc < 0)
		goto out;
	fill(h, w);
	rc = 0;
	if (c != NULL) {
		rc = bridge_net(c, &h->bridge_net, e);
		if (rc >= 0) {
			h->bridge_exists = rc;
			rc = 0;
		}
	} else if ((h->bridge_net = host_iface_net(h, SUBNET_BRIDGE)) != 0) {
		h->bridge_exists = 1;
	}
out:
	ip4_free(w);
	if (rc < 0)
		err_context(e, "reading this machine's addresses and routes");
	return rc;
}
