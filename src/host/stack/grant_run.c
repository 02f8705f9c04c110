/*
 * grant_run.c - `box grant <user>`'s pipeline (see grant_run.h).
 *
 * Idempotent convergence, every step through the API: the user and
 * boxnet exist, incus-user serves its socket, the private bridge is
 * pre-empted without addresses, the user joins 'incus', incus-user is
 * touched AS the user (so it makes the project and the trust entry), the
 * project is converged to the contract and verified from the user's side.
 * A failure after this run added the group takes the group away again,
 * verified against the group database: no half-granted user is left
 * holding an un-narrowed socket.
 *
 * `box revoke`: the group goes first (it is what opens incus-user's
 * socket to new sessions), checked in the group database; then incus-user
 * is made to refuse the uid and its trust entry goes (host/stack/
 * grant_cut.h), so no program of the user's reaches the daemon, a
 * setgid-'incus' copy of a client included.  A bare revoke names the
 * user's live processes and keeps the boxes.  --purge ends the user's
 * processes and refuses under any it cannot end (a live session could
 * touch incus-user and have a stock project made again), deletes what the
 * tier made, and then looks for each thing again, naming every survivor.
 */
#include "host/stack/grant_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box/remote/tier.h"
#include "incus/cluster.h"
#include "host/install/nestguard.h"
#include "host/stack/contract.h"
#include "host/stack/grant_cut.h"
#include "host/stack/grant_probe.h"
#include "host/stack/grant_project.h"
#include "host/stack/grant_purge.h"
#include "host/stack/sysd.h"

/* Progress goes to stderr; stdout carries only the verdict line. */
static void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

#define TOUCH_TIMEOUT_S	60

/* incus-user makes the project on first contact; make sure it exists. */
static int
project_made(struct incus *c, const struct grant_user *u, int gpu,
    struct box_err *e)
{
	struct box_err touch;
	int rc;

	err_clear(&touch);
	rc = grant_as_user(u, 0, TOUCH_TIMEOUT_S, &touch);
	if (rc == 0 && grant_project_exists(c, u->project, e) > 0) {
		note("  project: %s (incus-user made it, or had it)\n",
		    u->project);
		return 0;
	}
	if (e->code != 0)
		return e->code;
	if (grant_project_exists(c, u->project, e) > 0) {
		/* Made behind incus-user's back: it cannot set the user up. */
		*e = touch;
		err_fix(e, "%s was not made by incus-user, which refuses to "
		    "set %s up beside it: delete it (box revoke %s --purge), "
		    "then box grant %s", u->project, u->name, u->name,
		    u->name);
		return touch.code;
	}
	/*
	 * incus-user remembers a project it made before a purge and will not
	 * make it again: make it as it would, then touch again.
	 */
	rc = grant_create_project(c, u, gpu, e);
	if (rc < 0)
		return rc;
	rc = grant_as_user(u, 0, TOUCH_TIMEOUT_S, e);
	if (rc < 0)
		return rc;
	note("  project: %s (made by box: incus-user remembered a purged "
	    "one)\n", u->project);
	return 0;
}

static int
verify(struct incus *c, const struct grant_user *u, struct box_err *e)
{
	char bad[512], fps[4][80];
	int rc;

	rc = grant_project_check(c, u->project, bad, sizeof(bad), e);
	if (rc < 0)
		return rc;
	if (rc > 0)
		return err_set(e, -EPROTO, "%s does not hold the contract "
		    "after converging: %s", u->project, bad);
	rc = grant_trust_fps(c, u->uid, fps, 4, e);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return err_set(e, -ENOENT, "incus-user made no trust entry "
		    "incus-user-%u", u->uid);
	rc = grant_as_user(u, 1, 30, e);
	if (rc < 0)
		return rc;
	note("  verified from %s's side: box-net in %s is the contract's\n",
	    u->name, u->project);
	return 0;
}

static int
steps(struct incus *c, const struct grant_user *u, int gpu, struct box_err *e)
{
	int rc = project_made(c, u, gpu, e);

	if (rc == 0)
		rc = grant_converge(c, u, gpu, e);
	if (rc == 0)
		rc = verify(c, u, e);
	return rc;
}

/* A failed run takes back only what it added, and says what is left. */
static void
back_out(struct incus *c, const struct grant_user *u, int added,
    struct box_err *e)
{
	struct box_err g;

	if (!added) {
		err_fix(e, "FAILED with %s still holding socket access (they "
		    "were in '" TIER_GROUP_USER "' before): fix the cause and "
		    "box grant %s again, or box revoke %s", u->name, u->name,
		    u->name);
		return;
	}
	err_clear(&g);
	if (grant_group_remove(u, &g) < 0 || grant_cut(c, u, &g) < 0) {
		err_fix(e, "ROLLBACK INCOMPLETE: %s may still reach the daemon "
		    "(%s): box revoke %s", u->name, g.msg, u->name);
		return;
	}
	{
		char cause[sizeof(e->fix)];

		/* The back-out is the news: it goes first, the cause's fix after. */
		snprintf(cause, sizeof(cause), "%s", e->fix);
		snprintf(e->fix, sizeof(e->fix), "FAILED — removed %s from '"
		    TIER_GROUP_USER "' again (verified against the group "
		    "database); %.200s", u->name, cause[0] ? cause :
		    "fix the cause and run box grant again");
	}
}

/*
 * Does the daemon fail any gate the tier rests on (grant_probe.h)?  Then
 * the tier hands the user every project's boxes and the host's root:
 * refused, naming every failing gate, unless the admin accepts.
 */
static int
daemon_gate(struct incus *c, const struct grant_user *u, int accept,
    struct box_err *e)
{
	struct grant_probe v;
	char bad[768];
	size_t n;
	int rc = grant_probe_daemon(c, 0, &v, e);

	if (rc == 0 && !v.cached)
		note("  daemon: the escape probes took %ld ms\n", v.ms);
	if (rc < 0) {
		err_context(e, "probing the daemon for the escapes the tier "
		    "rests on");
		err_fix(e, "fix the cause and box grant %s again (the probe "
		    "is what tells whether the tier is safe on this daemon)",
		    u->name);
		return rc;
	}
	n = grant_gates_text(&v, 1, bad, sizeof(bad));
	if (n == 0) {
		note("  daemon: Incus %s passes every gate (%s)\n", v.version,
		    v.cached ? "cached for this daemon" : "probed just now");
		return 0;
	}
	if (!accept) {
		err_set(e, -EPERM, "Incus %s fails %zu of the tier's gates "
		    "(%s): a granted user would get " GRANT_RISK_TEXT ", so "
		    "%s is not granted", v.version, n, bad, u->name);
		err_fix(e, "upgrade Incus to a release that fixes every one; "
		    "or, knowing the user gets " GRANT_RISK_TEXT ", box grant "
		    "%s --accept-daemon-risk", u->name);
		return -EPERM;
	}
	note("  WARNING: --accept-daemon-risk: Incus %s fails %zu gate(s): "
	    "%s (%s).\n"
	    "  WARNING: %s can copy and read every project's boxes (the "
	    "admin's and every other user's) and read and write ANY file of "
	    "this host as root.  box doctor FAILs while any user holds the "
	    "tier on this daemon.\n", v.version, n, bad,
	    v.cached ? "cached for this daemon" : "probed just now", u->name);
	return 0;
}

static int
preflight(struct incus *c, const struct grant_user *u, int accept, char *how,
    size_t cap, struct box_err *e)
{
	char self[64];
	int rc, created;

	/*
	 * incus-user reaches a cluster member's socket by STARTTLS pinned to
	 * cluster.crt, and the socket presents the member's server.crt: no
	 * user gets through (Incus 6.0.4; test_cluster.sh shows both).
	 */
	if ((rc = incus_cluster_self(c, self, sizeof(self), e)) < 0)
		return rc;
	if (rc > 0) {
		err_set(e, -EOPNOTSUPP, "this daemon is cluster member %s, "
		    "and incus-user cannot serve a user of a cluster (it pins "
		    "cluster.crt; the daemon's socket presents server.crt), so "
		    "%s is not granted", self, u->name);
		err_fix(e, "grant %s on a standalone host", u->name);
		return -EOPNOTSUPP;
	}
	rc = grant_network_exists(c, CONTRACT_BRIDGE, e);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		err_set(e, -ENOENT, "no " CONTRACT_BRIDGE " on this host");
		err_fix(e, "build the stack first: box setup-host");
		return -ENOENT;
	}
	rc = grant_daemon_ready(u, how, cap, e);
	if (rc < 0)
		return rc;
	note("  incus-user: %s\n", how);
	rc = daemon_gate(c, u, accept, e);
	if (rc < 0)
		return rc;
	rc = grant_preempt_bridge(c, u, &created, e);
	if (rc < 0) {
		err_context(e, "pre-empting %s", u->bridge);
		return rc;
	}
	note("  bridge: %s %s (ipv4.address=none, ipv6.address=none: "
	    "incus-user never probes for a subnet)\n", u->bridge,
	    created ? "made" : "already there");
	return 0;
}

int
grant_run(const char *name, int gpu, int accept, struct grant_done *d,
    struct box_err *e)
{
	struct grant_user *u = &d->u;
	struct incus c;
	char how[160];
	int rc, added = 0;

	memset(d, 0, sizeof(*d));
	if ((rc = tier_require_root("grant", e)) < 0 ||
	    (rc = nestguard_check("grant", NG_CHANGE, NULL, e)) < 0 ||
	    (rc = grant_user_lookup(name, u, e)) < 0 ||
	    (rc = incus_init(&c, e)) < 0)
		return rc;
	d->admin_member = grant_in_group(u, TIER_GROUP_ADMIN);
	note("grant: %s (uid %u), project %s\n", u->name, u->uid, u->project);
	rc = preflight(&c, u, accept, how, sizeof(how), e);
	if (rc < 0)
		goto out;
	if (grant_in_group(u, TIER_GROUP_USER)) {
		note("  group: already in '" TIER_GROUP_USER "'\n");
	} else {
		rc = grant_group_add(u, e);
		if (rc < 0)
			goto out;
		added = 1;
		note("  group: added to '" TIER_GROUP_USER "' (the key to "
		    "%s; new logins of %s get it)\n", u->socket, u->name);
	}
	rc = grant_uncut(u, e);
	if (rc == 0)
		rc = steps(&c, u, gpu, e);
	if (rc < 0)
		back_out(&c, u, added, e);
out:
	incus_close(&c);
	return rc;
}

/* --- revoke ---------------------------------------------------------------- */

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
	return 0;
}

int
grant_revoke(const struct grant_user *u, int purge_all, int *admin_member,
    struct box_err *e)
{
	struct incus c;
	int rc;

	*admin_member = 0;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	note("revoke: %s (uid %u), project %s\n", u->name, u->uid, u->project);
	rc = drop_group(u, e);
	if (rc == 0)
		rc = grant_cut(&c, u, e);
	if (rc == 0)
		rc = purge_all ? purge(&c, u, e) : keep(&c, u, e);
	if (rc == 0)
		*admin_member = grant_in_group(u, TIER_GROUP_ADMIN);
	incus_close(&c);
	return rc;
}
