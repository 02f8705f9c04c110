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

/* What a box caches (RSV_TTL) never outlives the address in its set;
 * an answer holds no more addresses than a feed takes. */
_Static_assert(RSV_TTL <= EGFW_FEED_MIN_S, "RSV_TTL outlives a fed address");
_Static_assert(DNS_MAXADDR <= EGFW_FEED_MAX, "an answer outgrows a feed");

/* The feeder's socket (resolver.h): egress_fw's, kept across feeds. */
struct rsv_feedsock {
	struct nl_sock *nl;
};

static void
egfw_box_of(const struct rsv_box *b, struct egfw_box *eb)
{
	memset(eb, 0, sizeof(*eb));
	snprintf(eb->name, sizeof(eb->name), "%s", b->name);
	memcpy(eb->mac, b->mac, 6);
	eb->has_mac = 1;
	eb->pol = b->pol;
	eb->addr = b->addr;
	eb->has_addr = 1;
}

int
rsv_feed_egress(struct rsv_feedsock **s, const struct rsv_box *b,
    const char *name, const struct dns_addr *v, size_t n,
    struct box_err *e)
{
	struct egfw_box eb;
	uint32_t addr[EGFW_FEED_MAX], ttl[EGFW_FEED_MAX];
	size_t i;

	if (*s == NULL && (*s = calloc(1, sizeof(**s))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (n > EGFW_FEED_MAX)
		n = EGFW_FEED_MAX;	/* DNS_MAXADDR: no more come */
	for (i = 0; i < n; i++) {
		addr[i] = v[i].addr;
		ttl[i] = v[i].ttl;
	}
	egfw_box_of(b, &eb);
	return egfw_feed_batch(&(*s)->nl, &eb, name, addr, ttl, n, e);
}

/* The control's way (--feed-inline): a transaction, and a socket, for
 * each address, in turn. */
int
rsv_feed_each(const struct rsv_box *b, const char *name,
    const struct dns_addr *v, size_t n)
{
	struct egfw_box eb;
	struct box_err e;
	size_t i;
	int rc = 0;

	egfw_box_of(b, &eb);
	for (i = 0; i < n && rc == 0; i++) {
		err_clear(&e);
		rc = egfw_feed(&eb, name, v[i].addr, v[i].ttl, &e);
	}
	return rc;
}

void
rsv_feed_close(struct rsv_feedsock *s)
{
	if (s != NULL) {
		egfw_feed_close(s->nl);
		free(s);
	}
}
