/*
 * migrate_run.h - `box migrate-host` as one call: re-home one legacy box,
 * or every one (one at a time, each verified before the next), or retire
 * the legacy stack; the hidden in-box probe too.  The steps and their
 * order are migrate.h's; this holds the gates (the admin tier, the nested
 * guard, root to retire), the consent (life_consent: a terminal, or
 * force) and the loop.  Progress goes to stderr; the caller renders the
 * summary of a run over every box.
 */
#ifndef BOX_MIGRATE_RUN_H
#define BOX_MIGRATE_RUN_H

#include "util/err.h"

enum migrate_mode {
	MIGRATE_ONE = 0,	/* box */
	MIGRATE_ALL,		/* every legacy box (BOX_MIGRATE_ONLY: those
				   whose names start with it) */
	MIGRATE_RETIRE,		/* the legacy stack */
	MIGRATE_PROBE		/* the hidden in-box entry */
};

/* Caller-owned: what to do. */
struct migrate_opts {
	int mode;		/* enum migrate_mode */
	const char *box;	/* MIGRATE_ONE: its name */
	int force;		/* do not ask */
};

/* What a MIGRATE_ALL run did, once it tried the boxes (summary set). */
struct migrate_tally {
	int summary;		/* the boxes were tried: show the counts */
	int done, bad;
	char failed[600];	/* the names that were not re-homed */
};

/*
 * Do o (the tally t filled for MIGRATE_ALL).  0, or the failure: a
 * usage error, a gate, an unanswered question, a box not re-homed (with
 * MIGRATE_ALL after trying the rest: interrupted, more boxes than one
 * run takes, or how many were not).
 */
int migrate_run(const struct migrate_opts *o, struct migrate_tally *t,
    struct box_err *e);

#endif
