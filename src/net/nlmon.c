/* nlmon.c - change notifications from the kernel (see nlmon.h). */
#include "net/nlmon.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/rtnetlink.h>

int
nlmon_open(struct nl_sock *s, int proto, const unsigned *groups, size_t n,
    struct box_err *e)
{
	size_t i;
	int rc, buf = 4 << 20;

	if ((rc = nl_open(s, proto, e)) < 0)
		return rc;
	/* A flush of a large ruleset is thousands of messages at once. */
	(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	for (i = 0; i < n; i++) {
		unsigned g = groups[i];

		if (setsockopt(s->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
		    sizeof(g)) != 0) {
			rc = -errno;
			nl_close(s);
			return err_set(e, rc, "joining netlink group %u: %s",
			    g, strerror(-rc));
		}
	}
	return 0;
}

static void
add_gen(const struct nl_msg *m, struct nlmon_sum *sum)
{
	struct nl_attr tb[NFTA_GEN_PROC_NAME + 1];
	uint32_t v;

	sum->gens++;
	if (nl_msg_attrs(m, sizeof(struct nfgenmsg), tb, NFTA_GEN_PROC_NAME +
	    1) < 0) {
		sum->bad++;
		return;
	}
	if (nl_attr_be32(&tb[NFTA_GEN_ID], &v) == 0)
		sum->gen_id = v;
	sum->proc_pid = nl_attr_be32(&tb[NFTA_GEN_PROC_PID], &v) == 0 ? v : 0;
	if (nl_attr_str(&tb[NFTA_GEN_PROC_NAME], sum->proc_name,
	    sizeof(sum->proc_name)) < 0)
		sum->proc_name[0] = '\0';
}

/*
 * Every object message carries its table as attribute 1 (NFTA_TABLE_NAME,
 * NFTA_CHAIN_TABLE, NFTA_RULE_TABLE, NFTA_SET_TABLE, ..._LIST_TABLE); a
 * chain's hook is NFTA_CHAIN_HOOK.
 */
static void
add_nft(const struct nl_msg *m, uint8_t msg, const char *ours,
    struct nlmon_sum *sum)
{
	struct nl_attr tb[NFTA_CHAIN_HOOK + 1];
	char table[NLMON_NAMEMAX];

	sum->nft++;
	if (msg == NFT_MSG_NEWGEN) {
		add_gen(m, sum);
		return;
	}
	if (msg == NFT_MSG_DELTABLE || msg == NFT_MSG_DELCHAIN ||
	    msg == NFT_MSG_DELRULE || msg == NFT_MSG_DELSET ||
	    msg == NFT_MSG_DELSETELEM)
		sum->nft_del++;
	if (nl_msg_attrs(m, sizeof(struct nfgenmsg), tb, NFTA_CHAIN_HOOK +
	    1) < 0) {
		sum->bad++;
		return;
	}
	if (nl_attr_str(&tb[1], table, sizeof(table)) < 0)
		table[0] = '\0';	/* a name too long is not box's */
	if (strcmp(table, ours) == 0)
		sum->nft_box++;
	else if (msg == NFT_MSG_NEWCHAIN && tb[NFTA_CHAIN_HOOK].present) {
		if (sum->base_foreign++ == 0)
			memcpy(sum->foreign_table, table, sizeof(table));
	}
}

int
nlmon_add(const void *buf, size_t n, const char *ours,
    struct nlmon_sum *sum)
{
	struct nl_msg m;
	size_t off = 0;
	int rc, count = 0;

	while ((rc = nl_msg_at(buf, n, &off, &m)) > 0) {
		uint16_t t = m.hdr.nlmsg_type;

		count++;
		if (t < NLMSG_MIN_TYPE)
			continue;	/* NOOP, ERROR, DONE, OVERRUN */
		if (t >> 8 == NFNL_SUBSYS_NFTABLES && m.len >=
		    sizeof(struct nfgenmsg)) {
			add_nft(&m, (uint8_t)(t & 0xff), ours, sum);
		} else if ((t == RTM_NEWLINK || t == RTM_DELLINK) &&
		    m.len >= sizeof(struct ifinfomsg)) {
			struct ifinfomsg ifi;

			memcpy(&ifi, m.data, sizeof(ifi));
			sum->links++;
			if (ifi.ifi_family == AF_BRIDGE)
				sum->brports++;
		} else
			sum->bad++;
	}
	return rc < 0 ? rc : count;
}

int
nlmon_drain(struct nl_sock *s, const char *ours,
    struct nlmon_sum *sum)
{
	int count = 0, lost = 0;

	for (;;) {
		ssize_t n = recv(s->fd, s->rbuf, sizeof(s->rbuf),
		    MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			lost = 1;	/* the queue overran: go on reading */
			continue;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ?
			    (lost ? -ENOBUFS : count) : -errno;
		if (n == 0)
			return lost ? -ENOBUFS : count;
		(void)nlmon_add(s->rbuf, (size_t)n, ours, sum);
		count++;
	}
}
