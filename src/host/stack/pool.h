/*
 * pool.h - the storage pool boxes live on: chosen by setup-host, created
 * when box makes its own, named by the box-net profile's root disk, read
 * back by doctor, removed by teardown-host.
 *
 * The choice, in order:
 *   --pool dir          the dir pool (Incus's "default" when it is one)
 *   --pool btrfs[:SIZE] box's own btrfs pool "box" on a loop file Incus
 *                       makes (SIZE like 20GiB; default from free disk)
 *   --pool <name>       that existing pool, as it is
 *   nothing asked       the pool the profile names when it is
 *                       copy-on-write; else an existing copy-on-write pool
 *                       (box's own first); else, on a terminal, box's own
 *                       btrfs pool if the answer is yes; else the pool in
 *                       use (dir: every snapshot and clone a full copy,
 *                       said).  A daemon with no pool at all gets
 *                       "default", btrfs when it can, else dir.
 * Making box's own pool needs btrfs-progs on the host: installed with
 * apt-get when missing; when no package source answers (air-gapped) the
 * boxes stay on the pool in use, and the warning says what to do.
 */
#ifndef BOX_POOL_H
#define BOX_POOL_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/kv.h"
#include "util/err.h"

#define POOL_FLOOR_GIB	5	/* box's own pool: never smaller ... */
#define POOL_CEIL_GIB	100	/* ... nor larger, from free disk */
#define POOL_MIN_GIB	1	/* an explicit btrfs:SIZE at least this */

struct pool_choice {
	char name[64];		/* the pool the profile's root disk names */
	char driver[32];	/* its driver ("" until it exists) */
	char current[64];	/* the pool the profile named before, or "" */
	int create;		/* box's own btrfs pool is to be made */
	int create_default;	/* no pool at all: "default", btrfs or dir */
	unsigned size_gib;	/* create: its size */
	char size_why[160];	/* create: how the size was found */
	char fallback[64];	/* create failing for want of btrfs: this */
	char why[200];		/* how it was chosen, for setup-host */
};

/*
 * Decide, changing nothing.  asked: --pool's value or NULL; may_ask: a
 * terminal is there to ask on (asks only when no copy-on-write pool
 * exists and nothing was asked).  A malformed --pool is a usage error.
 */
int pool_decide(struct incus *c, const char *asked, int may_ask,
    struct pool_choice *ch, struct box_err *e);

/*
 * Make the pool when the choice says so.  Box's own btrfs pool needs
 * btrfs-progs: installed when missing; if that fails (no package
 * source), ch falls back (ch->name = ch->fallback) and warn gets why and
 * what to do.  *created when a pool was made.  ch->driver is read back.
 */
int pool_ensure(struct incus *c, struct pool_choice *ch, int *created,
    char *warn, size_t cap, struct box_err *e);

/*
 * Before the profile's root disk moves from pool from to another, every
 * box whose root disk comes from the profile gets a root disk of its own
 * on from, so existing boxes stay where they are.  *n: boxes pinned.
 */
int pool_pin_boxes(struct incus *c, const char *from, int *n,
    struct box_err *e);

/* 1 when a pool of driver with config cfg (may be NULL) has
 * copy-on-write (incus_driver_cow). */
int pool_cow(const char *driver, const struct incus_kvs *cfg);

/*
 * teardown-host: remove box's own pool (its cached images first), then
 * prove the pool and its loop file are gone.  *removed: it existed;
 * loop: the loop file's path ("" when none).  A pool still used by an
 * instance is left, and said by the error.
 */
int pool_remove_own(struct incus *c, int *removed, char *loop, size_t cap,
    struct box_err *e);

/* 1 when box's own pool or its loop file survives (teardown's check). */
int pool_own_left(struct incus *c, const char *loop);

#endif
