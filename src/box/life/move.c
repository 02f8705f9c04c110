/*
 * move.c - box move (see move.h).
 */
#include "box/life/move.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "box/place.h"
#include "incus/instance.h"
#include "incus/storage.h"

/*
 * Read the box to move: where it is now into from (its root disk's pool,
 * or with !pool its cluster member), then -EBUSY unless it is stopped.
 */
static int
stopped(struct incus *c, const char *name, int pool, char *from, size_t cap,
    struct box_err *e)
{
	struct incus_instance in;
	struct box_info bi;
	const char *p;
	int rc;

	if ((rc = box_get(c, name, 0, &in, &bi, e)) < 0)
		return rc;
	p = pool ? incus_dev_key(&in.expanded_devices, "root", "pool") :
	    bi.member;
	snprintf(from, cap, "%s", p != NULL ? p : "");
	incus_instance_free(&in);
	if (strcmp(bi.status, "Stopped") == 0)
		return 0;
	if (pool) {
		err_set(e, -EBUSY, "box %s is not stopped — its disk moves "
		    "only while nothing writes to it", name);
		err_fix(e, "stop it first: box down %s (or copy it running: "
		    "box fork %s <new>)", name, name);
	} else {
		err_set(e, -EBUSY, "box %s is not stopped — it moves between "
		    "members only while nothing runs in it", name);
		err_fix(e, "stop it first: box down %s", name);
	}
	return -EBUSY;
}

/*
 * Both moves: to is a pool (pool) or a cluster member; from as said in
 * move.h.  The box stopped, where it goes checked (the pool and its
 * driver, or the member box places it on), then moved unless it is there.
 */
static int
move(const char *name, const char *to, int pool, char *from, size_t cap,
    struct box_err *e)
{
	struct incus c;
	char drv[32], target[80];
	const char *kind = pool ? "pool" : "member", *dest = to;
	int rc;

	from[0] = '\0';
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = stopped(&c, name, pool, from, cap, e)) < 0)
		goto out;
	if (!pool) {
		if ((rc = box_place(&c, to, target, sizeof(target), e)) < 0)
			goto out;
		dest = target;
	} else if ((rc = life_pool_driver(&c, to, drv, sizeof(drv), e)) < 0) {
		if (rc == -ENOENT) {
			err_clear(e);
			err_set(e, -ENOENT, "no storage pool '%s'", to);
			err_fix(e, "incus storage list shows them; box "
			    "setup-host --pool btrfs makes box's own");
		}
		goto out;
	}
	if (strcmp(from, dest) == 0) {
		life_say("%s is already on %s %s", name, kind, dest);
		goto out;
	}
	if (pool) {
		life_say("moving %s from pool %s to pool %s (%s)", name, from,
		    dest, drv);
		rc = incus_instance_move_pool(&c, name, dest, LIFE_OP_S, e);
	} else {
		life_say("moving %s from member %s to member %s", name, from,
		    dest);
		rc = incus_instance_move_member(&c, name, dest, LIFE_OP_S, e);
	}
	if (rc < 0)
		err_context(e, "moving %s to %s %s", name, kind, dest);
out:
	incus_close(&c);
	return rc;
}

int
box_move(const char *name, const char *pool, char *from, size_t cap,
    struct box_err *e)
{
	return move(name, pool, 1, from, cap, e);
}

int
box_move_member(const char *name, const char *member, char *from, size_t cap,
    struct box_err *e)
{
	return move(name, member, 0, from, cap, e);
}
