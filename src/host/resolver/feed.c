/*
 * feed.c - the resolver's answers into the allow boxes' egress sets,
 * through egress_fw's hook (box/egress/egress_fw.h, egfw_feed): each A
 * record of an answer for a name the box's policy covers, for its TTL
 * (egfw_feed bounds it: at least EGFW_FEED_MIN_S, at most the set's
 * hour), named for the name asked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/resolver/resolver.h"
#include "box/egress/egress_fw.h"

int
rsv_feed_egress(const struct rsv_box *b, const char *name,
    const struct dns_addr *v, size_t n)
{
	struct egfw_box eb;
	struct box_err e;
	size_t i;
	int rc = 0;

	memset(&eb, 0, sizeof(eb));
	snprintf(eb.name, sizeof(eb.name), "%s", b->name);
	memcpy(eb.mac, b->mac, 6);
	eb.has_mac = 1;
	eb.pol = b->pol;
	eb.addr = b->addr;
	eb.has_addr = 1;
	for (i = 0; i < n && rc == 0; i++) {
		err_clear(&e);
		rc = egfw_feed(&eb, name, v[i].addr, v[i].ttl, &e);
		if (rc < 0 && rc != -ENOENT)
			fprintf(stderr, "box resolver: feeding %s's set with "
			    "%s failed: %s\n", b->name, name, e.msg);
	}
	return rc;
}
