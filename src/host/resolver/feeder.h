/*
 * feeder.h - the allow boxes' egress sets fed off the answering path.
 *
 * The answering thread never talks to the kernel.  An answer for an
 * allow box whose addresses are all in that box's mirror (fed within
 * RSV_MIRROR_MS) goes out at once: a known address costs nothing.  One
 * that names an address the mirror lacks becomes a job: the answer is
 * held (its query keeps its place in the box's in-flight budget) until
 * the worker thread has put every new address of it in the box's set, in
 * one netlink batch on the worker's one long-lived socket, and only then
 * sent, so a box that connects the moment it has the answer finds the
 * address in its set.  Each box has at most RSV_FEED_BOX jobs waiting
 * (over it the answer is dropped unanswered, as any query over its box's
 * budget: the client asks again), all boxes RSV_FEED_JOBS; the worker
 * takes the boxes in turn, so a box's flood delays only its own answers.
 * A job not done within a try's deadline (RSV_TRY_MS) is answered
 * SERVFAIL.
 *
 * The mirror is per box, direct-mapped (RSV_MIRROR_N addresses; a
 * collision costs a feed, never a wrong answer) and forgotten when the
 * box's policy, MAC or address changes in a table read, or when `box
 * egress` kicked the resolver (a sync replaced the sets).  It trusts an
 * address for RSV_MIRROR_MS, half of the shortest hold a feed gives
 * (EGFW_FEED_MIN_S).
 *
 * Failed feeds are logged at most once per RSV_FEED_LOG_MS, with the
 * count of those not logged (a full set fails every add).
 */
#ifndef BOX_RSV_FEEDER_H
#define BOX_RSV_FEEDER_H

#include <stddef.h>
#include <stdint.h>

#include "host/resolver/resolver.h"

#define RSV_FEED_JOBS	64
#define RSV_FEED_BOX	4
#define RSV_MIRROR_N	512
#define RSV_MIRROR_MS	30000
#define RSV_FEED_LOG_MS	10000

struct rsv_feeder;

/* A finished job: the query it held, and whether it was fed. */
struct rsv_fed {
	int slot;
	uint32_t gen;
	int ok;
};

/* Start the worker; *evfd becomes readable when a job is done.  0 or
 * -errno. */
int rsv_feeder_start(struct rsv_feeder **fp, const struct rsv_conf *c,
    int *evfd);
void rsv_feeder_stop(struct rsv_feeder *f);

/*
 * Answer m[0..n) for box b (client cl), for the query slot/gen, naming
 * addresses a[0..na) for name: 0 nothing to feed (send it now), 1 held
 * (rsv_feeder_done gives it back), -EBUSY the box's queue (or the
 * table) is full.  now in ms.
 */
int rsv_feeder_put(struct rsv_feeder *f, int cl, const struct rsv_box *b,
    const char *name, const struct dns_addr *a, size_t na,
    const unsigned char *m, size_t n, int slot, uint32_t gen, uint64_t now);

/* The next finished job (1), its answer in *m, *n (valid until the next
 * call), or 0 when none.  now in ms. */
int rsv_feeder_done(struct rsv_feeder *f, struct rsv_fed *d,
    const unsigned char **m, size_t *n, uint64_t now);

/* Forget box cl's mirror (cl < 0: every box's). */
void rsv_feeder_forget(struct rsv_feeder *f, int cl);

/* Jobs held for cl (its share of the queue). */
int rsv_feeder_held(const struct rsv_feeder *f, int cl);

#endif
