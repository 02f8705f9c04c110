/*
 * doctor_run.h - `box doctor` as one call: where it stands (on a host,
 * inside a box, or as a restricted caller), the checks of that place,
 * and with --fix or --pin-dns the repairs and a second check.  The verb
 * parses, calls doctor_run() and renders the report it is handed.
 */
#ifndef BOX_DOCTOR_RUN_H
#define BOX_DOCTOR_RUN_H

#include "host/doctor/doctor.h"
#include "util/err.h"

/* Which check set ran, so the caller knows how to render d->r. */
enum dr_kind {
	DR_RUN_INSIDE = 0,	/* the in-box checks (nothing repaired) */
	DR_RUN_RESTRICTED,	/* a restricted caller's own check set */
	DR_RUN_HOST,		/* the host's checks, its granted users */
	DR_RUN_REPAIRED		/* repaired, then checked again */
};

/* What doctor_run() hands the caller while it repairs. */
enum dr_stage {
	DR_STAGE_CHECKED = 0,	/* the first check, nothing changed yet */
	DR_STAGE_REPAIRED	/* the repairs done, in r->fixed */
};

/* Caller-owned: the options in, the report out. */
struct dr_run {
	struct dr_opts o;	/* dr_opts_defaults(), then fix, pin_dns,
				   members, boxes */
	/* Called at each stage of a repair when not NULL (to show the
	 * first check before the repairs start). */
	void (*staged)(const struct dr_report *r, int stage);
	int kind;		/* out: enum dr_kind */
	struct dr_report r;	/* out: the report (after the repairs, the
				   second check's); dr_report_free() it */
};

/*
 * Stand, check, and repair when asked.  Usage errors (exit 2): a repair
 * or box names asked inside a box.  -EPERM: a repair without root.
 * Otherwise 0 with d->r the verdict (its fails decide the exit status),
 * or the failure of a stage.
 */
int doctor_run(struct dr_run *d, struct box_err *e);

#endif
