/* presence.c - boxes and the host stack, as the daemon sees them. */
#include "host/install/presence.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "model/names.h"

#define TAGGED "config.user.box+eq+1+or+config.user.claudebox+eq+1"

/* Can we reach the daemon at all?  Distinguishes "no daemon" from errors. */
static int
reach(struct incus *c, struct presence *p)
{
	struct transport *t;
	struct box_err e;
	int rc;

	err_clear(&e);
	rc = incus_dial(c, &t, &e);
	if (rc == 0) {
		transport_close(t);
		return 0;
	}
	snprintf(p->why, sizeof(p->why), "%.255s", e.msg);
	if (rc == -ENOENT || rc == -ECONNREFUSED || rc == -EACCES ||
	    rc == -EPERM || rc == -ENOTSOCK)
		p->daemon = PRES_NO_DAEMON;
	return rc;
}

static void
count_boxes(const struct incus_instance_list *l, struct presence *p, int all)
{
	size_t i;

	p->boxes = 0;
	for (i = 0; i < l->n; i++) {
		const struct incus_instance *in = &l->v[i];

		if (!box_tagged(in, NULL))
			continue;
		if (p->nnames < PRESENCE_MAX_NAMES) {
			if (all && in->project[0] != '\0' &&
			    strcmp(in->project, "default"))
				snprintf(p->names[p->nnames], sizeof(p->names[0]),
				    "%s/%s", in->project, in->name);
			else
				snprintf(p->names[p->nnames], sizeof(p->names[0]),
				    "%s", in->name);
			p->nnames++;
		}
		p->boxes++;
	}
}

static void
list_boxes(struct incus *c, struct presence *p)
{
	struct incus_instance_list l;
	struct box_err e;
	int rc, all = 1;

	err_clear(&e);
	/* Every project when allowed: a user's boxes count as much as root's. */
	rc = incus_instance_list(c, TAGGED, INCUS_INST_ALL, &l, &e);
	if (rc == -EACCES) {
		err_clear(&e);
		all = 0;
		rc = incus_instance_list(c, TAGGED, 0, &l, &e);
	}
	if (rc == -EBOX_PROTO || rc == -E2BIG) {
		/* It answered, with nothing we can count. */
		p->daemon = PRES_ANSWERED;
		snprintf(p->why, sizeof(p->why), "%.255s", e.msg);
		return;
	}
	if (rc < 0) {
		snprintf(p->why, sizeof(p->why), "listing instances: %.230s",
		    e.msg);
		return;
	}
	p->daemon = PRES_ANSWERED;
	count_boxes(&l, p, all);
	incus_instance_list_free(&l);
}

/*
 * 1 exists, 0 absent, -1 unknown.  A reply we cannot read still says the
 * object is there.
 */
static int
exists(struct incus *c, int profile, const char *name)
{
	struct incus_network n;
	struct incus_profile pr;
	struct box_err e;
	int rc;

	err_clear(&e);
	if (profile) {
		if ((rc = incus_profile_get(c, name, &pr, &e)) == 0)
			incus_profile_free(&pr);
	} else if ((rc = incus_network_get(c, name, &n, &e)) == 0) {
		incus_network_free(&n);
	}
	if (rc == 0 || rc == -EBOX_PROTO)
		return 1;
	return rc == -ENOENT ? 0 : -1;
}

static void
find_stack(struct incus *c, struct presence *p)
{
	static const struct {
		int profile;
		const char *name, *what;
	} objs[] = {
		{ 0, CONTRACT_BRIDGE, "network " CONTRACT_BRIDGE },
		{ 1, CONTRACT_PROFILE, "profile " CONTRACT_PROFILE },
		{ 0, CONTRACT_LEGACY_BRIDGE,
		    "legacy network " CONTRACT_LEGACY_BRIDGE },
		{ 1, CONTRACT_LEGACY_PROFILE,
		    "legacy profile " CONTRACT_LEGACY_PROFILE },
	};
	size_t i, n;
	int x;

	p->stack = 0;
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		x = exists(c, objs[i].profile, objs[i].name);
		if (x < 0 && p->stack == 0)
			p->stack = -1;
		if (x <= 0)
			continue;
		p->stack = 1;
		n = strlen(p->stack_what);
		snprintf(p->stack_what + n, sizeof(p->stack_what) - n, "%s%s",
		    n ? ", " : "", objs[i].what);
	}
}

void
presence_probe(struct presence *p, int want_stack)
{
	struct incus c;
	struct box_err e;

	memset(p, 0, sizeof(*p));
	p->daemon = PRES_UNKNOWN;
	p->boxes = -1;
	p->stack = -1;
	err_clear(&e);
	if (incus_init(&c, &e) < 0) {
		snprintf(p->why, sizeof(p->why), "%.255s", e.msg);
		return;
	}
	if (c.timeout_ms > PRESENCE_TIMEOUT_MS)
		c.timeout_ms = PRESENCE_TIMEOUT_MS;
	if (reach(&c, p) < 0) {
		if (p->daemon == PRES_NO_DAEMON) {
			p->boxes = 0;
			p->stack = 0;
		}
		return;
	}
	list_boxes(&c, p);
	if (want_stack && p->daemon == PRES_ANSWERED)
		find_stack(&c, p);
	incus_close(&c);
}

int
presence_refuse_boxes(const struct presence *p, const char *act,
    struct box_err *e)
{
	char list[1024];
	size_t n = 0;
	int i;

	if (p->boxes == 0)
		return 0;
	if (p->boxes < 0) {
		err_set(e, -EAGAIN, "refusing to %s: cannot tell whether boxes "
		    "exist (%s)", act, p->why[0] ? p->why : "no answer");
		err_fix(e, "make sure the Incus daemon answers (box list), "
		    "then try again");
		return -EAGAIN;
	}
	list[0] = '\0';
	for (i = 0; i < p->nnames && n < sizeof(list) - 1; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
		    i ? ", " : "", p->names[i]);
	if (n >= sizeof(list))
		n = sizeof(list) - 1;
	if (p->boxes > p->nnames)
		snprintf(list + n, sizeof(list) - n, " and %d more",
		    p->boxes - p->nnames);
	err_set(e, -EBUSY, "refusing to %s while %d box%s exist%s (%s): "
	    "their version must not change under them", act, p->boxes,
	    p->boxes == 1 ? "" : "es", p->boxes == 1 ? "s" : "", list);
	err_fix(e, "keep them as files and remove them first (box down, box "
	    "export, box rm), then run this again");
	return -EBUSY;
}
