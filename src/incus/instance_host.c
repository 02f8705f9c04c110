/*
 * instance_host.c - instance actions for src/host/.  See instance_host.h.
 */
#include "incus/instance_host.h"

#include <errno.h>
#include <stdio.h>

#include "incus/instance.h"

static int
act(struct incus *c, const char *method, const char *name,
    const char *suffix, const char *body, int timeout_s, struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	if (incus_inst_path(path, sizeof(path), name, suffix) < 0)
		return err_set(e, -EINVAL, "odd instance name '%.80s'", name);
	rc = incus_do(c, method, path, body, timeout_s, &r, e);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

int
incus_instance_host_stop(struct incus *c, const char *name, int force,
    int timeout_s, struct box_err *e)
{
	return act(c, "PUT", name, "/state", force ?
	    "{\"action\":\"stop\",\"force\":true}" :
	    "{\"action\":\"stop\",\"force\":false}", timeout_s, e);
}

int
incus_instance_host_delete(struct incus *c, const char *name, int timeout_s,
    struct box_err *e)
{
	return act(c, "DELETE", name, "", NULL, timeout_s, e);
}
