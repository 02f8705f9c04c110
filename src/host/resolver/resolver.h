/*
 * resolver.h - box's own resolver for boxes: DNS over UDP and TCP on
 * boxnet's gateway address, a view per box (host/resolver/view.h),
 * forwarded to the pinned upstreams, with no cache and a budget per box.
 *
 * Per box (by the last octet of its pinned address on the /24):
 *   queries in flight  at most inflight; more are dropped unanswered
 *   queries a second   a token bucket of qps, burst 2*qps; over it:
 *                      dropped unanswered
 *   TCP connections    at most tcp open at once; another is closed at
 *                      accept; each closes after RSV_TCP_IDLE_MS without
 *                      a whole query, or RSV_TCP_LIFE_MS in all
 * Across boxes only the tables are shared: RSV_MAXPEND queries in flight
 * (RSV_MAXPEND / inflight = 64 boxes flooding at once at the defaults
 * before a sibling finds the table full) and RSV_MAXCONN connections.
 * A query over its box's budget is dropped, never queued, so a flood
 * costs a sibling nothing but the CPU it takes to drop it.
 * There is no cache: every answer is the upstream's, asked for this box.
 * An upstream's truncated (TC) UDP answer is asked again of it over TCP,
 * once, within the same try deadline (RSV_UPTCP connections at most,
 * RSV_UPTCP_BOX per box; none spare: the client gets the TC answer and
 * asks over TCP itself); the TCP answer is judged like a UDP one.
 *
 * The box table comes from the daemon (a thread of its own, so a slow
 * daemon never stalls an answer): every box-tagged instance's NIC MAC
 * (volatile.eth0.hwaddr), the address Incus pinned for it (its
 * dnsmasq.hosts record, else its lease) and its egress policy; re-read
 * every RSV_REFRESH_MS, and sooner, at most once every RSV_REREAD_MS,
 * when a query comes from an address no box holds or is refused by a
 * policy (the host's kick and SIGHUP, both the host's, read at once).
 *
 * Every answer a box gets has its TTLs set to RSV_TTL, and an answer
 * naming an address a box may not reach is refused (answer.h).
 *
 * For an allow box, every A record an answer gives for an allowed name
 * (or its CNAME chain) is handed to conf->feed (NULL: none) with the
 * box, the name asked and the records' TTLs, all of an answer at once
 * and off the answering thread (feeder.h): the egress set's feeder.
 * Each refusal is logged with the name asked, at most 20 lines a second
 * for each box (then a count of those not logged).
 */
#ifndef BOX_RESOLVER_H
#define BOX_RESOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "host/resolver/view.h"
#include "util/err.h"

#define RSV_MAXUP	4		/* upstreams */
#define RSV_MAXPEND	2048		/* queries in flight, all boxes */
#define RSV_MAXCONN	256		/* TCP connections, all boxes */
#define RSV_TCP_IDLE_MS	5000
#define RSV_TCP_LIFE_MS	30000
#define RSV_TRY_MS	1000		/* per upstream try */
#define RSV_TRIES	2		/* then SERVFAIL */
#define RSV_REFRESH_MS	5000
#define RSV_REREAD_MS	1000		/* sooner, at most this often */
#define RSV_DEF_INFLIGHT 32
#define RSV_DEF_QPS	200
#define RSV_DEF_TCP	4
#define RSV_UPTCP	32		/* TCP retries in flight, all boxes */
#define RSV_UPTCP_BOX	4		/* ...per box */

struct rsv_feedsock;			/* the feeder's kernel socket */

struct rsv_conf {
	uint32_t listen;		/* host order: the gateway */
	uint16_t port;			/* 53 */
	uint32_t net;			/* the boxes' /24 */
	uint32_t up[RSV_MAXUP];		/* upstreams, host order */
	uint16_t up_port[RSV_MAXUP];
	int nup;
	int inflight, qps, tcp;		/* per box; qps 0: no limit */
	int view;			/* 0: forward all (a test's control) */
	int tcp_retry;			/* a TC answer asked again over TCP */
	/* Sources in this prefix are one open box named "bench" (the
	 * bench's loopback client); plen 0: none. */
	uint32_t open_net;
	int open_plen;
	const char *bridge;		/* whose leases and pins name boxes */
	/* An allow box's answer, for its egress set (NULL: not fed), on
	 * the feeder's socket *s (NULL until the first call opens it;
	 * feed_close closes it). */
	int (*feed)(struct rsv_feedsock **s, const struct rsv_box *b,
	    const char *name, const struct dns_addr *v, size_t n,
	    struct box_err *e);
	void (*feed_close)(struct rsv_feedsock *s);
	/* Set instead (a test's control, the old way): the answering
	 * thread feeds each address itself, a transaction each. */
	int (*feed_inline)(const struct rsv_box *b, const char *name,
	    const struct dns_addr *v, size_t n);
};

/*
 * The settings from their text: listen "A.B.C.1[:port]" (the /24 is
 * its), up[0..nup) "A[:port]", open_source "A/N" or NULL; the budgets at
 * their defaults, the view on, no feeder.  0 or a usage error.
 */
int rsv_conf_parse(const char *listen, const char *const *up, int nup,
    const char *open_source, struct rsv_conf *c, struct box_err *e);

/*
 * Answer until SIGTERM/SIGINT: 0, or a negative code with e (the
 * sockets could not be bound; the daemon never answered the first
 * read is not fatal: every query is refused until it does).
 */
int resolver_run(const struct rsv_conf *c, struct box_err *e);

/* The feeder box runs with (conf->feed): the answer's addresses into the
 * box's egress set in one batch through egress_fw's egfw_feed_batch, on
 * one socket kept open across calls (feed.c).  0 or -errno (e set). */
int rsv_feed_egress(struct rsv_feedsock **s, const struct rsv_box *b,
    const char *name, const struct dns_addr *v, size_t n,
    struct box_err *e);
void rsv_feed_close(struct rsv_feedsock *s);
/* The control's feeder: each address on its own socket, in turn. */
int rsv_feed_each(const struct rsv_box *b, const char *name,
    const struct dns_addr *v, size_t n);

/* The boxes the daemon knows, with their pinned addresses (heap, *n;
 * free()).  Boxes with no MAC or no pinned address are left out. */
int rsv_gather(const char *bridge, struct rsv_box **out, size_t *n,
    struct box_err *e);

#endif
