/*
 * setup.h - `box setup-host` as one call: the subnet decided before
 * anything changes, then the storage pool, the box-isolate ACL, the
 * boxnet bridge, the box-net profile, the host firewall (one netlink
 * batch, read back from the kernel), the ARP sysctls, the boxes' egress
 * policies, the boot unit, the port bindings, box's resolver and, on a
 * cluster, the member in group box; each step said on stderr.  A dry run
 * decides and looks, changing nothing, and hands back the plan for the
 * caller to render.
 */
#ifndef BOX_SETUP_H
#define BOX_SETUP_H

#include "host/stack/firewall.h"
#include "host/stack/pool.h"
#include "host/stack/stack.h"
#include "host/stack/subnet.h"
#include "util/err.h"

/* Caller-owned: what was asked. */
struct setup_opts {
	const char *pool;	/* --pool, or NULL */
	int dry;		/* --dry-run: decide and look, change nothing */
	int json;		/* JSON is rendered: no warning lines */
};

/* What was decided and found (the dry run's plan; filled as far as the
 * run got). */
struct setup_plan {
	int daemon;		/* the daemon answered */
	int refused;		/* inside a box: a run would be refused */
	struct subnet_plan plan;
	struct stack_conf conf;
	struct stack_state st;	/* with the daemon */
	struct fw_status fw;
	struct pool_choice pool;	/* with the daemon */
	int systemd;		/* systemd is here to run the boot unit */
};

/*
 * Plan (o->dry) or build and converge the stack (root and the admin tier
 * needed, refused inside a box).  0, or the failure of the first step
 * that failed (the steps before it stand: running it again converges).
 */
int setup_host_run(const struct setup_opts *o, struct setup_plan *p,
    struct box_err *e);

#endif
