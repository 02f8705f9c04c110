/*
 * revoke.c - `box revoke <user> [--purge] [--force]`.
 *
 * The group goes first (it is what opens incus-user's socket to new
 * sessions), checked in the group database; then incus-user is made to
 * refuse the uid and its trust entry goes (host/stack/grant_cut.h), so no
 * program of the user's reaches the daemon, a setgid-'incus' copy of a
 * client included.  A bare revoke names the user's live processes and
 * keeps the boxes.
 * --purge asks (terminal, --force or BOX_YES), ends the user's processes
 * and refuses under any it cannot end (a live session could touch
 * incus-user and have a stock project made again), deletes what the tier
 * made, and then looks for each thing again, naming every survivor.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box/tier.h"
#include "cmd/cmd.h"
#include "host/stack/grant.h"
#include "host/stack/grant_cut.h"
#include "host/stack/grant_project.h"
#include "host/stack/grant_purge.h"
#include "host/stack/sysd.h"
#include "util/opt.h"
#include "util/prompt.h"

/* Progress goes to stderr; stdout carries only the verdict line. */
static void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int
drop_group(const struct grant_user *u, struct box_err *e)
{
	int rc;

	if (!grant_in_group(u, TIER_GROUP_USER)) {
		note("  group: %s is not in '" TIER_GROUP_USER "'\n", u->name);
		return 0;
	}
	rc = grant_group_remove(u, e);
	if (rc < 0)
		return rc;
	note("  group: removed %s from '" TIER_GROUP_USER "' (verified "
	    "against the group database)\n", u->name);
	return 0;
}

static void
warn_sessions(const struct grant_user *u)
{
	pid_t pids[GRANT_MAX_PROCS];
	char text[512];
	int n = grant_procs(u->uid, pids, GRANT_MAX_PROCS);

	if (n == 0)
		return;
	grant_procs_text(pids, n < GRANT_MAX_PROCS ? n : GRANT_MAX_PROCS, text,
	    sizeof(text));
	note("  WARNING: %s has %d live process(es) (%s): a session that "
	    "is already running keeps the socket until it ends.  End them: "
	    "sudo loginctl terminate-user %s, or box revoke %s --purge\n",
	    u->name, n, text, u->name, u->name);
}

static int
end_sessions(const struct grant_user *u, struct box_err *e)
{
	char left[512];
	int n;

	if (sysd_present()) {
		char name[64];
		char *argv[] = { "loginctl", "terminate-user", name, NULL };
		struct box_err ignore;

		snprintf(name, sizeof(name), "%s", u->name);
		err_clear(&ignore);
		(void)sysd_run(argv, &ignore);	/* no session is fine */
	}
	n = grant_end_sessions(u, left, sizeof(left));
	if (n > 0) {
		err_set(e, -EBUSY, "%s still has %d process(es) that would not "
		    "end: %s; nothing was deleted", u->name, n, left);
		err_fix(e, "end them (kill -9 <pid>), then box revoke %s "
		    "--purge again", u->name);
		return -EBUSY;
	}
	note("  sessions: none of %s's processes is left\n", u->name);
	return 0;
}

static int
purge(struct incus *c, const struct grant_user *u, struct box_err *e)
{
	char left[768];
	int rc;

	if ((rc = end_sessions(u, e)) < 0 || (rc = grant_purge(c, u, e)) < 0)
		return rc;
	rc = grant_absent(c, u, left, sizeof(left), e);
	if (rc < 0)
		return rc;
	if (rc > 0)
		return err_set(e, -EEXIST, "purge INCOMPLETE — still present: "
		    "%s", left);
	printf("revoked: %s is out, and everything the tier created is "
	    "gone.\n", u->name);
	return 0;
}

static int
keep(struct incus *c, const struct grant_user *u, struct box_err *e)
{
	int rc;

	warn_sessions(u);
	rc = grant_project_exists(c, u->project, e);
	if (rc < 0)
		return rc;
	if (rc > 0)
		note("  kept: the project %s and its boxes (still running); "
		    "box revoke %s --purge deletes them\n", u->project,
		    u->name);
	printf("revoked: %s no longer has the restricted tier.\n", u->name);
	return 0;
}

int
cmd_revoke(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct grant_user u;
	struct incus c;
	char q[256];
	int rc, yes, purge_all, force;
	const struct opt rows[] = {
		OPT_ARG("<user>", 1, 1, OC_NONE, NULL),
		OPT_FLAG("--purge", NULL, &purge_all, "also end the user's "
		    "processes (refused if one survives), then delete the "
		    "project's boxes, images, profiles and custom volumes, the "
		    "project, the private bridge, the trust entry "
		    "incus-user-<uid> and incus-user's state directory, and "
		    "check that none of it is left, naming any survivor"),
		OPT_FLAG("--force", "-f", &force, "--purge without asking (as "
		    "BOX_YES=1); with neither and no terminal it refuses "
		    "(exit 2)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((yes = consent_env(e)) < 0)
		return yes;
	if ((rc = tier_require_root("revoke", e)) < 0 ||
	    (rc = grant_user_lookup(res.pos[0], &u, e)) < 0)
		return rc;
	if (purge_all && !force && !yes) {
		snprintf(q, sizeof(q), "delete ALL of %s's boxes, images and "
		    "their project %s?", u.name, u.project);
		if ((rc = prompt_consent(q, "--force (or BOX_YES=1)", e)) < 0)
			return rc;
	}
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	note("revoke: %s (uid %u), project %s\n", u.name, u.uid, u.project);
	rc = drop_group(&u, e);
	if (rc == 0)
		rc = grant_cut(&c, &u, e);
	if (rc == 0)
		rc = purge_all ? purge(&c, &u, e) : keep(&c, &u, e);
	if (rc == 0 && grant_in_group(&u, TIER_GROUP_ADMIN))
		note("  NOTE: %s is still in '" TIER_GROUP_ADMIN "', which "
		    "keeps full access: gpasswd -d %s " TIER_GROUP_ADMIN "\n",
		    u.name, u.name);
	incus_close(&c);
	return rc;
}
