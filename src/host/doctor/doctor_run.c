/* doctor_run.c - box doctor, stood and run (see doctor_run.h). */
#include "host/doctor/doctor_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/life/life.h"
#include "box/remote/tier.h"
#include "host/doctor/doctor_tier.h"
#include "host/install/nested.h"
#include "incus/api.h"
#include "incus/server.h"

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

static int
inside(struct dr_run *d, struct box_err *e)
{
	const char *to = getenv(LIFE_REPORT_ENV);

	d->kind = DR_RUN_INSIDE;
	dr_inside(&d->r, &d->o);
	/* a host that ran us (a VM's) reads the report from this file */
	if (to != NULL && *to != '\0')
		return dr_report_save(&d->r, e);
	return 0;
}

/* The host's checks, as o says. */
static int
host_check(struct dr_run *d, struct box_err *e)
{
	int rc = dr_host(&d->r, &d->o, e);

	snprintf(d->r.where_text, sizeof(d->r.where_text), "on a host");
	return rc;
}

/* The first check shown, the repairs, then the host checked again. */
static int
repair(struct dr_run *d, struct box_err *e)
{
	struct dr_report *r = &d->r;
	int rc;

	if (d->staged != NULL)
		d->staged(r, DR_STAGE_CHECKED);
	dr_report_reset(r);
	if ((rc = dr_host_fix(r, &d->o, e)) < 0)
		return rc;
	if (d->staged != NULL)
		d->staged(r, DR_STAGE_REPAIRED);
	d->kind = DR_RUN_REPAIRED;
	d->o.fix = d->o.pin_dns = 0;
	d->o.probe_boxes = 1;
	d->o.rejoin = 1;	/* a cluster member back in shape rejoins */
	r->n = r->fails = r->warns = r->dropped = r->fresh = 0;
	return host_check(d, e);
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
restricted(struct dr_run *d, struct box_err *e)
{
	int rc;

	d->kind = DR_RUN_RESTRICTED;
	d->o.probe_boxes = 1;
	rc = dr_restricted(&d->r, &d->o, e);
	snprintf(d->r.where_text, sizeof(d->r.where_text), "restricted tier");
	return rc;
}

static int
host(struct dr_run *d, struct box_err *e)
{
	struct dr_opts *o = &d->o;
	int rc;

	if ((o->fix || o->pin_dns) && geteuid() != 0) {
		err_set(e, -EPERM, "repairing the host needs root");
		err_fix(e, "sudo box doctor %s", o->fix ? "--fix" : "--pin-dns");
		return -EPERM;
	}
	d->kind = DR_RUN_HOST;
	o->probe_boxes = !o->fix && !o->pin_dns;
	if ((rc = host_check(d, e)) < 0)
		return rc;
	granted(&d->r);
	if (o->fix || o->pin_dns)
		return repair(d, e);
	return 0;
}

int
doctor_run(struct dr_run *d, struct box_err *e)
{
	int where = standpoint();

	d->r.f = NULL;		/* nothing to free yet */
	if (where == DR_INSIDE && (d->o.fix || d->o.pin_dns ||
	    d->o.nboxes > 0))
		return err_usage(e, "inside a box, doctor only checks: %s",
		    d->o.nboxes > 0 ? "it takes no box names" : "--fix and "
		    "--pin-dns repair a host; run them there");
	if (dr_report_init(&d->r) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	if (where == DR_INSIDE)
		return inside(d, e);
	if (tier_get() == TIER_RESTRICTED)
		return restricted(d, e);
	return host(d, e);
}
