/*
 * rtnl.c - rtnetlink readers and the /proc/sys writer (see rtnl.h).
 */
#include "net/rtnl.h"
#include "net/rtnl_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/fib_rules.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#define DUMP_TRIES	5

/* ------------------------------------------------------------- decoders */

int
rtnl_parse_link(const struct nl_msg *m, struct rtnl_link *l)
{
	struct nl_attr tb[IFLA_MAX + 1], li[IFLA_INFO_MAX + 1];
	struct ifinfomsg ifi;
	uint32_t master = 0;
	int r;

	if (m->hdr.nlmsg_type != RTM_NEWLINK)
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(ifi), tb, IFLA_MAX + 1)) < 0)
		return r;
	memcpy(&ifi, m->data, sizeof(ifi));
	memset(l, 0, sizeof(*l));
	l->ifindex = ifi.ifi_index;
	l->flags = ifi.ifi_flags;
	if (nl_attr_str(&tb[IFLA_IFNAME], l->name, sizeof(l->name)) < 0)
		return -EBOX_PROTO;
	if (tb[IFLA_MASTER].present &&
	    nl_attr_u32(&tb[IFLA_MASTER], &master) < 0)
		return -EBOX_PROTO;
	l->master = (int)master;
	if (tb[IFLA_OPERSTATE].present &&
	    nl_attr_u8(&tb[IFLA_OPERSTATE], &l->operstate) < 0)
		return -EBOX_PROTO;
	if (tb[IFLA_LINKINFO].present) {
		if (nl_attr_parse_nested(&tb[IFLA_LINKINFO], li,
		    IFLA_INFO_MAX + 1) < 0)
			return -EBOX_PROTO;
		if (li[IFLA_INFO_KIND].present &&
		    nl_attr_str(&li[IFLA_INFO_KIND], l->kind,
		    sizeof(l->kind)) < 0)
			return -EBOX_PROTO;
	}
	return 1;
}

int
rtnl_parse_brport(const struct nl_msg *m, struct rtnl_brport *p)
{
	struct nl_attr tb[IFLA_MAX + 1], pi[IFLA_BRPORT_MAX + 1];
	struct ifinfomsg ifi;
	uint32_t master = 0;
	uint8_t v;
	int r;

	if (m->hdr.nlmsg_type != RTM_NEWLINK)
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(ifi), tb, IFLA_MAX + 1)) < 0)
		return r;
	memcpy(&ifi, m->data, sizeof(ifi));
	/* Only ports carry bridge port info. */
	if (ifi.ifi_family != AF_BRIDGE || !tb[IFLA_PROTINFO].present)
		return 0;
	memset(p, 0, sizeof(*p));
	p->ifindex = ifi.ifi_index;
	p->isolated = -1;
	p->state = -1;
	if (nl_attr_str(&tb[IFLA_IFNAME], p->name, sizeof(p->name)) < 0)
		return -EBOX_PROTO;
	if (tb[IFLA_MASTER].present &&
	    nl_attr_u32(&tb[IFLA_MASTER], &master) < 0)
		return -EBOX_PROTO;
	p->master = (int)master;
	/* Old kernels sent PROTINFO without NLA_F_NESTED; the walker masks
	 * the flag either way. */
	if (nl_attr_parse_nested(&tb[IFLA_PROTINFO], pi,
	    IFLA_BRPORT_MAX + 1) < 0)
		return -EBOX_PROTO;
	if (pi[IFLA_BRPORT_ISOLATED].present) {
		if (nl_attr_u8(&pi[IFLA_BRPORT_ISOLATED], &v) < 0)
			return -EBOX_PROTO;
		p->isolated = v != 0;
	}
	if (pi[IFLA_BRPORT_STATE].present) {
		if (nl_attr_u8(&pi[IFLA_BRPORT_STATE], &v) < 0)
			return -EBOX_PROTO;
		p->state = v;
	}
	return 1;
}

static int
attr_in4(const struct nl_attr *a, struct in_addr *v)
{
	if (!a->present)
		return -ENOENT;
	if (a->len != 4)
		return -EBOX_PROTO;
	memcpy(&v->s_addr, a->data, 4);
	return 0;
}

int
rtnl_parse_addr4(const struct nl_msg *m, struct rtnl_addr4 *a)
{
	struct nl_attr tb[IFA_MAX + 1];
	struct ifaddrmsg ifa;
	int r;

	if (m->hdr.nlmsg_type != RTM_NEWADDR)
		return 0;
	if ((r = nl_msg_attrs(m, sizeof(ifa), tb, IFA_MAX + 1)) < 0)
		return r;
	memcpy(&ifa, m->data, sizeof(ifa));
	if (ifa.ifa_family != AF_INET)
		return 0;
	if (ifa.ifa_prefixlen > 32)
		return -EBOX_PROTO;
	memset(a, 0, sizeof(*a));
	a->ifindex = (int)ifa.ifa_index;
	a->prefixlen = ifa.ifa_prefixlen;
	/* IFA_LOCAL is our address; IFA_ADDRESS is the peer's on p2p. */
	r = attr_in4(&tb[IFA_LOCAL], &a->addr);
	if (r == -ENOENT)
		r = attr_in4(&tb[IFA_ADDRESS], &a->addr);
	if (r < 0)
		return -EBOX_PROTO;
	if (tb[IFA_LABEL].present &&
	    nl_attr_str(&tb[IFA_LABEL], a->label, sizeof(a->label)) < 0)
		return -EBOX_PROTO;
	return 1;
}

/* The first hop of a multipath route: its gateway and device. */
static int
parse_multipath(const struct nl_attr *mp, struct rtnl_route4 *r)
{
	struct nl_attr tb[RTA_MAX + 1];
	struct rtnexthop nh;

	if (mp->len < sizeof(nh))
		return -EBOX_PROTO;
	memcpy(&nh, mp->data, sizeof(nh));
	if (nh.rtnh_len < sizeof(nh) || nh.rtnh_len > mp->len)
		return -EBOX_PROTO;
	r->oif = nh.rtnh_ifindex;
	if (nl_attr_parse(mp->data + RTNH_ALIGN(sizeof(nh)),
	    nh.rtnh_len - RTNH_ALIGN(sizeof(nh)), tb, RTA_MAX + 1) < 0)
		return -EBOX_PROTO;
	if (tb[RTA_GATEWAY].present) {
		if (attr_in4(&tb[RTA_GATEWAY], &r->gw) < 0)
			return -EBOX_PROTO;
		r->has_gw = 1;
	}
	return 0;
}

int
rtnl_parse_route4(const struct nl_msg *m, struct rtnl_route4 *r)
{
	struct nl_attr tb[RTA_MAX + 1];
	struct rtmsg rt;
	uint32_t table, oif;
	int x;

	if (m->hdr.nlmsg_type != RTM_NEWROUTE)
		return 0;
	if ((x = nl_msg_attrs(m, sizeof(rt), tb, RTA_MAX + 1)) < 0)
		return x;
	memcpy(&rt, m->data, sizeof(rt));
	if (rt.rtm_family != AF_INET)
		return 0;
	if (rt.rtm_dst_len > 32)
		return -EBOX_PROTO;
	table = rt.rtm_table;
	if (tb[RTA_TABLE].present && nl_attr_u32(&tb[RTA_TABLE], &table) < 0)
		return -EBOX_PROTO;
	if (table != RT_TABLE_MAIN || rt.rtm_type != RTN_UNICAST)
		return 0;
	memset(r, 0, sizeof(*r));
	r->dst_len = rt.rtm_dst_len;
	r->scope = rt.rtm_scope;
	r->protocol = rt.rtm_protocol;
	r->type = rt.rtm_type;
	if (tb[RTA_DST].present && attr_in4(&tb[RTA_DST], &r->dst) < 0)
		return -EBOX_PROTO;
	if (tb[RTA_GATEWAY].present) {
		if (attr_in4(&tb[RTA_GATEWAY], &r->gw) < 0)
			return -EBOX_PROTO;
		r->has_gw = 1;
	}
	if (tb[RTA_OIF].present) {
		if (nl_attr_u32(&tb[RTA_OIF], &oif) < 0)
			return -EBOX_PROTO;
		r->oif = (int)oif;
	}
	if (tb[RTA_PRIORITY].present &&
	    nl_attr_u32(&tb[RTA_PRIORITY], &r->metric) < 0)
		return -EBOX_PROTO;
	if (tb[RTA_PREFSRC].present) {
		if (attr_in4(&tb[RTA_PREFSRC], &r->prefsrc) < 0)
			return -EBOX_PROTO;
		r->has_prefsrc = 1;
	}
	if (tb[RTA_MULTIPATH].present && !r->has_gw && r->oif == 0 &&
	    parse_multipath(&tb[RTA_MULTIPATH], r) < 0)
		return -EBOX_PROTO;
	return 1;
}

static int
steer_rule(const struct nl_msg *m, struct nl_attr *tb, struct rtnl_steer *st)
{
	struct fib_rule_hdr fr;
	uint32_t v;

	memcpy(&fr, m->data, sizeof(fr));
	if (fr.family != AF_INET)
		return 0;
	st->kind = RTNL_ST_RULE;
	st->table = fr.table;
	st->action = fr.action;
	if (tb[FRA_TABLE].present) {
		if (nl_attr_u32(&tb[FRA_TABLE], &v) < 0)
			return -EBOX_PROTO;
		st->table = v;
	}
	if (tb[FRA_PRIORITY].present &&
	    nl_attr_u32(&tb[FRA_PRIORITY], &st->pref) < 0)
		return -EBOX_PROTO;
	return 1;
}

static int
steer_neigh(const struct nl_msg *m, struct nl_attr *tb, struct rtnl_steer *st)
{
	struct ndmsg nd;

	memcpy(&nd, m->data, sizeof(nd));
	if (nd.ndm_family != AF_INET || !(nd.ndm_state & NUD_PERMANENT))
		return 0;
	st->kind = RTNL_ST_NEIGH;
	st->state = nd.ndm_state;
	if (tb[NDA_DST].present && attr_in4(&tb[NDA_DST], &st->dst) < 0)
		return -EBOX_PROTO;
	return 1;
}

static int
steer_route(const struct nl_msg *m, struct nl_attr *tb, struct rtnl_steer *st)
{
	struct rtmsg rt;

	memcpy(&rt, m->data, sizeof(rt));
	if (rt.rtm_family != AF_INET)
		return 0;
	if (rt.rtm_dst_len > 32)
		return -EBOX_PROTO;
	st->kind = RTNL_ST_ROUTE;
	st->table = rt.rtm_table;
	if (tb[RTA_TABLE].present && nl_attr_u32(&tb[RTA_TABLE],
	    &st->table) < 0)
		return -EBOX_PROTO;
	st->action = rt.rtm_type;
	st->protocol = rt.rtm_protocol;
	st->dst_len = rt.rtm_dst_len;
	if (tb[RTA_DST].present && attr_in4(&tb[RTA_DST], &st->dst) < 0)
		return -EBOX_PROTO;
	if (tb[RTA_GATEWAY].present) {
		if (attr_in4(&tb[RTA_GATEWAY], &st->gw) < 0)
			return -EBOX_PROTO;
		st->has_gw = 1;
	}
	return 1;
}

int
rtnl_parse_steer(const struct nl_msg *m, struct rtnl_steer *st)
{
	struct nl_attr tb[32];
	int t = m->hdr.nlmsg_type, x;
	size_t hl = t == RTM_NEWRULE ? sizeof(struct fib_rule_hdr) :
	    t == RTM_NEWNEIGH ? sizeof(struct ndmsg) : sizeof(struct rtmsg);

	if (t != RTM_NEWRULE && t != RTM_NEWNEIGH && t != RTM_NEWROUTE)
		return 0;
	if ((x = nl_msg_attrs(m, hl, tb, 32)) < 0)
		return x;
	memset(st, 0, sizeof(*st));
	if (t == RTM_NEWRULE)
		return steer_rule(m, tb, st);
	if (t == RTM_NEWNEIGH)
		return steer_neigh(m, tb, st);
	return steer_route(m, tb, st);
}

/* ---------------------------------------------------------------- dumps */

union any {
	struct rtnl_link l;
	struct rtnl_brport p;
	struct rtnl_addr4 a;
	struct rtnl_route4 r;
	struct rtnl_steer s;
};

struct collect {
	int (*parse)(const struct nl_msg *, void *);
	unsigned char *out;
	size_t size, max, n;
	int full;
};

static int
parse_link(const struct nl_msg *m, void *p)
{
	return rtnl_parse_link(m, p);
}

static int
parse_brport(const struct nl_msg *m, void *p)
{
	return rtnl_parse_brport(m, p);
}

static int
parse_addr4(const struct nl_msg *m, void *p)
{
	return rtnl_parse_addr4(m, p);
}

static int
parse_route4(const struct nl_msg *m, void *p)
{
	return rtnl_parse_route4(m, p);
}

static int
on_msg(const struct nl_msg *m, void *arg)
{
	struct collect *c = arg;
	union any tmp;
	int r;

	if ((r = c->parse(m, &tmp)) <= 0)
		return r;
	if (c->n >= c->max) {
		c->full = 1;
		return 0;
	}
	memcpy(c->out + c->n * c->size, &tmp, c->size);
	c->n++;
	return 0;
}

static int
dump(struct nl_sock *s, uint16_t type, uint8_t family, size_t hdrlen,
    struct collect *c, const char *what, struct box_err *e)
{
	unsigned char req[128];
	struct nl_buf b;
	unsigned char *h;
	int r, tries;

	for (tries = 0; tries < DUMP_TRIES; tries++) {
		c->n = 0;
		c->full = 0;
		nl_buf_init(&b, req, sizeof(req));
		nl_msg_begin(&b, type, NLM_F_DUMP, nl_seq_take(s, 1));
		/* Every family header starts with its family byte. */
		if ((h = nl_msg_extra(&b, hdrlen)) != NULL)
			h[0] = family;
		if (type == RTM_GETLINK)
			nl_put_u32(&b, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
		if ((r = nl_msg_end(&b)) != 0)
			return err_set(e, r, "%s: %s", what, err_str(r));
		r = nl_dump(s, req, b.len, on_msg, c, NULL, what, e);
		if (r == -EINTR)
			continue;
		if (r < 0)
			return r;
		if (c->full)
			return err_set(e, -ENOSPC, "%s: more than %zu entries",
			    what, c->max);
		return (int)c->n;
	}
	return err_set(e, -EAGAIN, "%s: the kernel's tables kept changing "
	    "while they were read", what);
}

int
rtnl_links(struct nl_sock *s, struct rtnl_link *out, size_t max,
    struct box_err *e)
{
	struct collect c = { parse_link, (unsigned char *)out, sizeof(*out),
	    max, 0, 0 };

	return dump(s, RTM_GETLINK, AF_UNSPEC, sizeof(struct ifinfomsg), &c,
	    "rtnetlink: list links", e);
}

int
rtnl_bridge_ports(struct nl_sock *s, struct rtnl_brport *out, size_t max,
    struct box_err *e)
{
	struct collect c = { parse_brport, (unsigned char *)out, sizeof(*out),
	    max, 0, 0 };

	return dump(s, RTM_GETLINK, AF_BRIDGE, sizeof(struct ifinfomsg), &c,
	    "rtnetlink: list bridge ports", e);
}

int
rtnl_addrs4(struct nl_sock *s, struct rtnl_addr4 *out, size_t max,
    struct box_err *e)
{
	struct collect c = { parse_addr4, (unsigned char *)out, sizeof(*out),
	    max, 0, 0 };

	return dump(s, RTM_GETADDR, AF_INET, sizeof(struct ifaddrmsg), &c,
	    "rtnetlink: list IPv4 addresses", e);
}

int
rtnl_routes4(struct nl_sock *s, struct rtnl_route4 *out, size_t max,
    struct box_err *e)
{
	struct collect c = { parse_route4, (unsigned char *)out, sizeof(*out),
	    max, 0, 0 };

	return dump(s, RTM_GETROUTE, AF_INET, sizeof(struct rtmsg), &c,
	    "rtnetlink: list IPv4 routes", e);
}

static int
parse_steer(const struct nl_msg *m, void *p)
{
	return rtnl_parse_steer(m, p);
}

int
rtnl_steering(struct nl_sock *s, struct rtnl_steer *out, size_t max,
    struct box_err *e)
{
	static const struct {
		int type;
		size_t hl;
		const char *what;
	} d[] = {
		{ RTM_GETRULE, sizeof(struct fib_rule_hdr),
		  "rtnetlink: list IPv4 rules" },
		{ RTM_GETROUTE, sizeof(struct rtmsg),
		  "rtnetlink: list IPv4 routes of every table" },
		{ RTM_GETNEIGH, sizeof(struct ndmsg),
		  "rtnetlink: list IPv4 neighbours" },
	};
	size_t i, have = 0;
	int r;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		struct collect c = { parse_steer, (unsigned char *)(out +
		    have), sizeof(*out), max - have, 0, 0 };

		if ((r = dump(s, d[i].type, AF_INET, d[i].hl, &c, d[i].what,
		    e)) < 0)
			return r;
		have += (size_t)r;
	}
	return (int)have;
}

const struct rtnl_route4 *
rtnl_default_route4(const struct rtnl_route4 *r, size_t n)
{
	const struct rtnl_route4 *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].dst_len == 0 &&
		    (best == NULL || r[i].metric < best->metric))
			best = &r[i];
	return best;
}

const struct rtnl_link *
rtnl_link_by_name(const struct rtnl_link *l, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(l[i].name, name) == 0)
			return &l[i];
	return NULL;
}

const struct rtnl_link *
rtnl_link_by_index(const struct rtnl_link *l, size_t n, int ifindex)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].ifindex == ifindex)
			return &l[i];
	return NULL;
}

/* --------------------------------------------------------------- sysctl */

static int
sysctl_path(const char *key, char *path, size_t cap)
{
	const char *c;
	size_t clen = 0;

	if (key == NULL || key[0] == '\0' || key[0] == '/')
		return -EINVAL;
	for (c = key;; c++) {
		if (*c == '/' || *c == '\0') {
			/* No empty, "." or ".." component. */
			if (clen == 0 || (clen == 1 && c[-1] == '.') ||
			    (clen == 2 && c[-1] == '.' && c[-2] == '.'))
				return -EINVAL;
			if (*c == '\0')
				break;
			clen = 0;
			continue;
		}
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' ||
		    *c == '-' || *c == '@'))
			return -EINVAL;
		clen++;
	}
	if ((size_t)snprintf(path, cap, "/proc/sys/%s", key) >= cap)
		return -ENAMETOOLONG;
	return 0;
}

int
rtnl_sysctl_set(const char *key, const char *value, struct box_err *e)
{
	char path[256];
	size_t n;
	ssize_t w;
	int fd, r;

	if ((r = sysctl_path(key, path, sizeof(path))) < 0)
		return err_set(e, r, "sysctl: bad key \"%s\"", key ? key : "");
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return err_set(e, -errno, "sysctl: %s: %s", path,
		    strerror(errno));
	n = strlen(value);
	do
		w = write(fd, value, n);
	while (w < 0 && errno == EINTR);
	r = w < 0 ? -errno : (size_t)w != n ? -EIO : 0;
	if (close(fd) != 0 && r == 0)
		r = -errno;
	if (r < 0)
		return err_set(e, r, "sysctl: writing \"%s\" to %s: %s", value,
		    path, strerror(-r));
	return 0;
}

int
rtnl_sysctl_get(const char *key, char *dst, size_t cap, struct box_err *e)
{
	char path[256];
	ssize_t n;
	int fd, r;

	if (cap == 0)
		return err_set(e, -EINVAL, "sysctl: no room");
	dst[0] = '\0';
	if ((r = sysctl_path(key, path, sizeof(path))) < 0)
		return err_set(e, r, "sysctl: bad key \"%s\"", key ? key : "");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(e, -errno, "sysctl: %s: %s", path,
		    strerror(errno));
	do
		n = read(fd, dst, cap - 1);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return err_set(e, r, "sysctl: reading %s: %s", path,
		    strerror(-r));
	dst[n] = '\0';
	while (n > 0 && (dst[n - 1] == '\n' || dst[n - 1] == ' '))
		dst[--n] = '\0';
	return 0;
}
