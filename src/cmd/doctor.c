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
 * checks again; the exit status is the second check's.  Where it stands
 * and what it runs is host/doctor/doctor_run.c; this file is the options,
 * one call and the rendering.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "host/doctor/doctor_run.h"
#include "util/opt.h"

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

/* The stages of a repair, as text: the first check, then the repairs. */
static void
staged(const struct dr_report *r, int stage)
{
	int i;

	if (stage == DR_STAGE_CHECKED) {
		print_text(r, "", 0);
		return;
	}
	printf("\nrepairs:\n");
	for (i = 0; i < r->nfixed; i++)
		printf("  fixed: %s\n", r->fixed[i]);
	if (r->nfixed == 0)
		printf("  none were needed\n");
	printf("\n");
}

static int
render(const struct dr_run *d, int json, struct box_err *e)
{
	const struct dr_report *r = &d->r;

	if (json)
		return print_json(r, e);
	switch (d->kind) {
	case DR_RUN_RESTRICTED:
		printf("box doctor — %s\n", r->where_text);
		print_findings(r);
		if (r->fails == 0)
			printf("clean — your tier is granted and your boxes "
			    "are fit\n");
		else
			printf("%d problem(s) — see the fixes above (most need "
			    "an admin)\n", r->fails);
		break;
	case DR_RUN_REPAIRED:
		print_text(r, ", after the repairs", 1);
		break;
	default:
		print_text(r, "", 0);
	}
	return 0;
}

int
cmd_doctor(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct dr_run d;
	int rc, fix, pin_dns, json, members;
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
	dr_opts_defaults(&d.o);
	d.o.fix = fix;
	d.o.pin_dns = pin_dns;
	d.o.members = members;
	d.o.boxes = res.npos > 0 ? res.pos : NULL;
	d.o.nboxes = res.npos;
	d.staged = json ? NULL : staged;
	rc = doctor_run(&d, e);
	if (rc == 0)
		rc = render(&d, json, e);
	if (rc == 0 && d.r.fails > 0)
		rc = 1;
	dr_report_free(&d.r);
	return rc;
}
