/*
 * discard.c - removing a box, finished or half-made (see discard.h).
 */
#include "box/discard.h"

#include "box/door.h"
#include "box/life.h"
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
box_remove(struct incus *c, const struct incus_instance *in,
    struct box_err *e)
{
	door_forget(c, &in->devices);
	return life_delete(c, in->name, e);
}
