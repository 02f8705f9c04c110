/*
 * verify_steer.c - a box's own routing, read and judged (see
 * verify_steer.h).
 */
#include "box/verify/verify_steer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include "model/ip4text.h"
#include "net/netns.h"
#include "net/nl.h"

static int
plain_rule(const struct rtnl_steer *s)
{
	return s->action == FR_ACT_TO_TBL &&
	    ((s->pref == 0 && s->table == RT_TABLE_LOCAL) ||
	    (s->pref == 32766 && s->table == RT_TABLE_MAIN) ||
	    (s->pref == 32767 && s->table == RT_TABLE_DEFAULT));
}

static int
plain_route(const struct rtnl_steer *s, uint32_t gw)
{
	if (s->table == RT_TABLE_LOCAL)
		return s->action == RTN_LOCAL || s->action == RTN_BROADCAST;
	if (s->table != RT_TABLE_MAIN || s->action != RTN_UNICAST)
		return 0;
	if (s->dst_len == 0)
		return s->has_gw && ntohl(s->gw.s_addr) == gw;
	return !s->has_gw && s->protocol == RTPROT_KERNEL;
}

static void
describe(const struct rtnl_steer *s, char *buf, size_t cap)
{
	char a[IP4_TEXT_MAX], g[IP4_TEXT_MAX];

	ip4_fmt(ntohl(s->dst.s_addr), a, sizeof(a));
	ip4_fmt(ntohl(s->gw.s_addr), g, sizeof(g));
	if (s->kind == RTNL_ST_RULE)
		snprintf(buf, cap, "rule pref %u table %u", s->pref, s->table);
	else if (s->kind == RTNL_ST_NEIGH)
		snprintf(buf, cap, "permanent neighbour %s", a);
	else
		snprintf(buf, cap, "route %s/%u%s%s type %u table %u", a,
		    s->dst_len, s->has_gw ? " via " : "", s->has_gw ? g : "",
		    s->action, s->table);
}

int
vsteer_judge(const struct rtnl_steer *v, size_t n, uint32_t gw,
    char *why, size_t cap)
{
	char one[96];
	size_t i, l;
	int k = 0;

	if (cap > 0)
		why[0] = '\0';
	for (i = 0; i < n; i++) {
		if ((v[i].kind == RTNL_ST_RULE && plain_rule(&v[i])) ||
		    (v[i].kind == RTNL_ST_ROUTE && plain_route(&v[i], gw)))
			continue;
		if (k++ >= 4)
			continue;	/* counted, not all named */
		describe(&v[i], one, sizeof(one));
		l = strlen(why);
		if (l + 3 < cap)
			snprintf(why + l, cap - l, "%s%s", l ? ", " : "", one);
	}
	return k;
}

/* In the box's namespace: the entries, as bytes, into out. */
static ssize_t
steer_child(void *arg, char *out, size_t cap)
{
	struct nl_sock s;
	struct box_err e;
	int n;

	(void)arg;
	if (nl_open(&s, NETLINK_ROUTE, &e) < 0)
		return -1;
	n = rtnl_steering(&s, (struct rtnl_steer *)(void *)out,
	    cap / sizeof(struct rtnl_steer), &e);
	nl_close(&s);
	return n < 0 ? -1 : (ssize_t)((size_t)n * sizeof(struct rtnl_steer));
}

int
vsteer_read(long long pid, uint32_t gw, char *why, size_t cap,
    int timeout_ms, struct box_err *e)
{
	struct rtnl_steer *v = calloc(VSTEER_MAX, sizeof(*v));
	struct netns ns;
	int rc;

	if (v == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = netns_open(&ns, (pid_t)pid, e)) < 0) {
		free(v);
		return rc;
	}
	rc = netns_run(&ns, steer_child, NULL, (char *)v,
	    VSTEER_MAX * sizeof(*v), timeout_ms, e);
	netns_close(&ns);
	if (rc >= 0 && rc % (int)sizeof(*v) != 0)
		rc = err_set(e, -EIO, "reading the box's routing: a short "
		    "report");
	if (rc >= 0)
		rc = vsteer_judge(v, (size_t)rc / sizeof(*v), gw, why, cap);
	else
		err_context(e, "reading the box's routing");
	free(v);
	return rc;
}
