/*
 * box move <box> --pool <pool> | --target <member> - a stopped box onto
 * another storage pool, or another member of an Incus cluster
 * (box/life/move.c); its identity and policy stay.
 */
#include <stdio.h>
#include <string.h>

#include "box/bridge.h"
#include "box/life/move.h"
#include "host/stack/contract.h"
#include "host/stack/pins.h"
#include "incus/cluster.h"
#include "cmd/cmd.h"
#include "util/opt.h"

/*
 * The box left member from: when that is this member, this kernel's port
 * bindings are fed again from Incus (its MAC is bound here no more; the
 * other members' kernels resync at their next lease, or box firewall
 * sync there).
 */
static void
unbind_here(const char *from)
{
	struct incus c;
	struct pins_result pr;
	struct box_err e;
	char self[64];
	uint32_t net;

	err_clear(&e);
	if (incus_init(&c, &e) < 0)
		return;
	if (incus_cluster_self(&c, self, sizeof(self), &e) <= 0 ||
	    strcmp(self, from) != 0 || bridge_net(&c, &net, &e) <= 0)
		goto out;
	if (pins_sync(&c, CONTRACT_BRIDGE, net, &pr, &e) < 0)
		fprintf(stderr, "box: note: this member's port bindings were "
		    "not fed again (%s): box firewall sync\n", e.msg);
out:
	incus_close(&c);
}

int
cmd_move(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	const char *pool = NULL, *target = NULL;
	char from[64];
	int rc;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_STR("--pool", "<pool>", &pool, OC_NONE, "the storage pool "
		    "to move it to (incus storage list; box's own is 'box')"),
		OPT_STR("--target", "<member>", &target, OC_NONE, "on an Incus "
		    "cluster: the member to move it to (one in group box)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((pool == NULL) == (target == NULL))
		return err_usage(e, "move takes --pool <pool> or --target "
		    "<member>");
	if (target != NULL) {
		if ((rc = box_move_member(res.pos[0], target, from,
		    sizeof(from), e)) < 0)
			return rc;
		unbind_here(from);
		printf("%s is on member %s\n", res.pos[0], target);
		return 0;
	}
	if ((rc = box_move(res.pos[0], pool, from, sizeof(from), e)) < 0)
		return rc;
	printf("%s is on pool %s\n", res.pos[0], pool);
	return 0;
}
