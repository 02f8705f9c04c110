/*
 * nlmon.h - the kernel's change notifications: a netlink socket joined to
 * multicast groups (nf_tables' NFNLGRP_NFTABLES, rtnetlink's RTNLGRP_LINK)
 * read without blocking, and a pure, bounded reader that sums what a
 * datagram of notifications says.
 *
 * Why: box's guard (host/guard/) puts the contract back when anything
 * changes it; the kernel says so the moment a transaction commits, so the
 * guard waits on these sockets instead of polling.  A reader that falls
 * behind loses notifications (the kernel says ENOBUFS): that is reported,
 * and the caller must then read the state itself.
 */
#ifndef BOX_NLMON_H
#define BOX_NLMON_H

#include <stddef.h>
#include <stdint.h>

#include "net/nl.h"
#include "util/err.h"

#define NLMON_NAMEMAX	32	/* table and process names kept */

/* What one or more datagrams of notifications said (nlmon_sum adds up). */
struct nlmon_sum {
	unsigned nft;		/* nf_tables messages */
	unsigned nft_box;	/* of those, naming the caller's table */
	unsigned nft_del;	/* DELTABLE/DELCHAIN/DELRULE/DELSET/DELSETELEM */
	unsigned base_foreign;	/* a base chain added to a table not box's */
	char foreign_table[NLMON_NAMEMAX];	/* the first such table */
	unsigned gens;		/* NEWGEN: committed transactions */
	uint32_t gen_id;	/* the last NEWGEN's generation */
	uint32_t proc_pid;	/* its NFTA_GEN_PROC_PID, 0 when not said */
	char proc_name[NLMON_NAMEMAX];	/* NFTA_GEN_PROC_NAME, "" if not */
	unsigned links;		/* RTM_NEWLINK / RTM_DELLINK */
	unsigned brports;	/* of those, AF_BRIDGE (a port's flags) */
	unsigned bad;		/* messages that did not parse (skipped) */
};

/*
 * Open a socket of protocol proto (NETLINK_NETFILTER, NETLINK_ROUTE) that
 * joins groups[0..n) and never blocks on read.  0 or -errno (e set).
 */
int nlmon_open(struct nl_sock *s, int proto, const unsigned *groups,
    size_t n, struct box_err *e);

/*
 * Read every datagram waiting on s into sum (nlmon_add each).  The number
 * read (0: nothing waited), or -ENOBUFS when the kernel dropped some (the
 * socket stays usable; what was lost is unknown), or another -errno.
 */
int nlmon_drain(struct nl_sock *s, const char *ours,
    struct nlmon_sum *sum);

/*
 * Add what buf[0..n) (one datagram: back-to-back netlink messages) says
 * to sum; ours names the caller's nf_tables table (any family).  Pure
 * and bounded: reads only inside buf, never allocates.
 * The number of messages read, or -EBOX_PROTO when a length is impossible
 * (what came before still counts).
 */
int nlmon_add(const void *buf, size_t n, const char *ours,
    struct nlmon_sum *sum);

#endif
