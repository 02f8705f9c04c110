/*
 * box migrate-host --box <name> | --all-boxes | --retire-legacy [--force]
 * - re-home legacy (pre-0.4, user.claudebox=1) boxes onto the hardened
 * stack, one at a time, each verified from inside before the next; or
 * retire the legacy stack once no box needs it.  The policy and its order
 * are host/stack/migrate.h's, the gates, the consent and the loop
 * host/stack/migrate_run.c's; this file is the options, one call and the
 * summary.  Destructive (boxes are stopped and started, the
 * legacy stack deleted): asks on a terminal, or needs --force; BOX_YES is
 * not read.  Refused inside a box, like every verb that changes a host.
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "host/stack/migrate_run.h"
#include "util/opt.h"

int
cmd_migrate_host(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct migrate_opts o = { 0 };
	struct migrate_tally t;
	const char *one_box;
	int rc, force, all_boxes, retire_legacy, probe_inside;
	const struct opt rows[] = {
		OPT_STR("--box", "<name>", &one_box, OC_BOX, "one legacy box"),
		OPT_FLAG("--all-boxes", NULL, &all_boxes, "every legacy box, "
		    "one at a time, each verified before the next; then a "
		    "summary"),
		OPT_FLAG("--retire-legacy", NULL, &retire_legacy, "once no "
		    "instance carries user.claudebox=1 or uses the legacy "
		    "profile or bridge (refused, naming them, otherwise): "
		    "remove claude-dev, claudenet, claude-isolate, the "
		    "claudebox-firewall unit and script, the nft tables "
		    "inet/bridge claudebox; then check that none survives "
		    "(root)"),
		OPT_FLAG("--force", "-f", &force, "do not ask (needed without "
		    "a terminal)"),
		OPT_SECRET("--probe-inside", &probe_inside),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	o.box = one_box;
	o.force = force;
	if (probe_inside)
		o.mode = MIGRATE_PROBE;
	else if ((one_box != NULL) + all_boxes + retire_legacy != 1)
		return err_usage(e, "migrate-host takes exactly one of --box "
		    "<name>, --all-boxes, --retire-legacy");
	else
		o.mode = one_box != NULL ? MIGRATE_ONE : all_boxes ?
		    MIGRATE_ALL : MIGRATE_RETIRE;
	rc = migrate_run(&o, &t, e);
	if (t.summary)
		fprintf(stderr,
		    "box: migrate-host: %d re-homed, %d failed%s%s%s\n",
		    t.done, t.bad, t.bad ? " (" : "", t.failed,
		    t.bad ? ")" : "");
	return rc;
}
