/*
 * box migrate-host --box <name> | --all-boxes | --retire-legacy [--force]
 * - re-home legacy (pre-0.4, user.claudebox=1) boxes onto the hardened
 * stack, one at a time, each verified from inside before the next; or
 * retire the legacy stack once no box needs it.  The policy and its order
 * are host/stack/migrate.h's.  Destructive (boxes are stopped and started, the
 * legacy stack deleted): asks on a terminal, or needs --force; BOX_YES is
 * not read.  Refused inside a box, like every verb that changes a host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life.h"
#include "box/tier.h"
#include "cmd/cmd.h"
#include "host/install/nestguard.h"
#include "host/stack/contract.h"
#include "host/stack/migrate.h"
#include "incus/api.h"
#include "util/opt.h"

#define MAX_LEGACY 256

static int
one(struct incus *c, const char *name, int force, struct box_err *e)
{
	struct migrate_result res;
	char q[200];
	int rc;

	struct incus_instance in;
	int kind;

	/* a name that is no box is refused before anything is asked, and a
	 * box already on the stack needs no consent to be left alone */
	if ((rc = box_get(c, name, 0, &in, NULL, e)) < 0)
		return rc;
	kind = migrate_kind_of(&in);
	incus_instance_free(&in);
	if (kind == MIG_DONE)
		return migrate_box(c, name, &res, e);
	snprintf(q, sizeof(q), "re-home %s onto the %s profile (it is stopped "
	    "and started)", name, CONTRACT_PROFILE);
	if ((rc = life_consent(q, force, e)) < 0)
		return rc;
	return migrate_box(c, name, &res, e);
}

static int
all(struct incus *c, int force, struct box_err *e)
{
	char (*names)[BOX_NAME_MAX] = calloc(MAX_LEGACY, BOX_NAME_MAX);
	const char *only = getenv("BOX_MIGRATE_ONLY");
	char failed[600] = "";
	struct migrate_result res;
	struct box_err be;
	char q[120];
	int rc, n = 0, more = 0, i, done = 0, bad = 0;

	if (names == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (only == NULL)
		only = "";
	rc = migrate_legacy_names(c, only, names, MAX_LEGACY, &n, &more, e);
	if (rc == 0 && n == 0 && only[0] != '\0')
		fprintf(stderr,
		    "box: no legacy boxes named %s* to re-home\n", only);
	else if (rc == 0 && n == 0)
		fprintf(stderr, "box: no legacy boxes to re-home\n");
	if (rc == 0 && n > 0)
		rc = migrate_require_stack(c, NULL, e);
	if (rc < 0 || n == 0)
		goto out;
	snprintf(q, sizeof(q), "re-home %d legacy box%s onto the %s profile "
	    "(each is stopped and started)", n, n == 1 ? "" : "es",
	    CONTRACT_PROFILE);
	if ((rc = life_consent(q, force, e)) < 0)
		goto out;
	for (i = 0; i < n && !life_interrupted(); i++) {
		err_clear(&be);
		if (migrate_box(c, names[i], &res, &be) == 0) {
			done++;
			continue;
		}
		bad++;
		fprintf(stderr, "box: %s\n", be.msg);
		if (be.fix[0] != '\0')
			fprintf(stderr, "  fix: %s\n", be.fix);
		if (strlen(failed) + strlen(names[i]) + 3 < sizeof(failed))
			snprintf(failed + strlen(failed), sizeof(failed) -
			    strlen(failed), "%s%s", failed[0] ? ", " : "",
			    names[i]);
	}
	fprintf(stderr,
	    "box: migrate-host: %d re-homed, %d failed%s%s%s\n", done, bad,
	    bad ? " (" : "", failed, bad ? ")" : "");
	if (i < n)
		rc = err_set(e, -EINTR, "interrupted: %d box%s not tried", n - i,
		    n - i == 1 ? "" : "es");
	else if (more > 0)
		rc = err_set(e, -E2BIG, "%d more legacy boxes than one run "
		    "takes: run it again", more);
	else if (bad > 0)
		rc = err_set(e, -EIO, "%d of %d legacy boxes were not re-homed "
		    "(each says above where it was left)", bad, n);
out:
	free(names);
	return rc;
}

static int
retire(struct incus *c, int force, struct box_err *e)
{
	int rc;

	if (geteuid() != 0) {
		err_set(e, -EPERM, "retiring the legacy stack changes the host "
		    "(its firewall tables, unit and script): it needs root");
		err_fix(e, "sudo box migrate-host --retire-legacy");
		return -EPERM;
	}
	if ((rc = life_consent("remove the legacy stack (" CONTRACT_LEGACY_PROFILE
	    ", " CONTRACT_LEGACY_BRIDGE ", " CONTRACT_LEGACY_ACL ", its "
	    "firewall, unit and script)", force, e)) < 0)
		return rc;
	return migrate_retire(c, e);
}

int
cmd_migrate_host(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus c;
	const char *one_box;
	int rc, modes, force, all_boxes, retire_legacy, probe_inside;
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
	/* The host pushed this binary into a box to look from inside. */
	if (probe_inside) {
		if (getenv("BOX_MIGRATE_INSIDE") == NULL)
			return err_usage(e, "--probe-inside is what migrate-host "
			    "runs inside a box it re-homes, not a mode of its "
			    "own");
		return migrate_probe_main(e);
	}
	modes = (one_box != NULL) + all_boxes + retire_legacy;
	if (modes != 1)
		return err_usage(e, "migrate-host takes exactly one of --box "
		    "<name>, --all-boxes, --retire-legacy");
	if ((rc = tier_require_admin("migrate-host", e)) < 0 ||
	    (rc = nestguard_check("migrate-host", NG_CHANGE, NULL, e)) < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	life_catch_signals();
	if (one_box != NULL)
		rc = one(&c, one_box, force, e);
	else if (all_boxes)
		rc = all(&c, force, e);
	else
		rc = retire(&c, force, e);
	incus_close(&c);
	return rc;
}
