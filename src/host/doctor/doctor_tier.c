/*
 * doctor_tier.c - doctor and the restricted tier.
 *
 * A restricted caller gets its own check set: it cannot read the host's
 * kernel or the daemon's other projects, so it checks what it can see and
 * what decides its boxes' isolation: its project's box-net by content and
 * boxnet visible; its boxes' networks it cannot probe (only root enters a
 * namespace), and says so.  On the host, the admin's doctor lists each
 * granted user's project and holds its restrictions and box-net against
 * the contract and asks the daemon whether it follows an image's symlinks
 * (grant_probe.h) once a user holds the tier; every project's instances on
 * boxnet are checked and probed from the host with the host's own boxes
 * (doctor_host.c).
 */
#include "host/doctor/doctor_tier.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/remote/profile.h"
#include "host/stack/contract.h"
#include "host/stack/grant_probe.h"
#include "host/stack/grant_project.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "incus/project.h"

/*
 * A restricted caller cannot enter a box's network namespace (that needs
 * root on the host), and what a box says of itself is not evidence: each
 * running box is named with who probes it, the host's doctor as root.
 */
static void
your_boxes(struct incus *c, struct dr_report *r)
{
	struct incus_instance_list l;
	struct box_err e;
	char subject[80];
	size_t i;
	int n = 0;

	err_clear(&e);
	if (incus_instance_list(c, NULL, 0, &l, &e) < 0) {
		dr_add(r, "tier.boxes", "your boxes", DR_FAIL, "", "%s", e.msg);
		return;
	}
	for (i = 0; i < l.n; i++) {
		if (strcmp(incus_kv_or(&l.v[i].config, "user.box", ""),
		    "1") != 0 || strcmp(l.v[i].status, "Stopped") == 0)
			continue;
		snprintf(subject, sizeof(subject), "box %s", l.v[i].name);
		dr_add(r, "tier.box", subject, DR_WARN, "an admin runs: box "
		    "doctor (as root, it probes every project's boxes from the "
		    "host)", "its network NOT probed from here: only root on "
		    "the host can enter its namespace, and what a box says of "
		    "itself is not evidence");
		n++;
	}
	if (n == 0)
		dr_add(r, "tier.boxes", "your boxes", DR_INFO, "",
		    "no running box");
	incus_instance_list_free(&l);
}

int
dr_restricted(struct dr_report *r, const struct dr_opts *o,
    struct box_err *e)
{
	struct incus c;
	int rc, exists, ok;
	const char *grant = "an admin runs: box grant <you>";

	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	dr_add(r, "tier", "access tier", DR_PASS, "", "restricted: %s, "
	    "project %s", c.socket_path, c.project);
	if (o->fix || o->pin_dns)
		dr_add(r, "tier.fix", "access tier", DR_INFO, "", "--fix and "
		    "--pin-dns repair the host: an admin's job, ignored here");
	rc = profile_check(&c, &exists, &ok, e);
	if (rc < 0) {
		dr_add(r, "tier.profile", CONTRACT_PROFILE, DR_FAIL, grant,
		    "cannot read it: %s", e->msg);
		err_clear(e);
	} else if (!exists) {
		dr_add(r, "tier.profile", CONTRACT_PROFILE, DR_FAIL, grant,
		    "your project has no " CONTRACT_PROFILE " profile");
	} else {
		dr_add(r, "tier.profile", CONTRACT_PROFILE, ok ? DR_PASS :
		    DR_FAIL, ok ? "" : grant, ok ? "the contract's, by "
		    "content (NIC on " CONTRACT_BRIDGE ", port isolation, the "
		    "MAC/IPv4/IPv6 filters, a root disk)" : "not the "
		    "contract's: box new refuses to mint from it");
	}
	rc = grant_network_exists(&c, CONTRACT_BRIDGE, e);
	if (rc < 0)
		err_clear(e);
	dr_add(r, "tier.bridge", CONTRACT_BRIDGE, rc > 0 ? DR_PASS : DR_FAIL,
	    rc > 0 ? "" : grant, rc > 0 ? "visible to your project" :
	    "not visible to your project");
	your_boxes(&c, r);
	incus_close(&c);
	return 0;
}

/* One granted project: whose, and does it hold the contract? */
static void
one_project(struct incus *c, const char *project, struct dr_report *r)
{
	char bad[512], who[96], subject[80];
	struct box_err e;
	struct passwd *pw;
	unsigned uid;
	int rc;

	err_clear(&e);
	if (sscanf(project, "user-%u", &uid) != 1)
		return;
	pw = getpwuid(uid);
	snprintf(who, sizeof(who), "%s", pw != NULL ? pw->pw_name :
	    "no such user any more");
	snprintf(subject, sizeof(subject), "granted %.60s", project);
	rc = grant_project_check(c, project, bad, sizeof(bad), &e);
	if (rc < 0)
		dr_add(r, "tier.project", subject, DR_FAIL, "", "(%s): %s", who,
		    e.msg);
	else if (rc > 0)
		dr_add(r, "tier.project", subject, DR_FAIL,
		    pw != NULL ? "box grant <user> converges it again" :
		    "box revoke --purge cannot name a deleted user: delete "
		    "the project by hand", "(%s): %s", who, bad);
	else
		dr_add(r, "tier.project", subject, DR_PASS, "", "(%s): "
		    "restricted to " CONTRACT_BRIDGE ", snapshots and backups "
		    "allowed, disks from pools only, GPUs as granted, no NIC on "
		    "its default profile, box-net the contract's by content",
		    who);
}

/*
 * The daemon's escapes (grant_probe.h) matter once a user holds the tier:
 * FAIL while any gate fails, naming each.
 */
static void
daemon_gates(struct incus *c, struct dr_report *r)
{
	struct grant_probe v;
	struct box_err e;
	char bad[768];
	size_t n;

	err_clear(&e);
	if (grant_probe_daemon(c, 0, &v, &e) < 0) {
		dr_add(r, "tier.daemon", "daemon escapes", DR_FAIL, "fix the "
		    "cause and run box doctor again", "the probe did not run "
		    "(%s): whether a granted user can reach host files as "
		    "root through the daemon is NOT known", e.msg);
		return;
	}
	n = grant_gates_text(&v, 0, bad, sizeof(bad));
	if (n > 0)
		dr_add(r, "tier.daemon", "daemon escapes", DR_FAIL, "upgrade "
		    "Incus to a release that fixes every one, or box revoke "
		    "--purge every granted user", "Incus %s fails %zu gate(s), "
		    "so every granted user gets " GRANT_RISK_TEXT ": %s",
		    v.version, n, bad);
	else
		dr_add(r, "tier.daemon", "daemon escapes", DR_PASS, "", "Incus "
		    "%s passes every gate (probed%s)", v.version, v.cached ?
		    "; cached for this daemon" : "");
}

int
dr_granted(struct incus *c, struct dr_report *r, struct box_err *e)
{
	char names[DR_TIER_MAX][64];
	int n, i;

	n = dr_user_projects(c, names, DR_TIER_MAX, e);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < DR_TIER_MAX; i++)
		one_project(c, names[i], r);
	if (n == 0)
		dr_add(r, "tier.project", "granted users", DR_INFO, "",
		    "none (box grant <user> gives one boxes of their own)");
	else
		daemon_gates(c, r);
	return 0;
}

int
dr_user_projects(struct incus *c, char names[][64], int max,
    struct box_err *e)
{
	struct incus_projects l;
	int rc, n = 0;
	size_t i;

	rc = incus_project_list(c, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n; i++) {
		const char *p = l.v[i].name;

		if (strncmp(p, "user-", 5) != 0 || strlen(p) >= 64)
			continue;
		if (n < max)
			snprintf(names[n], 64, "%s", p);
		n++;
	}
	incus_projects_free(&l);
	return n;
}
