/* migrate_run.c - box migrate-host, gated and run (see migrate_run.h). */
#include "host/stack/migrate_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "box/remote/tier.h"
#include "host/install/nestguard.h"
#include "host/stack/contract.h"
#include "host/stack/migrate.h"
#include "incus/api.h"

#define MAX_LEGACY 256

static int
one(struct incus *c, const char *name, int force, struct box_err *e)
{
	struct migrate_result res;
	struct incus_instance in;
	char q[200];
	int rc, kind;

	/* a name that is no box is refused before anything is asked, and a
	 * box already on the stack needs no consent to be left alone */
	if ((rc = box_get(c, name, 0, &in, NULL, e)) < 0)
		return rc;
	kind = migrate_kind_of(&in);
	incus_instance_free(&in);
	if (kind != MIG_DONE) {
		snprintf(q, sizeof(q), "re-home %s onto the %s profile (it is "
		    "stopped and started)", name, CONTRACT_PROFILE);
		if ((rc = life_consent(q, force, e)) < 0)
			return rc;
	}
	return migrate_box(c, name, &res, e);
}

static int
all(struct incus *c, int force, struct migrate_tally *t, struct box_err *e)
{
	char (*names)[BOX_NAME_MAX] = calloc(MAX_LEGACY, BOX_NAME_MAX);
	const char *only = getenv("BOX_MIGRATE_ONLY");
	struct migrate_result res;
	struct box_err be;
	char q[120];
	int rc, n = 0, more = 0, i;

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
			t->done++;
			continue;
		}
		t->bad++;
		fprintf(stderr, "box: %s\n", be.msg);
		if (be.fix[0] != '\0')
			fprintf(stderr, "  fix: %s\n", be.fix);
		if (strlen(t->failed) + strlen(names[i]) + 3 <
		    sizeof(t->failed))
			snprintf(t->failed + strlen(t->failed),
			    sizeof(t->failed) - strlen(t->failed), "%s%s",
			    t->failed[0] ? ", " : "", names[i]);
	}
	t->summary = 1;
	if (i < n)
		rc = err_set(e, -EINTR, "interrupted: %d box%s not tried", n - i,
		    n - i == 1 ? "" : "es");
	else if (more > 0)
		rc = err_set(e, -E2BIG, "%d more legacy boxes than one run "
		    "takes: run it again", more);
	else if (t->bad > 0)
		rc = err_set(e, -EIO, "%d of %d legacy boxes were not re-homed "
		    "(each says above where it was left)", t->bad, n);
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
migrate_run(const struct migrate_opts *o, struct migrate_tally *t,
    struct box_err *e)
{
	struct incus c;
	int rc;

	memset(t, 0, sizeof(*t));
	/* The host pushed this binary into a box to look from inside. */
	if (o->mode == MIGRATE_PROBE) {
		if (getenv("BOX_MIGRATE_INSIDE") == NULL)
			return err_usage(e, "--probe-inside is what migrate-host "
			    "runs inside a box it re-homes, not a mode of its "
			    "own");
		return migrate_probe_main(e);
	}
	if ((rc = tier_require_admin("migrate-host", e)) < 0 ||
	    (rc = nestguard_check("migrate-host", NG_CHANGE, NULL, e)) < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	life_catch_signals();
	if (o->mode == MIGRATE_ONE)
		rc = one(&c, o->box, o->force, e);
	else if (o->mode == MIGRATE_ALL)
		rc = all(&c, o->force, t, e);
	else
		rc = retire(&c, o->force, e);
	incus_close(&c);
	return rc;
}
