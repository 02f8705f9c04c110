/* ip4.c - the kernel's IPv4 picture in one read (see ip4.h). */
#include "net/ip4.h"
#include "net/ip4_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>

#define DUMP_TRIES	5

/* Store what a decoder returned (r) into a table with room for max. */
static int
keep(int r, const void *tmp, void *table, size_t size, size_t *n,
    size_t max)
{
	if (r <= 0)
		return r;
	if (*n >= max)
		return -ENOSPC;
	memcpy((unsigned char *)table + *n * size, tmp, size);
	(*n)++;
	return 1;
}

int
ip4_add(struct ip4_picture *p, const struct nl_msg *m)
{
	union {
		struct rtnl_link l;
		struct rtnl_addr4 a;
		struct rtnl_route4 r;
	} t;

	switch (m->hdr.nlmsg_type) {
	case RTM_NEWLINK:
		return keep(rtnl_parse_link(m, &t.l), &t.l, p->link,
		    sizeof(t.l), &p->nlink, IP4_MAX_LINKS);
	case RTM_NEWADDR:
		return keep(rtnl_parse_addr4(m, &t.a), &t.a, p->addr,
		    sizeof(t.a), &p->naddr, IP4_MAX_ADDRS);
	case RTM_NEWROUTE:
		return keep(rtnl_parse_route4(m, &t.r), &t.r, p->route,
		    sizeof(t.r), &p->nroute, IP4_MAX_ROUTES);
	}
	return 0;
}

int
ip4_feed(struct ip4_picture *p, const void *buf, size_t n)
{
	struct nl_msg m;
	size_t off = 0;
	int r, stored = 0;

	while ((r = nl_msg_at(buf, n, &off, &m)) > 0) {
		if (m.hdr.nlmsg_type < NLMSG_MIN_TYPE)
			break;
		if ((r = ip4_add(p, &m)) < 0)
			return r;
		stored += r;
	}
	return r < 0 ? r : stored;
}

/* --- reading ------------------------------------------------------------- */

struct dump_ctx {
	struct ip4_picture *p;
	int rc;			/* the first ip4_add() failure */
};

static int
on_msg(const struct nl_msg *m, void *arg)
{
	struct dump_ctx *c = arg;
	int r = ip4_add(c->p, m);

	/* a malformed message fails the dump (as rtnl.c's readers do); a
	 * full table is noted and the dump drained */
	if (r == -EBOX_PROTO)
		return r;
	if (r < 0 && c->rc == 0)
		c->rc = r;
	return 0;
}

static size_t *
count_of(struct ip4_picture *p, uint16_t type)
{
	return type == RTM_GETLINK ? &p->nlink :
	    type == RTM_GETADDR ? &p->naddr : &p->nroute;
}

static int
dump(struct nl_sock *s, struct ip4_picture *p, uint16_t type, size_t hdrlen,
    uint8_t family, const char *what, struct box_err *e)
{
	unsigned char req[128], *h;
	struct dump_ctx c;
	struct nl_buf b;
	int r, tries;

	for (tries = 0; tries < DUMP_TRIES; tries++) {
		*count_of(p, type) = 0;
		c.p = p;
		c.rc = 0;
		nl_buf_init(&b, req, sizeof(req));
		nl_msg_begin(&b, type, NLM_F_DUMP, nl_seq_take(s, 1));
		if ((h = nl_msg_extra(&b, hdrlen)) != NULL)
			h[0] = family;	/* every family header starts so */
		if (type == RTM_GETLINK)
			nl_put_u32(&b, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
		if ((r = nl_msg_end(&b)) != 0)
			return err_set(e, r, "%s: %s", what, err_str(r));
		r = nl_dump(s, req, b.len, on_msg, &c, NULL, what, e);
		if (r == -EINTR)
			continue;	/* interrupted: the tables changed */
		if (r < 0)
			return r;
		if (c.rc == -ENOSPC)
			return err_set(e, -ENOSPC, "%s: more entries than box "
			    "reads (%d links, %d addresses, %d routes)", what,
			    IP4_MAX_LINKS, IP4_MAX_ADDRS, IP4_MAX_ROUTES);
		return 0;
	}
	return err_set(e, -EAGAIN, "%s: the kernel's tables kept changing "
	    "while they were read", what);
}

int
ip4_read(struct ip4_picture **out, struct box_err *e)
{
	struct ip4_picture *p = calloc(1, sizeof(*p));
	struct nl_sock s;
	int rc;

	*out = NULL;
	if (p == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = nl_open(&s, NETLINK_ROUTE, e);
	if (rc < 0) {
		free(p);
		return rc;
	}
	rc = dump(&s, p, RTM_GETLINK, sizeof(struct ifinfomsg), AF_UNSPEC,
	    "rtnetlink: list links", e);
	if (rc == 0)
		rc = dump(&s, p, RTM_GETADDR, sizeof(struct ifaddrmsg), AF_INET,
		    "rtnetlink: list IPv4 addresses", e);
	if (rc == 0)
		rc = dump(&s, p, RTM_GETROUTE, sizeof(struct rtmsg), AF_INET,
		    "rtnetlink: list IPv4 routes", e);
	nl_close(&s);
	if (rc < 0) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void
ip4_free(struct ip4_picture *p)
{
	free(p);
}

/* --- questions ----------------------------------------------------------- */

const struct rtnl_link *
ip4_link(const struct ip4_picture *p, int ifindex)
{
	return rtnl_link_by_index(p->link, p->nlink, ifindex);
}

const struct rtnl_link *
ip4_link_named(const struct ip4_picture *p, const char *name)
{
	return rtnl_link_by_name(p->link, p->nlink, name);
}

const char *
ip4_ifname(const struct ip4_picture *p, int ifindex, const char *dflt)
{
	const struct rtnl_link *l = ip4_link(p, ifindex);

	return l != NULL ? l->name : dflt;
}

const struct rtnl_route4 *
ip4_default_route(const struct ip4_picture *p)
{
	return rtnl_default_route4(p->route, p->nroute);
}
