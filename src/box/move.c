/*
 * move.c - box move (see move.h).
 */
#include "box/move.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/life.h"
#include "box/place.h"
#include "incus/instance.h"
#include "incus/storage.h"

int
box_move(const char *name, const char *pool, char *from, size_t cap,
    struct box_err *e)
{
	struct incus_instance in;
	struct box_info bi;
	struct incus c;
	char drv[32];
	const char *p;
	int rc;

	from[0] = '\0';
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_get(&c, name, 0, &in, &bi, e)) < 0)
		goto out;
	p = incus_dev_key(&in.expanded_devices, "root", "pool");
	snprintf(from, cap, "%s", p != NULL ? p : "");
	incus_instance_free(&in);
	if (strcmp(bi.status, "Stopped") != 0) {
		rc = err_set(e, -EBUSY, "box %s is not stopped — its disk "
		    "moves only while nothing writes to it", name);
		err_fix(e, "stop it first: box down %s (or copy it running: "
		    "box fork %s <new>)", name, name);
		goto out;
	}
	if ((rc = life_pool_driver(&c, pool, drv, sizeof(drv), e)) < 0) {
		if (rc == -ENOENT) {
			err_clear(e);
			err_set(e, -ENOENT, "no storage pool '%s'", pool);
			err_fix(e, "incus storage list shows them; box "
			    "setup-host --pool btrfs makes box's own");
		}
		goto out;
	}
	if (strcmp(from, pool) == 0) {
		life_say("%s is already on pool %s", name, pool);
		goto out;
	}
	life_say("moving %s from pool %s to pool %s (%s)", name, from, pool,
	    drv);
	rc = incus_instance_move_pool(&c, name, pool, LIFE_OP_S, e);
	if (rc < 0)
		err_context(e, "moving %s to pool %s", name, pool);
out:
	incus_close(&c);
	return rc;
}

int
box_move_member(const char *name, const char *member, char *from, size_t cap,
    struct box_err *e)
{
	struct incus_instance in;
	struct box_info bi;
	struct incus c;
	char target[80];
	int rc;

	from[0] = '\0';
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_get(&c, name, 0, &in, &bi, e)) < 0)
		goto out;
	incus_instance_free(&in);
	snprintf(from, cap, "%s", bi.member);
	if (strcmp(bi.status, "Stopped") != 0) {
		rc = err_set(e, -EBUSY, "box %s is not stopped — it moves "
		    "between members only while nothing runs in it", name);
		err_fix(e, "stop it first: box down %s", name);
		goto out;
	}
	if ((rc = box_place(&c, member, target, sizeof(target), e)) < 0)
		goto out;
	if (strcmp(from, target) == 0) {
		life_say("%s is already on member %s", name, target);
		goto out;
	}
	life_say("moving %s from member %s to member %s", name, from, target);
	rc = incus_instance_move_member(&c, name, target, LIFE_OP_S, e);
	if (rc < 0)
		err_context(e, "moving %s to member %s", name, target);

out:
	incus_close(&c);
	return rc;
}
