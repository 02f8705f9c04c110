/*
 * conf.c - the resolver's settings from their text (see resolver.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/resolver/resolver.h"
#include "host/stack/contract.h"

/* "a.b.c.d" or "a.b.c.d:port": 0 or -EINVAL. */
static int
addr_port(const char *s, uint32_t *a, uint16_t *port, uint16_t dflt)
{
	char buf[32], *colon, *end;
	struct in_addr in;
	unsigned long p = dflt;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	if ((colon = strchr(buf, ':')) != NULL) {
		*colon = '\0';
		errno = 0;
		p = strtoul(colon + 1, &end, 10);
		if (errno != 0 || *end != '\0' || colon[1] == '\0' || p == 0 ||
		    p > 65535)
			return -EINVAL;
	}
	if (inet_pton(AF_INET, buf, &in) != 1)
		return -EINVAL;
	*a = ntohl(in.s_addr);
	*port = (uint16_t)p;
	return 0;
}

int
rsv_conf_parse(const char *listen, const char *const *up, int nup,
    const char *open_source, struct rsv_conf *c, struct box_err *e)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->inflight = RSV_DEF_INFLIGHT;
	c->qps = RSV_DEF_QPS;
	c->tcp = RSV_DEF_TCP;
	c->view = 1;
	c->tcp_retry = 1;
	c->bridge = CONTRACT_BRIDGE;
	if (listen == NULL || addr_port(listen, &c->listen, &c->port,
	    DNS_PORT) < 0)
		return err_usage(e, "--listen takes the gateway's address "
		    "(A.B.C.1, optionally :port), not '%s'",
		    listen ? listen : "");
	c->net = c->listen & 0xffffff00u;
	if (nup < 1 || nup > RSV_MAXUP)
		return err_usage(e, "--upstream: 1 to %d resolvers, not %d",
		    RSV_MAXUP, nup);
	for (i = 0; i < nup; i++)
		if (addr_port(up[i], &c->up[i], &c->up_port[i], DNS_PORT) < 0)
			return err_usage(e, "--upstream takes an IPv4 "
			    "address (optionally :port), not '%s'", up[i]);
	c->nup = nup;
	if (open_source != NULL) {
		char buf[32], *slash;
		struct in_addr in;
		unsigned long l;

		if (strlen(open_source) >= sizeof(buf))
			return err_usage(e, "--open-source takes A.B.C.D/N");
		strcpy(buf, open_source);
		if ((slash = strchr(buf, '/')) == NULL)
			return err_usage(e, "--open-source takes A.B.C.D/N");
		*slash = '\0';
		l = strtoul(slash + 1, NULL, 10);
		if (inet_pton(AF_INET, buf, &in) != 1 || l < 1 || l > 32)
			return err_usage(e, "--open-source takes A.B.C.D/N");
		c->open_net = ntohl(in.s_addr);
		c->open_plen = (int)l;
	}
	return 0;
}
