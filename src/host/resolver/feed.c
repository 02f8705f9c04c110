/*
 * feed.c - the resolver's answers into the allow boxes' egress sets,
 * through egress_fw's hook (box/egress/egress_fw.h): every A record of an
 * answer for a name the box's policy covers, for its TTL (egress_fw
 * bounds it: at least EGFW_FEED_MIN_S, at most the set's hour), named
 * for the name asked.  Called by the feeder's one thread (feeder.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/egress/egress_fw.h"
#include "host/resolver/answer.h"
#include "host/resolver/resolver.h"

/* What a box caches (RSV_TTL) never outlives the address in its set. */
_Static_assert(RSV_TTL <= EGFW_FEED_MIN_S, "RSV_TTL outlives a fed address");

int
rsv_feed_egress(struct rsv_feedsock **s, const struct rsv_box *b,
    const char *name, const struct dns_addr *v, size_t n,
    struct box_err *e)
{
	struct egfw_box eb;
	size_t i;
	int rc = 0;

	(void)s;
	memset(&eb, 0, sizeof(eb));
	snprintf(eb.name, sizeof(eb.name), "%s", b->name);
	memcpy(eb.mac, b->mac, 6);
	eb.has_mac = 1;
	eb.pol = b->pol;
	eb.addr = b->addr;
	eb.has_addr = 1;
	for (i = 0; i < n && rc == 0; i++)
		rc = egfw_feed(&eb, name, v[i].addr, v[i].ttl, e);
	return rc;
}

int
rsv_feed_each(const struct rsv_box *b, const char *name,
    const struct dns_addr *v, size_t n)
{
	struct box_err e;

	err_clear(&e);
	return rsv_feed_egress(NULL, b, name, v, n, &e);
}

void
rsv_feed_close(struct rsv_feedsock *s)
{
	(void)s;
}
