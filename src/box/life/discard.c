/*
 * discard.c - removing a box, finished or half-made (see discard.h).
 */
#include "box/life/discard.h"

#include "box/door.h"
#include "box/egress/egress_sync.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "incus/operation.h"

#define PENDING_GRACE_S 120

void
box_discard(struct incus *c, const char *name, const char *what,
    const char *pending)
{
	struct box_err le;

	err_clear(&le);
	if (pending != NULL && pending[0] != '\0') {
		life_say("waiting up to %d s for the daemon to finish with %s, "
		    "to remove it", PENDING_GRACE_S, name);
		incus_op_wait(c, pending, PENDING_GRACE_S, &le);
		err_clear(&le);
	}
	if (life_exists(c, name, &le) != 1)
		return;
	if (what != NULL)
		life_say("removing the %s %s", what, name);
	if (life_delete(c, name, &le) < 0)
		life_say("warning: could not remove %s: %s (remove it: box rm "
		    "%s --force)", name, le.msg, name);
}

int
box_remove(struct incus *c, const char *name, int stopped,
    struct box_err *e)
{
	struct incus_instance in;
	int rc;

	if ((rc = box_get(c, name, 0, &in, NULL, e)) < 0)
		return rc;
	if (stopped && box_runs(&in)) {
		incus_instance_free(&in);
		return 1;
	}
	door_forget(c, &in.devices);
	rc = life_delete(c, in.name, e);
	incus_instance_free(&in);
	return rc;
}

/* The box_pick_run() step of box_remove_picked(); arg: &stopped. */
static int
remove_each(struct incus *c, const struct box_info *bi, void *arg,
    struct box_err *e)
{
	int rc, stopped = arg != NULL && *(const int *)arg;

	rc = box_remove(c, bi->name, stopped, e);
	if (rc == 1)
		life_say("kept %s: it runs again", bi->name);
	else if (rc == 0)
		life_say("removed %s", bi->name);
	return rc < 0 ? rc : 0;
}

int
box_remove_picked(struct incus *c, const struct box_pick *p,
    const char *verb, int force, int stopped, struct box_err *e)
{
	int rc;

	rc = box_pick_run(c, p, verb, force, 0, remove_each, &stopped, e);
	if (rc == 0 && p->n > 0)
		rc = egress_sync_if(c, 0, e);
	return rc;
}
