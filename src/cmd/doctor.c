/*
 * box doctor [--fix | --pin-dns] [--json] [<box>...] - does the isolation
 * contract hold here, judged from ground truth?
 *
 * On a host it checks the stack layer by layer and then, inside every
 * running box (or the boxes named), what the box itself sees.  Inside a
 * box (the guest API or the network says so, or the host that pushed us
 * in says BOX_DOCTOR_INSIDE=1) it runs the in-box checks instead, and
 * repairs nothing: a fix from inside would be a host-level fix, and a box
 * stack built inside a box is the outage the checks look for.
 *
 * One line per check; exit 0 when nothing FAILs (clean, or fresh: no
 * stack yet), 1 otherwise.  --fix repairs what is safely convergent and
 * checks again; the exit status is the second check's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/tier.h"
#include "cmd/cmd.h"
#include "host/doctor/doctor.h"
#include "host/doctor/doctor_tier.h"
#include "host/install/nested.h"
#include "incus/api.h"
#include "incus/server.h"
#include "util/opt.h"

/* Is a local daemon answering?  (An Incus instance may host boxes.) */
static int
local_daemon(void)
{
	struct incus c;
	struct box_err e;
	int ok = 0;

	err_clear(&e);
	if (incus_init(&c, &e) == 0) {
		c.timeout_ms = 3000;
		ok = incus_server_ping(&c, &e) == 0;
	}
	incus_close(&c);
	return ok;
}

/* Where are we?  DR_INSIDE or DR_HOST. */
static int
standpoint(void)
{
	struct nested_facts *f;
	struct nested_report *r;
	const char *forced = getenv("BOX_DOCTOR_INSIDE");
	int v;

	if (forced != NULL && strcmp(forced, "1") == 0)
		return DR_INSIDE;
	f = malloc(sizeof(*f));
	r = malloc(sizeof(*r));
	if (f == NULL || r == NULL) {
		free(f);
		free(r);
		return DR_HOST;
	}
	nested_probe(f, NESTED_GUESTAPI);
	nested_classify(f, r);
	v = r->verdict;
	free(f);
	free(r);
	if (v == NESTED_BOX)
		return DR_INSIDE;
	if (v == NESTED_INSTANCE)
		return local_daemon() ? DR_HOST : DR_INSIDE;
	return DR_HOST;
}

static void
print_findings(const struct dr_report *r)
{
	const struct dr_finding *f;
	int i, pass;

	/* FAILs first, then WARNs, then the rest, each in check order */
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < r->n; i++) {
			f = &r->f[i];
			if ((pass == 0) != (f->status == DR_FAIL) ||
			    (pass == 1) != (f->status == DR_WARN))
				continue;
			printf("%s  %s: %s\n", dr_status_name(f->status),
			    f->subject, f->text);
			if (f->status != DR_PASS && f->fix[0] != '\0')
				printf("      fix: %s\n", f->fix);
		}
	if (r->dropped > 0)
		printf("WARN  doctor: %d more finding(s) not shown (at most %d "
		    "per box; a FAIL or WARN takes a lesser one's place)\n",
		    r->dropped, DR_BOX_MAX);
}

static int
count_fixable(const struct dr_report *r)
{
	int i, n = 0;

	for (i = 0; i < r->n; i++)
		n += r->f[i].status == DR_FAIL && r->f[i].fixable;
	return n;
}

static void
print_verdict(const struct dr_report *r, int fixed)
{
	int k = count_fixable(r);

	if (r->fails == 0 && r->fresh)
		printf("fresh — no box stack on this host yet, and nothing "
		    "wrong either; run: box setup-host\n");
	else if (r->fails == 0)
		printf("clean — %s%s\n", r->where == DR_INSIDE ?
		    "this box's network is as the contract says" :
		    "this host is fit to mint boxes", r->warns ? " (see the "
		    "warnings)" : "");
	else if (r->where == DR_INSIDE)
		printf("%d problem(s) — fix them from the host, never by "
		    "building a stack in here\n", r->fails);
	else
		printf("%d problem(s) — this host is NOT fit to mint boxes%s\n",
		    r->fails, fixed ? " (after the repairs)" : k > 0 ?
		    "; box doctor --fix repairs the ones marked so" : "");
}

static void
print_text(const struct dr_report *r, const char *title, int fixed)
{
	printf("box doctor — %s%s\n", r->where_text, title);
	print_findings(r);
	print_verdict(r, fixed);
}

static int
print_json(const struct dr_report *r, struct box_err *e)
{
	char *out;
	int rc = dr_report_json(r, &out);

	if (rc < 0)
		return err_set(e, rc, "rendering the report");
	puts(out);
	free(out);
	return 0;
}

static int
inside(struct dr_report *r, const struct dr_opts *o, int json,
    struct box_err *e)
{
	const char *to = getenv("BOX_DOCTOR_REPORT");
	int rc;

	dr_inside(r, o);
	/* a host that pushed us in reads the report from this file */
	if (to != NULL && *to != '\0' && (rc = dr_report_save(r, to, e)) < 0)
		return rc;
	if (json)
		return print_json(r, e);
	print_text(r, "", 0);
	return 0;
}

static int
repair(struct dr_report *r, struct dr_opts *o, int json, struct box_err *e)
{
	int i, rc;

	if (!json)
		print_text(r, "", 0);
	dr_report_reset(r);
	rc = dr_host_fix(r, o, e);
	if (rc < 0)
		return rc;
	if (!json) {
		printf("\nrepairs:\n");
		for (i = 0; i < r->nfixed; i++)
			printf("  fixed: %s\n", r->fixed[i]);
		if (r->nfixed == 0)
			printf("  none were needed\n");
		printf("\n");
	}
	o->fix = o->pin_dns = 0;
	o->probe_boxes = 1;
	o->rejoin = 1;		/* a cluster member back in shape rejoins */
	r->n = r->fails = r->warns = r->dropped = r->fresh = 0;
	rc = dr_host(r, o, e);
	snprintf(r->where_text, sizeof(r->where_text), "on a host");
	if (rc < 0)
		return rc;
	if (json)
		return print_json(r, e);
	print_text(r, ", after the repairs", 1);
	return 0;
}

/* The host's granted users, when the daemon answers (info otherwise). */
static void
granted(struct dr_report *r)
{
	struct incus c;
	struct box_err e;

	err_clear(&e);
	if (incus_init(&c, &e) == 0 && dr_granted(&c, r, &e) < 0)
		dr_add(r, "tier.project", "granted users", DR_INFO, "",
		    "not listed: %s", e.msg);
	incus_close(&c);
}

/* A restricted caller's own check set. */
static int
restricted(struct dr_report *r, struct dr_opts *o, int json,
    struct box_err *e)
{
	int rc;

	o->probe_boxes = 1;
	rc = dr_restricted(r, o, e);
	snprintf(r->where_text, sizeof(r->where_text), "restricted tier");
	if (rc < 0)
		return rc;
	if (json)
		return print_json(r, e);
	printf("box doctor — %s\n", r->where_text);
	print_findings(r);
	if (r->fails == 0)
		printf("clean — your tier is granted and your boxes are fit\n");
	else
		printf("%d problem(s) — see the fixes above (most need an "
		    "admin)\n", r->fails);
	return 0;
}

static int
host(struct dr_report *r, struct dr_opts *o, int json, struct box_err *e)
{
	int rc;

	if ((o->fix || o->pin_dns) && geteuid() != 0) {
		err_set(e, -EPERM, "repairing the host needs root");
		err_fix(e, "sudo box doctor %s", o->fix ? "--fix" : "--pin-dns");
		return -EPERM;
	}
	o->probe_boxes = !o->fix && !o->pin_dns;
	rc = dr_host(r, o, e);
	snprintf(r->where_text, sizeof(r->where_text), "on a host");
	if (rc < 0)
		return rc;
	granted(r);
	if (o->fix || o->pin_dns)
		return repair(r, o, json, e);
	if (json)
		return print_json(r, e);
	print_text(r, "", 0);
	return 0;
}

int
cmd_doctor(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct dr_report r;
	struct dr_opts o;
	int rc, where, fix, pin_dns, json, members;
	const struct opt rows[] = {
		OPT_ARG("<box>", 0, OPT_ANY, OC_BOX, "check only these boxes "
		    "from inside (default: every running one)"),
		OPT_FLAG("--fix", NULL, &fix, "repair what is safely "
		    "convergent (the bridge keys, the ACL, the profile, the "
		    "firewall, a port's isolated flag, a dead dnsmasq), then "
		    "check again"),
		OPT_FLAG("--pin-dns", NULL, &pin_dns, "re-pin the bridge's "
		    "upstream resolvers from BOX_DNS"),
		OPT_FLAG("--members", NULL, &members, "on an Incus cluster: "
		    "prove the contract on every member of group box with a "
		    "short-lived probe box there"),
		OPT_FLAG("--json", NULL, &json, "the report as one JSON object"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (fix && pin_dns)
		return err_usage(e, "--fix and --pin-dns are one or the other "
		    "(--fix keeps the pinned resolvers; --pin-dns re-pins "
		    "them from BOX_DNS)");
	dr_opts_defaults(&o);
	o.fix = fix;
	o.pin_dns = pin_dns;
	o.members = members;
	o.boxes = res.npos > 0 ? res.pos : NULL;
	o.nboxes = res.npos;
	where = standpoint();
	if (where == DR_INSIDE && (o.fix || o.pin_dns || res.npos > 0))
		return err_usage(e, "inside a box, doctor only checks: %s",
		    res.npos > 0 ? "it takes no box names" : "--fix and "
		    "--pin-dns repair a host; run them there");
	if (dr_report_init(&r) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = where == DR_INSIDE ? inside(&r, &o, json, e) :
	    tier_get() == TIER_RESTRICTED ? restricted(&r, &o, json,
	    e) : host(&r, &o, json, e);
	if (rc == 0 && r.fails > 0)
		rc = 1;
	dr_report_free(&r);
	return rc;
}
